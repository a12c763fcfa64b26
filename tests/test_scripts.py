"""The measuring scripts run and print what their docstrings promise (no timing is asserted:
speed figures come from running the scripts, see docs/BENCHMARKS.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_bench_abak_reports_both_variants_and_the_ratio(capsys):
    import bench_abak
    bench_abak.main(["--games", "4", "--seeds", "1", "--reps", "2", "--batches", "1,8",
                     "--positions", "16", "--compare", "8"])
    rows = json_lines(capsys.readouterr().out)
    games = {r["variant"]: r for r in rows if r["what"] == "random_games_per_s"}
    assert set(games) == {"standard", "abak"} and all(r["value"] > 0 for r in games.values())
    ratio = next(r for r in rows if r["what"] == "abak_over_standard_games_ratio")
    assert len(ratio["per_rep"]) == 2 and ratio["value"] > 0
    assert [r["batch"] for r in rows if r["what"] == "abak_afterstates_per_s"] == [1, 8]
    vs = [r for r in rows if r["what"] == "abak_compiled_vs_numpy"]
    assert [r["batch"] for r in vs] == [8] and len(vs[0]["per_rep"]) == 2 and vs[0]["ratio"] > 0
    from abak_rl.engine.abak import movegen_compiled
    assert movegen_compiled.AVAILABLE          # switched back on after the NumPy runs


def test_bench_movegen_abak_runs_the_abak_comparison(capsys):
    import bench_movegen
    bench_movegen.main(["--variant", "abak", "--repeats", "1", "--batches", "8", "--games", "4"])
    whats = {r["what"] for r in json_lines(capsys.readouterr().out)}
    assert {"random_games_per_s", "abak_over_standard_games_ratio",
            "abak_afterstates_per_s"} <= whats


def test_check_abak_reference_finds_no_mismatch(capsys):
    import check_abak_reference
    check_abak_reference.main(["--games", "1", "--seeds", "1", "--first-seed", "3"])
    out = json_lines(capsys.readouterr().out)[0]
    assert out["positions"] > 50 and out["mismatches"] == 0
