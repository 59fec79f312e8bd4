"""The vector env under Gymnasium's vector conventions, as its own vector envs and wrappers use them: seeds as
an int or a list, partial resets (``reset_mask``), ``_key`` masks for every info, the autoreset mode as an
attribute, ``final_obs``/``final_info``, writable arrays, rendering, ``close``; and Gymnasium's own vector
wrappers over every game, each checked against the same games played unwrapped."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers import vector as wrappers
from test_vector_env import random_legal, vector_env

import envs
from envs.core.batch import new_game
from envs.core.engine import IllegalActionError

SAME, NEXT = AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP


def learner_view(name: str, seed: int) -> np.ndarray:
    """The observation of the first learner turn of the game of ``seed`` (seat ``seed % players``), random
    opponents aside: the game's first observation when the learner sits first."""
    state = new_game(envs.describe(name).make(), seed)
    return state.observation(state.current_player)


@pytest.mark.parametrize("name", envs.GAMES)
def test_seeds_as_an_int_or_a_list_deal_those_games(name):
    """``seed=s`` deals game i the seed s + i, as ``SyncVectorEnv`` does; ``seed=[...]`` each game its own; the
    same seeds give the same games, observations and infos, whichever way they are written."""
    venv = vector_env(name, 4)
    by_int = venv.reset(seed=6)
    by_list = venv.reset(seed=[6, 7, 8, 9])
    assert np.array_equal(by_int[0], by_list[0]) and np.array_equal(by_int[1]["seat"], by_list[1]["seat"])
    obs, infos = venv.reset(seed=[40, 3, 40, None])
    assert venv.unwrapped.batch.seeds[:3].tolist() == [40, 3, 40] and np.array_equal(obs[0], obs[2])
    players = envs.describe(name).make().num_players
    assert infos["seat"][:3].tolist() == [40 % players, 3 % players, 40 % players]
    for i, seed in [(0, 40), (1, 3)]:
        if infos["seat"][i] == new_game(envs.describe(name).make(), seed).current_player:
            assert np.array_equal(obs[i], learner_view(name, seed)), "the learner moves first: env()'s first view"


def test_a_partial_reset_deals_only_the_masked_games():
    """``options={"reset_mask": m}`` deals the games of ``m`` (seed ``s + i`` for an int seed, each one's next
    seed without one) and leaves the others exactly as they were. (The learner sits first: no opponent, whose
    generator has moved on, plays before its first view.)"""
    venv = vector_env("wakanda", 4, seed=0, seat=0)
    venv.reset()
    rng = np.random.default_rng(1)
    for _ in range(3):
        obs, *_, infos = venv.step(random_legal(venv.action_masks(), rng))
    before = [venv.batch.state(i).to_dict() for i in range(4)]
    mask = np.array([False, True, False, True])
    again, infos = venv.reset(seed=100, options={"reset_mask": mask})
    assert venv.batch.seeds.tolist()[1::2] == [101, 103]
    assert [venv.batch.state(i).to_dict() for i in (0, 2)] == [before[0], before[2]]
    assert np.array_equal(again[::2], obs[::2]) and np.array_equal(
        again[1::2], vector_env("wakanda", 4, seat=0).reset(seed=100)[0][1::2]
    )
    seeds = venv.batch.seeds.copy()
    venv.reset(options={"reset_mask": np.array([True, False, False, False])})
    assert venv.batch.seeds.tolist() == [seeds[0] + 4, *seeds[1:].tolist()]


def test_bad_seeds_and_options_are_refused_by_name():
    venv = vector_env("wapi", 3)
    for seed in ([1, 2], [1, 2, -3], [1, 2, 3.0], [1, 2, True], np.int64(3), -1, "1", [1, 2, np.int64(3)]):
        with pytest.raises(ValueError, match="seed must be None, a non-negative int or a list of 3"):
            venv.reset(seed=seed)
    for options in ({"reset_mask": np.zeros(3, bool)}, {"reset_mask": [True] * 3}, {"reset_mask": np.ones(2, bool)}):
        with pytest.raises(ValueError, match=r"reset_mask must be a numpy bool array of shape \(3,\)"):
            venv.reset(options=options)
    with pytest.raises(ValueError, match="options must be None or"):
        venv.reset(options={"reset_mask": np.ones(3, bool), "seat": 1})
    with pytest.raises(ValueError, match="reset_mask resets some games of a running batch"):
        vector_env("wapi", 3).reset(options={"reset_mask": np.ones(3, bool)})
    for mode in ("next_step", 1, None):
        with pytest.raises(ValueError, match="autoreset_mode must be one of"):
            vector_env("wapi", 3, autoreset_mode=mode)
    with pytest.raises(ValueError, match="render_mode must be one of"):
        vector_env("wapi", 3, render_mode="human")


