"""`abak-rl play`: a game, or a match, against the bot in the terminal.

The human is X (upper case in Abak) and always sees the board from its own side; the bot is O.
The board is drawn after every move (io/diagram.py). On its turn the human sees the dice and
the legal plays numbered (at most LIST_MAX of them; `list` shows all), and enters a number or a
play in the usual notation (`24/21 13/11`, `8/5(2)`; hit and trap marks optional, moves in any
order when that is unambiguous; one checker's moves may be joined, `18/16/13` or `18/13` for
`18/16 16/13`: a typed play is matched against the legal plays by where it takes the mover's
checkers, so it is accepted when exactly one legal afterstate fits). Dice show high-low. Other
commands: `hint` (the bot's top plays for you), `board`, `list`, `help`, `quit`. With --cube the human
may type `double` before rolling; the bot takes or drops with Janowski's rule on its own
evaluation (agents/cube_policies.py JanowskiCube), and doubles the human when that rule says so.
With --match-length N the two play a match to N points with the cube, as evaluate plays one
(engine/matchplay.py): each game's points capped at what its winner needs, the Crawford game
without the cube, the bot's cube decisions in match-winning chances at the score and its
checker plays by match-winning chance (the match equity table of engine/cube.py); `hint` then
ranks the human's plays by match-winning chance too.

End of input (Ctrl-D) or `quit` leaves at once (exit status 0); Ctrl-C too (exit status 130).
Dice come from engine/dice.py with the given --seed (game k of a match has game id k), so a
seed replays a game or a whole match.
"""

from __future__ import annotations

import re
import sys

import numpy as np

from ..engine import dice as dice_mod
from ..engine import cube as cube_math
from ..engine.cube import CENTRED, CubeContext, CubeState
from ..inference import Model

HUMAN, BOT = 0, 1
LIST_MAX = 20           # plays listed before "... and N more" (a doubles roll can have 80+)
RESULT_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


class Quit(Exception):
    """The human left (quit or end of input)."""


def _normalise(text: str) -> str:
    t = text.strip().lower().replace(",", " ")
    t = re.sub(r"\s+", " ", t)
    # 8/5(2) -> 8/5 8/5
    t = re.sub(r"(\S+)\((\d)\)", lambda m: " ".join([m.group(1)] * int(m.group(2))), t)
    # 18/16*/13 -> 18/16* 16/13 (one checker's moves written as a chain)
    return " ".join(_unchain(w) for w in t.split())


def _unchain(word: str) -> str:
    head, _, rest = word.rpartition(":") if re.match(r"^[a-z]:", word) else ("", "", word)
    parts = rest.split("/")
    if len(parts) <= 2:
        return word
    prefix = head + ":" if head else ""
    return " ".join(f"{prefix}{a}/{b}" for a, b in
                    zip([parts[0]] + [x.rstrip("*^") for x in parts[1:-1]], parts[1:]))


def _tokens(text: str) -> tuple:
    return tuple(sorted(_normalise(text).replace("*", "").replace("^", "").split()))


_PLACE = {"bar": 25, "pool": 26, "off": 0}


def _place(word: str) -> int | None:
    word = re.sub(r"^bar\([a-z]\)$", "bar", word)          # Abak: bar(g) = the bar
    if word in _PLACE:
        return _PLACE[word]
    return int(word) if word.isdigit() and 1 <= int(word) <= 24 else None


def net_effect(text: str) -> tuple | None:
    """Where a play takes the mover's checkers: sorted (place, change) pairs, the chain
    18/16/13 and the pair 18/16 16/13 alike (None when `text` is not plays in notation)."""
    net: dict[int, int] = {}
    words = _normalise(text).replace("*", "").replace("^", "").split()
    if not words:
        return None
    for w in words:
        places = [_place(x) for x in re.sub(r"^[a-z]:", "", w).split("/")]
        if len(places) < 2 or None in places:
            return None
        net[places[0]] = net.get(places[0], 0) - 1
        net[places[-1]] = net.get(places[-1], 0) + 1
    return tuple(sorted((k, v) for k, v in net.items() if v))


