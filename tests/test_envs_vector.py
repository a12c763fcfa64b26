"""The Gymnasium environments: Gymnasium's own checkers, masks, rewards, same-step restarts."""

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.utils.passive_env_checker import check_obs  # noqa: E402

from abak_rl.engine.variants import VARIANT_NAMES  # noqa: E402
from abak_rl.envs import make_vector  # noqa: E402
from abak_rl.envs.vector import make_env  # noqa: E402


def _random_actions(rng, mask):
    return (rng.random(mask.shape) * mask).argmax(axis=1)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_single_env_passes_gymnasium_check_env(variant):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # unbounded feature boxes are reported as a warning
        check_env(make_env(variant, on_illegal="random"), skip_render_check=True)


@pytest.mark.parametrize("variant", ["standard", "abak"])
def test_vector_env_observations_masks_and_restarts(variant):
    env = make_vector(variant, 8)
    obs, info = env.reset(seed=4)
    check_obs(obs, env.observation_space, "reset")
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(250):
        mask = info["action_mask"]
        assert mask.shape == (8, env.single_action_space.n) and mask.any(axis=1).all()
        seat = info["seat"].copy()
        obs, reward, term, trunc, info = env.step(_random_actions(rng, mask))
        assert (obs["seat"] == info["seat"]).all()
        if term.any():
            ended += int(term.sum())
            assert info["_final_obs"][term].all()
            assert set(np.abs(reward[term]).tolist()) <= {1.0, 2.0, 3.0}
            # self-play: the reward is the acting player's (the winner's sign matches)
            won = info["winner"][term] == seat[term]
            assert ((reward[term] > 0) == won).all()
            assert (info["turns"][term] > 0).all()
        assert (reward[~term] == 0).all()
    check_obs(obs, env.observation_space, "step")
    assert ended > 0


def test_vector_env_is_reproducible_from_its_seed():
    def run(seed):
        env = make_vector("standard", 4)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        boards = []
        for _ in range(60):
            obs, r, term, trunc, info = env.step(_random_actions(rng, info["action_mask"]))
            boards.append(obs["board"].copy())
        return np.stack(boards)
    assert (run(7) == run(7)).all()
    assert not (run(7) == run(8)).all()


def test_illegal_vector_action_is_refused():
    env = make_vector("standard", 2)
    _, info = env.reset(seed=0)
    bad = np.argmin(info["action_mask"], axis=1)
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)


def test_fixed_opponent_mode_plays_seat_1_inside_step():
    env = make_vector("nackgammon", 6, opponent="random")
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(3)
    total, ended = 0.0, 0
    for _ in range(300):
        assert (obs["seat"] == 0).all()   # the learner only ever sees its own turns
        obs, reward, term, trunc, info = env.step(_random_actions(rng, info["action_mask"]))
        total += reward.sum()
        ended += int(term.sum())
        # the reward is seat 0's: positive exactly where seat 0 won
        assert ((reward[term] > 0) == (info["winner"][term] == 0)).all()
    assert ended > 0


def test_a_bad_num_envs_or_variant_names_the_problem():
    with pytest.raises(ValueError, match="num_envs"):
        make_vector("standard", 0)
    with pytest.raises(ValueError, match="unknown variant"):
        make_vector("chess", 2)


def test_feature_set_option_changes_the_observation():
    from abak_rl.envs import make_aec
    env = make_vector("standard", 2, feature_set="td198")
    obs, _ = env.reset(seed=0)
    assert obs["observation"].shape == (2, 198) and env.metadata["feature_set"]["name"] == "td198"
    aec = make_aec("standard", feature_set="td198")
    aec.reset(seed=0)
    assert aec.observe(aec.agent_selection)["observation"].shape == (198,)
    with pytest.raises(ValueError, match="cannot describe"):
        make_vector("abak", 2, feature_set="td198")
