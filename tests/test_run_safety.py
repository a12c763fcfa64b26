"""Training runs a user can trust: folders never shared, locks, Ctrl-C at every moment, slim
snapshots, clear one-line errors for bad paths and values."""

import os
import signal
import subprocess
import sys

import pytest

import abak_rl.train.run as run_mod
from abak_rl.train import rundir
from abak_rl.train.checkpoint import load_checkpoint
from abak_rl.train.run import StopFlag, main, prepare_config, train

TINY = ["model.hidden=8", "train.batch_games=16", "train.batch_states=32", "eval.every=0",
        "eval.final_games=0", "train.checkpoint_every=0", "progress=false", "threads=1"]


def args(tmp_path, *extra, run="t"):
    out = [f"runs_dir={tmp_path}/runs", f"checkpoints_dir={tmp_path}/ckpt", *TINY, *extra]
    return out + ([f"run={run}"] if run else [])


def one_clean_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "\x1b" not in err
    return lines[0]


# -- run folders -------------------------------------------------------------------------------

def test_an_existing_run_name_is_refused_without_resume(tmp_path, capsys):
    assert main(args(tmp_path, "train.games=16")) == 0
    before = sorted(p.name for p in (tmp_path / "ckpt/t").iterdir())
    capsys.readouterr()
    assert main(args(tmp_path, "train.games=16", "seed=1")) == 2
    line = one_clean_line(capsys.readouterr().err)
    assert "run name 't' is taken" in line and f"resume={tmp_path}/ckpt/t" in line
    assert sorted(p.name for p in (tmp_path / "ckpt/t").iterdir()) == before
    (tmp_path / "runs" / "only_logs").mkdir(parents=True)     # a name taken in runs_dir alone
    assert main(args(tmp_path, "train.games=16", run="only_logs")) == 2
    assert "runs/only_logs exists" in capsys.readouterr().err


def test_automatic_names_started_in_the_same_second_get_their_own_folders(tmp_path, monkeypatch):
    monkeypatch.setattr(run_mod, "auto_name", lambda variant: f"{variant}-20260101-000000")
    a = train(prepare_config(args(tmp_path, "train.games=16", run="auto")))
    b = train(prepare_config(args(tmp_path, "train.games=16", "seed=1", run=None)))
    assert (a["run"], b["run"]) == ("standard-20260101-000000", "standard-20260101-000000-2")
    assert load_checkpoint(tmp_path / "ckpt" / a["run"])["config"]["seed"] == 0
    assert load_checkpoint(tmp_path / "ckpt" / b["run"])["config"]["seed"] == 1
    assert load_checkpoint(tmp_path / "ckpt" / b["run"])["config"]["run"] == b["run"]


def test_a_live_lock_refuses_a_second_process_and_a_dead_one_is_taken_over(tmp_path, capsys):
    assert main(args(tmp_path, "train.games=16")) == 0
    lock = tmp_path / "ckpt/t/.lock"
    assert not lock.exists()                                  # released at the end
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_text(f"{live.pid}\n")
        capsys.readouterr()
        assert main([f"resume={tmp_path}/ckpt/t", "train.games=32"]) == 2
        line = one_clean_line(capsys.readouterr().err)
        assert f"in use by process {live.pid}" in line
        assert load_checkpoint(tmp_path / "ckpt/t")["counters"]["games"] < 32
    finally:
        live.kill()
        live.wait()
    lock.write_text(f"{live.pid}\n")                          # that process is gone now
    assert main([f"resume={tmp_path}/ckpt/t", "train.games=32"]) == 0
    assert load_checkpoint(tmp_path / "ckpt/t")["counters"]["games"] >= 32
    assert not lock.exists()


def test_the_lock_holds_while_training_runs(tmp_path):
    seen = []
    lock = rundir.RunLock(tmp_path / "ckpt/t")

    def look(c):
        seen.append(lock.holder())
    train(prepare_config(args(tmp_path, "train.games=16")), on_step=look)
    assert seen and set(seen) == {os.getpid()}
    with pytest.raises(rundir.RunError, match="in use"):
        (tmp_path / "ckpt/t/.lock").write_text(f"{os.getppid()}\n")
        rundir.RunLock(tmp_path / "ckpt/t").acquire()


