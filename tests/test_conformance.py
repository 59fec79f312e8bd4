"""Ecosystem conformance for every game: PettingZoo's own tests, seeding, and the
classic wrapper layer behaving exactly like PettingZoo's standard stack."""

from __future__ import annotations

import importlib
import json
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

import envs
import envs.core.aec
from envs.core import GameEnv
from tests.conftest import aec_trace, config_id, game_configs, play_random

# (game, constructor kwargs): every player count and variant of every game, and every reward mode.
CONFIGS = game_configs(reward_modes=True)
IDS = [config_id(*c) for c in CONFIGS]
_DEFAULTS = [(game, {}) for game in envs.GAMES]
_LAST = [next(c for c in reversed(CONFIGS) if c[0] == game) for game in envs.GAMES]
ONE_PER_GAME = {"argnames": "game,kwargs", "argvalues": _DEFAULTS, "ids": [config_id(*c) for c in _DEFAULTS]}
SOME = {"argnames": "game,kwargs", "argvalues": _DEFAULTS + _LAST, "ids": [config_id(*c) for c in _DEFAULTS + _LAST]}


def module(game: str):
    return importlib.import_module(f"envs.{game}_v0")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_pettingzoo_api_test(game, kwargs):
    mod = module(game)
    api_test(mod.env(**kwargs), num_cycles=300)
    api_test(mod.raw_env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_pettingzoo_seed_test(game, kwargs):
    mod = module(game)
    seed_test(lambda: mod.env(**kwargs), num_cycles=300)
    seed_test(lambda: mod.raw_env(**kwargs), num_cycles=300)


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="PettingZoo before 1.27 has no registry (pettingzoo.make)")
@pytest.mark.parametrize("game", envs.GAMES)
def test_registered_with_pettingzoo_make(game):
    module(game)
    env = pettingzoo.make("aec", envs.ENV_IDS[game])
    env.reset(seed=1)
    assert isinstance(env.unwrapped, GameEnv)
    assert env.unwrapped.game.name == game
    assert env.agent_selection == "player_0"


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_one_seed_reproduces_twenty_games_and_seeds_differ(game, kwargs):
    """reset(seed=s) then reset() x19 replays the same 20 games; another seed deals differently."""
    mod = module(game)

    def run(seed):
        env = mod.env(**kwargs)
        env.reset(seed=seed)
        deals, traces = [], []
        for episode in range(20):
            if episode:
                env.reset()
            deals.append(json.dumps(env.unwrapped.state_dict(), sort_keys=True))
            traces.append(aec_trace_from_current(env, policy_seed=episode))
        return deals, traces

    deals_a, traces_a = run(7)
    deals_b, traces_b = run(7)
    assert deals_a == deals_b and traces_a == traces_b
    deals_c, _ = run(8)
    assert len(set(deals_a)) == 20, "every episode of a run deals differently"
    assert all(a != c for a, c in zip(deals_a, deals_c)), "different seeds give different deals"


def aec_trace_from_current(env, policy_seed):
    import random

    choose = random.Random(policy_seed).choice
    trace = []
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        trace.append((agent, obs["observation"].tobytes(), reward, termination))
        env.step(None if termination or truncation else choose(np.flatnonzero(obs["action_mask"]).tolist()))
    return trace


# --- the lean classic layer against PettingZoo's real wrapper stack -------------------


def standard_stack(raw):
    """What PettingZoo's classic games do in env()."""
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def both(game, kwargs):
    mod = module(game)
    return mod.env(**kwargs), standard_stack(mod.raw_env(**kwargs))


