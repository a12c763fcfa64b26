"""train.random_opening: each self-play game starts with 0..K random plies that are not learned."""

import numpy as np
import pytest
import torch

from abak_rl.engine.variants import get_variant
from abak_rl.features import feature_set_for
from abak_rl.model.net import EvalNet
from abak_rl.model.scorer import Scorer
from abak_rl.train import config as cfgmod
from abak_rl.train.checkpoint import load_checkpoint
from abak_rl.train.run import StopFlag, prepare_config, train
from abak_rl.train.selfplay import SelfPlay


def _scorer(v):
    fs = feature_set_for(v.name, "td198")
    torch.manual_seed(0)
    return Scorer(EvalNet(fs.size, hidden=8), fs, v, torch.device("cpu"))


def _play_until_each_slot_finished(play, scorer, max_steps=3000):
    """(recorded length, plies the game really lasted, random plies drawn) per finished game."""
    B = play.B
    plies = np.zeros(B, dtype=np.int64)
    drawn = play.prefix.copy()
    seen = []
    for _ in range(max_steps):
        ids = play.ids.copy()
        out = play.step(scorer)
        plies += 1
        ended = np.flatnonzero(play.ids != ids)          # slots whose game ended this step
        assert out.length.size == ended.size                # none was dropped: all reached play
        seen += list(zip(out.length.tolist(), plies[ended].tolist(), drawn[ended].tolist()))
        plies[ended] = 0
        drawn[ended] = play.prefix[ended]                   # the next game's draw
        if len(seen) >= 3 * B:
            return seen
    raise AssertionError("games did not finish")


def test_the_random_plies_are_played_but_not_recorded():
    v = get_variant("standard")
    scorer = _scorer(v)
    seen = _play_until_each_slot_finished(SelfPlay(v, 16, seed=3, random_opening=6), scorer)
    assert all(length == lasted - k for length, lasted, k in seen)
    ks = {k for _, _, k in seen}
    assert ks <= set(range(7)) and len(ks) >= 4             # 0..6, drawn per game
    plain = _play_until_each_slot_finished(SelfPlay(v, 16, seed=3), scorer)
    assert all(length == lasted for length, lasted, _ in plain)


def test_random_openings_reach_positions_the_net_alone_does_not():
    """With a fixed net and the same dice every game would open alike; random openings spread
    the first recorded positions out."""
    v = get_variant("standard")
    scorer = _scorer(v)

    def first_positions(k):
        play = SelfPlay(v, 64, seed=5, random_opening=k)
        out = None
        for _ in range(12):                                 # 12 plies: every game is past 6
            ids = play.ids.copy()
            out = play.step(scorer)
            assert (play.ids == ids).all()
        return {play.t_boards[i, 0].tobytes() for i in range(64) if play.length[i] > 0}

    assert len(first_positions(6)) > 2 * len(first_positions(0))


def test_a_stopped_and_resumed_run_with_random_openings_ends_the_same(tmp_path):
    base = ["model.hidden=8", "train.batch_games=16", "train.batch_states=32", "eval.every=0",
            "eval.final_games=0", "train.checkpoint_every=0", "progress=false", "threads=1", "run=t",
            "train.games=60", "train.random_opening=5"]
    train(prepare_config([f"runs_dir={tmp_path}/a/r", f"checkpoints_dir={tmp_path}/a/c", *base]))
    stop = StopFlag()

    def stop_at(c):
        if c.games >= 30:
            stop.set = True
    train(prepare_config([f"runs_dir={tmp_path}/b/r", f"checkpoints_dir={tmp_path}/b/c", *base]),
          stop=stop, on_step=stop_at)
    assert load_checkpoint(tmp_path / "b/c/t")["selfplay"]["prefix"] is not None
    train(prepare_config([f"resume={tmp_path}/b/c/t"]))
    a, b = load_checkpoint(tmp_path / "a/c/t")["net"], load_checkpoint(tmp_path / "b/c/t")["net"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_checkpoint_from_before_random_openings_loads():
    v = get_variant("standard")
    play = SelfPlay(v, 4, seed=1)
    d = play.state_dict()
    del d["prefix"]
    other = SelfPlay(v, 4, seed=1, random_opening=3)
    other.load_state_dict(d)
    assert (other.prefix == 0).all() and (other.boards == play.boards).all()


def test_a_bad_value_is_refused():
    with pytest.raises(cfgmod.ConfigError, match="train.random_opening"):
        prepare_config(["train.random_opening=-1"])
