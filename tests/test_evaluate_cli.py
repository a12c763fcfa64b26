"""`abak-rl evaluate | tournament | curve`: arguments, outputs and error messages."""

import csv
import json

import pytest

from abak_rl.cli import main
from abak_rl.evaluate import curve
from abak_rl.evaluate.args import ArgError, parse, split_list


def test_evaluate_writes_the_json_report(tmp_path, capsys):
    out = tmp_path / "r" / "m.json"
    assert main(["evaluate", "agent=pubeval", "opponent=random", "games=20", "seed=2", f"out={out}"]) == 0
    r = json.loads(out.read_text())
    assert r["agent"] == "pubeval" and r["opponent"] == "random" and r["games"] == 20
    for k in ("ppg", "ppg_ci95", "win_rate", "gammon_rate", "backgammon_rate", "games_per_s"):
        assert isinstance(r[k], float)
    assert "pubeval vs random" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["agent=pubeval", "colour=red"], "unknown key 'colour'"),
    (["agent=pubeval", "games=many"], "games='many': expected an integer"),
    (["opponent=random"], "missing required key agent"),
    (["agent=pubeval", "variant=chess", "games=2"], "unknown variant 'chess'"),
    (["agent=nobody", "games=2"], "unknown agent 'nobody'"),
    (["agent", "games=2"], "not key=value"),
])
def test_evaluate_errors_name_the_problem(argv, message, capsys):
    assert main(["evaluate", *argv]) == 2
    assert message in capsys.readouterr().err


def test_list_arguments_keep_checkpoint_options():
    assert split_list("[random,checkpoint:a.pt,ply=1,pubeval]") == ["random", "checkpoint:a.pt,ply=1", "pubeval"]
    with pytest.raises(ArgError, match="at least one"):
        parse(["agents=[]"], {"agents": (list, None)}, "t")


def test_tournament_writes_table_csv_and_chart(tmp_path, capsys):
    prefix = tmp_path / "t" / "rr"
    assert main(["tournament", "agents=[random,pubeval,heuristic]", "games=20", "bootstrap=30",
                 f"out={prefix}"]) == 0
    res = json.loads(prefix.with_suffix(".json").read_text())
    assert [r["agent"] for r in res["ratings"]] == ["random", "pubeval", "heuristic"]
    assert len(res["matches"]) == 3 and res["ratings"][0]["rating"] == 0
    assert res["ratings"][1]["rating"] > 100     # pubeval rates far above random
    rows = list(csv.DictReader(prefix.with_suffix(".csv").open()))
    assert float(rows[1]["ppg_vs_random"]) == -float(rows[0]["ppg_vs_pubeval"])
    pytest.importorskip("matplotlib")
    assert prefix.with_suffix(".png").stat().st_size > 1000


def test_tournament_refuses_a_single_agent_and_a_stranger_anchor(capsys):
    assert main(["tournament", "agents=[random]", "games=2"]) == 2
    assert "at least 2 agents" in capsys.readouterr().err
    assert main(["tournament", "agents=[random,pubeval]", "games=2", "anchor=gnubg"]) == 2
    assert "anchor 'gnubg' is not one of the agents" in capsys.readouterr().err


def test_tournament_anchor_is_rated_zero(tmp_path):
    from abak_rl.evaluate.tournament import run_tournament
    res = run_tournament(["random", "pubeval"], games=10, bootstrap=5, anchor="pubeval")
    ratings = {r["agent"]: r for r in res["ratings"]}
    assert ratings["pubeval"]["rating"] == 0 and ratings["random"]["rating"] < -100
    assert ratings["pubeval"]["rating_low"] == ratings["pubeval"]["rating_high"] == 0


def test_curve_evaluates_every_checkpoint_in_order(tmp_path, monkeypatch, capsys):
    run = tmp_path / "checkpoints" / "r1"
    run.mkdir(parents=True)
    for name in ("games_000000200.pt", "games_000000100.pt", "latest.pt", "best.pt"):
        (run / name).write_bytes(b"")
    loaded = []

    def fake_load_checkpoint(path):
        return {"counters": {"games": int(path.stem.split("_")[1])}, "variant": "standard"}

    def fake_agent(path, variant, ply):
        loaded.append(path.name)
        from abak_rl.agents.pubeval import PubevalAgent
        return PubevalAgent()

    import abak_rl.train.checkpoint as ck
    monkeypatch.setattr(ck, "load_checkpoint", fake_load_checkpoint)
    monkeypatch.setattr(curve, "_load", fake_agent)
    monkeypatch.chdir(tmp_path)
    tb = tmp_path / "tb"
    assert main(["curve", "run=r1", "opponents=[random]", "games=10", f"tensorboard={tb}"]) == 0
    assert loaded == ["games_000000100.pt", "games_000000200.pt"]
    res = json.loads((run / "curve.json").read_text())
    assert [p["games_trained"] for p in res["points"]] == [100, 200]
    assert all(p["ppg"] > 1 for p in res["points"])
    assert any(tb.iterdir())


def test_curve_without_checkpoints_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["curve", f"run={tmp_path / 'empty'}"]) == 2
    assert "no checkpoints" in capsys.readouterr().err