def outcome(fn, *args):
    """The result or the exception (type and message) of ``fn(*args)``, plus warnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", fn(*args))
        except Exception as error:  # noqa: BLE001 - we compare whatever is raised
            result = (type(error).__name__, str(error))
    return result, sorted({str(w.message) for w in caught})


def snapshot(env):
    return (
        list(env.agents),
        env.agent_selection if env.agents else None,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        repr(env.infos),
    )


@pytest.mark.parametrize(**SOME)
def test_classic_layer_matches_standard_stack_before_reset(game, kwargs):
    ours, theirs = both(game, kwargs)
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"):
        assert outcome(getattr, ours, name) == outcome(getattr, theirs, name)
        assert outcome(getattr, ours, name)[0][0] == "AttributeError"
    for call in (lambda e: e.step(0), lambda e: e.observe("player_0"), lambda e: e.agent_iter(), lambda e: e.render()):
        assert outcome(call, ours) == outcome(call, theirs)
        assert outcome(call, ours)[0][0] == "AssertionError"


@pytest.mark.parametrize(**SOME)
def test_classic_layer_matches_standard_stack_on_bad_actions(game, kwargs):
    """Out-of-range, illegal, None-while-alive, and stepping after the end, step by step."""
    for bad in ("out_of_range", "illegal", "none"):
        ours, theirs = both(game, kwargs)
        for env in (ours, theirs):
            env.reset(seed=3)
        n = ours.action_space("player_0").n
        mask = ours.observe(ours.agent_selection)["action_mask"]
        action = {"out_of_range": n, "illegal": int(np.flatnonzero(mask == 0)[0]), "none": None}[bad]
        assert outcome(ours.step, action) == outcome(theirs.step, action)
        assert snapshot(ours) == snapshot(theirs)
        # after the bad step: finish the episode the same way, including dead steps
        for _ in range(3 * len(ours.possible_agents) + 2000):
            if not ours.agents:
                break
            obs, *_ = ours.last()
            done = ours.terminations[ours.agent_selection] or ours.truncations[ours.agent_selection]
            act = None if done else int(np.flatnonzero(obs["action_mask"])[0])
            assert outcome(ours.step, act) == outcome(theirs.step, act)
            assert snapshot(ours) == snapshot(theirs)
        assert not ours.agents
        assert outcome(ours.step, 0) == outcome(theirs.step, 0)  # step after the end: warning


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_classic_layer_matches_standard_stack_in_random_games(game, kwargs):
    ours, theirs = both(game, kwargs)
    for seed in range(3):
        assert aec_trace(ours, seed, policy_seed=seed) == aec_trace(theirs, seed, policy_seed=seed)


def _play_recording(env, seed: int, numpy_actions: bool = False) -> list:
    """Play random legal moves through ``agent_iter(3)`` cycles and ``last`` with and without the
    observation, recording everything they give; actions as numpy integers (as SB3 gives them) or ints."""
    import random

    choose = random.Random(seed).choice
    seen = []
    while env.agents:
        for agent in env.agent_iter(3):
            unobserved = env.last(observe=False)
            obs, reward, termination, truncation, info = env.last()
            seen.append(
                (
                    agent,
                    repr(unobserved),
                    obs["observation"].tobytes(),
                    obs["action_mask"].tobytes(),
                    reward,
                    termination,
                    truncation,
                    repr(info),
                )
            )
            action = None if termination or truncation else choose(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(np.int64(action) if numpy_actions and action is not None else action)
    return seen


@pytest.mark.parametrize(**SOME)
def test_classic_layer_last_and_agent_iter_match_the_standard_stack(game, kwargs):
    """The lean layer's own ``last`` and iterator read the raw env directly: the same results and
    errors as the standard stack before reset, through whole games (bounded ``agent_iter``,
    ``last(observe=False)``, int and numpy actions) and once every agent has stepped out."""
    ours, theirs = both(game, kwargs)
    assert outcome(ours.last) == outcome(theirs.last)
    assert outcome(ours.last)[0][0] == "AttributeError", "last() before reset()"
    for seed, numpy_actions in ((5, False), (6, True)):
        for env in (ours, theirs):
            env.reset(seed=seed)
        assert _play_recording(ours, seed, numpy_actions) == _play_recording(theirs, seed, numpy_actions)
        assert outcome(ours.last) == outcome(theirs.last)
        assert outcome(ours.last)[0][0] == "KeyError", "last() once every agent has stepped out, as PettingZoo's"
        finished = outcome(lambda: list(ours.agent_iter()))
        assert finished == outcome(lambda: list(theirs.agent_iter())) == (("ok", []), [])


@pytest.mark.parametrize(**SOME)
def test_raw_env_last_is_the_base_class_last(game, kwargs):
    """``GameEnv.last`` (written out for speed) gives what PettingZoo's ``AECEnv.last`` gives, every turn."""
    env = module(game).raw_env(**kwargs)
    for seed in range(2):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter():
            for observe in (False, True):
                ours, base = env.last(observe), pettingzoo.AECEnv.last(env, observe)
                assert repr(ours[1:]) == repr(base[1:])
                assert (ours[0] is None) == (base[0] is None) == (not observe)
                if observe:
                    assert all(np.array_equal(ours[0][key], base[0][key]) for key in ("observation", "action_mask"))
            mask = env.last()[0]["action_mask"]
            done = env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
            env.step(None if done else int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize(**ONE_PER_GAME)
def test_classic_layer_enforces_step_between_iterations(game, kwargs):
    ours, theirs = both(game, kwargs)

    def iterate_twice(env):
        env.reset(seed=0)
        it = iter(env.agent_iter())
        next(it)
        return next(it)

    assert outcome(lambda: iterate_twice(ours)) == outcome(lambda: iterate_twice(theirs))
    assert outcome(lambda: iterate_twice(ours))[0][0] == "AssertionError"


@pytest.mark.parametrize("game", envs.GAMES)
def test_env_card_matches_spaces(game):
    """The module docstring (env card) states the real action and observation sizes."""
    mod = module(game)
    env = mod.env()
    env.reset(seed=0)
    agent = env.possible_agents[0]
    doc = mod.__doc__
    assert f"Discrete({env.action_space(agent).n})" in doc
    assert f"({env.observation_space(agent)['observation'].shape[0]},)" in doc
    assert env.unwrapped.metadata["name"] == f"{game}_v0"


@pytest.mark.parametrize("game", envs.GAMES)
def test_bad_constructor_arguments_name_the_argument(game):
    mod = module(game)
    with pytest.raises(ValueError, match="reward"):
        mod.env(reward="points")
    with pytest.raises(ValueError, match="render_mode"):
        mod.env(render_mode="pygame")


@pytest.mark.parametrize("game", envs.GAMES)
def test_unknown_reset_options_warn_and_are_ignored(game):
    """Unknown option keys warn (PettingZoo's api_test passes one) and change nothing else."""
    env = module(game).raw_env()
    env.reset(seed=1)
    expected = env.state_dict()
    with pytest.warns(UserWarning, match="not used"):
        env.reset(seed=1, options={"deck": 1})
    assert env.state_dict() == expected and env.agent_selection == "player_0"


@pytest.mark.parametrize("game", envs.GAMES)
def test_render_modes(game):
    mod = module(game)
    env = mod.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text
    env = mod.env(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] >= 100 and image.shape[1] >= 100 and image.std() > 10, "a picture, not a blank"


@pytest.mark.parametrize("game", envs.GAMES)
def test_render_text_perspective_is_a_seat_or_none(game):
    """Every engine takes render_text(perspective=seat) (Samurai shows that seat's hand; the
    others have nothing private and draw the same picture) and refuses anything else by name."""
    env = module(game).raw_env()
    env.reset(seed=0)
    state, n = env.game_state, env.game.num_players
    if game != "samurai":
        assert all(state.render_text(perspective=p) == state.render_text() for p in range(n))
    for bad in (n, -1, "player_0", "A", 1.0, True):
        with pytest.raises(ValueError, match=rf"perspective must be None or a seat in 0..{n - 1}, got"):
            state.render_text(perspective=bad)


@pytest.mark.parametrize("game", envs.GAMES)
def test_raw_env_out_of_order_calls_are_clear_errors(game):
    """The raw env (no order-enforcing layer) says what is wrong instead of PettingZoo's base class
    raising AttributeError before reset() or KeyError once every agent has stepped out."""
    env = module(game).raw_env()
    for call in (lambda: env.step(0), lambda: env.last(), lambda: env.observe("player_0"), lambda: env.state_dict()):
        with pytest.raises(RuntimeError, match=r"reset\(\) must be called before"):
            call()
    aec_trace(env, seed=0)  # a whole game, every agent stepped out with step(None)
    assert not env.agents
    for call in (lambda: env.step(None), lambda: env.step(0), lambda: env.last()):
        with pytest.raises(RuntimeError, match=r"every agent has stepped out: call reset\(\)"):
            call()
    env.reset(seed=0)
    assert env.last()[2] is False, "reset() makes it playable again"


@pytest.mark.parametrize("game", envs.GAMES)
def test_bool_actions_are_refused_and_change_nothing(game):
    """Types are checked, not compared: True is not action 1. Here env() deliberately differs from
    PettingZoo's standard stack, whose Discrete.contains takes True as 1; numpy integers still play."""
    for make in (module(game).raw_env, module(game).env):
        env = make()
        env.reset(seed=5)
        before = env.unwrapped.state_dict()
        for bad in (True, False, np.bool_(True)):
            expected = (ValueError, "not a bool") if make is module(game).raw_env else (AssertionError, "action space")
            with pytest.raises(expected[0], match=expected[1]):
                env.step(bad)
            assert env.unwrapped.state_dict() == before
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(np.int64(legal))
        assert env.unwrapped.state_dict() != before


class _Seat(int):
    """An int subclass (as an IntEnum member would be): compared as an int, however large."""


@pytest.mark.parametrize("game", envs.GAMES)
def test_huge_and_wrongly_typed_actions_are_refused_and_change_nothing(game):
    """Every bad action gets the same error and leaves the game as it was: under raw_env() a ValueError
    (an int beyond int64 such as 2**70 too, which gymnasium's Discrete.contains would turn into an
    OverflowError), under env() the out-of-bounds assertion of PettingZoo's classic stack."""
    huge = [2**70, -(2**70), 10**400, _Seat(2**70), np.uint64(2**64 - 1), np.int64(2**62), np.array(2**62)]
    wrong_type = [1.0, np.float64(1), "1", [1], np.array([1]), 1 + 0j]
    for make in (module(game).raw_env, module(game).env):
        env = make()
        env.reset(seed=3)
        before = env.unwrapped.state_dict()
        raw = make is module(game).raw_env
        for bad in huge + wrong_type:
            with pytest.raises(ValueError if raw else AssertionError, match="out of range" if raw else "action space"):
                env.step(bad)
            assert env.unwrapped.state_dict() == before and not any(env.terminations.values())
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(_Seat(legal))
        assert env.unwrapped.state_dict() != before, "an int subclass in range is an action"


@pytest.mark.parametrize("game", envs.GAMES)
def test_each_env_has_its_own_metadata(game):
    mod = module(game)
    one, two = mod.raw_env(), mod.env()
    one.metadata["render_modes"].append("pygame")
    one.metadata["name"] = "changed"
    assert two.metadata["render_modes"] == ["ansi", "human", "rgb_array"] == mod.raw_env().metadata["render_modes"]
    assert two.metadata["name"] == f"{game}_v0"


@pytest.mark.parametrize("game", envs.GAMES)
def test_refusals_quote_a_cut_value(game):
    """A rejected value is quoted cut short: a 200,000-item list does not become a megabyte message."""
    env = module(game).raw_env()
    env.reset(seed=0)
    huge = list(range(200_000))
    data = env.state_dict()
    calls = [
        lambda: env.load_state_dict({**data, "game": huge}),
        lambda: env.load_state_dict({**data, **{f"key{i}": 0 for i in range(100_000)}}),
        lambda: env.step(huge),
        lambda: module(game).raw_env(reward=huge),
        lambda: env.game_state.render_text(perspective=huge),
    ]
    for call in calls:
        with pytest.raises(ValueError) as error:
            call()
        assert len(str(error.value)) < 500, str(error.value)[:500]
    with pytest.warns(UserWarning) as caught:
        env.reset(seed=0, options={f"option{i}": 0 for i in range(100_000)})
    assert all(len(str(w.message)) < 500 for w in caught)


def _shape(value):
    """The structure of an info value: keys, lengths, array shapes and value types, not the values."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_shape(item) for item in value]
    if isinstance(value, np.ndarray):
        return "array", value.shape, value.dtype.str
    return type(value).__name__


@pytest.mark.parametrize("game,kwargs", CONFIGS, ids=IDS)
def test_reset_infos_have_the_keys_and_shapes_of_the_final_infos(game, kwargs):
    """TorchRL builds its info specs from the infos at reset: they must already hold every key of the
    final infos with the same shape and type (zero until the end), the same over many games."""
    env = module(game).raw_env(**{k: v for k, v in kwargs.items() if k != "reward"})
    for seed in range(8):
        env.reset(seed=seed)
        start = {agent: _shape(info) for agent, info in env.infos.items()}
        zero = {agent: info for agent, info in env.infos.items()}
        assert start == {agent: _shape(envs.core.aec.blank(info)) for agent, info in zero.items()}
        while env.game_state.current_player is not None:
            env.step(env.game_state.legal_actions()[seed % len(env.game_state.legal_actions())])
        assert {agent: _shape(info) for agent, info in env.infos.items()} == start, f"seed {seed}"


@pytest.mark.parametrize("game,kwargs", game_configs(), ids=[config_id(*c) for c in game_configs()])
def test_the_core_legal_mask_is_a_fresh_mask_of_the_legal_actions(game, kwargs):
    """``GameState.legal_mask`` (the core's default, built in a bytearray) against each engine's own
    mask, in every position of seeded games: the same int8 values, a writable array of its own."""
    from envs.core.engine import GameState

    state = envs.describe(game).make(**kwargs).new_state(np.random.default_rng(4))
    for position in play_random(state, seed=4):
        mask = GameState.legal_mask(position)
        assert mask.dtype == np.int8 and mask.shape == (position.game.num_actions,)
        assert np.array_equal(mask, position.legal_mask())
        assert np.flatnonzero(mask).tolist() == position.legal_actions()
        mask[:] = 1  # the caller's own array: writing it changes nothing in the game
        assert np.array_equal(GameState.legal_mask(position), position.legal_mask())
