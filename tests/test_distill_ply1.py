"""scripts/distill_ply1.py: 1-ply labels of self-play positions, a fit toward them, a new checkpoint."""

import sys
from pathlib import Path

import numpy as np

from abak_rl.agents.neural import load_neural_agent
from abak_rl.train.checkpoint import load_checkpoint

from test_widen_net import _trained_expert_net

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def test_labels_are_the_nets_1ply_values_and_the_fit_moves_toward_them(tmp_path, capsys):
    import distill_ply1
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "d.pt"
    args = [str(src), str(out), "--positions", "400", "--chunk", "200", "--epochs", "2", "--lr", "0.02",
            "--batch", "32", "--no-progress"]
    assert distill_ply1.main(args) == 0
    chunks = sorted((tmp_path / "d.pt.data").glob("chunk*.npz"))
    assert len(chunks) == 2
    agent = load_neural_agent(src, "standard")
    with np.load(chunks[0]) as z:
        b, a, y = z["boards"], z["again"], z["target"]
    assert len(b) == 200 and not agent.scorer.exact_mask(b).any()
    np.testing.assert_allclose(y[:25], agent.values(b[:25], a[:25], 1), atol=1e-6)
    new = load_checkpoint(out)
    rep = new["distilled"]
    assert rep["loss_epoch2"] < rep["loss_before"]                 # closer to the labels
    assert any((new["net"][k] != v).any() for k, v in load_checkpoint(src)["net"].items())
    assert set(load_checkpoint(src)) - {"path"} <= set(new)         # still a full, resumable checkpoint
    # a second run reuses the chunks it finds
    stamp = [c.stat().st_mtime_ns for c in chunks]
    assert distill_ply1.main(args[:1] + [str(tmp_path / "e.pt"), "--data", str(tmp_path / "d.pt.data")] + args[2:]) == 0
    assert [c.stat().st_mtime_ns for c in chunks] == stamp
    capsys.readouterr()
    assert distill_ply1.main([str(tmp_path / "missing.pt"), str(out)]) == 2
    assert distill_ply1.main([str(src), str(out), "--epochs", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("distill_ply1: ") for line in err)


def test_every_play_labels_and_a_wider_student(tmp_path, capsys):
    """--all-plays labels every legal play of a roll from the positions met (so several
    afterstates share a position), --student fits another net to the teacher's labels and OUT
    is that net; a student of other inputs is refused in one line."""
    import distill_ply1

    from abak_rl.train.run import main as train_main
    from test_train import TINY
    src = _trained_expert_net(tmp_path)
    wide_dir = tmp_path / "w"
    assert train_main([f"runs_dir={wide_dir}/runs", f"checkpoints_dir={wide_dir}/ckpt", "run=s", *TINY,
                       "train.games=2", "model.phases=contact_race", "model.features=expert",
                       "model.hidden=24"]) == 0
    student = wide_dir / "ckpt" / "s" / "latest.pt"
    out = tmp_path / "stu.pt"
    assert distill_ply1.main([str(src), str(out), "--positions", "300", "--chunk", "300", "--epochs", "2",
                              "--lr", "0.02", "--batch", "32", "--no-progress", "--all-plays",
                              "--student", str(student)]) == 0
    with np.load(tmp_path / "stu.pt.data" / "chunk0000.npz") as z:
        b, a, y = z["boards"], z["again"], z["target"]
    teacher = load_neural_agent(src, "standard")
    assert len(b) == 300 and not teacher.scorer.exact_mask(b).any()
    np.testing.assert_allclose(y[:20], teacher.values(b[:20], a[:20], 1), atol=1e-6)
    # several plays of one position share the other side's checkers (unless one hits): most rows
    # have a twin there, which one play per turn of self-play would not give
    other = np.concatenate([np.minimum(b[:, :24], 0), b[:, [25, 27]]], axis=1)
    _, inverse, counts = np.unique(other, axis=0, return_inverse=True, return_counts=True)
    assert (counts[inverse.ravel()] > 1).mean() > 0.5
    new = load_checkpoint(out)
    assert new["model"]["hidden"] == 24 and new["distilled"]["all_plays"] is True
    assert new["distilled"]["loss_epoch2"] < new["distilled"]["loss_before"]
    # 0-ply labels of the same seed: the same positions, the teacher's own outputs; a folder of
    # 1-ply labels is not reused for them
    z0 = tmp_path / "z0.pt"
    assert distill_ply1.main([str(src), str(z0), "--positions", "300", "--chunk", "300", "--epochs", "1",
                              "--batch", "32", "--no-progress", "--all-plays", "--ply", "0",
                              "--student", str(student)]) == 0
    with np.load(tmp_path / "z0.pt.data" / "chunk0000.npz") as z:
        assert (z["boards"] == b).all() and int(z["ply"]) == 0
        np.testing.assert_allclose(z["target"][:20], teacher.values(b[:20], a[:20], 0), atol=1e-6)
    capsys.readouterr()
    assert distill_ply1.main([str(src), str(z0), "--positions", "300", "--chunk", "300", "--no-progress",
                              "--ply", "0", "--data", str(tmp_path / "stu.pt.data")]) == 2
    assert "holds 1-ply labels" in capsys.readouterr().err
    raw_dir = tmp_path / "r"
    assert train_main([f"runs_dir={raw_dir}/runs", f"checkpoints_dir={raw_dir}/ckpt", "run=r", *TINY,
                       "train.games=2", "model.features=td198", "model.phases=single", "model.bearoff=false"]) == 0
    assert distill_ply1.main([str(src), str(tmp_path / "x.pt"), "--student", str(raw_dir / "ckpt" / "r" / "latest.pt")]) == 2
    assert "feature set" in capsys.readouterr().err


def test_labelling_apart_from_the_fit_and_a_fit_to_several_folders(tmp_path, capsys):
    """--label-only writes a folder's chunks and no checkpoint; --data given twice fits to the
    chunks of both (the labellers of two cores), and refuses folders that hold too few labels,
    another ply's labels, or labelling into several folders at once."""
    import distill_ply1
    src = _trained_expert_net(tmp_path)
    common = ["--chunk", "100", "--no-progress", "--all-plays"]
    for seed, folder in ((11, "a"), (12, "b")):
        assert distill_ply1.main([str(src), str(tmp_path / "unused.pt"), "--positions", "200", "--seed", str(seed),
                                  "--data", str(tmp_path / folder), "--label-only", *common]) == 0
        assert len(list((tmp_path / folder).glob("chunk*.npz"))) == 2
    assert not (tmp_path / "unused.pt").exists()
    with np.load(tmp_path / "a" / "chunk0000.npz") as za, np.load(tmp_path / "b" / "chunk0000.npz") as zb:
        assert za["boards"].shape != zb["boards"].shape or (za["boards"] != zb["boards"]).any()   # their own seeds
    out = tmp_path / "both.pt"
    stamp = {p: p.stat().st_mtime_ns for p in tmp_path.glob("[ab]/chunk*.npz")}
    assert distill_ply1.main([str(src), str(out), "--positions", "400", "--data", str(tmp_path / "a"),
                              "--data", str(tmp_path / "b"), "--epochs", "1", "--batch", "32", *common]) == 0
    rep = load_checkpoint(out)["distilled"]
    assert rep["samples"] + rep["held_out"] == 400                  # all four chunks, two folders
    assert {p: p.stat().st_mtime_ns for p in stamp} == stamp        # nothing relabelled
    capsys.readouterr()
    two = ["--data", str(tmp_path / "a"), "--data", str(tmp_path / "b")]
    assert distill_ply1.main([str(src), str(tmp_path / "x.pt"), "--positions", "500", *two, *common]) == 2
    assert "hold 400 labels, fewer than --positions 500" in capsys.readouterr().err
    assert distill_ply1.main([str(src), str(tmp_path / "x.pt"), "--positions", "400", "--ply", "0", *two, *common]) == 2
    assert "holds 1-ply labels" in capsys.readouterr().err
    assert distill_ply1.main([str(src), str(tmp_path / "x.pt"), "--label-only", *two, *common]) == 2
    assert distill_ply1.main([str(src), str(tmp_path / "x.pt"), "--data", str(tmp_path / "a"),
                              "--data", str(tmp_path / "nowhere"), *common]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "not several" in err[0] and "is not a folder" in err[1]
    assert not (tmp_path / "x.pt").exists()


def test_explored_games_reach_other_positions_and_are_recorded(tmp_path, capsys):
    """--explore E: the labelled games make random plays, so their positions differ from the
    teacher's own games of the same seed; the chunk records E, a fit over both kinds counts the
    explored labels, and an E outside [0, 1] is refused in one line."""
    import distill_ply1
    src = _trained_expert_net(tmp_path)
    common = ["--positions", "100", "--chunk", "100", "--no-progress", "--all-plays", "--label-only", "--seed", "5"]
    assert distill_ply1.main([str(src), str(tmp_path / "u.pt"), "--data", str(tmp_path / "own"), *common]) == 0
    assert distill_ply1.main([str(src), str(tmp_path / "u.pt"), "--data", str(tmp_path / "wild"), "--explore", "0.5",
                              *common]) == 0
    with np.load(tmp_path / "own" / "chunk0000.npz") as a, np.load(tmp_path / "wild" / "chunk0000.npz") as b:
        assert float(a["explore"]) == 0 and float(b["explore"]) == 0.5
        own = {r.tobytes() for r in a["boards"]}
        assert sum(r.tobytes() not in own for r in b["boards"]) > 50
    out = tmp_path / "both.pt"
    assert distill_ply1.main([str(src), str(out), "--positions", "200", "--chunk", "100", "--no-progress",
                              "--data", str(tmp_path / "own"), "--data", str(tmp_path / "wild"), "--epochs", "1",
                              "--batch", "16"]) == 0
    assert load_checkpoint(out)["distilled"]["explored_labels"] == 100
    capsys.readouterr()
    assert distill_ply1.main([str(src), str(out), "--explore", "1.5"]) == 2
    assert capsys.readouterr().err.strip() == "distill_ply1: --explore must be between 0 and 1"


def test_a_students_card_names_it_and_says_how_it_was_fitted(tmp_path):
    """A student written as RUN/latest.pt is named RUN (not after the fresh run it started from),
    and its export's card carries the `distilled` record: teacher, labels, fit, losses."""
    import distill_ply1

    from abak_rl.export.exporters import export_checkpoint
    from abak_rl.train.run import main as train_main
    from test_train import TINY
    src = _trained_expert_net(tmp_path)
    assert train_main([f"runs_dir={tmp_path}/w/runs", f"checkpoints_dir={tmp_path}/w/ckpt", "run=fresh", *TINY,
                       "train.games=2", "model.phases=contact_race", "model.features=expert", "model.hidden=12"]) == 0
    out = tmp_path / "my-student" / "latest.pt"
    out.parent.mkdir()
    assert distill_ply1.main([str(src), str(out), "--positions", "200", "--chunk", "200", "--epochs", "1",
                              "--batch", "32", "--no-progress", "--all-plays",
                              "--student", str(tmp_path / "w" / "ckpt" / "fresh" / "latest.pt")]) == 0
    assert load_checkpoint(out)["config"]["run"] == "my-student"
    card = export_checkpoint(str(out), ["safetensors"], str(tmp_path / "exp"), verify=0)
    assert card["name"] == "my-student"
    d = card["training"]["distilled"]
    assert d["from"] == str(src) and d["ply"] == 1 and d["all_plays"] and d["samples"] + d["held_out"] == 200
    assert d["loss_epoch1"] < d["loss_before"] and "earlier" not in d
    # a fine-tune of that student keeps the student's own fit as its first earlier step, so the
    # card tells the whole recipe (teacher's labels, then the student's own)
    ft = tmp_path / "ft" / "latest.pt"
    ft.parent.mkdir()
    assert distill_ply1.main([str(out), str(ft), "--positions", "100", "--chunk", "100", "--epochs", "1",
                              "--batch", "32", "--no-progress", "--all-plays", "--top", "3", "--ply", "0",
                              "--data", str(tmp_path / "ftlab")]) == 0
    ft2 = tmp_path / "ft2.pt"
    assert distill_ply1.main([str(ft), str(ft2), "--positions", "100", "--epochs", "1", "--batch", "32",
                              "--no-progress", "--all-plays", "--top", "3", "--ply", "0",
                              "--data", str(tmp_path / "ftlab")]) == 0
    card = export_checkpoint(str(ft2), ["safetensors"], str(tmp_path / "exp2"), verify=0)
    d2 = card["training"]["distilled"]
    assert d2["from"] == str(ft) and d2["ply"] == 0
    assert [e["from"] for e in d2["earlier"]] == [str(out), str(src)]
    assert d2["earlier"][1]["student"] == str(tmp_path / "w" / "ckpt" / "fresh" / "latest.pt")
    assert all("earlier" not in e for e in d2["earlier"])


def _top_plays_by_hand(scorer, after, n: int, top: int) -> list:
    """Per position j < n, a plain selection: (its plays, their 0-ply equities, the indices of
    its `top` best plays, best first)."""
    from abak_rl.model.outcomes import equity
    rolls = []
    for j in range(n):
        b = after.boards[after.parent == j]
        eq = equity(scorer.probs(b, np.zeros(len(b), dtype=bool)))
        rolls.append((b, eq, np.argsort(-eq, kind="stable")[:top]))
    return rolls


def test_top_plays_at_two_ply(tmp_path, capsys):
    """--top K keeps only each roll's K best plays by the teacher's 0-ply equity (checked against
    a plain per-position selection), and --ply 2 labels them with the teacher's 2-ply values;
    --top without --all-plays is refused in one line."""
    import distill_ply1
    src = _trained_expert_net(tmp_path)
    agent = load_neural_agent(src, "standard")
    scorer, v = agent.scorer, agent.scorer.variant
    before = np.repeat(v.initial_boards(1), 6, axis=0)
    got = distill_ply1.plays_of(scorer, before, np.random.default_rng(3), top=3)
    rng = np.random.default_rng(3)
    dice = rng.integers(1, 7, size=(len(before), 2)).astype(np.int8)
    after = v.legal_afterstates(before, dice)
    want = np.concatenate([b[order] for b, _, order in _top_plays_by_hand(scorer, after, len(before), 3)])
    assert len(got) == len(want) < len(after.boards)
    assert sorted(map(bytes, got)) == sorted(map(bytes, want))
    out = tmp_path / "p2.pt"
    assert distill_ply1.main([str(src), str(out), "--positions", "12", "--chunk", "12", "--label-only",
                              "--all-plays", "--top", "2", "--ply", "2", "--no-progress"]) == 0
    with np.load(tmp_path / "p2.pt.data" / "chunk0000.npz") as z:
        assert int(z["ply"]) == 2 and int(z["top"]) == 2 and len(z["boards"]) == 12
        np.testing.assert_allclose(z["target"][:4], agent.values(z["boards"][:4], z["again"][:4], 2), atol=1e-6)
    capsys.readouterr()
    assert distill_ply1.main([str(src), str(out), "--top", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["distill_ply1: --top must be at least 1, and needs --all-plays"]
    # --any-ply fits 2-ply and 1-ply folders together and records each ply's count; without it
    # the mix is refused
    one = tmp_path / "p1"
    assert distill_ply1.main([str(src), str(tmp_path / "u.pt"), "--positions", "12", "--chunk", "12",
                              "--label-only", "--all-plays", "--data", str(one), "--no-progress"]) == 0
    fit = [str(src), str(tmp_path / "mix.pt"), "--data", str(tmp_path / "p2.pt.data"), "--data", str(one),
           "--positions", "24", "--epochs", "1", "--batch", "8", "--no-progress"]
    capsys.readouterr()
    assert distill_ply1.main(fit) == 2
    assert "--any-ply fits a mix" in capsys.readouterr().err
    assert distill_ply1.main(fit + ["--any-ply"]) == 0
    rec = load_checkpoint(tmp_path / "mix.pt")["distilled"]
    assert rec["ply"] == "mixed" and rec["labels_by_ply"] == {"2": 12, "1": 12}
    assert distill_ply1.main(fit[:2] + ["--any-ply"]) == 2


def test_two_ply_labels_with_gnubgs_reply_choice(tmp_path, capsys):
    """--reply-k 1 labels with 2-ply values whose replies are picked at 0-ply (GNU Backgammon's
    2-ply): the values are the search's with that filter, the chunk records the filter, a folder
    of the default filter's labels is not silently extended with them, the fit counts each, and
    the options are refused below --ply 2 or with a bad value, in one line."""
    import distill_ply1

    from abak_rl.agents.search import MoveFilter
    src = _trained_expert_net(tmp_path)
    gnu = load_neural_agent(src, "standard", reply=MoveFilter(1, 0.04))
    default = load_neural_agent(src, "standard")
    data = tmp_path / "r1"
    args = [str(src), str(tmp_path / "u.pt"), "--positions", "12", "--chunk", "12", "--label-only",
            "--all-plays", "--top", "2", "--ply", "2", "--no-progress"]
    assert distill_ply1.main(args + ["--data", str(data), "--reply-k", "1"]) == 0
    with np.load(data / "chunk0000.npz") as z:
        assert str(z["reply"]) == "1/0.04"
        b, a, t = z["boards"], z["again"], z["target"]
    np.testing.assert_allclose(t, gnu.values(b, a, 2), atol=1e-6)
    assert not np.allclose(gnu.values(b, a, 2), default.values(b, a, 2), atol=1e-6)   # a real difference
    assert distill_ply1.main(args + ["--data", str(tmp_path / "r2")]) == 0
    capsys.readouterr()
    more = [x if x != "12" else "24" for x in args[:4]] + args[4:]
    assert distill_ply1.main(more + ["--data", str(data)]) == 2      # the default filter into r1's folder
    assert "with the reply filter 1/0.04, not 2/0.04" in capsys.readouterr().err
    fit = [str(src), str(tmp_path / "both.pt"), "--data", str(data), "--data", str(tmp_path / "r2"),
           "--positions", "24", "--ply", "2", "--epochs", "1", "--batch", "8", "--no-progress"]
    assert distill_ply1.main(fit) == 0
    assert load_checkpoint(tmp_path / "both.pt")["distilled"]["two_ply_replies"] == {"1/0.04": 12, "2/0.04": 12}
    assert load_checkpoint(tmp_path / "both.pt")["distilled"]["screens"] == {"none": 24}
    capsys.readouterr()
    for bad, msg in ((["--reply-k", "1"], "apply only with --ply 2"),
                     (["--ply", "2", "--reply-k", "x"], "reply_k='x'"),
                     (["--ply", "2", "--reply-margin", "-1"], "margin")):
        assert distill_ply1.main([str(src), str(tmp_path / "n.pt")] + bad) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("distill_ply1: ") and msg in err[0]


def test_labels_searched_with_a_screen(tmp_path, capsys):
    """--screen S --screen-k K labels with the search whose deepest choices S screens (the
    values are that agent's), the chunk records the screen, a folder of screened labels is not
    extended without it, and the option is refused at --ply 0 or with a k below 1."""
    import distill_ply1

    src = _trained_expert_net(tmp_path)
    screened = load_neural_agent(src, "standard", screen=src, screen_k=2)
    data = tmp_path / "s"
    args = [str(src), str(tmp_path / "u.pt"), "--chunk", "12", "--label-only", "--all-plays", "--ply", "1",
            "--no-progress", "--data", str(data)]
    assert distill_ply1.main(args + ["--positions", "12", "--screen", str(src), "--screen-k", "2"]) == 0
    with np.load(data / "chunk0000.npz") as z:
        assert str(z["screen"]) == "latest.pt/2"
        np.testing.assert_allclose(z["target"], screened.values(z["boards"], z["again"], 1), atol=1e-6)
    capsys.readouterr()
    assert distill_ply1.main(args + ["--positions", "24"]) == 2
    assert "with the screen latest.pt/2, not none" in capsys.readouterr().err
    for bad in (["--ply", "0", "--screen", str(src)], ["--screen", str(src), "--screen-k", "0"]):
        assert distill_ply1.main([str(src), str(tmp_path / "n.pt")] + bad) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == ["distill_ply1: --screen applies only with --ply 1 or 2 or --rollout, and --screen-k must be at least 1"]
    # --screen-margin: the chunk records it, the values are that search's
    margined = load_neural_agent(src, "standard", screen=src, screen_k=3, screen_margin=0.05)
    data2 = tmp_path / "m"
    args2 = args[:-1] + [str(data2)]
    assert distill_ply1.main(args2 + ["--positions", "12", "--screen", str(src), "--screen-k", "3",
                                      "--screen-margin", "0.05"]) == 0
    with np.load(data2 / "chunk0000.npz") as z:
        assert str(z["screen"]) == "latest.pt/3/0.05"
        np.testing.assert_allclose(z["target"], margined.values(z["boards"], z["again"], 1), atol=1e-6)
    for bad in (["--screen-margin", "0.1"], ["--ply", "1", "--screen", str(src), "--screen-margin", "-1"],
                ["--ply", "1", "--screen", str(src), "--screen-margin", "inf"]):
        assert distill_ply1.main([str(src), str(tmp_path / "n.pt")] + bad) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == ["distill_ply1: --screen-margin needs --screen, and must be a number >= 0"]


def test_fewer_labels_than_a_batch_still_fit(tmp_path, capsys):
    """A fit to fewer labels than --batch took no step at all and wrote the teacher unchanged
    (found by the 2-ply round of train_standard_student.sh run small)."""
    import distill_ply1
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "few.pt"
    assert distill_ply1.main([str(src), str(out), "--positions", "60", "--chunk", "60", "--epochs", "3",
                              "--lr", "0.01", "--batch", "256", "--no-progress"]) == 0
    new = load_checkpoint(out)
    assert new["distilled"]["samples"] < 256
    assert any((new["net"][k] != v).any() for k, v in load_checkpoint(src)["net"].items())
    with np.load(next((tmp_path / "few.pt.data").glob("chunk*.npz"))) as z:
        b, a, y = z["boards"], z["again"], z["target"]
    err = [float(((load_neural_agent(p, "standard").values(b, a, 0) - y) ** 2).mean()) for p in (src, out)]
    assert err[1] < err[0]                                          # closer to its labels


def test_a_fine_tune_is_named_after_its_output_not_its_teacher(tmp_path):
    """A fine-tune (no --student) kept its teacher's run name, so the shipped fine-tuned net's
    card read "std-stu" like the student it came from."""
    import distill_ply1
    src = _trained_expert_net(tmp_path)
    out = tmp_path / "std-stu-ft2" / "latest.pt"
    out.parent.mkdir()
    assert distill_ply1.main([str(src), str(out), "--positions", "60", "--chunk", "60", "--epochs", "1",
                              "--no-progress"]) == 0
    assert load_checkpoint(src)["config"]["run"] != "std-stu-ft2"
    assert load_checkpoint(out)["config"]["run"] == "std-stu-ft2"


def test_top_plays_within_a_margin(tmp_path, capsys):
    """--top-margin M keeps, of each roll's --top best plays, only those within M of the roll's
    best 0-ply equity (checked against a plain per-position selection); the chunk records it, a
    folder of plain --top labels is not silently extended with them, the fit counts each choice,
    and a margin without --top, or a negative one, is refused in one line."""
    import distill_ply1

    src = _trained_expert_net(tmp_path)
    agent = load_neural_agent(src, "standard")
    scorer, v = agent.scorer, agent.scorer.variant
    rng = np.random.default_rng(11)
    before = v.flip(np.repeat(v.initial_boards(1), 40, axis=0))
    dice = rng.integers(1, 7, size=(len(before), 2)).astype(np.int8)
    after = v.legal_afterstates(before, dice)
    rolls = _top_plays_by_hand(scorer, after, len(before), 5)
    margin = float(np.median([eq[o[0]] - eq[o[-1]] for _, eq, o in rolls])) / 2   # this net's scale
    want = np.concatenate([b[o[eq[o] >= eq[o[0]] - margin]] for b, eq, o in rolls])
    top5 = sum(len(o) for _, _, o in rolls)
    got = distill_ply1.plays_of(scorer, before, np.random.default_rng(11), top=5, top_margin=margin)
    assert len(got) == len(want) < top5                         # the margin really drops plays
    assert sorted(map(bytes, got)) == sorted(map(bytes, want))
    data = tmp_path / "m"
    args = [str(src), str(tmp_path / "u.pt"), "--positions", "12", "--chunk", "12", "--label-only",
            "--all-plays", "--top", "3", "--ply", "0", "--no-progress", "--data"]
    assert distill_ply1.main(args + [str(data), "--top-margin", "0.05"]) == 0
    with np.load(data / "chunk0000.npz") as z:
        assert int(z["top"]) == 3 and float(z["top_margin"]) == 0.05
    assert distill_ply1.main(args + [str(tmp_path / "plain")]) == 0
    capsys.readouterr()
    more = [x if x != "12" else "24" for x in args[:4]] + args[4:]
    assert distill_ply1.main(more + [str(data)]) == 2            # plain --top 3 into the margin's folder
    assert "holds labels of the plays top3/0.05, not top3" in capsys.readouterr().err
    fit = [str(src), str(tmp_path / "both.pt"), "--data", str(data), "--data", str(tmp_path / "plain"),
           "--positions", "24", "--ply", "0", "--epochs", "1", "--batch", "8", "--no-progress"]
    assert distill_ply1.main(fit) == 0
    assert load_checkpoint(tmp_path / "both.pt")["distilled"]["plays"] == {"top3/0.05": 12, "top3": 12}
    for bad in (["--all-plays", "--top-margin", "0.1"], ["--all-plays", "--top", "3", "--top-margin", "-1"]):
        capsys.readouterr()
        assert distill_ply1.main([str(src), str(tmp_path / "x.pt")] + bad) == 2
        assert capsys.readouterr().err.strip().splitlines() == [
            "distill_ply1: --top-margin needs --top, and must be a number >= 0"]


def test_rollout_labels(tmp_path, capsys):
    """--rollout TxD labels each afterstate with the teacher's truncated rollouts (chunk k's dice
    from seed * 1000 + k, a screen picking their plays), the chunk and the fit's card say so, a
    folder of rollouts is neither extended with search labels nor fitted as 0-ply ones, and bad
    values are refused in one line."""
    import distill_ply1

    from abak_rl.agents.rollout import rollout_values
    src = _trained_expert_net(tmp_path)
    screened = load_neural_agent(src, "standard", screen=src, screen_k=2)
    data = tmp_path / "r"
    args = [str(src), str(tmp_path / "u.pt"), "--chunk", "10", "--all-plays", "--top", "3", "--ply", "0",
            "--no-progress", "--data", str(data)]
    scr = ["--screen", str(src), "--screen-k", "2"]
    assert distill_ply1.main(args + scr + ["--positions", "20", "--label-only", "--rollout", "4x3", "--seed", "7"]) == 0
    for k in (0, 1):
        with np.load(data / f"chunk000{k}.npz") as z:
            assert str(z["rollout"]) == "4x3" and int(z["ply"]) == 0 and str(z["screen"]) == "latest.pt/2"
            want = rollout_values(screened.search(), z["boards"], z["again"], 4, 3, seed=7000 + k)
            np.testing.assert_allclose(z["target"], want, atol=1e-6)
            assert not np.allclose(z["target"], screened.values(z["boards"], z["again"], 0), atol=1e-3)
    assert distill_ply1.main(args + scr + ["--positions", "20", "--rollout", "4x3", "--seed", "7", "--epochs", "1"]) == 0
    card = load_checkpoint(tmp_path / "u.pt")["distilled"]
    assert card["ply"] == "rollout" and card["labels_by_teacher"] == {"rollout 4x3": 20}
    assert card["rollouts"] == {"4x3": 20}
    capsys.readouterr()
    assert distill_ply1.main(args + ["--positions", "30", "--label-only"]) == 2          # 0-ply labels, not rollouts
    assert "holds rollout 4x3 labels, not 0-ply" in capsys.readouterr().err
    assert distill_ply1.main([str(src), str(tmp_path / "f.pt"), "--data", str(data), "--data", str(data),
                              "--positions", "20", "--ply", "0", "--no-progress"]) == 2
    assert "holds rollout 4x3 labels, not 0-ply" in capsys.readouterr().err
    # 2x2vr: variance reduction, its own kind of label
    vr_data = tmp_path / "v"
    assert distill_ply1.main([str(src), str(tmp_path / "u.pt"), "--chunk", "10", "--all-plays", "--top", "3",
                              "--ply", "0", "--no-progress", "--data", str(vr_data), "--positions", "10",
                              "--label-only", "--rollout", "2x2vr", "--seed", "7"]) == 0
    with np.load(vr_data / "chunk0000.npz") as z:
        assert str(z["rollout"]) == "2x2vr"
        want = rollout_values(load_neural_agent(src, "standard").search(), z["boards"], z["again"], 2, 2,
                              seed=7000, variance_reduction=True)
        np.testing.assert_allclose(z["target"], want, atol=1e-6)
    for bad, why in ((["--rollout", "72"], "TRIALSxDEPTH"), (["--rollout", "0x6"], "TRIALSxDEPTH"),
                     (["--rollout", "4x6v"], "TRIALSxDEPTH"),
                     (["--rollout", "72x6", "--ply", "2"], "with --ply 0")):
        assert distill_ply1.main([str(src), str(tmp_path / "n.pt"), "--ply", "0"] + bad) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("distill_ply1: --rollout") and why in err[0]


def test_chunks_record_which_afterstates_are_siblings(tmp_path, capsys):
    """Each chunk's `group` is the same number for the plays of one roll from one position (each
    group's afterstates are all legal plays of one position and roll of the games), and every
    afterstate its own group without --all-plays; scripts/regroup_chunks.py finds an old
    chunk's groups again, and refuses a chunk its teacher and seed do not make again."""
    import distill_ply1
    import regroup_chunks
    src = _trained_expert_net(tmp_path)
    scorer = load_neural_agent(src, "standard").scorer
    v = scorer.variant
    before = v.initial_boards(1)
    before = np.concatenate([before, v.flip(v.legal_afterstates(before, np.array([[3, 1]], np.int8)).boards)])
    got, parent = distill_ply1.plays_and_parents(scorer, before, np.random.default_rng(5), top=4)
    dice = np.random.default_rng(5).integers(1, 7, size=(len(before), 2)).astype(np.int8)
    for p in range(len(before)):
        legal = set(map(bytes, v.legal_afterstates(before[p:p + 1], dice[p:p + 1]).boards))
        mine = got[parent == p]
        assert 1 <= len(mine) <= 4 and set(map(bytes, mine)) <= legal
    out = tmp_path / "g.pt"
    assert distill_ply1.main([str(src), str(out), "--positions", "120", "--chunk", "60", "--label-only",
                              "--all-plays", "--top", "3", "--ply", "0", "--seed", "9", "--no-progress"]) == 0
    chunks = sorted((tmp_path / "g.pt.data").glob("chunk*.npz"))
    groups = [np.load(c)["group"] for c in chunks]
    sizes = np.unique(groups[0], return_counts=True)[1]
    assert sizes.max() <= 3 and (sizes > 1).any()
    one = tmp_path / "one"
    assert distill_ply1.main([str(src), str(tmp_path / "u.pt"), "--positions", "50", "--chunk", "50",
                              "--label-only", "--ply", "0", "--data", str(one), "--no-progress"]) == 0
    assert len(np.unique(np.load(one / "chunk0000.npz")["group"])) == 50
    # an old chunk without groups gets the same groups back; another seed's afterstates do not match
    for c in chunks:
        with np.load(c) as z:
            part = {k: z[k] for k in z.files if k != "group"}
        np.savez_compressed(c, **part)
    stamp = chunks[1].read_bytes()
    capsys.readouterr()
    assert regroup_chunks.main([str(src), str(tmp_path / "g.pt.data"), "--seed", "8"]) == 1
    assert "not made again" in capsys.readouterr().out and chunks[1].read_bytes() == stamp
    assert regroup_chunks.main([str(src), str(tmp_path / "g.pt.data"), "--seed", "9"]) == 0
    for c, g in zip(chunks, groups):
        np.testing.assert_array_equal(np.load(c)["group"], g)
    assert regroup_chunks.main([str(src), str(tmp_path / "missing"), "--seed", "9"]) == 2
    assert "holds no chunk files" in capsys.readouterr().err
    # a damaged chunk is named, left as it was, and the others still get their groups
    for c in chunks:
        with np.load(c) as z:
            part = {k: z[k] for k in z.files if k != "group"}
        np.savez_compressed(c, **part)
    chunks[0].write_bytes(b"not an archive")
    assert regroup_chunks.main([str(src), str(tmp_path / "g.pt.data"), "--seed", "9"]) == 1
    out = capsys.readouterr().out
    assert f"{chunks[0]} is not a readable chunk of labels" in out and "1 left as they were" in out
    assert chunks[0].read_bytes() == b"not an archive"
    np.testing.assert_array_equal(np.load(chunks[1])["group"], groups[1])


def test_a_damaged_chunk_is_named_in_one_line(tmp_path, capsys):
    """A chunk file that is not a readable .npz of labels (damaged, or another kind of file) stops
    a fit, or a labeller that meets it, with one line naming it; nothing is written."""
    import distill_ply1
    src = _trained_expert_net(tmp_path)
    data = tmp_path / "lab"
    args = [str(src), str(tmp_path / "u.pt"), "--positions", "100", "--chunk", "50", "--ply", "0",
            "--data", str(data), "--no-progress"]
    assert distill_ply1.main(args + ["--label-only"]) == 0
    (data / "chunk0001.npz").write_bytes(b"PK\x03\x04 cut short")
    np.savez_compressed(data / "chunk0002.npz", boards=np.zeros((3, 30), np.int8))     # no targets
    capsys.readouterr()
    assert distill_ply1.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"distill_ply1: {data / 'chunk0001.npz'} is not a readable chunk of labels "
                   f"(damaged, or not a .npz archive: BadZipFile)"]
    assert not (tmp_path / "u.pt").exists()
    (data / "chunk0001.npz").unlink()
    (data / "chunk0002.npz").rename(data / "chunk0001.npz")
    assert distill_ply1.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"distill_ply1: {data / 'chunk0001.npz'} is not a chunk of labels: it has no boards or no targets"]


def test_a_fit_that_weighs_the_differences_between_siblings(tmp_path, capsys):
    """sibling_loss is the squared error left once each group's mean error is off (nothing for
    an error a group shares); --sibling-weight fits with it and records its weight, and chunks
    without groups are refused in one line."""
    import torch

    import distill_ply1
    err = torch.tensor([[1.0, 2, 0, 0, 0], [3.0, 2, 0, 0, 0], [5.0, 5, 5, 5, 5]])
    got = distill_ply1.sibling_loss(err, np.array([7, 7, 2]))
    assert abs(float(got) - 0.5 * (1 + 1) / 3) < 1e-6          # the lone row and the shared 2 add nothing
    assert float(distill_ply1.sibling_loss(err, np.array([1, 2, 3]))) == 0.0
    src = _trained_expert_net(tmp_path)
    data = tmp_path / "lab"
    base = [str(src), str(tmp_path / "u.pt"), "--positions", "200", "--chunk", "100", "--all-plays",
            "--top", "3", "--data", str(data), "--no-progress"]
    assert distill_ply1.main(base + ["--label-only"]) == 0          # 1-ply labels: something to fit
    out = tmp_path / "sib.pt"
    fit = [str(src), str(out), "--data", str(data), "--positions", "200", "--all-plays", "--top", "3",
           "--epochs", "2", "--lr", "0.02", "--batch", "32", "--no-progress"]
    assert distill_ply1.main(fit + ["--sibling-weight", "2"]) == 0
    rec = load_checkpoint(out)["distilled"]
    assert rec["sibling_weight"] == 2.0 and rec["loss_epoch2"] < rec["loss_before"]
    with np.load(data / "chunk0000.npz") as z:
        part = {k: z[k] for k in z.files if k != "group"}
    np.savez_compressed(data / "chunk0000.npz", **part)
    capsys.readouterr()
    assert distill_ply1.main(fit + ["--sibling-weight", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "records no groups" in err[0] and "regroup_chunks.py" in err[0]
    assert distill_ply1.main(fit + ["--sibling-weight", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "distill_ply1: --sibling-weight must be a number >= 0"
