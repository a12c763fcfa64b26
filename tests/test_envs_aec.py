"""The PettingZoo environment and the movement-level action encoding it rests on."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402

from abak_rl.engine.game import random_play_positions  # noqa: E402
from abak_rl.engine.variants import VARIANT_NAMES, get_variant  # noqa: E402
from abak_rl.envs import make_aec  # noqa: E402
from abak_rl.envs.actions import apply_actions, describe_action, turn_tables  # noqa: E402
from abak_rl.envs.core import Lockstep, _doubles_table  # noqa: E402


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_pettingzoo_api_test(variant):
    api_test(make_aec(variant), num_cycles=40, verbose_progress=False)


def _positions(v, games=2, seed=5):
    b, d = random_play_positions(v, games, seed)
    if v.name == "acey_deucey":   # the 1-2 turn is played in two stages (tested below)
        keep = ~((d.min(1) == 1) & (d.max(1) == 2))
        b, d = b[keep], d[keep]
    return b, d


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_action_sequences_reach_exactly_the_legal_afterstates(variant):
    v = get_variant(variant)
    b, d = _positions(v)
    t = turn_tables(v, b, d)
    ref = v.legal_afterstates(b, d)
    for i in range(b.shape[0]):
        mine = np.flatnonzero(t.parent == i)
        got = {t.boards[r].tobytes() for r in mine}
        want = {np.ascontiguousarray(ref.boards[r]).tobytes() for r in np.flatnonzero(ref.parent == i)}
        assert got == want, (variant, i)
        seqs = {tuple(t.actions[r]) for r in mine}
        assert len(seqs) == mine.size, "two afterstates share one action sequence"
    # carrying the movements out one by one gives each play's afterstate
    cur = b[t.parent].copy()
    for k in range(t.actions.shape[1]):
        m = t.length > k
        cur[m] = apply_actions(v, cur[m], t.actions[m, k], t.marks[m, k])
    assert (cur == t.boards).all()


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_following_each_play_through_the_masks_ends_the_turn_on_its_afterstate(variant):
    v = get_variant(variant)
    b, d = _positions(v, games=1, seed=8)
    for i in (3, 10, 20):
        n = len(turn_tables(v, b[i:i + 1], d[i:i + 1]))
        core = Lockstep(v, n, seed=1)
        core.set_turn(np.arange(n), np.repeat(b[i:i + 1], n, 0), np.repeat(d[i:i + 1], n, 0))
        t = core.table   # game g follows the g-th play of its own table
        own = np.array([np.flatnonzero(t.parent == g)[g] for g in range(n)])
        acts, length, want = t.actions[own], t.length[own], t.boards[own].copy()
        for k in range(int(length.max())):
            go = np.flatnonzero(length > k)
            masks = core.masks()
            for g in go:   # the mask is exactly the next movements of the plays sharing the prefix
                rows = np.flatnonzero((core.table.parent == g) & core.alive)
                assert set(np.flatnonzero(masks[g])) == set(core.table.actions[rows, k].tolist())
            assert masks[go, acts[go, k]].all()
            core.step(go, acts[go, k])
        assert (core.turns == 1).all()
        going = ~core.done   # each turn ended on its own play's afterstate, now seen by the next mover
        assert (core.board[going] == v.flip(want)[going]).all()
        legal = v.legal_afterstates(b[i:i + 1], d[i:i + 1]).boards
        assert {w.tobytes() for w in want} <= {np.ascontiguousarray(r).tobytes() for r in legal}


def test_acey_deucey_one_two_in_two_stages_reaches_the_engines_union():
    v = get_variant("acey_deucey")
    start = v.initial_boards(1)
    from dataclasses import replace
    first = turn_tables(replace(v, acey_deucey=False), start, np.array([[1, 2]]))
    got = set()
    for row in first.boards:
        got |= {r.tobytes() for r in _doubles_table(v, row[None]).boards}
    ref = v.legal_afterstates(start, np.array([[1, 2]]))
    assert got == {np.ascontiguousarray(r).tobytes() for r in ref.boards}
    assert len(got) == len(ref) > 100
    # turn_tables on its own gives the whole 1-2 turn at once: one sequence per afterstate
    whole = turn_tables(v, start, np.array([[1, 2]]))
    assert {r.tobytes() for r in whole.boards} == got and len(whole) == len(got)
    cur = start[whole.parent].copy()
    for k in range(whole.actions.shape[1]):
        m = whole.length > k
        cur[m] = apply_actions(v, cur[m], whole.actions[m, k], whole.marks[m, k])
    assert (cur == whole.boards).all()


def test_pass_only_where_a_complete_play_can_also_go_on():
    v = get_variant("acey_deucey")
    core = Lockstep(v, 1)
    # mover: 14 checkers home on points 1..2 and one on 6; the opponent holds 3, 4, 5
    from abak_rl.engine.board import row_from_points
    row = row_from_points({1: 7, 2: 7, 6: 1, 3: -2, 4: -2, 5: -2, 20: -9})
    core.set_turn([0], row[None], np.array([[1, 2]]))
    m = core.masks()[0]
    assert not m[core.PASS]
    names = [describe_action(v, a) for a in np.flatnonzero(m)]
    assert names  # the 1-2 part first
    while core.then_double[0]:
        core.step([0], [int(np.flatnonzero(core.masks()[0])[0])])
    m = core.masks()[0]
    # after the 1-2, some doubles cannot be played at all: stopping (PASS) is a legal choice
    assert m[core.PASS] and m.sum() > 1


def _play(env, seed, pick_seed=0):
    env.reset(seed=seed)
    rng = np.random.default_rng(pick_seed)
    trace, final = [], {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            final[agent] = reward
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert obs["observation"].shape == env.observation_space(agent)["observation"].shape
        a = int(rng.choice(np.flatnonzero(mask)))
        trace.append((agent, a, obs["board"].tobytes()))
        env.step(a)
    return trace, final


@pytest.mark.parametrize("variant", ["standard", "abak"])
def test_a_whole_game_is_reproducible_and_scored(variant):
    env = make_aec(variant)
    t1, f1 = _play(env, seed=11)
    t2, f2 = _play(make_aec(variant), seed=11)
    assert t1 == t2 and f1 == f2
    assert sorted(f1.values())[0] == -sorted(f1.values())[1] and abs(f1["player_0"]) in (1, 2, 3)
    t3, _ = _play(env, seed=12)
    assert t3 != t1


def test_illegal_action_is_refused_with_a_clear_message():
    env = make_aec("standard")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)


def test_render_draws_the_board_and_observations_follow_the_agent():
    env = make_aec("abak", render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert "abak" in text and "to move" in text
    me = env.agent_selection
    other = [a for a in env.possible_agents if a != me][0]
    v = get_variant("abak")
    assert (env.observe(other)["board"] == v.flip(env.observe(me)["board"][None])[0]).all()
    assert env.observe(other)["action_mask"].sum() == 0 < env.observe(me)["action_mask"].sum()
    assert env.metadata["feature_set"]["name"] == "abak_expert"


def test_abak_entry_classes_are_found_whether_or_not_the_notation_names_them():
    import re
    from abak_rl.envs.actions import _abak_actions, _parse_abak
    v = get_variant("abak")
    b, d = random_play_positions(v, 6, 2)
    multi = np.flatnonzero((b[:, 120:126] > 0).sum(1) >= 2)   # two classes on the bar
    assert multi.size
    after = v.legal_afterstates(b[multi], d[multi], with_plays=True)
    checked = 0
    for i, play in enumerate(after.plays):
        if "bar" not in play:
            continue
        j = multi[after.parent[i]]
        dd = (int(d[j, 0]), int(d[j, 1]))
        dd = dd * 2 if dd[0] == dd[1] else dd
        named = _abak_actions(*_parse_abak(play, dd), b[j], after.boards[i])
        bare = re.sub(r"bar\(\w\)", "bar", play)
        assert _abak_actions(*_parse_abak(bare, dd), b[j], after.boards[i]) == named, play
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_random_paths_through_the_masks_end_on_legal_afterstates(variant):
    v = get_variant(variant)
    b, d = random_play_positions(v, 2, 21)   # Acey-deucey's 1-2 rolls included
    n = b.shape[0]
    core = Lockstep(v, n, one_turn=True)
    core.set_turn(np.arange(n), b, d)
    rng = np.random.default_rng(0)
    for _ in range(16):
        live = np.flatnonzero(~core.done)
        if live.size == 0:
            break
        masks = core.masks()[live]
        assert masks.any(axis=1).all()
        core.step(live, (rng.random(masks.shape) * masks).argmax(axis=1))
    assert core.done.all()
    ref = v.legal_afterstates(b, d)
    legal = {(int(p), np.ascontiguousarray(r).tobytes()) for p, r in zip(ref.parent, ref.boards)}
    assert all((i, core.board[i].tobytes()) in legal for i in range(n))
