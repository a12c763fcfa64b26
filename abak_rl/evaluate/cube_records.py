"""Game records of cubeful play (money games and matches), cube actions included.

engine.matchplay.play_cubeful plays many slots in lockstep and keeps no record. To record, each
slot is played on its own (n=1, the same game ids, so the same dice and the same games as in a
batch) with its agents and cube policies wrapped: with one slot every call belongs to that
slot, so the wrappers see the whole story in order (offers, answers, rolls and plays). The
records are then checked against what play_cubeful itself reports (seat 0's points, the final
score), so a record can never disagree with the result it belongs to.
"""

from __future__ import annotations

import numpy as np

from ..engine.cube import CENTRED, game_points, match_award
from ..engine.deadlock import turn_result
from ..engine.matchplay import GAMES_PER_SLOT, play_cubeful
from ..io.position_json import dumps_rows

import json


class _Log:
    def __init__(self):
        self.events: list[dict] = []


class _RecordingAgent:
    def __init__(self, agent, seat: int, log: _Log):
        self.agent, self.seat, self.log = agent, seat, log
        self.name = getattr(agent, "name", type(agent).__name__)

    def choose(self, variant, before, dice, after):
        return self._log(before, dice, after, np.asarray(self.agent.choose(variant, before, dice, after)))

    def _log(self, before, dice, after, picks):
        for i in range(before.shape[0]):
            self.log.events.append({"kind": "play", "seat": self.seat, "dice": dice[i].copy(),
                                    "before": before[i].copy(),
                                    "after": after.boards[picks[i]].copy()})
        return picks


class _RecordingUtilityAgent(_RecordingAgent):
    """The same for an agent that plays for match-winning chances (a `utility` keyword)."""

    def choose(self, variant, before, dice, after, utility=None):
        picks = np.asarray(self.agent.choose(variant, before, dice, after, utility=utility))
        return self._log(before, dice, after, picks)


def _recording_agent(agent, seat, log):
    from ..engine.matchplay import _accepts_utility
    return (_RecordingUtilityAgent if _accepts_utility(agent) else _RecordingAgent)(agent, seat, log)


class _RecordingPolicy:
    def __init__(self, policy, seat: int, log: _Log):
        self.policy, self.seat, self.log = policy, seat, log

    def offer(self, variant, boards, ctx):
        out = np.asarray(self.policy.offer(variant, boards, ctx), dtype=bool)
        for i in np.flatnonzero(out):
            self.log.events.append({"kind": "double", "seat": self.seat,
                                    "value": 2 * int(ctx.value[i]),
                                    "before": np.asarray(boards[i]).copy()})
        return out

    def accept(self, variant, boards, ctx):
        out = np.asarray(self.policy.accept(variant, boards, ctx), dtype=bool)
        for ok in out:
            self.log.events.append({"kind": "take" if ok else "drop", "seat": self.seat})
        return out


def _play_text(variant, before, dice, after) -> str:
    """The engine's notation of the play that leads from `before` to `after`."""
    a = variant.legal_afterstates(before[None], dice[None].astype(np.int8), with_plays=True)
    hit = np.flatnonzero((a.boards == after).all(axis=1))
    return a.plays[hit[0]] if hit.size else ""


