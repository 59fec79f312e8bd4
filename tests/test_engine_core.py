"""What ``envs/core`` does once for every game: the legality check around each game's rules,
the constructor's type checks and a JSON-safe ``config()``, the wiring of the layers, and the
readers of ``state_dict`` fields."""

from __future__ import annotations

import json

import numpy as np
import pytest

import envs
from envs.core.engine import IllegalActionError
from envs.core.fields import FieldReader
from envs.games import make_game
from tests.conftest import game_configs

CONFIGS = [(name, config) for name, config in game_configs() if "reward" not in config]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in config.items()) or 'default'}" for name, config in CONFIGS]


def fresh_state(name: str, seed: int = 3, **config):
    return make_game(name, **config).new_state(np.random.default_rng(seed))


# --- the one legality check ------------------------------------------------------------------
@pytest.mark.parametrize("name", envs.GAMES)
def test_an_action_is_type_checked_not_compared(name):
    """Bad input: an action is an int (or a numpy integer, as sampled from a mask) naming a legal
    action. True, 1.0, strings, None and out-of-range ints are refused even where they equal a legal
    action, with the same message in every game, and the refused action changes nothing."""
    state = fresh_state(name)
    legal = state.legal_actions()
    num_actions = state.game.num_actions
    before = state.to_dict()
    for bad in (True if 1 in legal else False, float(legal[0]), str(legal[0]), None, [legal[0]], -1, num_actions):
        with pytest.raises(IllegalActionError, match=rf"action must be an int in 0..{num_actions - 1}, got"):
            state.apply(bad)
        assert state.to_dict() == before, f"the refused action {bad!r} changed the game"
    state.apply(np.int64(legal[0]))
    assert state.to_dict() != before
    json.dumps(state.to_dict())  # a numpy integer is played as the int it names: the state stays JSON-safe


