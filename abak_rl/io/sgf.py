"""GNU Backgammon's native SGF for game records (standard backgammon): the rules travel with
the games, so gnubg imports them exactly whatever its own settings are.

One game tree per game, all in one file (a session or a match, seat 0 as White):

    (;FF[4]GM[6]CA[UTF-8]AP[abak-rl]MI[length:7][game:0][ws:0][bs:0]PW[alice]PB[bob]
      RU[Crawford]RE[W+2];W[31hefe];B[double];W[take];B[62...]...)

- MI: match length (0 = money), game number from 0, the score before the game (White, Black).
- RU: the rules, colon-separated: `Crawford` in matches (plus `CrawfordGame` in the Crawford
  game), `Jacoby` for money play under the Jacoby rule, `NoCube` for games without the cube.
  No RU for money play with the cube and no Jacoby rule.
- RE: winner and points (`W+2`, `B+1`).
- A play: the dice then two letters per movement, a..x the points 1..24 of the absolute board
  (White's numbering: White's point p is letter p, Black's point p is letter 25 - p), y the bar,
  z off. `double`, `take` and `drop` are the cube actions.
"""

from __future__ import annotations

from .records import check_turns, player_names, session_scores

LETTERS = "abcdefghijklmnopqrstuvwx"


def _letter(point: str, seat: int) -> str:
    if point == "bar":
        return "y"
    if point == "off":
        return "z"
    p = int(point)
    return LETTERS[p - 1] if seat == 0 else LETTERS[24 - p]


def sgf_play(play: str | None, dice, seat: int) -> str:
    """Our play notation ("24/18 13/11*", bar/off) from the mover's view -> an SGF move value."""
    hi, lo = max(dice), min(dice)
    out = [f"{hi}{lo}"]
    for move in (play or "").split():
        src, dst = move.rstrip("*").split("/")
        out.append(_letter(src, seat) + _letter(dst, seat))
    return "".join(out)


def _escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("]", "\\]")


def rules(record: dict, match_length: int, crawford_game: bool) -> str:
    parts = []
    if match_length:
        parts.append("Crawford")
        if crawford_game:
            parts.append("CrawfordGame")
    elif record.get("jacoby"):
        parts.append("Jacoby")
    if not record.get("cube", False):
        parts.append("NoCube")
    return ":".join(parts)


def sgf_game(record: dict, index: int, scores: tuple[int, int], match_length: int = 0) -> str:
    if record["variant"] != "standard":
        raise ValueError(f"SGF records here hold standard backgammon only, not {record['variant']}")
    check_turns(record)
    names = player_names(record["players"])
    crawford_game = bool(record.get("crawford", False))
    head = (f"(;FF[4]GM[6]CA[UTF-8]AP[abak-rl]MI[length:{match_length}][game:{index}]"
            f"[ws:{scores[0]}][bs:{scores[1]}]PW[{_escape(names[0])}]PB[{_escape(names[1])}]")
    ru = rules(record, match_length, crawford_game)
    if ru:
        head += f"RU[{ru}]"
    res = record["result"]
    head += f"RE[{'W' if res['winner'] == 0 else 'B'}+{int(res['points'])}]"
    nodes = []
    for t in record["turns"]:
        colour = "W" if t["mover"] == 0 else "B"
        value = t.get("cube") or sgf_play(t["play"], t["dice"], t["mover"])
        nodes.append(f";{colour}[{value}]")
    return head + "\n" + "\n".join(nodes) + ")\n"


def sgf_text(records: list[dict], match_length: int | None = None) -> str:
    """A whole SGF file: one game tree per record (a money session or one match)."""
    if match_length is None:
        match_length = int(records[0].get("match_length", 0)) if records else 0
    scores = session_scores(records, match_length)
    out, seen_one_away = [], False
    for k, (record, sc) in enumerate(zip(records, scores)):
        rec = record
        if match_length and "crawford" not in record:
            one_away = match_length - 1 in sc
            rec = dict(record, crawford=one_away and not seen_one_away)
            seen_one_away |= one_away
        out.append(sgf_game(rec, k, sc, match_length))
    return "".join(out)