def match_play(text: str, plays: list[str]) -> int:
    """Index of the play the human means: a number 1..N, or a play in notation. ValueError says
    why nothing (or more than one play) matches."""
    t = text.strip()
    if re.fullmatch(r"\d+", t):
        k = int(t)
        if not 1 <= k <= len(plays):
            raise ValueError(f"there is no play number {k}; enter 1 to {len(plays)}")
        return k - 1
    norm = _normalise(t)
    exact = [i for i, p in enumerate(plays) if _normalise(p) == norm]
    if len(exact) == 1:
        return exact[0]
    tok = _tokens(t)
    loose = [i for i, p in enumerate(plays) if _tokens(p) == tok]
    if len(loose) == 1:
        return loose[0]
    if len(loose) > 1:
        nums = ", ".join(str(i + 1) for i in loose)
        raise ValueError(f"{t!r} fits several legal plays ({nums}); enter its number")
    want = net_effect(t)
    if want is not None:
        same = [i for i, p in enumerate(plays) if net_effect(p) == want]
        if len(same) == 1:
            return same[0]
        if len(same) > 1:
            shown = "; ".join(f"{i + 1}. {plays[i]}" for i in same[:6]) + ("; ..." if len(same) > 6 else "")
            raise ValueError(f"{t!r} fits several legal plays ({shown}); enter its number")
    if not re.search(r"\d+/|bar/|pool/", norm):
        raise ValueError(f"{t!r} is neither a play number nor a play like 24/21 13/11; type help")
    return _explain_illegal(t, plays)


def _explain_illegal(t: str, plays: list[str]) -> int:
    moves = _tokens(t)
    sizes = {len(_tokens(p)) for p in plays}
    if sizes and len(sizes) == 1 and len(moves) > max(sizes):    # fewer may be joined moves
        n = sizes.pop()
        raise ValueError(f"{t!r} is not legal: a legal play here moves {n} checker step(s), "
                         f"this one {len(moves)}")
    raise ValueError(f"{t!r} is not a legal play with these dice; pick one from the list")


