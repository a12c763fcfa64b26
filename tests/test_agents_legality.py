"""Every bot, in every variant it plays, picks exactly one legal afterstate per position."""

import numpy as np
import pytest

from abak_rl.agents.registry import make_agent
from abak_rl.engine.game import play_games
from abak_rl.engine.variants import VARIANT_NAMES, get_variant


def _variant(name):
    try:
        return get_variant(name)
    except (ImportError, ModuleNotFoundError) as exc:
        pytest.skip(f"variant {name} is not available yet: {exc}")


class Checked:
    """Wraps an agent and checks each answer against the afterstates it was given."""

    def __init__(self, agent):
        self.agent, self.name, self.calls = agent, agent.name, 0

    def choose(self, variant, before, dice, after):
        pick = np.asarray(self.agent.choose(variant, before, dice, after))
        n = before.shape[0]
        assert pick.shape == (n,) and np.issubdtype(pick.dtype, np.integer)
        assert ((pick >= 0) & (pick < len(after))).all()
        assert (after.parent[pick] == np.arange(n)).all(), "a pick belongs to another position"
        self.calls += 1
        return pick


GAMES = {"standard": 24, "nackgammon": 16, "acey_deucey": 8, "abak": 4}


@pytest.mark.parametrize("variant_name", VARIANT_NAMES)
@pytest.mark.parametrize("spec", ["random", "pubeval", "heuristic"])
def test_bot_plays_only_legal_afterstates(spec, variant_name):
    v = _variant(variant_name)
    bot = Checked(make_agent(spec, v, seed=1))
    other = Checked(make_agent("random", v, seed=2))
    res = play_games(v, [bot, other], GAMES[variant_name], seed=4)
    assert bot.calls > 0 and (res.points > 0).all()


def test_gnubg_plays_only_legal_afterstates():
    pytest.importorskip("gnubg_nn")
    v = get_variant("standard")
    bot = Checked(make_agent("gnubg", v))
    res = play_games(v, [bot, Checked(make_agent("pubeval", v))], 16, seed=2)
    assert bot.calls > 0 and (res.points > 0).all()
