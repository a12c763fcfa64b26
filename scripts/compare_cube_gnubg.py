"""Our cube decisions against GNU Backgammon's (cfevaluate, 2-ply by default), money or match play.

    python scripts/compare_cube_gnubg.py [--agent SPEC] [--positions 1000] [--games 200]
                                         [--plies 2] [--x auto] [--seed 0] [--window LO,HI]
                                         [--cube-ply 0|1|2] [--cache F.npz] [--probs gnubg0]
                                         [--length 7 --scores 4-2,2-4,5-5,6-3,3-6] [--worst N]
                                         [--json F]

Positions come from our own cubeful money games: the agent against itself with its Janowski cube
(evaluate/cube_records.py records every game, cube actions included); every position before a
roll where the player to move had the cube available is a candidate (its cube value and owner as
they were before any double there; a position where the player doubled counts once, passes
included), and `--positions` of them are drawn evenly. For each we decide with the agent's cube
policy as evaluate plays it (agents/cube_policies.JanowskiCube, cube efficiency --x) and ask
gnubg for its cubeful equities (no double, double-take, double-pass) at --plies:

- double decisions: does the player double? gnubg's verdict is "double" when min(take, pass)
  beats no double. Equity lost when we differ: |no double - min(take, pass)|.
- take decisions (every position, as if doubled): does the opponent take? gnubg takes when
  double-take <= double-pass for the doubler. Equity lost: |take - pass|.

--window LO,HI keeps only candidates whose cubeless win chance for the player on roll, by GNU
Backgammon 0-ply (gnubg-nn), lies in [LO, HI] (e.g. 0.55,0.95: where cube decisions are live)
before drawing. Besides the take decisions on every position, `take_on_gnubg_doubles` counts
them only where gnubg 2-ply doubles (the taker's real decisions).

Reported: agreement rates, mean equity lost per decision (units of the current cube, gnubg's
2-ply money equity) and the split of the disagreements; and the same over the close decisions
only (where gnubg's two answers differ by less than 0.16, the cut gnubg's analysis uses for a
"close" cube decision): most positions of a game are no-double/take for anyone. `never_double`
is the doubler's loss of a player who never doubles, on the same positions: the yardstick.

Match play (--length N --scores S): the same positions are judged at each score "me-opp"
(points the player on roll and its opponent have; one of them at N-1 means post-Crawford: the
Crawford game itself has no cube), with a centred 1-cube. Losses are in match-winning chances
(MWC): gnubg's cubeful equities, which it gives normalised to money units (EMG), are mapped back
through the same match equity table (Kazaross-XG2, gnubg's default): MWC = L + (EMG + 1) / 2 *
(W - L), W and L the MWC of winning and losing the cube's value at that score.

--cube-ply 1 or 2 decides our cube after one roll of lookahead (JanowskiCube ply=1: each roll's
play at 0-ply) or with that play searched at 1-ply (ply=2, GNU Backgammon's 2-ply cube), as
`evaluate cube_ply=N` plays it. --probs gnubg0 feeds the same cube code GNU Backgammon 0-ply's
probabilities instead of the agent's: what the rule alone loses. A money run at 0-ply also
reports `probability_bias`: the mean of (ours - gnubg 0-ply) for each of the five
probabilities, over all positions and over those gnubg doubles. --cache F.npz keeps the candidate positions (after --window) so
that further runs skip the self-play games. `by_class` splits the doubler's and the taker's
losses by position class (contact, race, bear-off); --worst N lists the N costliest wrong
decisions with their GNU Backgammon position IDs, gnubg's three equities and, beside gnubg
0-ply's, the probabilities our cube read (at --cube-ply N >= 1 the average over the 21 rolls
of each roll's play valued at N-1 ply: the pre-roll N-ply probabilities).
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

NET = "export:checkpoints/pretrained/standard"
CLOSE = 0.16


def positions_from_games(agent, variant, games: int, seed: int, x):
    """(boards, cube value, owner seen from the mover) before rolls with the cube available."""
    from abak_rl.agents.cube_policies import JanowskiCube
    from abak_rl.evaluate.cube_match import probs_fn_for
    from abak_rl.evaluate.cube_records import play_recorded
    if probs_fn_for(agent) is None:
        raise ValueError(f"{agent.name} has no evaluator for Janowski cube decisions; use a "
                         f"checkpoint:, export: or onnx: agent")
    pol = JanowskiCube(probs_fn_for(agent), x)
    _, per_slot = play_recorded(variant, [agent, agent], [pol, pol], np.arange(games), seed,
                                ("a", "b"))
    return candidates(per_slot, variant)


def candidates(per_slot, variant):
    """The cube decisions of recorded games: (boards, cube value, owner seen from the mover)."""
    from abak_rl.io.position_json import rows_from_json
    boards, values, owners = [], [], []
    for slot in per_slot:
        for rec in slot:
            value, owner = 1, -1          # owner: -1 centred, else the seat
            first, doubled = True, None
            for t in rec["turns"]:
                cube = t.get("cube")
                if cube == "double":      # the decision, with the cube as it was before it
                    boards.append(t["position"])
                    values.append(value)
                    owners.append(0 if owner == -1 else 1)
                    doubled = t["mover"]
                elif cube == "take":
                    value, owner = 2 * value, t["mover"]
                elif cube is None:
                    if not first and doubled != t["mover"] and owner in (-1, t["mover"]):
                        boards.append(t["position"])
                        values.append(value)
                        owners.append(0 if owner == -1 else 1)
                    first, doubled = False, None
    _, rows = rows_from_json(boards, variant.name)
    return rows, np.array(values), np.array(owners)


def gnubg_probs(rows) -> np.ndarray:
    """GNU Backgammon 0-ply's (gnubg-nn) five cubeless probabilities for the player on roll."""
    import gnubg_nn

    from abak_rl.agents.gnubg_agent import to_gnubg
    return np.array([gnubg_nn.probabilities(to_gnubg(r), 0) for r in rows], dtype=np.float64)