def dice_text(dice) -> str:
    """A roll as players say it, high die first: 6-3."""
    a, b = int(dice[0]), int(dice[1])
    return f"{max(a, b)}-{min(a, b)}"


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class TerminalGame:
    def __init__(self, model: Model, seed: int, *, cube: bool = False, ply: int = 0,
                 stdin=None, stdout=None, x="auto", match_length: int = 0):
        self.model, self.variant, self.seed, self.ply = model, model.variant, int(seed), ply
        self.stdin, self.out = stdin or sys.stdin, stdout or sys.stdout
        if match_length < 0:
            raise ValueError(f"--match-length must be at least 1, got {match_length}")
        self.match_length = int(match_length)
        self.cube_on = cube or bool(match_length)         # a match is played with the cube
        self.cube = CubeState.centred(1)
        self.score = [0, 0]                                # human, bot
        self.crawford = self.crawford_done = False
        if self.match_length:
            self.met = cube_math.get_met(cube_math.DEFAULT_MET, self.match_length)
        if self.cube_on:
            # x="auto": the cube efficiency of each position's class (engine/cube.py); the cube
            # looks as far ahead as the bot's play does (--ply)
            self.cube_policy = model.cube_policy(x, ply)
        self.ids = np.zeros(1, dtype=np.int64)

    # -- i/o -----------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            raise Quit("end of input")
        line = line.strip()
        if not _isatty(self.stdin):
            self.out.write(line + "\n")   # echo piped input so a transcript reads like a session
        if line.lower() in ("quit", "exit", "q"):
            raise Quit("quit")
        return line

    def draw(self, board_mover: np.ndarray, mover: int, note: str = "") -> None:
        from ..io.diagram import diagram
        row = board_mover if mover == HUMAN else self.variant.flip(board_mover[None])[0]
        lines = diagram(row, self.variant.name, names=("X", "O")).split("\n")
        cube = ""
        if self.cube_on:
            owner = {CENTRED: "centred", HUMAN: "yours", BOT: "the bot's"}[int(self.cube.owner[0])]
            cube = f"; cube {int(self.cube.value[0])} ({owner})"
        if self.match_length:
            cube += (f"; {self.match_length}-point match, you {self.score[HUMAN]}, the bot {self.score[BOT]}"
                     + (", Crawford game" if self.crawford else ""))
        lines[0] = f" {self.variant.name}: you are X, the bot is O{cube}" + (f" -- {note}" if note else "")
        self.say("\n".join(lines))

    # -- cube ------------------------------------------------------------------------------------
    def _rel_owner(self, mover: int) -> int:
        owner = int(self.cube.owner[0])
        return 0 if owner == CENTRED else (1 if owner == mover else -1)

    def _away(self, mover: int) -> tuple[int, int]:
        """Points the mover and its opponent still need."""
        return self.match_length - self.score[mover], self.match_length - self.score[1 - mover]

    def _ctx(self, mover: int) -> CubeContext:
        rel = np.array([self._rel_owner(mover)])
        if not self.match_length:
            return CubeContext(value=self.cube.value.copy(), owner=rel)
        away, opp_away = self._away(mover)
        return CubeContext(value=self.cube.value.copy(), owner=rel, away=np.array([away]),
                           opp_away=np.array([opp_away]), met=self.met, crawford=np.array([self.crawford]))

    def may_double(self, mover: int) -> bool:
        if not (self.cube_on and bool(self.cube.may_double(np.array([mover]))[0])):
            return False
        if not self.match_length:
            return True
        away, opp_away = self._away(mover)       # not in the Crawford game, not a dead cube
        return bool(cube_math.match_cube_available(away, opp_away, int(self.cube.value[0]),
                                                   self._rel_owner(mover), self.crawford))

    def _match(self, mover: int) -> dict | None:
        """The match state for hint.play_hint (None in a money game)."""
        if not self.match_length:
            return None
        return {"length": self.match_length, "score": [self.score[mover], self.score[1 - mover]],
                "crawford": self.crawford, "cube": int(self.cube.value[0])}

    def bot_play(self, board: np.ndarray, dice: np.ndarray, after) -> int:
        """The bot's play: by equity, or in a match by match-winning chance at the score (as
        evaluate's match play chooses)."""
        if not self.match_length:
            return int(self.model.choose(board[None], dice[None], after, ply=self.ply)[0])
        from ..engine.matchplay import match_utility
        from ..inference import ExportedAgent
        away, opp_away = self._away(BOT)
        utility = match_utility(self.met, np.array([away]), np.array([opp_away]), self.cube.value.copy())
        return int(ExportedAgent(self.model, self.ply).choose(self.variant, board[None], dice[None], after,
                                                               utility=utility)[0])

    # -- turns -----------------------------------------------------------------------------------
    def human_turn(self, board: np.ndarray, dice: np.ndarray) -> int:
        after = self.variant.legal_afterstates(board[None], dice[None], with_plays=True)
        plays = after.plays
        d = dice_text(dice)
        if len(plays) == 1:
            if plays[0]:
                self.say(f"You rolled {d}: your only play is {plays[0]}")
            else:
                self.say(f"You rolled {d}: you cannot move")
            return 0
        self.say(f"You rolled {d}. Legal plays:")
        self.list_plays(plays)
        while True:
            line = self.ask(f"Your play (1-{len(plays)} or notation; help): ")
            low = line.lower()
            if low in ("help", "?", "h"):
                self.say("Enter a play number or a play like 24/21 13/11 (8/5(2) for doubles, moves "
                         "in any order, 18/16/13 or 18/13 for one checker's moves); hint = the bot's "
                         "advice; board = draw the board; list = all legal plays; quit = leave.")
                continue
            if low == "list":
                self.list_plays(plays, limit=None)
                continue
            if low == "board":
                self.draw(board, HUMAN, note=f"you rolled {d}")
                continue
            if low == "hint":
                from .hint import play_hint
                h = play_hint(self.model, board, dice, ply=self.ply, top=3, match=self._match(HUMAN))
                for r in h["plays"]:
                    value = (f"match-winning chance {100 * r['mwc']:.2f}%, " if "mwc" in r else "") + \
                        f"equity {r['equity']:+.3f}"
                    self.say(f"  {plays.index(r['play']) + 1:>3}. {r['play']:<24} {value}")
                continue
            if low == "double":
                self.say("You can double only before rolling" + ("" if self.cube_on else " (start with --cube)"))
                continue
            try:
                return match_play(line, plays)
            except ValueError as e:
                self.say(f"Not accepted: {e}")

    def list_plays(self, plays: list[str], limit: int | None = LIST_MAX) -> None:
        shown = plays if limit is None else plays[:limit]
        for i, p in enumerate(shown):
            self.say(f"  {i + 1:>3}. {p}")
        if len(shown) < len(plays):
            self.say(f"  ... and {len(plays) - len(shown)} more (type a play in notation, or list "
                     f"to see all {len(plays)})")

    def human_cube_action(self, board: np.ndarray) -> int | None:
        """Before the human's roll: None to roll on, or the points the human wins (bot drops)."""
        while True:
            line = self.ask("Your turn: press Enter to roll, or type double: ").lower()
            if line in ("", "roll", "r"):
                return None
            if line in ("double", "d"):
                break
            self.say(f"Not accepted: {line!r}; press Enter to roll, or type double (or quit)")
        value = int(self.cube.value[0])
        takes = bool(self.cube_policy.accept(self.variant, board[None], self._ctx(HUMAN))[0])
        if not takes:
            self.say(f"You double to {2 * value}. The bot passes.")
            return value
        self.cube.take(np.array([0]), np.array([BOT]))
        self.say(f"You double to {2 * value}. The bot takes.")
        return None

    def bot_cube_action(self, board: np.ndarray) -> int | None:
        """Before the bot's roll: None to go on, or the points the bot wins (human drops)."""
        if not bool(self.cube_policy.offer(self.variant, board[None], self._ctx(BOT))[0]):
            return None
        value = int(self.cube.value[0])
        self.say(f"The bot doubles to {2 * value}.")
        while True:
            line = self.ask("take or pass? ").lower()
            if line in ("take", "t", "accept", "yes", "y"):
                self.cube.take(np.array([0]), np.array([HUMAN]))
                return None
            if line in ("pass", "drop", "p", "no", "n"):
                return value
            self.say(f"Not accepted: {line!r}; type take or pass")

    def run(self) -> dict:
        """Play the game, or the match; returns {'winner': 'you'|'bot', 'points': n, 'turns': t}
        (a match: also 'score' [you, bot] and 'games')."""
        what = (f", {self.match_length}-point match with the cube" if self.match_length
                else ", money game with the cube" if self.cube_on else "")
        self.say(f"abak-rl play: {self.variant.name}, seed {self.seed}, bot {self.model.source} "
                 f"({self.ply}-ply){what}")
        if not self.match_length:
            return self.play_game()
        games = 0
        while max(self.score) < self.match_length:
            need = np.array([self.match_length - s for s in self.score])
            crawford, done = cube_math.crawford_game(need, self.crawford_done)
            self.crawford, self.crawford_done = bool(crawford), bool(done)
            self.cube = CubeState.centred(1)
            self.ids = np.array([games], dtype=np.int64)
            games += 1
            self.say(f"Game {games}: you {self.score[HUMAN]}, the bot {self.score[BOT]} "
                     f"({self.match_length}-point match{', the Crawford game: no cube' if self.crawford else ''})")
            end = self.play_game()
            winner = HUMAN if end["winner"] == "you" else BOT
            self.score[winner] += int(cube_math.match_award(end["points"], need[winner]))
            self.say(f"Score: you {self.score[HUMAN]}, the bot {self.score[BOT]} ({self.match_length}-point match)")
        winner = HUMAN if self.score[HUMAN] >= self.match_length else BOT
        who = "You win" if winner == HUMAN else "The bot wins"
        self.say(f"{who} the match {self.score[winner]}-{self.score[1 - winner]} after {games} game"
                 f"{'s' if games != 1 else ''}.")
        return {"winner": "you" if winner == HUMAN else "bot", "points": self.score[winner],
                "score": list(self.score), "games": games, "turns": None}

    def play_game(self) -> dict:
        """One game; returns {'winner': 'you'|'bot', 'points': n, 'turns': t}."""
        v = self.variant
        first, opening, used = dice_mod.opening_rolls(self.seed, self.ids)
        counter = int(used[0])
        mover = int(first[0])          # seat 0 = human
        dice = opening[0]
        board = v.initial_boards(1)[0]
        self.say(f"Opening roll: you {opening[0][0 if mover == HUMAN else 1]}, bot "
                 f"{opening[0][1 if mover == HUMAN else 0]}: {'you start' if mover == HUMAN else 'the bot starts'}")
        self.draw(board, mover, note="starting position")
        turns, again, opening_turn = 0, False, True
        while True:
            if not opening_turn:
                if not again and self.may_double(mover):
                    won = (self.human_cube_action(board) if mover == HUMAN else self.bot_cube_action(board))
                    if won is not None:
                        return self._end(HUMAN if mover == HUMAN else BOT, won, turns, dropped=True)
                dice = dice_mod.roll(self.seed, self.ids, np.array([counter]))[0]
                counter += 1
            opening_turn = False
            if mover == HUMAN:
                after = v.legal_afterstates(board[None], dice[None], with_plays=True)
                k = self.human_turn(board, dice)
                play = after.plays[k]
                new = after.boards[k]
                note = f"you played {play or '(no play)'} with {dice_text(dice)}"
            else:
                after = v.legal_afterstates(board[None], dice[None], with_plays=True)
                k = self.bot_play(board, dice, after)
                play, new = after.plays[k], after.boards[k]
                note = f"the bot rolled {dice_text(dice)} and played {play or '(no play)'} (its own point numbers)"
            turns += 1
            won = int(v.winner_points(new[None])[0])
            self.draw(new, mover, note=note)
            if won:
                return self._end(mover, won * int(self.cube.value[0]), turns, result=won)
            again = bool(v.extra_turn(dice[None])[0])
            if again:
                self.say(("You roll" if mover == HUMAN else "The bot rolls") + " again (1-2)")
                board = new
            else:
                board = v.flip(new[None])[0]
                mover = 1 - mover

    def _end(self, winner: int, points: int, turns: int, result: int | None = None,
             dropped: bool = False) -> dict:
        who = "You win" if winner == HUMAN else "The bot wins"
        how = "the double was passed" if dropped else RESULT_NAMES[result]
        self.say(f"{who} {points} point{'s' if points != 1 else ''} ({how}) after {turns} moves.")
        return {"winner": "you" if winner == HUMAN else "bot", "points": points, "turns": turns}