@pytest.mark.parametrize("name", envs.GAMES)
def test_an_illegal_action_in_range_is_refused_and_changes_nothing(name):
    """Bad input: every action of the action space that is not legal now raises IllegalActionError
    saying it is not legal, and leaves the game as it was; once the game is over nothing is legal."""
    state = fresh_state(name, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(6):  # a few positions into the game
        state.apply(int(rng.choice(state.legal_actions())))
    before = state.to_dict()
    illegal = sorted(set(range(state.game.num_actions)) - set(state.legal_actions()))
    assert illegal
    for action in illegal:
        with pytest.raises(IllegalActionError, match=rf"action {action} .*not legal"):
            state.apply(action)
    assert state.to_dict() == before
    while not state.is_terminal():
        state.apply(int(rng.choice(state.legal_actions())))
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply(0)


@pytest.mark.parametrize("name", envs.GAMES)
def test_the_mask_is_the_legal_actions(name):
    """Legal actions: the mask (the core's, or a game's faster one) marks exactly the legal actions,
    as a fresh int8 array each time."""
    state = fresh_state(name, seed=8)
    rng = np.random.default_rng(8)
    while not state.is_terminal():
        mask = state.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (state.game.num_actions,)
        assert np.flatnonzero(mask).tolist() == state.legal_actions()
        mask[:] = 1
        assert np.flatnonzero(state.legal_mask()).tolist() == state.legal_actions(), "a mask is never shared"
        state.apply(int(rng.choice(state.legal_actions())))
    assert not state.legal_mask().any()


# --- the constructor and config() ------------------------------------------------------------
@pytest.mark.parametrize("name", envs.GAMES)
def test_every_game_checks_its_option_types_at_construction(name):
    """Bad input: a game refuses at construction, naming the option, an int option given as a float,
    a bool or a numpy integer (``num_players=2.0`` must not construct and fail later), and a bool
    option given as 0/1 or a numpy bool; a game with a fixed player count takes no num_players."""
    options = {option.name: option for option in envs.describe(name).options}
    for option in options.values():
        if option.kind == "int":
            good = option.default
            bad_values = (float(good), True, np.int64(good), str(good))
        elif option.kind == "bool":
            bad_values = (int(option.default), np.bool_(option.default), str(option.default))
        else:
            continue
        for bad in bad_values:
            with pytest.raises(ValueError, match=option.name):
                make_game(name, **{option.name: bad})
    if "num_players" not in options:
        with pytest.raises(TypeError, match="num_players"):
            envs.describe(name).game_class(num_players=2)


def _plain(value) -> bool:
    """Built of Python's own JSON types only (int and str keys), never numpy scalars or tuples."""
    if type(value) is dict:
        return all(type(k) in (int, str) and _plain(v) for k, v in value.items())
    if type(value) is list:
        return all(map(_plain, value))
    return value is None or type(value) in (bool, int, float, str)


@pytest.mark.parametrize("name,config", CONFIGS, ids=IDS)
def test_config_is_plain_json_safe_data_that_rebuilds_the_game(name, config):
    """``config()`` (stored in model cards and web records) holds plain Python values that
    ``json.dumps`` writes, and the same constructor call rebuilds the same table."""
    game = make_game(name, **config)
    stored = game.config()
    assert _plain(stored), stored
    json.dumps(stored)
    assert isinstance(game.num_players, int) and type(game.num_players) is int
    again = make_game(name, **stored)
    assert again.config() == stored
    assert again.new_state(np.random.default_rng(1)).to_dict() == game.new_state(np.random.default_rng(1)).to_dict()


# --- the layers, wired once --------------------------------------------------------------------
@pytest.mark.parametrize("name", envs.GAMES)
def test_the_game_reaches_its_layers(name):
    """Each game declares its observer class, serializer and renderer; the core wires them: a fresh
    observer per call, a round trip through state_dict, pictures, and the perspective checked."""
    game = make_game(name)
    state = game.new_state(np.random.default_rng(2))
    first, second = game.observer(), game.observer()
    assert type(first) is game.observer_class and first is not second and first.game is game
    assert np.array_equal(first.observe(state, 0), state.observation(0))
    assert game.state_from_dict(json.loads(json.dumps(state.to_dict()))).to_dict() == state.to_dict()
    assert isinstance(state.render_text(), str) and state.render_text(perspective=0)
    image = state.render_image()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    for bad in (game.num_players, -1, 0.0, True):
        with pytest.raises(ValueError, match="perspective must be None or a seat"):
            state.render_text(perspective=bad)


# --- the field readers of every serializer ----------------------------------------------------
READ = FieldReader("Test")


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: READ.as_int(1.0, "x", 0, 3), r"invalid Test state_dict: x must be an int in 0..3, got 1.0"),
        (lambda: READ.as_int(True, "x", 0, 3), "x must be an int in 0..3, got True"),
        (lambda: READ.as_int(np.int64(1), "x", 0, 3), "x must be an int in 0..3"),
        (lambda: READ.as_int(4, "x", 0, 3), "x must be an int in 0..3, got 4"),
        (lambda: READ.as_optional_int(-1, "seat", 0, 1), "seat must be null or an int in 0..1, got -1"),
        (lambda: READ.as_bool(0, "flag"), "flag must be true or false, got 0"),
        (lambda: READ.as_list((1, 2), "xs"), r"xs must be a list, got \(1, 2\)"),
        (lambda: READ.as_list([1], "xs", length=2), r"xs must be a list of 2, got 1 items"),
        (lambda: READ.as_list([0] * 200_000, "xs", most=5), r"xs must be a list of at most 5 items, got 200000"),
        (
            lambda: READ.as_name("dragon", "t", "tile name", {"a": 0, "b": 1}),
            r"t must be a tile name from \['a', 'b'\]",
        ),
        (lambda: READ.as_name(0, "t", "tile name", {"a": 0}), "t must be a tile name from .*, got 0"),
        (lambda: READ.as_names(["a", "c"], "ts", "tile name", {"a": 0}, 5), r"ts\[1\] must be a tile name"),
        (lambda: READ.as_names(["a"] * 6, "ts", "tile name", {"a": 0}, 5), "ts must be a list of at most 5"),
    ],
)
def test_field_readers_refuse_naming_the_field(call, message):
    """Bad input: a reader refuses a value of the wrong type or range with a ValueError naming the
    game and the field and quoting the value cut short."""
    with pytest.raises(ValueError, match=message) as error:
        call()
    assert len(str(error.value)) < 300


def test_field_readers_return_what_they_read():
    """A value of the right type and range is returned as it is; names as their index."""
    assert READ.as_int(3, "x", 0, 3) == 3 and READ.as_optional_int(None, "x", 0, 1) is None
    assert READ.as_bool(False, "flag") is False and READ.as_list([1, 2], "xs", length=2) == [1, 2]
    assert READ.as_names(["b", "a"], "ts", "tile name", {"a": 0, "b": 1}, 5) == [1, 0]