@pytest.mark.parametrize("mode", [SAME, NEXT, "NextStep"])
def test_the_autoreset_mode_is_an_attribute_and_in_the_metadata(mode):
    venv = vector_env("wapi", 2, autoreset_mode=mode)
    assert venv.autoreset_mode is AutoresetMode(mode) and venv.metadata["autoreset_mode"] is AutoresetMode(mode)
    assert vector_env("wapi", 2).autoreset_mode is SAME, "same-step unless asked: the library's first behaviour"


def infos_have_their_masks(infos: dict, num_envs: int) -> None:
    """Every info key ``k`` has its ``_k``, a bool vector of the games that have it (recursively)."""
    for key, value in infos.items():
        if key.startswith("_"):
            continue
        mask = infos[f"_{key}"]
        assert mask.dtype == bool and mask.shape == (num_envs,), key
        if isinstance(value, dict):
            infos_have_their_masks(value, num_envs)


@pytest.mark.parametrize("name", envs.GAMES)
def test_infos_and_final_observations_are_as_gymnasium_defines_them(name):
    """Same-step: ``final_obs`` an object array (the last observation where a game ended, None elsewhere),
    ``final_info`` the last info (score, scores, seat); every key with its ``_key`` mask; the masks writable."""
    venv, rng, seen = vector_env(name, 3, seed=2), np.random.default_rng(0), 0
    _, infos = venv.reset()
    infos_have_their_masks(infos, 3)
    while seen < 4:
        assert venv.action_masks().flags.writeable and infos["action_mask"].flags.writeable
        seats = infos["seat"]
        _, rewards, terminated, _, infos = venv.step(random_legal(venv.action_masks(), rng))
        infos_have_their_masks(infos, 3)
        if terminated.any():
            final, final_info = infos["final_obs"], infos["final_info"]
            assert final.dtype == object and [row is None for row in final] == (~terminated).tolist()
            assert np.array_equal(final_info["seat"][terminated], seats[terminated])
            scores = final_info["scores"][terminated]
            assert np.array_equal(final_info["score"][terminated], scores[np.arange(len(scores)), seats[terminated]])
            seen += int(terminated.sum())


@pytest.mark.parametrize("name", envs.GAMES)
def test_render_draws_each_game_as_env_does_and_close_is_idempotent(name):
    venv = vector_env(name, 2, seed=4, render_mode="ansi")
    venv.reset()
    texts = venv.render()
    assert len(texts) == 2
    assert texts[0] == venv.batch.state(0).render_text(int(venv.seats[0]))
    venv.close()
    venv.close()
    assert venv.closed
    if name == "wapi":
        pictures = vector_env(name, 2, seed=4, render_mode="rgb_array")
        pictures.reset()
        assert [p.dtype for p in pictures.render()] == [np.uint8] * 2
        with pytest.warns(UserWarning, match="without a render_mode"):
            assert vector_env(name, 2).render() is None


def observation_stack(venv):
    """Gymnasium's observation wrappers that fit a flat Box, composed so that their result is the observation
    itself (as float64): a transform to [-1, 1] and a rescale back, a reshape and a flatten, a dtype."""
    box = gymnasium.spaces.Box(-1.0, 1.0, venv.single_observation_space.shape, np.float32)
    size = box.shape[0]
    centred = wrappers.TransformObservation(venv, lambda o: 2 * o - 1, batch_space(box, venv.num_envs), box)
    rescaled = wrappers.RescaleObservation(centred, 0.0, 1.0)
    flat = wrappers.FlattenObservation(wrappers.ReshapeObservation(rescaled, (size, 1)))
    return wrappers.DtypeObservation(flat, np.float64)