def _games_of(events, variant, names, seed, slot, match_length, jacoby):
    """Split one slot's event stream into game records, keeping the score and the cube."""
    records, score, crawford_done, k = [], [0, 0], False, 0
    cur = None

    def start():
        nonlocal crawford_done
        crawford = False
        if match_length:
            one_away = match_length - 1 in score
            crawford = one_away and not crawford_done
            crawford_done |= one_away
        return {"variant": variant.name, "players": list(names), "seed": int(seed),
                "game_id": int(slot * GAMES_PER_SLOT + k), "match_length": int(match_length),
                "jacoby": bool(jacoby and not match_length), "cube": True, "crawford": crawford,
                "score": list(score), "turns": [], "_value": 1, "_owner": CENTRED}

    def finish(winner, pts):
        nonlocal cur, k
        cur["result"] = {"winner": int(winner), "points": int(pts),
                         "turns": sum(1 for t in cur["turns"] if "cube" not in t)}
        if match_length:   # the score takes at most what the winner still needs
            pts = int(match_award(np.array([pts]), np.array([match_length - score[winner]]))[0])
        score[winner] += pts
        del cur["_value"], cur["_owner"]
        records.append(cur)
        k += 1
        cur = None

    for e in events:
        if cur is None:
            cur = start()
        if e["kind"] == "double":
            cur["turns"].append({"mover": e["seat"], "cube": "double", "value": e["value"],
                                 "_before": e["before"]})
        elif e["kind"] == "take":
            cur["turns"].append({"mover": e["seat"], "cube": "take"})
            cur["_value"] *= 2
            cur["_owner"] = e["seat"]
        elif e["kind"] == "drop":
            cur["turns"].append({"mover": e["seat"], "cube": "drop"})
            finish(1 - e["seat"], cur["_value"])
        else:
            cur["turns"].append({"mover": e["seat"], "dice": [int(x) for x in e["dice"]],
                                 "play": _play_text(variant, e["before"], e["dice"], e["after"]),
                                 "_before": e["before"]})
            res = int(turn_result(variant, e["before"][None], e["after"][None])[0])
            if res:
                pts = int(game_points(np.array([abs(res)]), np.array([cur["_value"]]),
                                      np.array([cur["_owner"]]),
                                      jacoby=jacoby and not match_length)[0])
                finish(e["seat"] if res > 0 else 1 - e["seat"], pts)
    if cur is not None:
        raise RuntimeError(f"slot {slot}: the record ends in the middle of a game")
    return records, score


def _attach_positions(records, variant) -> None:
    befores = [t["_before"] for r in records for t in r["turns"] if "_before" in t]
    texts = iter(dumps_rows(np.stack(befores), variant.name) if befores else [])
    for r in records:
        for t in r["turns"]:
            if "_before" in t:
                del t["_before"]
                t["position"] = json.loads(next(texts))


def play_recorded(variant, agents, policies, slots: np.ndarray, seed: int, names, *,
                  match_length: int = 0, jacoby: bool = False):
    """play_cubeful one slot at a time with recording wrappers.

    Returns (seat 0's points or match result per slot, list per slot of game records)."""
    points = np.empty(len(slots), np.int64)
    per_slot = []
    for j, slot in enumerate(np.asarray(slots, np.int64)):
        log = _Log()
        ag = [_recording_agent(agents[s], s, log) for s in (0, 1)]
        po = [_RecordingPolicy(policies[s], s, log) for s in (0, 1)]
        r = play_cubeful(variant, ag, po, 1, seed, match_length=match_length, jacoby=jacoby,
                         game_ids=np.array([slot]))
        records, score = _games_of(log.events, variant, names, seed, int(slot), match_length, jacoby)
        if match_length:
            if score != [int(x) for x in r.score[0]]:
                raise RuntimeError(f"slot {slot}: recorded score {score} but the match ended "
                                   f"{r.score[0].tolist()}")
        elif score[0] - score[1] != int(r.seat0_points[0]):
            raise RuntimeError(f"slot {slot}: recorded {score[0] - score[1]:+d} points for seat 0 "
                               f"but the game gave {int(r.seat0_points[0]):+d}")
        _attach_positions(records, variant)
        points[j] = r.seat0_points[0]
        per_slot.append(records)
    return points, per_slot


def write_cubeful_records(path: str, legs: list[list[list[dict]]], match_length: int) -> list[str]:
    """legs[0]: the agent in seat 0, legs[1]: seats swapped; each a list per slot of records.

    JSON lines: every game in one file. .mat / .sgf: a money session per seating (`x.sgf`,
    `x_swapped.sgf`), or one file per match (`x_0001.sgf`, `x_0001_swapped.sgf`, ...), since
    such a file holds one session or one match with its two players in fixed places."""
    from pathlib import Path

    from ..io.records import write_file, write_jsonl
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if p.suffix not in (".mat", ".sgf"):
        write_jsonl([r for leg in legs for slot in leg for r in slot], p)
        return [str(p)]
    out = []
    for leg, tag in zip(legs, ("", "_swapped")):
        if match_length:
            for i, slot in enumerate(leg):
                f = p.with_name(f"{p.stem}_{i + 1:04d}{tag}{p.suffix}")
                write_file(slot, f)
                out.append(str(f))
        else:
            f = p.with_name(f"{p.stem}{tag}{p.suffix}")
            write_file([r for slot in leg for r in slot], f)
            out.append(str(f))
    return out
