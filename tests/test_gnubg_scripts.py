"""The GNU Backgammon figure scripts run and report what their docstrings promise (tiny runs;
the figures come from running them, see docs/gnubg.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from abak_rl.agents.gnubg_program import find_gnubg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
needs_gnubg = pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (the gnubg program) "
                                 "is not installed: apt-get install gnubg")


def test_cube_positions_include_every_decision_to_double():
    # each position where the net doubled is a candidate, with the cube as it was before the
    # double (a regression: the turned cube once hid every one of them)
    import numpy as np
    import compare_cube_gnubg
    from abak_rl.agents.cube_policies import JanowskiCube
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.cube import CubeContext
    from abak_rl.engine.variants import get_variant
    from abak_rl.evaluate.cube_match import probs_fn_for
    from abak_rl.evaluate.cube_records import play_recorded
    std = get_variant("standard")
    net = make_agent(compare_cube_gnubg.NET, std, 0)
    pol = JanowskiCube(probs_fn_for(net), "auto")
    _, per_slot = play_recorded(std, [net, net], [pol, pol], np.arange(4), 0, ("a", "b"))
    doubles = sum(t.get("cube") == "double" for s in per_slot for r in s for t in r["turns"])
    assert doubles > 0
    rows, values, owners = compare_cube_gnubg.candidates(per_slot, std)
    offers = pol.offer(std, rows, CubeContext(value=values, owner=owners))
    assert offers.sum() == doubles


@needs_gnubg

def test_compare_cube_reports_agreement_and_equity_lost(capsys):
    import compare_cube_gnubg
    assert compare_cube_gnubg.main(["--agent", "pubeval", "--positions", "20", "--games", "2",
                                    "--plies", "0"]) == 2      # pubeval has no cube evaluator
    capsys.readouterr()
    assert compare_cube_gnubg.main(["--positions", "30", "--games", "2", "--plies", "0", "--worst", "4"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["positions"] == 30 and r["all"]["decisions"] == 60
    # the split by position class adds up to the totals
    parts = r["by_class"].values()
    assert set(r["by_class"]) == {"contact", "race", "bearoff"}
    assert sum(c["positions"] for c in parts) == 30
    assert sum(c["double_lost"] for c in parts) / 30 == pytest.approx(r["double"]["mean_equity_lost"])
    assert (sum(c["double_wrong"] for c in parts)
            == r["double"]["we_double_gnubg_not"] + r["double"]["gnubg_doubles_we_not"])
    assert sum(c["gnubg_doubles"] for c in parts) == r["take_on_gnubg_doubles"]["decisions"]
    if r["take_on_gnubg_doubles"]["decisions"]:
        assert (sum(c["take_lost_on_gnubg_doubles"] for c in parts) / r["take_on_gnubg_doubles"]["decisions"]
                == pytest.approx(r["take_on_gnubg_doubles"]["mean_equity_lost"]))
    # the costliest wrong decisions, largest first, each a readable position with both probability sets
    from abak_rl.io.gnubg_id import decode
    worst = r["worst"]
    wrong = sum(c["double_wrong"] for c in parts) + r["take"]["we_take_gnubg_passes"] + r["take"]["we_pass_gnubg_takes"]
    assert len(worst) == min(4, wrong)
    assert [w["lost"] for w in worst] == sorted((w["lost"] for w in worst), reverse=True)
    for w in worst:
        assert w["lost"] > 0 and w["decision"] in ("double", "take") and decode(w["position_id"]).shape
        assert len(w["probs_ours"]) == len(w["probs_gnubg0"]) == 5
    for part in ("double", "take", "all"):
        assert 0 <= r[part]["agreement"] <= 1 and r[part]["mean_equity_lost"] >= 0
    assert set(r["probability_bias"]["all"]) == {"p_win", "p_wg", "p_wbg", "p_lg", "p_lbg"}
    assert max(abs(v) for v in r["probability_bias"]["all"].values()) < 0.2
    # gnubg 0-ply's own probabilities judged by gnubg 0-ply: the same answers but for the
    # cube efficiency (ours by class is gnubg's) -- near-total agreement
    assert compare_cube_gnubg.main(["--positions", "30", "--games", "2", "--plies", "0",
                                    "--probs", "gnubg0"]) == 0
    g = json.loads(capsys.readouterr().out)
    assert g["probs"] == "gnubg0" and g["all"]["agreement"] >= 0.95
    assert g["all"]["mean_equity_lost"] <= r["all"]["mean_equity_lost"] + 1e-9
    # the 2-ply cube (evaluate cube_ply=2) is judged the same way
    assert compare_cube_gnubg.main(["--positions", "4", "--games", "2", "--plies", "0", "--cube-ply", "2"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert t["cube_ply"] == 2 and t["all"]["decisions"] == 8 and 0 <= t["all"]["agreement"] <= 1


@needs_gnubg
def test_compare_cube_window_keeps_live_positions(capsys):
    import compare_cube_gnubg
    from abak_rl.engine.variants import get_variant
    start = get_variant("standard").initial_boards(1)
    assert abs(compare_cube_gnubg.gnubg_win_chance(start)[0] - 0.5) < 0.05
    assert compare_cube_gnubg.main(["--window", "0.55"]) == 2
    assert "expected LO,HI" in capsys.readouterr().err
    assert compare_cube_gnubg.main(["--positions", "12", "--games", "8", "--plies", "0",
                                    "--window", "0.55,0.95"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["window"] == [0.55, 0.95] and r["positions"] == 12
    t = r["take_on_gnubg_doubles"]
    assert t["decisions"] == r["double"]["gnubg_doubles"]


@needs_gnubg
def test_gnubg_match_equities_map_back_to_our_match_winning_chances():
    # gnubg gives match cube equities normalised to money units; mapped back through the table
    # they must be the MWC engine/cube.py computes from gnubg's own 0-ply probabilities
    import gnubg_nn
    import numpy as np
    import compare_cube_gnubg
    from abak_rl.agents.gnubg_agent import to_gnubg
    from abak_rl.agents.gnubg_program import GnubgCube, GnubgProgram
    from abak_rl.engine.cube import CubeContext, cube_decision, cube_efficiency, load_met
    from abak_rl.engine.variants import get_variant
    from abak_rl.io import gnubg_id
    std, met = get_variant("standard"), load_met()
    rows = np.stack([gnubg_id.decode(p) for p in ("4HPwATDgc/ABMA", "4PPgAyDg8+ABMA", "sHPwATDgc/ABMA")])
    probs = np.array([gnubg_nn.probabilities(to_gnubg(r), 0) for r in rows])
    with GnubgProgram() as prog:
        for away, opp in ((3, 5), (5, 3), (2, 2 + 2), (4, 1)):
            n = len(rows)
            ctx = CubeContext(np.ones(n, int), np.zeros(n, int), np.full(n, away),
                              np.full(n, opp), met, np.zeros(n, bool))
            emg = GnubgCube(0, prog).evaluate(rows, ctx)
            _, ours = cube_decision(probs, ctx, cube_efficiency(std, rows))
            for col in range(3):
                mwc = compare_cube_gnubg.emg_to_mwc(emg[:, col + 1], ctx.away, ctx.opp_away, ctx.value, met)
                assert np.abs(mwc - ours[:, col]).max() < 2e-3, (away, opp, col, mwc, ours[:, col])


@needs_gnubg
def test_compare_cube_at_match_scores_with_a_position_cache(capsys, tmp_path):
    import compare_cube_gnubg
    assert compare_cube_gnubg.main(["--length", "7", "--scores", "4-7"]) == 2
    assert "--scores '4-7'" in capsys.readouterr().err
    cache = tmp_path / "pos.npz"
    args = ["--positions", "16", "--games", "4", "--plies", "0", "--cache", str(cache),
            "--length", "7", "--scores", "4-2,6-3,3-6"]
    assert compare_cube_gnubg.main(args) == 0
    r = json.loads(capsys.readouterr().out)
    assert cache.exists() and r["match_length"] == 7
    assert set(r["scores"]) == {"4-2", "6-3 post-Crawford", "3-6 post-Crawford"}
    lead = r["scores"]["6-3 post-Crawford"]["double"]   # a leader at 1-away never doubles
    assert lead["we_double"] == 0 and lead["gnubg_doubles"] == 0 and lead["never_double_lost"] == 0
    for s in r["scores"].values():
        assert s["units"] == "match-winning chances" and s["positions"] == 16
        assert 0 <= s["double"]["mean_equity_lost"] and 0 <= s["take"]["mean_equity_lost"] <= 1
    assert compare_cube_gnubg.main(args) == 0           # the same positions, from the cache
    again = json.loads(capsys.readouterr().out)["scores"]
    strip = lambda d: {k: {f: v for f, v in s.items() if f != "gnubg_seconds"} for k, s in d.items()}
    assert strip(again) == strip(r["scores"])
    assert compare_cube_gnubg.main(args[:2] + ["--games", "6"] + args[4:]) == 2
    assert "holds positions of other" in capsys.readouterr().err
    bad = tmp_path / "bad.npz"
    bad.write_text("not an npz")
    assert compare_cube_gnubg.main(args[:7] + [str(bad)] + args[8:]) == 2
    err = capsys.readouterr().err
    assert "not a positions file" in err and "pickle" not in err and err.count("\n") == 1
    bad.write_bytes(b"PK\x03\x04 cut short")              # a zip's first bytes, then nothing
    assert compare_cube_gnubg.main(args[:7] + [str(bad)] + args[8:]) == 2
    err = capsys.readouterr().err
    assert "not a positions file" in err and err.count("\n") == 1


@needs_gnubg
def test_gnubg_benchmarks_match_times_both_processes(capsys):
    import gnubg_benchmarks
    assert gnubg_benchmarks.main(["match", "--games", "2", "--gnubg-plies", "0"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["games"] == 2 and r["opponent"] == "gnubg:plies=0"
    assert r["wall_seconds"] > 0 and r["gnubg_cpu_seconds"] >= 0 and r["our_cpu_seconds"] > 0


def test_gammon_rates_compares_predicted_with_played(capsys, tmp_path):
    import gammon_rates
    assert gammon_rates.main(["--games", "3"]) == 2
    assert "--games 3" in capsys.readouterr().err
    assert gammon_rates.main(["--agent", "pubeval", "--games", "2"]) == 2   # no evaluator
    capsys.readouterr()
    out = tmp_path / "g.json"
    assert gammon_rates.main(["--agent", gammon_rates.NET, "--games", "40", "--json", str(out)]) == 0
    (r,) = json.loads(out.read_text())
    assert r["games"] == 40 and 0.15 < r["predicted_at_start"]["gammons"] < 0.35
    played = r["played"]
    assert 0 <= played["backgammons"]["rate"] <= played["gammons"]["rate"] <= 1
    assert played["gammons"]["ci95"] > 0


def test_probs_vs_gnubg_splits_the_difference_by_class(capsys):
    import probs_vs_gnubg
    assert probs_vs_gnubg.main(["--agent", "pubeval", "--games", "2", "--positions", "10"]) == 2
    capsys.readouterr()
    assert probs_vs_gnubg.main(["--games", "24", "--positions", "2000", "--seed", "3"]) == 0
    r = json.loads(capsys.readouterr().out)
    c = r["classes"]
    assert sum(v["positions"] for v in c.values()) == r["positions"]
    assert c["contact"]["positions"] > 0 and c["bearoff"]["positions"] > 0
    # both programs read bear-offs from an exact database: they agree there
    assert c["bearoff"]["mean_abs_equity_diff"] < 0.01 < c["contact"]["mean_abs_equity_diff"]
    for k in ("mean_output_diff", "mean_abs_output_diff"):
        assert set(c["contact"][k]) == {"win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"}
    assert c["contact"]["mean_abs_output_diff"]["win"] == pytest.approx(c["contact"]["mean_abs_win_diff"], abs=1e-4)
    # the contact positions split by kind: counts within the contact count, shares within [0, 1]
    assert set(r["kinds"]) == set(probs_vs_gnubg.KIND_RULES)
    for v in r["kinds"].values():
        assert 0 <= v["positions"] <= c["contact"]["positions"] and 0 <= v["share_of_abs_diff"] <= 1
    assert r["kinds"]["we_on_bar"]["positions"] > 0
    # a fixed source of positions: two agents judged on the same rows
    assert probs_vs_gnubg.main(["--games", "6", "--positions", "300", "--seed", "3",
                                "--positions-from", "pubeval"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert probs_vs_gnubg.main(["--agent", "std_l2", "--games", "6", "--positions", "300", "--seed", "3",
                                "--positions-from", "pubeval"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["positions_from"] == b["positions_from"] == "pubeval"
    assert {k: v["positions"] for k, v in a["classes"].items()} == {k: v["positions"] for k, v in b["classes"].items()}
    assert a["classes"]["contact"]["mean_output_diff"] != b["classes"]["contact"]["mean_output_diff"]


def test_probs_vs_gnubg_position_kinds_follow_their_rules():
    # hand-made positions, each read from the player on roll (no gnubg needed)
    import numpy as np
    import probs_vs_gnubg
    from abak_rl.engine.board import row_from_points
    start = {6: 5, 8: 3, 13: 5, 24: 2, 1: -2, 12: -5, 17: -3, 19: -5}
    # we are on the bar against their 4-point board: blitzed (and on the bar); they are not
    blitz = row_from_points({6: 4, 8: 3, 13: 5, 24: 2, 19: -3, 20: -3, 21: -3, 22: -3, 12: -3},
                            bar=(1, 0))
    # we hold their 1- and 3-points (a back game) and trail the race by far more than 30 pips
    back = row_from_points({24: 2, 22: 2, 13: 3, 6: 4, 5: 2, 4: 2, 19: -4, 20: -4, 21: -4, 23: -3})
    # they have 11 checkers left, 9 of them on their own 1- and 2-points: crashed
    crashed = row_from_points({6: 5, 8: 3, 13: 5, 24: -5, 23: -4, 20: -2, 7: 2})
    rows = np.stack([row_from_points(start), blitz, back, crashed])
    k = probs_vs_gnubg.kinds(rows)
    assert set(k) == set(probs_vs_gnubg.KIND_RULES)
    assert k["we_on_bar"].tolist() == [False, True, False, False]
    assert k["blitzed"].tolist() == [False, True, False, False]
    assert not k["they_on_bar"].any() and not k["blitzing"].any()
    assert k["our_back_game"].tolist() == [False, False, True, False]
    assert not k["their_back_game"][:3].any()
    assert k["we_trail_race"][2] and not k["we_lead_race"][2]
    assert not k["we_lead_race"][0] and not k["we_trail_race"][0]
    assert k["crashed"].tolist() == [False, False, False, True]
    # the table: counts per kind, shares of the total |difference| within [0, 1]
    d = np.array([0.1, 0.2, 0.3, 0.4])
    t = probs_vs_gnubg.kind_table(rows, d, -d)
    assert t["blitzed"]["positions"] == 1 and t["blitzed"]["share_of_abs_diff"] == pytest.approx(0.2)
    assert t["our_back_game"]["mean_win_diff"] == pytest.approx(-0.3)
    assert t["blitzing"]["positions"] == 0 and t["blitzing"]["mean_abs_equity_diff"] is None