@pytest.mark.filterwarnings("ignore:.*precision lowered:UserWarning")  # RescaleObservation's own float64 bounds
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("name", envs.GAMES)
def test_gymnasiums_vector_wrappers_apply_to_every_game(name):
    """Under next-step autoreset, Gymnasium's vector wrappers stack on the vector env, and each does to the
    same games (same seeds, same moves) what it says: observations transformed and back, then normalised
    with running statistics; rewards transformed and clipped; exact episode returns and lengths; infos as lists."""
    raw = vector_env(name, 3, seed=9, autoreset_mode=NEXT)
    stats = wrappers.RecordEpisodeStatistics(vector_env(name, 3, seed=9, autoreset_mode=NEXT))
    normal = wrappers.NormalizeObservation(observation_stack(stats))
    clipped = wrappers.ClipReward(wrappers.TransformReward(normal, lambda r: 3 * r), -2.0, 2.0)
    wrapped = wrappers.DictInfoToList(clipped)
    obs, infos = raw.reset()
    out, listed = wrapped.reset()
    rng, seen, lengths, returns, ended = np.random.default_rng(0), [obs], np.zeros(3, int), 0, np.zeros(3, bool)

    def normalised(observations):
        return (observations - normal.obs_rms.mean) / np.sqrt(normal.obs_rms.var + normal.epsilon)

    assert np.allclose(out, normalised(obs), atol=1e-5)
    while returns < 5:
        actions = random_legal(infos["action_mask"], rng)
        lengths = np.where(ended, 0, lengths + 1)
        obs, reward, terminated, _, infos = raw.step(actions)
        out, reward_out, terminated_out, _, listed = wrapped.step(actions)
        seen.append(obs)
        assert np.allclose(out, normalised(obs), atol=1e-5) and np.array_equal(terminated_out, terminated)
        assert np.array_equal(reward_out, np.clip(3 * reward, -2.0, 2.0))
        assert [info["action_mask"].tolist() for info in listed] == infos["action_mask"].tolist()
        for i in np.flatnonzero(terminated):
            assert listed[i]["episode"]["r"] == reward[i] and listed[i]["episode"]["l"] == lengths[i]
            assert listed[i]["score"] == infos["score"][i]
            returns += 1
        ended = terminated
    every = np.concatenate(seen).astype(np.float64)
    assert normal.obs_rms.count == pytest.approx(len(every) + 1e-4)
    assert np.allclose(normal.obs_rms.mean, every.mean(axis=0), atol=1e-6)


def test_with_autoreset_disabled_finished_games_wait_for_a_partial_reset():
    """``AutoresetMode.DISABLED`` (TorchRL's way): a game that ends shows its last observation and score, and
    the next step is refused until a partial reset deals it; the other games go on untouched."""
    venv, rng = vector_env("wapi", 3, seed=1, autoreset_mode=AutoresetMode.DISABLED), np.random.default_rng(0)
    _, infos = venv.reset()
    terminated = np.zeros(3, dtype=bool)
    while not terminated.any():
        obs, _, terminated, _, infos = venv.step(random_legal(infos["action_mask"], rng))
    assert infos["_score"].tolist() == terminated.tolist() and infos["action_mask"][terminated].all()
    with pytest.raises(RuntimeError, match=r"are over and autoreset_mode is DISABLED: deal them with reset"):
        venv.step(random_legal(infos["action_mask"], rng))
    going = [venv.batch.state(i).to_dict() for i in np.flatnonzero(~terminated)]
    again, infos = venv.reset(options={"reset_mask": terminated})
    assert [venv.batch.state(i).to_dict() for i in np.flatnonzero(~terminated)] == going
    assert np.array_equal(again[~terminated], obs[~terminated]) and not infos["action_mask"][terminated].all()
    venv.step(random_legal(infos["action_mask"], rng))


def test_under_next_step_autoreset_an_illegal_action_deals_nothing():
    """The step after a game ended deals it; an illegal action in another game refuses the whole step first:
    the ended game is still over, and no game has moved."""
    venv, rng = vector_env("wapi", 3, seed=1, autoreset_mode=NEXT), np.random.default_rng(0)
    _, infos = venv.reset()
    terminated = np.zeros(3, dtype=bool)
    while not terminated.any() or terminated.all():
        _, _, terminated, _, infos = venv.step(random_legal(infos["action_mask"], rng))
    before = [venv.batch.state(i).to_dict() for i in range(3)]
    actions = random_legal(infos["action_mask"], rng)
    going = int(np.flatnonzero(~terminated)[0])
    actions[going] = int(np.flatnonzero(~infos["action_mask"][going])[0])
    with pytest.raises(IllegalActionError, match=f"in game {going}"):
        venv.step(actions)
    assert [venv.batch.state(i).to_dict() for i in range(3)] == before and venv.batch.terminated[terminated].all()