def gnubg_win_chance(rows) -> np.ndarray:
    """GNU Backgammon 0-ply's cubeless win chance for the player on roll of each position."""
    return gnubg_probs(rows)[:, 0]


def candidate_positions(agent, variant, games: int, seed: int, x, window, cache: str | None):
    """Candidate positions (rows, cube values, owners), from --cache when it holds this set."""
    key = np.array([games, seed] + (list(window) if window else [-1, -1]), dtype=np.float64)
    if cache and Path(cache).exists():
        try:
            z = np.load(cache)
            if np.array_equal(z["key"], key):
                return z["rows"], z["values"], z["owners"]
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            # numpy's own text would suggest loading pickles: never show it, say what is wrong
            raise ValueError(f"--cache {cache}: not a positions file of this script (corrupt, "
                             f"or written by something else); delete it or name another file") from None
        raise ValueError(f"--cache {cache} holds positions of other --games/--seed/--window; "
                         f"delete it or name another file")
    rows, values, owners = positions_from_games(agent, variant, games, seed, x)
    if window is not None:
        win = gnubg_win_chance(rows)
        keep = (win >= window[0]) & (win <= window[1])
        rows, values, owners = rows[keep], values[keep], owners[keep]
    if cache:
        Path(cache).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(cache).with_name(Path(cache).name + ".tmp.npz")
        np.savez(tmp, key=key, rows=rows, values=values, owners=owners)
        tmp.replace(cache)
    return rows, values, owners


def parse_scores(text: str, length: int) -> list[tuple[int, int]]:
    """'4-2,2-4' -> [(4, 2), (2, 4)]: points of the player on roll and of its opponent."""
    out = []
    for part in text.split(","):
        a, sep, b = part.strip().partition("-")
        try:
            me, opp = int(a), int(b)
        except ValueError:
            me = opp = -1
        if not sep or not (0 <= me < length and 0 <= opp < length):
            raise ValueError(f"--scores {part.strip()!r}: expected ME-OPP with both below the "
                             f"match length {length}")
        out.append((me, opp))
    return out


def emg_to_mwc(emg, away, opp_away, cube, met):
    """gnubg's normalised match equity (EMG, units of the cube) -> match-winning chance."""
    post = (away == 1) | (opp_away == 1)
    win = met.equity(away - cube, opp_away, post)
    lose = met.equity(away, opp_away - cube, post)
    return lose + (np.asarray(emg) + 1.0) / 2.0 * (win - lose)


