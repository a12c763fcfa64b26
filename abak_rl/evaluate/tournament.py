"""Round robin between agents: every pair plays a common-random-numbers match, then ratings.

Outputs: a points-per-game table (row agent's view), Bradley-Terry ratings on the Elo scale
with bootstrap 95% intervals, written as JSON, CSV and a PNG chart.
"""

from __future__ import annotations

import csv
import json
from itertools import combinations
from pathlib import Path

import numpy as np

from ..engine.variants import get_variant
from .match import run_match
from .ratings import bootstrap as bootstrap_ratings
from .ratings import fit_bradley_terry, wins_matrix


def run_tournament(specs: list[str], variant="standard", games: int = 2000, seed: int = 0,
                   batch: int = 1000, bootstrap: int = 1000, anchor: str | None = None) -> dict:
    """Play every pair once (games each, seats swapped per dice sequence) and rate the agents.

    anchor: the agent rated 0 (default: the first listed).
    """
    if len(specs) < 2:
        raise ValueError(f"a tournament needs at least 2 agents, got {specs}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"agents are listed twice: {specs}")
    anchor = specs[0] if anchor is None else anchor
    if anchor not in specs:
        raise ValueError(f"anchor {anchor!r} is not one of the agents {specs}")
    a0 = specs.index(anchor)
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be >= 0, got {bootstrap}")
    v = get_variant(variant) if isinstance(variant, str) else variant
    k = len(specs)
    matches, pairs = [], {}
    for i, j in combinations(range(k), 2):
        r = run_match(specs[i], specs[j], v, games, seed, batch=batch, keep_results=True)
        pairs[(i, j)] = r.pop("results")
        matches.append(r)
    ppg = np.zeros((k, k))
    for (i, j), r in zip(combinations(range(k), 2), matches):
        ppg[i, j], ppg[j, i] = r["ppg"], -r["ppg"]
    ratings = fit_bradley_terry(wins_matrix(pairs, k), a0)
    if bootstrap:
        boots = bootstrap_ratings(pairs, k, bootstrap, seed, a0)
        low, high = np.quantile(boots, [0.025, 0.975], axis=0)
    else:
        low = high = np.full(k, np.nan)
    table = [{"agent": s, "rating": float(ratings[n]), "rating_low": float(low[n]),
              "rating_high": float(high[n]), "mean_ppg": float(ppg[n].sum() / (k - 1))}
             for n, s in enumerate(specs)]
    return {"variant": v.name, "games_per_match": games, "seed": seed, "agents": list(specs),
            "ppg_matrix": ppg.tolist(), "ratings": table, "matches": matches,
            "rating_note": f"Bradley-Terry on wins, Elo scale (400 log10), {anchor} = 0"}


def write_outputs(result: dict, prefix: str) -> list[str]:
    """Write <prefix>.json, <prefix>.csv and <prefix>.png; return the printed table's lines."""
    out = Path(prefix)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    agents = result["agents"]
    with out.with_suffix(".csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "rating", "rating_low", "rating_high", "mean_ppg"]
                   + [f"ppg_vs_{a}" for a in agents])
        for row, ppg in zip(result["ratings"], result["ppg_matrix"]):
            w.writerow([row["agent"], f"{row['rating']:.1f}", f"{row['rating_low']:.1f}",
                        f"{row['rating_high']:.1f}", f"{row['mean_ppg']:.4f}"]
                       + [f"{x:.4f}" for x in ppg])
    lines = [f"{'agent':<28} {'rating':>8} {'95% interval':>18} {'mean ppg':>9}"]
    for row in sorted(result["ratings"], key=lambda r: -r["rating"]):
        lines.append(f"{row['agent']:<28} {row['rating']:8.0f} "
                     f"[{row['rating_low']:7.0f}, {row['rating_high']:7.0f}] {row['mean_ppg']:+9.3f}")
    lines.append("")
    lines.append("points per game (row vs column): " + ", ".join(
        f"{m['agent']} vs {m['opponent']} {m['ppg']:+.3f}±{m['ppg_ci95']:.3f}" for m in result["matches"]))
    png = _chart(result, out.with_suffix(".png"))
    lines.append(f"wrote {out.with_suffix('.json')}, {out.with_suffix('.csv')}"
                 + (f", {png}" if png else " (no PNG: matplotlib is not installed)"))
    return lines


def _chart(result: dict, path: Path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = sorted(result["ratings"], key=lambda r: r["rating"])
    y = np.arange(len(rows))
    r = np.array([x["rating"] for x in rows])
    err = np.array([[x["rating"] - x["rating_low"], x["rating_high"] - x["rating"]] for x in rows]).T
    fig, ax = plt.subplots(figsize=(7, 1 + 0.5 * len(rows)))
    ax.barh(y, r, xerr=np.nan_to_num(err), color="tab:blue", alpha=0.7, capsize=4)
    ax.set_yticks(y, [x["agent"] for x in rows])
    ax.set_xlabel(f"rating (Elo scale, Bradley-Terry, {result['rating_note'].split(', ')[-1]}; "
                  "bars: bootstrap 95%)")
    ax.set_title(f"{result['variant']}: round robin, {result['games_per_match']} games per match")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