def test_stale_temp_files_are_removed_when_the_run_starts_again(tmp_path):
    train(prepare_config(args(tmp_path, "train.games=16")))
    stale = tmp_path / "ckpt/t/.latest.pt.abc123.tmp"
    stale.write_bytes(b"x" * 1000)                            # left by a kill -9 mid-write
    other = tmp_path / "ckpt/t/notes.tmp"
    other.write_text("mine")
    train(prepare_config([f"resume={tmp_path}/ckpt/t", "train.games=32"]))
    assert not stale.exists() and other.exists()


def test_resuming_into_another_run_name_needs_a_free_name(tmp_path, capsys):
    train(prepare_config(args(tmp_path, "train.games=16")))
    train(prepare_config(args(tmp_path, "train.games=16", run="u")))
    assert main([f"resume={tmp_path}/ckpt/t", "run=u", "train.games=32"]) == 2
    assert "run name 'u' is taken" in capsys.readouterr().err
    s = train(prepare_config([f"resume={tmp_path}/ckpt/t", "run=v", "train.games=32"]))
    assert s["run"] == "v" and load_checkpoint(tmp_path / "ckpt/t")["counters"]["games"] < 32


def test_the_command_line_is_saved_with_the_run(tmp_path):
    argv = args(tmp_path, "train.games=16", "train.lr=0.005")
    assert main(argv) == 0
    from omegaconf import OmegaConf
    assert list(OmegaConf.load(tmp_path / "runs/t/overrides.yaml")) == argv
    ck = load_checkpoint(tmp_path / "ckpt/t")
    assert ck["launches"][0]["overrides"] == argv
    assert ck["launches"][0]["command"] == ["abak-rl", "train", *argv]
    assert main([f"resume={tmp_path}/ckpt/t", "train.games=32"]) == 0
    launches = load_checkpoint(tmp_path / "ckpt/t")["launches"]
    assert len(launches) == 2 and launches[1]["overrides"][-1] == "train.games=32"
    assert launches[1]["games"] >= 16
    assert list(OmegaConf.load(tmp_path / "runs/t/overrides.yaml")) == argv   # the start's, kept


# -- snapshots -------------------------------------------------------------------------------

def test_snapshots_are_slim_and_only_the_last_few_are_kept(tmp_path, capsys):
    train(prepare_config(args(tmp_path, "train.games=96", "train.checkpoint_every=16",
                              "train.keep_last=2")))
    snaps = sorted((tmp_path / "ckpt/t").glob("games_*.pt"))
    assert [p.name for p in snaps] == ["games_000000080.pt", "games_000000096.pt"]
    snap, latest = load_checkpoint(snaps[-1]), load_checkpoint(tmp_path / "ckpt/t/latest.pt")
    assert "optimizer" not in snap and "selfplay" not in snap and "queue" not in snap
    assert {"optimizer", "selfplay", "queue", "rng"} <= set(latest)
    assert snap["counters"]["games"] == 96 and snap["run_id"] == latest["run_id"]
    assert snaps[-1].stat().st_size < (tmp_path / "ckpt/t/latest.pt").stat().st_size / 3
    from abak_rl.agents.neural import load_neural_agent
    assert load_neural_agent(snaps[0], "standard").name                # still plays
    assert main([f"resume={snaps[0]}", "train.games=128"]) == 2
    line = one_clean_line(capsys.readouterr().err)
    assert "playing snapshot" in line and "latest.pt" in line


def test_full_snapshots_on_request_and_keep_all(tmp_path):
    train(prepare_config(args(tmp_path, "train.games=64", "train.checkpoint_every=16",
                              "train.keep_last=0", "train.full_snapshots=true")))
    snaps = sorted((tmp_path / "ckpt/t").glob("games_*.pt"))
    assert len(snaps) == 4 and "optimizer" in load_checkpoint(snaps[0])


# -- Ctrl-C ----------------------------------------------------------------------------------

def _sigint():
    os.kill(os.getpid(), signal.SIGINT)


