"""Game records: JSON lines for every variant; Jellyfish .mat text and (io/sgf.py) GNU
Backgammon's SGF for standard backgammon.

JSON lines: one object per game,
    {"variant", "players": [seat 0, seat 1], "seed", "game_id",
     "result": {"winner": seat, "points": n, "turns": n},
     "turns": [{"mover": seat, "dice": [d1, d2], "play": "24/18 13/11", "position": <before>}
               or {"mover": seat, "cube": "double", "value": 2, "position": <before>}
               / {"mover": seat, "cube": "take" | "drop"}]}
where "position" is the position before the play (or the double), seen by the mover (position
JSON format).
Cubeful games (evaluate/cube_records.py) also carry "cube": true, "jacoby", "match_length",
"score" (before the game, seat 0 first) and "crawford" (the Crawford game of a match); points
are then what the game was worth (cube value, the Jacoby rule); in a match the score takes at
most what the winner still needed, as gnubg counts it.

.mat: the layout GNU Backgammon writes with `export match mat` and reads with `import mat`:
seat 0 in the left column, each play from its own player's view with the bar as 25 and off as 0,
a hit marked `*` on the first landing on a point the opponent held before the play, cube actions
as ` Doubles => 2`, ` Takes`, ` Drops`. A series of money games is a session (` 0 point match`)
with running scores. gnubg imports a .mat session under its own Jacoby setting, so money games
without the Jacoby rule (cubeless ones included) go to .sgf instead (see mat_refusal).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .position_json import dumps_rows


def game_records(results, variant: str, players=("player0", "player1"), seed: int | None = None,
                 game_ids=None) -> list[dict]:
    """GameResults from play_games(..., record=True) -> one record dict per game."""
    if results.records is None:
        raise ValueError("the games were played without record=True; nothing to write")
    n = len(results.records)
    ids = np.arange(n) if game_ids is None else np.asarray(game_ids)
    if ids.shape[0] != n:
        raise ValueError(f"{ids.shape[0]} game ids for {n} games")
    befores = [t["before"] for turns in results.records for t in turns]
    texts = iter(dumps_rows(np.stack(befores), variant) if befores else [])
    out = []
    for g, turns in enumerate(results.records):
        out.append({
            "variant": variant, "players": [str(p) for p in players],
            "seed": None if seed is None else int(seed), "game_id": int(ids[g]),
            "result": {"winner": int(results.winner[g]), "points": int(results.points[g]),
                       "turns": int(results.turns[g])},
            "turns": [{"mover": int(t["seat"]), "dice": [int(d) for d in t["dice"]],
                       "play": t["play"], "position": json.loads(next(texts))} for t in turns],
        })
    return out


def write_jsonl(records: list[dict], path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def read_jsonl(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_records(results, variant: str, path, players=("player0", "player1"),
                  seed: int | None = None, game_ids=None) -> list[dict]:
    """For the evaluation runner: write the games to `path` by its suffix (.mat -> Jellyfish
    text, .sgf -> GNU Backgammon's SGF, both standard only; anything else -> JSON lines) and
    return the records."""
    records = game_records(results, variant, players, seed, game_ids)
    write_file(records, path)
    return records


def mat_refusal(records: list[dict]) -> str | None:
    """Why these records cannot be a .mat file GNU Backgammon imports exactly, or None.

    gnubg reads a .mat money session under its own Jacoby setting (on unless changed): games
    played without the Jacoby rule (every cubeless game) would have their gammons scored as
    single games. SGF carries the rule."""
    if records and not int(records[0].get("match_length", 0)) and not all(
            r.get("jacoby") for r in records):
        return ("a .mat money session is read by GNU Backgammon under its own Jacoby setting "
                "(on by default), which would score these games' gammons as single games; "
                "write .sgf, which carries the rules")
    return None


def write_file(records: list[dict], path) -> None:
    """records -> `path`: .mat, .sgf or JSON lines by the suffix (one session or match a file
    for .mat and .sgf)."""
    p = Path(path)
    if p.suffix == ".mat":
        why = mat_refusal(records)
        if why:
            raise ValueError(f"{p.name}: {why}")
        p.write_text(mat_text(records), encoding="utf-8")
    elif p.suffix == ".sgf":
        from .sgf import sgf_text
        p.write_text(sgf_text(records), encoding="utf-8")
    else:
        write_jsonl(records, p)


# ----------------------------------------------------------------------------- .mat

def mat_play(play: str, board: list[int]) -> str:
    """Our play notation -> .mat notation: bar = 25, off = 0, gnubg's hit marks, and gnubg's
    spacing (a space after each of the first three movements)."""
    parts, landed = [], set()
    for k, move in enumerate(play.split()):
        src, dst = move.rstrip("*").split("/")
        src = "25" if src == "bar" else src
        to = 0 if dst == "off" else int(dst)
        hit = to > 0 and board[to - 1] < 0 and to not in landed
        landed.add(to)
        parts.append(f"{src}/{to}{'*' if hit else ''}" + (" " if k < 3 else ""))
    return "".join(parts)


MAX_NAME = 31   # gnubg keeps at most 31 characters of a player's name


def player_name(name: str) -> str:
    """A player name GNU Backgammon reads back unchanged: no spaces, ':', '[' or ']' (they
    split its names line and its SGF properties), at most 31 characters (a long name keeps its
    head and its tail)."""
    cleaned = "".join("_" if ch.isspace() or ch in ":[]\\" else ch for ch in str(name)) or "player"
    if len(cleaned) > MAX_NAME:
        cleaned = cleaned[:12] + ".." + cleaned[-(MAX_NAME - 14):]
    return cleaned


def player_names(players) -> tuple[str, str]:
    """Both names, made distinct (gnubg reports its statistics per name)."""
    a, b = player_name(players[0]), player_name(players[1])
    if a == b:
        a, b = a[:MAX_NAME - 2] + "_1", b[:MAX_NAME - 2] + "_2"
    return a, b


def _points(n: int) -> str:
    return f"Wins {n} point{'s' if n > 1 else ''}"


def _entry(t: dict, board_hint=None) -> str:
    """One column entry of a .mat game: a roll and its play, or a cube action."""
    action = t.get("cube")
    if action == "double":
        return f" Doubles => {t['value']}"
    if action == "take":
        return " Takes"
    if action == "drop":
        return " Drops"
    hi, lo = max(t["dice"]), min(t["dice"])
    return f"{hi}{lo}: " + mat_play(t["play"], t["position"]["board"])


def check_turns(record: dict) -> None:
    """The order a game record must keep: plays alternate (the standard game has no extra
    turns), a double is answered by the other side, a drop ends the game, the winner acted last."""
    turns = record["turns"]
    for a, b in zip(turns, turns[1:]):
        if a["mover"] == b["mover"]:
            raise ValueError(f"game {record['game_id']}: seat {a['mover']} acts twice in a row; "
                             "records need alternating turns")
        if a.get("cube") == "double" and b.get("cube") not in ("take", "drop"):
            raise ValueError(f"game {record['game_id']}: a double is not answered")
        if a.get("cube") == "drop":
            raise ValueError(f"game {record['game_id']}: the game goes on after a drop")
    result = record["result"]
    if turns:
        last = turns[-1]
        winner = (1 - last["mover"]) if last.get("cube") == "drop" else last["mover"]
        if winner != result["winner"]:
            raise ValueError(f"game {record['game_id']}: the winner did not make the last play")


def mat_game(record: dict, index: int, scores: tuple[int, int]) -> str:
    """One game of a .mat file (index counts from 0; scores before the game, seat 0 first).

    Each column entry is a roll with its play or a cube action (` Doubles => 2`, ` Takes`,
    ` Drops`), as gnubg's `export match mat` writes them; the result line sits in the winner's
    column.
    """
    if record["variant"] != "standard":
        raise ValueError(f".mat files hold standard backgammon only, not {record['variant']}")
    check_turns(record)
    names = player_names(record["players"])
    left = f"{names[0]} : {scores[0]}"
    # gnubg reads the second name after the blank that follows the first score
    lines = [f" Game {index + 1}\n", f" {left:<30} {names[1]} : {scores[1]}\n"]
    i = 0
    for t in record["turns"]:
        text = _entry(t)
        if i == 0 and t["mover"] == 1:
            lines.append("  1)" + " " * 29)
            i = 1
        lines.append(text + "\n" if i & 1 else f"{(i >> 1) + 1:3d}) {text:<27} ")
        i += 1
    winner = record["result"]["winner"]
    lines.append(("\n" if i & 1 else "") + (" " * 6 if winner == 0 else " " * 34)
                 + _points(record["result"]["points"]) + "\n\n")
    return "".join(lines)


def session_scores(records: list[dict], match_length: int = 0) -> list[tuple[int, int]]:
    """The score before each game: the records' own "score" when they carry one (cubeful
    matches), else running totals; in a match a game adds at most what its winner still needs,
    and no game may follow the end of the match."""
    scores, out = [0, 0], []
    for k, record in enumerate(records):
        if match_length and max(scores) >= match_length:
            raise ValueError(f"game {k + 1} follows the end of the {match_length}-point match "
                             f"(score {scores[0]}-{scores[1]})")
        if "score" in record:
            scores = [int(record["score"][0]), int(record["score"][1])]
        out.append((scores[0], scores[1]))
        w, pts = record["result"]["winner"], int(record["result"]["points"])
        scores[w] += min(pts, match_length - scores[w]) if match_length else pts
    return out


def mat_text(records: list[dict], match_length: int | None = None) -> str:
    """A whole .mat file: header, then the games with their scores (seat 0 on the left).

    match_length: None = the records' own ("match_length", else 0: a money session)."""
    if match_length is None:
        match_length = int(records[0].get("match_length", 0)) if records else 0
    out = [f" {match_length} point match\n\n"]
    for k, (record, sc) in enumerate(zip(records, session_scores(records, match_length))):
        out.append(mat_game(record, k, sc))
    return "".join(out)
