"""`abak-rl hint`: ranked plays like GNU Backgammon's hint, and the cube decision before a roll."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from abak_rl.engine import cube as cube_math
from abak_rl.export.cli import hint_main
from abak_rl.export.exporters import export_checkpoint
from abak_rl.inference import load_exported

from test_export import _abak_ok, make_checkpoint

START_ID = "4HPwATDgc/ABMA"   # GNU Backgammon's Position ID of the standard start
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def std(tmp_path_factory):
    d = tmp_path_factory.mktemp("hint")
    make_checkpoint(d / "ckpt.pt", "standard", hidden=16, seed=5)
    export_checkpoint(d / "ckpt.pt", "safetensors,onnx", d / "out", verify=0)
    return d


def run_hint(argv):
    buf = io.StringIO()
    rc = hint_main(argv, stdout=buf)
    return rc, buf.getvalue()


def test_json_ranks_every_legal_play_by_equity(std):
    rc, out = run_hint(["--model", str(std / "out"), "--position-id", START_ID, "--dice", "3", "1", "--json"])
    assert rc == 0
    h = json.loads(out)
    assert h["variant"] == "standard" and h["dice"] == [3, 1] and h["ply"] == 0
    plays = h["plays"]
    assert len(plays) == 16                                   # the 16 distinct 31 plays
    assert len({p["play"] for p in plays}) == 16
    eq = [p["equity"] for p in plays]
    assert eq == sorted(eq, reverse=True)
    assert [p["rank"] for p in plays] == list(range(1, 17)) and plays[0]["diff"] == 0
    for p in plays:
        pr = p["probs"]
        assert list(pr) == ["p_win", "p_wg", "p_wbg", "p_lg", "p_lbg"]
        assert p["equity"] == pytest.approx(2 * pr["p_win"] - 1 + pr["p_wg"] - pr["p_lg"]
                                            + pr["p_wbg"] - pr["p_lbg"], abs=1e-5)
        assert p["afterstate"]["variant"] == "standard"
    # the checkpoint and its export rank the plays the same way
    rc, out2 = run_hint(["--model", str(std / "ckpt.pt"), "--dice", "3", "1", "--json"])
    assert rc == 0
    assert [p["play"] for p in json.loads(out2)["plays"]] == [p["play"] for p in plays]
    # the default position is the start; the same as the position ID
    assert json.loads(out2)["position"] == h["position"]


def test_table_output_and_one_ply(std):
    rc, out = run_hint(["--model", str(std / "out"), "--dice", "6", "5", "--ply", "1", "--top", "3"])
    assert rc == 0
    assert "dice 6-5, 1-ply, 3 play(s) shown" in out
    rows = [line for line in out.splitlines() if line[:3].strip() in ("1", "2", "3") and "/" in line]
    assert len(rows) == 3
    model = load_exported(std / "out")
    best = model.rank_plays(model.variant.initial_boards(1)[0], (6, 5), ply=1)[0]
    assert rows[0].split()[1:3] == best.play.split()         # the 1-ply best play comes first
    assert model.rank_plays(model.variant.initial_boards(1)[0], (6, 5), ply=0)[0].equity != best.equity
    assert "Win" in out and "L bg" in out and "+---" in out  # header and the board diagram


def test_cube_decision_without_dice(std):
    model = load_exported(std / "out")
    # a race: both sides have all 15 checkers home
    pos = {"variant": "standard", "board": [3, 3, 3, 2, 2, 2] + [0] * 12 + [-2, -2, -2, -3, -3, -3],
           "bar": [0, 0], "off": [0, 0]}
    rc, out = run_hint(["--model", str(std / "out"), "--position", json.dumps(pos), "--json"])
    assert rc == 0
    h = json.loads(out)
    c = h["cube"]
    assert h["dice"] is None and c["owner"] == "centred"
    from abak_rl.io.position_json import row_from_json
    _, row = row_from_json(pos)
    probs = model.pre_roll_probs(row)
    # the cube efficiency of the position class (both sides bearing off: 0.6), as evaluate
    # and play decide, not the contact value 0.68
    x = float(cube_math.cube_efficiency(model.variant, row[None])[0])
    assert c["efficiency"] == pytest.approx(x, abs=1e-6) and abs(x - 0.6) < 1e-9
    decision, eq = cube_math.money_cube_decision(probs, np.array([0]), x)
    assert c["decision"] == cube_math.DECISION_NAMES[int(decision[0])]
    assert c["equities"]["no_double"] == pytest.approx(eq[0, 0], abs=1e-5)
    assert c["equities"]["double_take"] == pytest.approx(eq[0, 1], abs=1e-5)
    assert c["equities"]["double_pass"] == 1.0
    assert c["probs"]["p_win"] == pytest.approx(float(probs[0, 0]), abs=1e-5)
    rc, table = run_hint(["--model", str(std / "out"), "--position", json.dumps(pos), "--cube-owner", "opponent"])
    assert rc == 0 and "Proper cube action: No double (opponent owns the cube)" in table


@pytest.mark.skipif(not _abak_ok(), reason="abak engine unavailable")
@pytest.mark.parametrize("ply", [1, 2])
def test_the_cube_hint_at_a_ply_decides_as_evaluate(std, ply):
    """hint's cube at --ply N is evaluate's N-ply cube (each roll played, the next player's
    decision averaged), not Janowski on averaged probabilities; money and match scores."""
    from abak_rl.evaluate.cube_match import make_policy
    from abak_rl.inference import load_exported_agent
    from abak_rl.io.position_json import row_from_json
    model = load_exported(std / "out")
    agent = load_exported_agent(std / "out", model.variant)
    # the mover's last two checkers on its 6 and 5 points: 6 rolls in 36 win at once (exact
    # values), the rest leave the game to the net; the opponent has all 15 to bear off
    pos = {"variant": "standard", "board": [0, 0, 0, 0, 1, 1] + [0] * 12 + [-3] * 5 + [0],
           "bar": [0, 0], "off": [13, 0]}
    _, row = row_from_json(pos)
    policy = make_policy("janowski", agent, ply=ply)
    money = cube_math.CubeContext(value=np.array([1]), owner=np.array([0]))
    _, eq = policy.decide(model.variant, row[None], money)
    rc, out = run_hint(["--model", str(std / "out"), "--position", json.dumps(pos), "--ply", str(ply), "--json"])
    c = json.loads(out)["cube"]
    assert rc == 0 and [c["equities"][k] for k in ("no_double", "double_take")] == pytest.approx(eq[0, :2], abs=1e-5)
    # the old hint: Janowski on the N-ply averaged probabilities, which is another number
    old = cube_math.money_cube_decision(model.pre_roll_probs(row[None], ply=ply), np.array([0]), c["efficiency"])[1]
    assert abs(old[0, 0] - eq[0, 0]) > 1e-4
    match = cube_math.CubeContext(value=np.array([1]), owner=np.array([0]), away=np.array([3]),
                                  opp_away=np.array([5]), met=cube_math.get_met(cube_math.DEFAULT_MET, 7),
                                  crawford=np.array([False]))
    _, meq = policy.decide(model.variant, row[None], match)
    rc, out = run_hint(["--model", str(std / "out"), "--position", json.dumps(pos), "--ply", str(ply),
                        "--match-length", "7", "--score", "4", "2", "--json"])
    m = json.loads(out)["cube"]["equities_mwc"]
    assert rc == 0 and [m["no_double"], m["double_take"]] == pytest.approx(meq[0, :2], abs=1e-5)


def test_abak_hint(tmp_path):
    make_checkpoint(tmp_path / "a.pt", "abak", hidden=8)
    rc, out = run_hint(["--model", str(tmp_path / "a.pt"), "--variant", "abak", "--dice", "4", "2", "--json"])
    assert rc == 0
    h = json.loads(out)
    assert h["variant"] == "abak" and len(h["plays"]) > 1
    assert all(isinstance(s, str) for s in h["plays"][0]["afterstate"]["board"])


@pytest.mark.parametrize("argv, message", [
    (["--dice", "7", "1"], "--dice takes two numbers from 1 to 6"),
    (["--position", "{not json"], "--position is not valid JSON"),
    (["--position", '{"variant": "standard", "board": [1], "bar": [0, 0], "off": [0, 0]}'],
     "'board' must be a list of 24 integers"),
    (["--position-id", "nonsense"], "Position ID"),
    (["--variant", "abak", "--position-id", START_ID], "standard or nackgammon"),
    (["--variant", "chess"], "unknown variant 'chess'"),
    (["--variant", "acey_deucey"], "cannot evaluate acey_deucey positions"),
    (["--dice", "3", "1", "--top", "0"], "--top must be at least 1"),
    (["--position", '{"variant": "standard", "board": [' + "0," * 23 + '-15], "bar": [0, 0], "off": [15, 0]}',
      "--dice", "3", "1"], "the game in this position is over"),
])
def test_bad_input_is_named(std, capsys, argv, message):
    assert hint_main(["--model", str(std / "out")] + argv) == 2
    assert message in capsys.readouterr().err


def test_missing_model(tmp_path, capsys):
    assert hint_main(["--model", str(tmp_path / "nothing"), "--dice", "3", "1"]) == 2
    assert "model not found" in capsys.readouterr().err
