"""Our cube equities against GNU Backgammon's own, on its recorded 0-ply evaluations.

tests/data/gnubg_cube_cases.json (scripts/gnubg_cube_cases.py, GNU Backgammon 1.07): 24 standard
positions x 14 contexts (money: centred, owned, the opponent's cube, Jacoby; 7-point matches at
0-0, 2-4, 4-2, 5-5, both sides of post-Crawford, the Crawford game, turned cubes). Fed the same
five probabilities, engine/cube.py with the efficiency of each position's class must give
gnubg's no double (its cubeful equity), double/take and double/pass to rounding. gnubg reads
two-sided bear-off positions ("Bearoff2") from its exact cubeful database instead; those cases
are left out of the Janowski comparison and checked, in money play, against our own exact
two-sided table (engine/bearoff_cube.py).
"""

import json
from pathlib import Path

import numpy as np

from abak_rl.engine.cube import NO_DOUBLE, CubeContext, cube_decision, cube_efficiency, load_met
from abak_rl.engine.variants import get_variant
from abak_rl.io import gnubg_id

DATA = json.loads((Path(__file__).parent / "data" / "gnubg_cube_cases.json").read_text())
CASES = [c for c in DATA["cases"] if c["class"] != "Bearoff2"]


def _ours(cases, x=None):
    """(decision codes, equities [n, 3]) of engine/cube.py; x: the class's efficiency, or one."""
    v, met = get_variant("standard"), load_met()
    rows = np.stack([gnubg_id.decode(c["position_id"]) for c in cases])
    x = cube_efficiency(v, rows) if x is None else np.full(len(cases), float(x))
    probs = np.array([c["probs"] for c in cases])
    col = lambda k: np.array([c[k] for c in cases])
    out = np.empty((len(cases), 3))
    codes = np.empty(len(cases), dtype=np.int64)
    match = col("match_length") > 0
    for sel, is_match in ((np.flatnonzero(match), True), (np.flatnonzero(~match), False)):
        sub = [cases[i] for i in sel]
        if not sub:
            continue
        c = lambda k: np.array([s[k] for s in sub])
        if is_match:
            ctx = CubeContext(c("cube"), c("owner"), c("away"), c("opp_away"), met, c("crawford"))
            d, eq = cube_decision(probs[sel], ctx, x[sel])
        else:
            d, eq = [], []
            for jac in (False, True):       # one Jacoby setting per context
                part = np.flatnonzero(c("jacoby") == jac)
                ctx = CubeContext(np.ones(part.size, int), c("owner")[part], jacoby=jac)
                dd, ee = cube_decision(probs[sel][part], ctx, x[sel][part])
                out[sel[part]], codes[sel[part]] = ee, dd
            continue
        out[sel], codes[sel] = eq, d
    return codes, out


def test_the_recorded_cases_cover_every_context_and_class():
    contexts = {c["context"] for c in DATA["cases"]}
    assert len(contexts) == 14 and len(CASES) >= 300
    assert {"Contact", "Race", "Crashed", "Bearoff1"} <= {c["class"] for c in CASES}
    assert all(c["class"] == "Bearoff2" for c in DATA["cases"] if c not in CASES)


def test_our_cube_equities_are_gnubgs():
    codes, eq = _ours(CASES)
    for k, col in (("cubeful", 0), ("dt", 1), ("dp", 2)):
        have = [i for i, c in enumerate(CASES) if k in c]
        want = np.array([CASES[i][k] for i in have])
        err = np.abs(eq[have, col] - want)
        worst = int(np.argmax(err))
        assert err.max() < 1e-4, (k, CASES[have[worst]], eq[have[worst]])
    # and so the same decisions where gnubg shows them (no exact ties in these cases)
    for i, c in enumerate(CASES):
        if {"nd", "dt", "dp"} <= set(c):
            double = min(c["dt"], c["dp"]) > c["nd"]
            assert (codes[i] != NO_DOUBLE) == double, c


def test_a_fixed_efficiency_would_not_match_in_races():
    # the efficiency by class matters: with x = 0.68 everywhere, race cases move off gnubg's
    races = [c for c in CASES if c["class"] == "Race"]
    _, by_class = _ours(races)
    _, fixed = _ours(races, x=0.68)
    have = [i for i, c in enumerate(races) if "dt" in c]
    want = np.array([c["cubeful"] for c in races])
    want_dt = np.array([races[i]["dt"] for i in have])
    err = lambda eq: max(np.abs(eq[:, 0] - want).max(), np.abs(eq[have, 1] - want_dt).max())
    assert err(by_class) < 5e-5           # the probabilities are recorded to 5 digits
    assert err(fixed) > 3e-4


def test_the_two_sided_bearoffs_left_out_are_exact_in_money_play():
    # the Bearoff2 cases gnubg reads from its exact database: our two-sided table gives them
    from abak_rl.engine.cube import exact_bearoff_money
    money = [c for c in DATA["cases"] if c["class"] == "Bearoff2" and c["match_length"] == 0]
    assert money
    v = get_variant("standard")
    rows = np.stack([gnubg_id.decode(c["position_id"]) for c in money])
    owner = np.array([c["owner"] for c in money])
    _, eq, exact = exact_bearoff_money(v, rows, owner, np.zeros(len(money), np.int64), np.zeros((len(money), 3)))
    assert exact.all()
    np.testing.assert_allclose(eq[:, 0], [c["cubeful"] for c in money], atol=1e-4)
