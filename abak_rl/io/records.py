"""Game records: JSON lines for every variant, and Jellyfish .mat text for standard backgammon.

JSON lines: one object per game,
    {"variant", "players": [seat 0, seat 1], "seed", "game_id",
     "result": {"winner": seat, "points": 1|2|3, "turns": n},
     "turns": [{"mover": seat, "dice": [d1, d2], "play": "24/18 13/11", "position": <before>}]}
where "position" is the position before the play, seen by the mover (position JSON format).

.mat: the layout GNU Backgammon writes with `export match mat` and reads with `import mat`:
seat 0 in the left column, each play from its own player's view with the bar as 25 and off as 0,
a hit marked `*` on the first landing on a point the opponent held before the play. A series of
independent cubeless games is written as a money session (` 0 point match`) with running scores.
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
    """For the evaluation runner: write the games to `path` (.mat -> Jellyfish text, standard
    only; anything else -> JSON lines) and return the records."""
    records = game_records(results, variant, players, seed, game_ids)
    if Path(path).suffix == ".mat":
        Path(path).write_text(mat_text(records), encoding="utf-8")
    else:
        write_jsonl(records, path)
    return records


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


def _name(name: str) -> str:
    """gnubg splits the names line on ':' and turns spaces into '_'."""
    cleaned = "".join("_" if ch.isspace() or ch == ":" else ch for ch in str(name))
    return cleaned or "player"


def _points(n: int) -> str:
    return f"Wins {n} point{'s' if n > 1 else ''}"


def mat_game(record: dict, index: int, scores: tuple[int, int]) -> str:
    """One game of a .mat file (index counts from 0; scores before the game, seat 0 first)."""
    if record["variant"] != "standard":
        raise ValueError(f".mat files hold standard backgammon only, not {record['variant']}")
    names = [_name(p) for p in record["players"]]
    left = f"{names[0]} : {scores[0]}"
    lines = [f" Game {index + 1}\n", f" {left:<31}{names[1]} : {scores[1]}\n"]
    turns = record["turns"]
    for a, b in zip(turns, turns[1:]):
        if a["mover"] == b["mover"]:
            raise ValueError(f"game {record['game_id']}: seat {a['mover']} moves twice in a row; "
                             ".mat needs alternating turns")
    i = 0
    for t in turns:
        hi, lo = max(t["dice"]), min(t["dice"])
        text = f"{hi}{lo}: " + mat_play(t["play"], t["position"]["board"])
        if i == 0 and t["mover"] == 1:
            lines.append("  1)" + " " * 29)
            i = 1
        lines.append(text + "\n" if i & 1 else f"{(i >> 1) + 1:3d}) {text:<27} ")
        i += 1
    result = record["result"]
    if turns and turns[-1]["mover"] != result["winner"]:
        raise ValueError(f"game {record['game_id']}: the winner did not make the last play")
    lines.append(("\n      " if i & 1 else " " * 34) + _points(result["points"]) + "\n\n")
    return "".join(lines)


def mat_text(records: list[dict], match_length: int = 0) -> str:
    """A whole .mat file: header, then the games with running scores (seat 0 on the left)."""
    out = [f" {match_length} point match\n\n"]
    scores = [0, 0]
    for k, record in enumerate(records):
        out.append(mat_game(record, k, (scores[0], scores[1])))
        scores[record["result"]["winner"]] += record["result"]["points"]
    return "".join(out)