def probability_bias(ours, gnubg, where) -> dict:
    """Mean (ours - gnubg 0-ply) of each of the five probabilities, all rows and `where`."""
    from abak_rl.model.outcomes import OUTPUTS
    d = ours - gnubg
    part = lambda m: {k: round(float(v), 5) for k, v in zip(OUTPUTS, d[m].mean(0))} if m.any() else None
    return {"all": part(np.ones(len(d), bool)), "gnubg_doubles": part(where)}


def by_class(variant, rows, d_loss, t_loss, g_offer) -> dict:
    """The doubler's and the taker's (on gnubg's doubles) decisions and losses per position
    class (contact, race, bear-off: the classes that set the cube efficiency), so that a user
    sees where the loss is."""
    from abak_rl.engine.cube import CLASS_NAMES, position_class
    cls = position_class(variant, rows)
    out = {}
    for k, name in enumerate(CLASS_NAMES):
        m = cls == k
        t = m & g_offer
        out[name] = {"positions": int(m.sum()),
                     "double_lost": float(d_loss[m].sum()), "double_wrong": int((d_loss[m] > 0).sum()),
                     "gnubg_doubles": int(t.sum()),
                     "take_lost_on_gnubg_doubles": float(t_loss[t].sum()),
                     "take_wrong_on_gnubg_doubles": int((t_loss[t] > 0).sum())}
    return out


def worst_decisions(variant, rows, d_loss, t_loss, offer, take, eq, n: int, probs=None) -> list:
    """The n costliest wrong decisions (double or take), each with its position (GNU Backgammon
    position ID, the player on roll = the doubler), gnubg's equities and, when given, our and
    gnubg 0-ply's probabilities: what to look at first."""
    from abak_rl.engine.cube import CLASS_NAMES, position_class
    from abak_rl.io.gnubg_id import encode
    cls = position_class(variant, rows)
    items = [(float(d_loss[i]), "double", i) for i in np.flatnonzero(d_loss > 0)]
    items += [(float(t_loss[i]), "take", i) for i in np.flatnonzero(t_loss > 0)]
    out = []
    for lost, kind, i in sorted(items, key=lambda t: -t[0])[:n]:
        ours = bool(offer[i] if kind == "double" else take[i])
        e = {"position_id": encode(rows[i]), "class": CLASS_NAMES[cls[i]], "decision": kind,
             "ours": ("double" if ours else "no double") if kind == "double" else ("take" if ours else "pass"),
             "lost": round(lost, 4),
             "gnubg": {"no_double": round(float(eq[i, 1]), 4), "double_take": round(float(eq[i, 2]), 4),
                       "double_pass": round(float(eq[i, 3]), 4)}}
        if probs is not None:
            e["probs_ours"] = [round(float(v), 4) for v in probs[0][i]]
            e["probs_gnubg0"] = [round(float(v), 4) for v in probs[1][i]]
        out.append(e)
    return out