def test_latest_is_saved_before_the_final_evaluation_and_ctrl_c_abandons_it(tmp_path, monkeypatch,
                                                                           capsys):
    seen = {}

    def evaluate(agent, variant, opponents, games, seed):
        seen["latest_before_eval"] = (tmp_path / "ckpt/t/latest.pt").is_file()
        _sigint()                                   # Ctrl-C while the evaluation runs
        raise AssertionError("the evaluation should have been interrupted")
    monkeypatch.setattr(run_mod, "evaluate", evaluate)
    assert main(args(tmp_path, "train.games=32", "eval.final_games=100")) == 130
    out = capsys.readouterr()
    assert seen["latest_before_eval"] and "Traceback" not in out.err
    assert "Ctrl-C in the final evaluation" in out.out and "resume=" in out.out
    ck = load_checkpoint(tmp_path / "ckpt/t")
    assert ck["counters"]["games"] >= 32 and ck["counters"]["history"] == []
    assert not (tmp_path / "ckpt/t/best.pt").exists()
    assert not (tmp_path / "ckpt/t/.lock").exists()


def test_ctrl_c_in_a_periodic_evaluation_stops_the_run_and_keeps_its_state(tmp_path, monkeypatch,
                                                                          capsys):
    calls = []

    def evaluate(*a, **k):
        calls.append(1)
        _sigint()
        raise AssertionError("not interrupted")
    monkeypatch.setattr(run_mod, "evaluate", evaluate)
    assert main(args(tmp_path, "train.games=1000", "eval.every=32", "eval.final_games=100")) == 130
    assert len(calls) == 1                           # no final evaluation after a Ctrl-C
    c = load_checkpoint(tmp_path / "ckpt/t")["counters"]
    assert 32 <= c["games"] < 64 and c["history"] == []
    assert "stopped (Ctrl-C)" in capsys.readouterr().out


def test_second_ctrl_c_while_saving_exits_cleanly_and_saves_latest(tmp_path, monkeypatch, capsys):
    """First Ctrl-C mid-run, the second while latest.pt is being written: one message, no
    traceback, and latest.pt is still written (the state between steps is consistent)."""
    real_save, hits = run_mod.save_checkpoint, []

    def save(path, payload):
        if path.name == "latest.pt" and not hits:
            hits.append(1)
            _sigint()                                # second Ctrl-C, inside the save
        return real_save(path, payload)
    monkeypatch.setattr(run_mod, "save_checkpoint", save)
    stop = StopFlag()

    def first(c):
        if c.steps == 3:
            stop("first")                            # what the first Ctrl-C does
    previous = signal.signal(signal.SIGINT, stop)
    try:
        s = train(prepare_config(args(tmp_path, "train.games=100000")), stop=stop, on_step=first)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert s["stopped"] == "second ctrl-c" and s["latest_saved"]
    assert load_checkpoint(tmp_path / "ckpt/t")["counters"]["steps"] == 3
    assert not list((tmp_path / "ckpt/t").glob(".*.tmp"))
    assert "latest.pt not updated" not in run_mod.format_summary(s)


def _interrupt_twice_in_a_step(monkeypatch, latest):
    """SelfPlay whose step sends two SIGINTs two steps after latest.pt first appears."""
    class TwoInterrupts(run_mod.SelfPlay):
        calls, saved_before = 0, None

        def step(self, *a, **k):
            TwoInterrupts.calls += 1
            if latest.is_file() and TwoInterrupts.saved_before is None:   # a periodic save
                TwoInterrupts.saved_before = TwoInterrupts.calls - 1
            if TwoInterrupts.saved_before == TwoInterrupts.calls - 3:      # two steps later
                _sigint()
                _sigint()                            # the second arrives inside the same step
            return super().step(*a, **k)
    monkeypatch.setattr(run_mod, "SelfPlay", TwoInterrupts)
    return TwoInterrupts


