"""Runs inside GNU Backgammon's embedded Python (`gnubg -t -q -r -p gnubg_server.py`).

A long-lived helper for abak_rl.agents.gnubg_program: it reads one JSON request per line on
stdin and writes one JSON answer per line to the file descriptor named by $ABAK_GNUBG_FD (gnubg
itself prints boards and messages on stdout, so answers need a channel of their own). Each
request carries a batch, so one round trip serves a whole lockstep step.

Only the standard library and gnubg's module are used: gnubg's Python has no NumPy.

Requests ({"op": ...}); boards are gnubg's [opponent, player on roll], 25 counts each:
  move     items [[board, [d1, d2], cube]]  -> the best play per item: gnubg's from/to tuple
  cube     items [[board, cube]]            -> cfevaluate: [optimal, no double, take, drop,
                                               code, text] for the player on roll
  eval     items [[board, cube]]            -> evaluate: five probabilities and cubeless equity
  read     file                             -> the games as gnubg imported them (.mat / .sgf)
  analyze  file, plies                      -> per player statistics of gnubg's analysis
  ratings  values                           -> gnubg's rating label per error rate (EMG/move)
  command  text                             -> runs a gnubg command (settings)
cube = {"value", "owner" (-1 centred, 0 player on roll, 1 opponent), "matchto", "score"
[on roll, opponent], "crawford", "jacoby", "cubeful"}; plies at the top of each request.
"""

import json
import os
import sys

import gnubg  # noqa: E402  (only inside GNU Backgammon)

RATINGS = ["Awful!", "Beginner", "Casual player", "Intermediate", "Advanced", "Expert",
           "World class", "Supernatural"]   # gnubg's labels for errorrating() 0..7


def _cubeinfo(c):
    c = c or {}
    owner = c.get("owner", -1)
    ci = gnubg.cubeinfo(int(c.get("value", 1)), int(owner), 0, int(c.get("matchto", 0)),
                        tuple(c.get("score", (0, 0))), int(c.get("crawford", 0)), 0)
    ci["jacoby"] = int(c.get("jacoby", 0))
    return gnubg.calcgammonprice(ci)


def _context(plies, cubeful):
    return {"cubeful": int(cubeful), "plies": int(plies), "deterministic": 1, "noise": 0.0,
            "prune": 1}


def _board(b):
    return (tuple(b[0]), tuple(b[1]))


def _moves(req):
    out = []
    for board, dice, cube in req["items"]:
        ec = _context(req.get("plies", 0), (cube or {}).get("cubeful", 0))
        out.append(list(gnubg.findbestmove(_board(board), _cubeinfo(cube), ec, tuple(dice))))
    return out


def _cube(req):
    out = []
    for board, cube in req["items"]:
        r = gnubg.cfevaluate(_board(board), _cubeinfo(cube), _context(req.get("plies", 0), 1))
        out.append([float(x) for x in r[:4]] + [int(r[4]), str(r[5])])
    return out


def _eval(req):
    return [list(gnubg.evaluate(_board(board), _cubeinfo(cube), _context(req.get("plies", 0), 0)))
            for board, cube in req["items"]]


def _sum_stats(games, side):
    tot = {"moves": 0, "unforced": 0, "checker_skill": 0.0, "checker_cost": 0.0,
           "marked": {"doubtful": 0, "bad": 0, "very bad": 0}, "cube_skill": 0.0,
           "cube_cost": 0.0, "cube_decisions": 0, "close_cube": 0, "cube_errors": 0,
           "doubles": 0, "takes": 0, "drops": 0, "luck": 0.0}
    for g in games:
        st = (g.get("stats") or {}).get(side)
        if not st:
            continue
        mv, cb = st.get("moves", {}), st.get("cube", {})
        tot["moves"] += mv.get("total-moves", 0)
        tot["unforced"] += mv.get("unforced-moves", 0)
        tot["checker_skill"] += mv.get("error-skill", 0.0)
        tot["checker_cost"] += mv.get("error-cost", 0.0)
        for k in tot["marked"]:
            tot["marked"][k] += mv.get("marked", {}).get(k, 0)
        tot["cube_skill"] += cb.get("error-skill", 0.0)
        tot["cube_cost"] += cb.get("error-cost", 0.0)
        tot["cube_decisions"] += cb.get("total-cube", 0)
        tot["close_cube"] += cb.get("close-cube", 0)
        tot["cube_errors"] += sum(cb.get(k, 0) for k in (
            "missed-double-below-cp", "missed-double-above-cp", "wrong-double-below-dp",
            "wrong-double-above-tg", "wrong-take", "wrong-drop"))
        tot["doubles"] += cb.get("n-doubles", 0)
        tot["takes"] += cb.get("n-takes", 0)
        tot["drops"] += cb.get("n-drops", 0)
        tot["luck"] += st.get("dice", {}).get("luck", 0.0)
    return tot


def _load(path):
    if path.endswith(".mat"):
        gnubg.command(f'import mat "{path}"')
    else:
        gnubg.command(f'load match "{path}"')


def _games(m):
    results = []
    for g in m.get("games", []):
        gi = g.get("info", {})
        plays = [[r.get("player"), r.get("action"), list(r.get("dice") or []),
                  [list(x) for x in (r.get("move") or [])]] for r in g.get("game", [])]
        results.append({"winner": gi.get("winner"), "points": gi.get("points-won"),
                        "score": [gi.get("score-X"), gi.get("score-O")], "plays": plays})
    return results


def _names(m):
    info = m.get("match-info", {})
    return {side: info.get(side, {}).get("name", side) for side in ("X", "O")}


def _read(req):
    """The games of a record file as gnubg imported them (no analysis)."""
    _load(req["file"])
    m = gnubg.match(0, 0, 0, 0)
    info = m.get("match-info", {})
    return {"names": _names(m), "games": _games(m), "match_length": info.get("match_length"),
            "rules": info.get("rules")}


def _analyze(req):
    plies = int(req.get("plies", 0))
    for what in ("chequerplay", "cubedecision"):
        gnubg.command(f"set analysis {what} evaluation plies {plies}")
        gnubg.command(f"set analysis {what} evaluation cubeful on")
        gnubg.command(f"set analysis {what} evaluation prune on")
        gnubg.command(f"set analysis {what} evaluation deterministic on")
        gnubg.command(f"set analysis {what} evaluation noise 0")
    _load(req["file"])
    gnubg.command("analyse match")
    m = gnubg.match(1, 0, 1, 0)
    names = _names(m)
    games = m.get("games", [])
    players = []
    for side in ("X", "O"):
        tot = _sum_stats(games, side)
        tot["name"], tot["side"] = names[side], side
        players.append(tot)
    return {"players": players, "games": _games(m)}


def _ratings(req):
    return [RATINGS[gnubg.errorrating(abs(float(x)))] for x in req["values"]]


def _command(req):
    gnubg.command(req["text"])
    return None


OPS = {"move": _moves, "cube": _cube, "eval": _eval, "read": _read, "analyze": _analyze,
       "ratings": _ratings, "command": _command}


def main():
    out = os.fdopen(int(os.environ["ABAK_GNUBG_FD"]), "w", buffering=1)
    gnubg.command("set display off")
    gnubg.command("set threads 1")     # one request at a time; leave the other cores alone
    out.write(json.dumps({"ok": True, "result": "ready"}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            if req.get("op") == "quit":
                break
            answer = {"ok": True, "result": OPS[req["op"]](req)}
        except Exception as exc:  # noqa: BLE001 - every failure goes back as one line
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(answer) + "\n")


main()