def judge(ours, gnubg_cube, variant, rows, ctx, units, worst: int = 0, probs_fn=None) -> dict:
    """Our offer/take decisions on rows against gnubg's cfevaluate, the losses in `units`;
    `worst` > 0 lists that many of the costliest wrong decisions (probs_fn(variant, rows): our
    probabilities to show beside gnubg 0-ply's)."""
    from abak_rl.engine.cube import NO_DOUBLE
    decision, our_eq = ours.decide(variant, rows, ctx)      # once: offer and accept both read it
    offer, take = decision != NO_DOUBLE, our_eq[:, 1] < our_eq[:, 2]
    read = getattr(ours, "last_probs", None)                  # the probabilities the decision read
    t0 = time.perf_counter()
    eq = gnubg_cube.evaluate(rows, ctx)       # optimal, nd, dt, dp
    seconds = time.perf_counter() - t0
    nd, dt, dp = eq[:, 1], eq[:, 2], eq[:, 3]
    if ctx.is_match:
        nd, dt, dp = (emg_to_mwc(e, ctx.away, ctx.opp_away, ctx.value, ctx.met) for e in (nd, dt, dp))
    g_offer = np.minimum(dt, dp) > nd
    g_take = dt <= dp
    d_gain = np.abs(nd - np.minimum(dt, dp))
    d_loss = np.where(offer != g_offer, d_gain, 0.0)
    t_loss = np.where(take != g_take, np.abs(dt - dp), 0.0)
    n = len(rows)
    # gnubg's own closeness cut (money units): the other action would cost less than 0.16
    close_d = np.abs(eq[:, 1] - np.minimum(eq[:, 2], eq[:, 3])) < CLOSE
    close_t = np.abs(eq[:, 2] - eq[:, 3]) < CLOSE
    close = {"double_decisions": int(close_d.sum()), "take_decisions": int(close_t.sum()),
             "double_agreement": float((offer == g_offer)[close_d].mean()) if close_d.any() else None,
             "take_agreement": float((take == g_take)[close_t].mean()) if close_t.any() else None,
             "mean_equity_lost": float((d_loss[close_d].sum() + t_loss[close_t].sum())
                                       / max(1, close_d.sum() + close_t.sum()))}
    return {
        "units": units, "positions": int(n),
        "double": {"agreement": float((offer == g_offer).mean()),
                   "mean_equity_lost": float(d_loss.mean()),
                   "never_double_lost": float(np.where(g_offer, d_gain, 0.0).mean()),
                   "gnubg_doubles": int(g_offer.sum()), "we_double": int(offer.sum()),
                   "we_double_gnubg_not": int((offer & ~g_offer).sum()),
                   "gnubg_doubles_we_not": int((~offer & g_offer).sum())},
        "take": {"agreement": float((take == g_take).mean()),
                 "mean_equity_lost": float(t_loss.mean()),
                 "we_take_gnubg_passes": int((take & ~g_take).sum()),
                 "we_pass_gnubg_takes": int((~take & g_take).sum())},
        "take_on_gnubg_doubles": {
            "decisions": int(g_offer.sum()),
            "agreement": float((take == g_take)[g_offer].mean()) if g_offer.any() else None,
            "mean_equity_lost": float(t_loss[g_offer].mean()) if g_offer.any() else None,
            "we_take_gnubg_passes": int((take & ~g_take & g_offer).sum()),
            "we_pass_gnubg_takes": int((~take & g_take & g_offer).sum())},
        "all": {"decisions": 2 * n,
                "agreement": float(((offer == g_offer).sum() + (take == g_take).sum()) / (2 * n)),
                "mean_equity_lost": float((d_loss.sum() + t_loss.sum()) / (2 * n))},
        "close": close,
        "by_class": by_class(variant, rows, d_loss, t_loss, g_offer),
        **({"worst": worst_decisions(variant, rows, d_loss, t_loss, offer, take, eq, worst,
                                     None if probs_fn is None else
                                     (probs_fn(variant, rows) if read is None else read, gnubg_probs(rows)))}
           if worst else {}),
        "gnubg_seconds": seconds,
    }