def test_second_ctrl_c_inside_a_local_step_lets_it_finish_and_saves(tmp_path, monkeypatch, capsys):
    latest = tmp_path / "ckpt/t/latest.pt"
    sp = _interrupt_twice_in_a_step(monkeypatch, latest)
    assert main(args(tmp_path, "train.games=100000", "train.checkpoint_every=16",
                     "eval.final_games=10")) == 130
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "quitting once this step is done" in out.err
    assert "stopped (second Ctrl-C)" in out.out and "interrupted: saved" in out.out
    assert load_checkpoint(latest)["counters"]["steps"] == sp.saved_before + 3   # that step, done


def test_second_ctrl_c_inside_a_step_that_cannot_wait_keeps_the_last_good_latest(tmp_path,
                                                                               monkeypatch):
    """Ray steps wait on actors, so there the second Ctrl-C stops inside the step: the state is
    then half-way, latest.pt stays the last complete one, and the summary says so."""
    latest = tmp_path / "ckpt/t/latest.pt"
    sp = _interrupt_twice_in_a_step(monkeypatch, latest)

    class RayLike(StopFlag):                         # what the flag does outside a local step
        phase = property(lambda self: "step", lambda self, value: None)
    stop = RayLike()
    previous = signal.signal(signal.SIGINT, stop)
    try:
        s = train(prepare_config(args(tmp_path, "train.games=100000", "train.checkpoint_every=16")),
                  stop=stop)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert s["stopped"] == "second ctrl-c" and not s["latest_saved"]
    assert "latest.pt not updated" in run_mod.format_summary(s)
    assert load_checkpoint(latest)["counters"]["steps"] == sp.saved_before   # not the split step
    assert not (tmp_path / "ckpt/t/.lock").exists()


def test_summary_says_why_the_run_stopped(tmp_path, capsys):
    assert main(args(tmp_path, "train.games=16")) == 0
    assert "stopped (reached train.games=16)" in capsys.readouterr().out


# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, needle", [
    (["runs_dir=/proc/x"], "cannot create /proc/x"),
    (["checkpoints_dir=/proc/x"], "cannot create /proc/x"),
    (["variant=nackgammon", "variant.start=foo"], "variant.start='foo'"),
    (["seed=-1"], "config key seed=-1"),
    (["run=a/b"], "one folder name"),
    (["eval.opponents=[random,checkpoint:/nowhere.pt]"], "/nowhere.pt does not exist"),
])
def test_bad_values_are_one_clean_line(tmp_path, argv, needle, capsys):
    base = [a for a in args(tmp_path, "train.games=16") if a.split("=")[0] not in
            {x.split("=")[0] for x in argv}]
    assert main(base + argv) == 2
    assert needle in one_clean_line(capsys.readouterr().err)


def test_corrupt_and_truncated_checkpoints_are_one_line_without_torch_advice(tmp_path, capsys):
    train(prepare_config(args(tmp_path, "train.games=16")))
    data = (tmp_path / "ckpt/t/latest.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 3])
    (tmp_path / "noise.pt").write_bytes(os.urandom(5000))
    for bad in ("cut.pt", "noise.pt"):
        assert main([f"resume={tmp_path / bad}"]) == 2
        line = one_clean_line(capsys.readouterr().err)
        assert "corrupt or truncated" in line and "weights_only" not in line


def test_eval_opponents_take_any_agent_spec(tmp_path):
    train(prepare_config(args(tmp_path, "train.games=16", run="opp")))
    s = train(prepare_config(args(tmp_path, "train.games=16", "eval.final_games=4",
                                  f"eval.opponents=[heuristic,checkpoint:{tmp_path}/ckpt/opp/latest.pt]",
                                  "eval.best_by=heuristic")))
    assert set(s["final_eval"]) == {"heuristic", f"checkpoint:{tmp_path}/ckpt/opp/latest.pt"}
    assert all("ppg" in r for r in s["final_eval"].values())


def test_curve_reads_only_the_checkpoints_of_the_folders_run(tmp_path, capsys):
    import shutil

    from abak_rl.evaluate.curve import find_checkpoints
    train(prepare_config(args(tmp_path, "train.games=32", "train.checkpoint_every=16")))
    train(prepare_config(args(tmp_path, "train.games=48", "train.checkpoint_every=16", "seed=3", run="o")))
    shutil.copy(tmp_path / "ckpt/o/games_000000048.pt", tmp_path / "ckpt/t/games_000000048.pt")
    files = sorted(p.name for p in find_checkpoints(str(tmp_path / "ckpt/t")))
    assert files == ["games_000000016.pt", "games_000000032.pt"]
    assert "skipping 1 checkpoint(s)" in capsys.readouterr().err


def test_the_progress_bar_shows_one_speed(tmp_path, capsys):
    argv = [a for a in args(tmp_path, "train.games=48", "train.log_every=16") if a != "progress=false"]
    assert main(argv + ["progress=true"]) == 0
    frames = [f for f in capsys.readouterr().err.replace("\n", "\r").split("\r") if "game" in f]
    assert frames and all(f.count("/s") <= 1 for f in frames), frames
    assert any("games/s" in f for f in frames)


def test_ctrl_c_while_the_last_latest_is_written_skips_the_final_evaluation(tmp_path, monkeypatch,
                                                                          capsys):
    real_save, calls = run_mod.save_checkpoint, []
    stop = StopFlag()

    def save(path, payload):
        if path.name == "latest.pt" and not stop.set:
            stop()                                   # the first Ctrl-C, during the write
        return real_save(path, payload)

    def evaluate(*a, **k):
        calls.append(1)
        raise AssertionError("no final evaluation after a Ctrl-C")
    monkeypatch.setattr(run_mod, "save_checkpoint", save)
    monkeypatch.setattr(run_mod, "evaluate", evaluate)
    s = train(prepare_config(args(tmp_path, "train.games=16", "eval.final_games=10")), stop=stop)
    assert s["stopped"] == "ctrl-c" and s["latest_saved"] and not calls
    capsys.readouterr()
    assert main(["--cfg", "job", *args(tmp_path)]) == 0     # an existing name: --cfg job starts nothing


def test_a_new_run_that_fails_before_its_first_checkpoint_frees_its_name(tmp_path, monkeypatch,
                                                                        capsys):
    def broken(*a, **k):
        raise run_mod.CheckpointError("no executor today")
    monkeypatch.setattr(run_mod, "make_executor", broken)
    assert main(args(tmp_path, "train.games=16")) == 2
    assert "no executor today" in capsys.readouterr().err
    assert not (tmp_path / "ckpt/t").exists() and not (tmp_path / "runs/t").exists()
    monkeypatch.undo()
    assert main(args(tmp_path, "train.games=16")) == 0            # the name is free again
    monkeypatch.setattr(run_mod, "make_executor", broken)
    assert main([f"resume={tmp_path}/ckpt/t", "train.games=32"]) == 2
    assert (tmp_path / "ckpt/t/latest.pt").is_file()              # a run's own folder is kept
    assert not (tmp_path / "ckpt/t/.lock").exists()


def test_two_real_ctrl_c_to_the_command_exit_130_without_a_traceback(tmp_path):
    """The installed command in its own process: SIGINT twice in a row, as a user's fingers do."""
    import time
    argv = [sys.executable, "-m", "abak_rl.cli", "train", *args(tmp_path, "train.games=1000000")]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lock = tmp_path / "ckpt/t/.lock"
    deadline = time.time() + 60
    while not lock.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(1.0)                                  # some steps in
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "stopped (second Ctrl-C)" in out or "stopped (Ctrl-C)" in out
    assert load_checkpoint(tmp_path / "ckpt/t")["counters"]["steps"] > 0
    assert not lock.exists()


def test_an_unusable_runs_dir_leaves_no_claimed_checkpoint_folder(tmp_path, capsys):
    """The checkpoints folder is claimed first; when runs_dir cannot be made, the claim is given
    back, so nothing is left behind and the name stays free."""
    from abak_rl.train.run import main
    ckpt = tmp_path / "ckpt"
    rc = main([f"checkpoints_dir={ckpt}", "runs_dir=/proc/x", "run=keepfree", "train.games=10",
               "progress=false"])
    assert rc == 2 and "runs_dir" in capsys.readouterr().err
    assert not (ckpt / "keepfree").exists()