def compare(agent_spec: str, n_positions: int, games: int, plies: int, x, seed: int,
            window: tuple[float, float] | None = None, cube_ply: int = 0,
            cache: str | None = None, length: int = 0, scores=(), probs: str = "agent", worst: int = 0) -> dict:
    from abak_rl.agents.gnubg_program import GnubgCube, GnubgProgram
    from abak_rl.agents.registry import make_agent
    from abak_rl.engine.cube import CubeContext, load_met
    from abak_rl.engine.variants import get_variant
    from abak_rl.evaluate.cube_match import make_policy
    variant = get_variant("standard")
    agent = make_agent(agent_spec, variant, seed)
    t0 = time.perf_counter()
    rows, values, owners = candidate_positions(agent, variant, games, seed, x, window, cache)
    if len(rows) < n_positions:
        raise ValueError(f"only {len(rows)} candidate positions in {games} games; raise --games")
    pick = np.linspace(0, len(rows) - 1, n_positions).round().astype(int)
    rows, values, owners = rows[pick], values[pick], owners[pick]
    from abak_rl.evaluate.cube_match import probs_fn_for
    if probs == "gnubg0":         # the rule alone: our cube code fed gnubg 0-ply's probabilities
        from abak_rl.agents.cube_policies import JanowskiCube
        probs_fn = lambda variant, boards: gnubg_probs(boards)   # noqa: E731
        ours = JanowskiCube(probs_fn, x)
    else:
        probs_fn = probs_fn_for(agent)
        ours = make_policy("janowski", agent, x, seed, ply=cube_ply)
    out = {"agent": agent_spec, "probs": probs, "cube_efficiency": x, "cube_ply": cube_ply,
           "gnubg_plies": plies,
           "positions": int(len(rows)), "window": list(window) if window else None,
           "games": games, "seed": seed}
    t1 = time.perf_counter()
    with GnubgProgram() as prog:
        gcube = GnubgCube(plies, prog)
        if not length:
            out.update(judge(ours, gcube, variant, rows, CubeContext(value=values, owner=owners),
                             "points per unit cube (money)", worst, probs_fn))
            if probs == "agent" and cube_ply == 0:
                eq = gcube.evaluate(rows, CubeContext(value=values, owner=owners))
                out["probability_bias"] = probability_bias(
                    probs_fn_for(agent)(variant, rows), gnubg_probs(rows),
                    np.minimum(eq[:, 2], eq[:, 3]) > eq[:, 1])
        else:
            out["match_length"] = length
            out["scores"] = {}
            met = load_met()
            n = len(rows)
            for me, opp in scores:
                ctx = CubeContext(value=np.ones(n, np.int64), owner=np.zeros(n, np.int64),
                                  away=np.full(n, length - me), opp_away=np.full(n, length - opp),
                                  met=met, crawford=np.zeros(n, bool))
                label = f"{me}-{opp}" + (" post-Crawford" if length - 1 in (me, opp) else "")
                out["scores"][label] = judge(ours, gcube, variant, rows, ctx,
                                             "match-winning chances", worst, probs_fn)
    out["seconds"] = {"games_and_positions": t1 - t0, "decisions": time.perf_counter() - t1}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default=NET)
    p.add_argument("--positions", type=int, default=1000)
    p.add_argument("--games", type=int, default=200, help="self-play money games to draw from")
    p.add_argument("--plies", type=int, default=2, choices=(0, 1, 2))
    p.add_argument("--x", default="auto", help="our cube efficiency: auto (per position class) or a number")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--window", default=None, help="LO,HI: keep positions with gnubg 0-ply's cubeless "
                                                  "win chance in [LO, HI] (e.g. 0.55,0.95)")
    p.add_argument("--cube-ply", type=int, default=0, choices=(0, 1, 2), help="our cube's lookahead")
    p.add_argument("--cache", help="an .npz keeping the candidate positions between runs")
    p.add_argument("--probs", default="agent", choices=("agent", "gnubg0"),
                   help="decide from the agent's probabilities, or from gnubg 0-ply's (the rule alone)")
    p.add_argument("--length", type=int, default=0, help="match length: judge at --scores instead of money")
    p.add_argument("--scores", default="4-2,2-4,5-5,6-3,3-6",
                   help="with --length: ME-OPP scores of the player on roll, comma-separated")
    p.add_argument("--worst", type=int, default=0,
                   help="list this many of the costliest wrong decisions (position IDs, probabilities)")
    p.add_argument("--json", help="also write the result here")
    a = p.parse_args(argv)
    x = a.x if a.x == "auto" else float(a.x)
    window = None
    if a.window:
        try:
            lo, hi = (float(v) for v in a.window.split(","))
        except ValueError:
            print(f"compare_cube_gnubg: --window {a.window!r}: expected LO,HI (two numbers)", file=sys.stderr)
            return 2
        window = (lo, hi)
    scores = ()
    if a.length:
        from abak_rl.engine.cube import load_met
        if not 2 <= a.length <= load_met().length:
            print(f"compare_cube_gnubg: --length {a.length}: expected 2..{load_met().length}", file=sys.stderr)
            return 2
        try:
            scores = parse_scores(a.scores, a.length)
        except ValueError as exc:
            print(f"compare_cube_gnubg: {exc}", file=sys.stderr)
            return 2
    if "checkpoint:" in a.agent:       # small batched forward passes: one thread is fastest
        import torch
        torch.set_num_threads(1)
    from report import emit
    return emit("compare_cube_gnubg", lambda: compare(a.agent, a.positions, a.games, a.plies, x, a.seed, window,
                                                      a.cube_ply, a.cache, a.length, scores, a.probs, a.worst), a.json)


if __name__ == "__main__":
    sys.exit(main())
