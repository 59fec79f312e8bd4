"""Loading a Wapi ``state_dict`` never half-succeeds (generated mutations, hypothesis).

Real positions from seeded random games are mutated (a value of the wrong type: ``1.0``,
``True``, numpy scalars, strings, None; out-of-range and huge ints; wrong lengths; deleted,
extra or shuffled items; values moved between fields). Each mutant is either refused with
a ValueError naming a field, the env exactly as it was and still playable, or it loads to a
valid, JSON-safe position that round-trips and plays to the end.
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from envs import wapi_v0
from envs.wapi.serialize import KEYS, MINE_KEYS
from tests.conftest import assert_refused, mutation_settings, parent_of, places, random_positions

CONFIGS = [
    {"num_players": 2, "scoring": "full"},
    {"num_players": 3, "scoring": "shared"},
    {"num_players": 5, "scoring": "full", "coins": {0: 2, 1: 10, 2: 10, 3: 6, 5: 4}},
]
JUNK = [
    1.0,
    True,
    False,
    np.int64(1),
    np.float64(2.0),
    np.bool_(True),
    "1",
    "S5",
    None,
    [],
    {},
    -1,
    7,
    2**70,
    10**400,
    float("nan"),
    float("inf"),
    [None],
    ["S1"] * 3,
    {"silver": [], "masks": 0, "totems": []},
]
FIELD_NAMES = sorted(KEYS | MINE_KEYS)


def play(env, rnd: random.Random, moves: int | None = None) -> None:
    """Random legal moves through raw_env: ``moves`` of them, or to the end of the game."""
    while not env.terminations[env.agent_selection] and moves != 0:
        env.step(rnd.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()))
        moves = None if moves is None else moves - 1


#: Positions early, midway, late and at the end of seeded games.
POSITIONS = random_positions(wapi_v0.raw_env, CONFIGS, lambda step: step in (0, 7, 27))


def retyped(value) -> list:
    """The same value under other types, and its neighbours."""
    if isinstance(value, bool):
        return [int(value), str(value).lower(), np.bool_(value)]
    if isinstance(value, int):
        return [float(value), bool(value), np.int64(value), str(value), value + 1, value - 1, -value - 1, value + 2**64]
    if isinstance(value, float):
        return [np.float64(value), int(value), str(value), value + 0.5, -value]
    if isinstance(value, str):
        return [value.lower(), value + " ", [value], value.encode()]
    return [value]


@st.composite
def mutants(draw):
    index = draw(st.integers(0, len(POSITIONS) - 1))
    config, original = POSITIONS[index]
    data = copy.deepcopy(original)
    where = [path for path, _ in places(data)]  # inner nodes included
    field = draw(st.sampled_from(sorted(data)))  # a field, then a place in it: the bag must not crowd out the rest
    path = draw(st.sampled_from([p for p in where if p[0] == field]))
    parent, key = parent_of(data, path), path[-1]
    kind = draw(st.sampled_from(["junk", "retype", "delete", "extra", "move", "shuffle"]))
    if kind == "junk":
        parent[key] = copy.deepcopy(draw(st.sampled_from(JUNK)))
    elif kind == "retype":
        parent[key] = draw(st.sampled_from(retyped(parent[key])))
    elif kind == "delete":
        del parent[key]
    elif kind == "extra":
        target = parent[key] if isinstance(parent[key], (dict, list)) else parent
        if isinstance(target, dict):
            target[draw(st.sampled_from(["extra", "Game", 0]))] = 0
        else:
            target.append(copy.deepcopy(target[-1]) if target else 0)
    elif kind == "move":
        source = draw(st.sampled_from(where))
        parent[key] = copy.deepcopy(parent_of(original, source)[source[-1]])
    elif isinstance(parent[key], list):
        draw(st.randoms(use_true_random=False)).shuffle(parent[key])
    return config, original, data


#: The type of every value of a state_dict, by the key it is under (list items: the list's key).
TYPES = {
    "game": (str,),
    "num_players": (int,),
    "scoring": (str,),
    "current_player": (int, type(None)),
    "drawn": (str, type(None)),
    "silver": (int,),
    "masks": (int,),
    "totems": (int,),
    "totems_left": (int,),
    "bag": (str,),
    "scores": (float,),
    "terminal": (bool,),
}


def assert_json_state(data) -> None:
    """Exactly the types a state_dict holds (no numpy scalars, no float or bool for an int), and it survives JSON."""

    def walk(node, key=None):
        if isinstance(node, dict):
            for k, child in node.items():
                walk(child, k)
        elif isinstance(node, list) and key != "mines":
            assert all(type(item) in TYPES[key] for item in node), (key, node)
        elif isinstance(node, list):
            for mine in node:
                walk(mine)
        else:
            assert type(node) in TYPES[key], (key, node)

    walk(data)
    assert json.loads(json.dumps(data)) == data


@mutation_settings(400)
@given(mutants())
def test_a_mutated_state_dict_is_refused_cleanly_or_loads_a_valid_game(mutant):
    config, original, data = mutant
    env = wapi_v0.raw_env(**config)
    env.load_state_dict(copy.deepcopy(original))
    before = [env.observe(agent)["observation"] for agent in env.possible_agents]
    try:
        env.load_state_dict(data)
    except ValueError as error:
        message = str(error)
        event("refused")
        assert len(message) < 1000, "rejected values are quoted cut"
        assert any(name in message for name in FIELD_NAMES), f"no field named in {message!r}"
        assert env.state_dict() == original, "a refused load leaves the game untouched"
        after = [env.observe(agent)["observation"] for agent in env.possible_agents]
        assert all(np.array_equal(a, b) for a, b in zip(before, after))
    else:
        event("loaded")
        loaded = env.state_dict()
        assert_json_state(loaded)
        again = wapi_v0.raw_env(**config)
        again.load_state_dict(json.loads(json.dumps(loaded)))
        assert again.state_dict() == loaded, "the loaded position round-trips"
    play(env, random.Random(0))
    assert all(env.terminations.values()) and env.state_dict()["terminal"], "the game plays to its end"


def test_the_mutations_reach_both_outcomes():
    """The generator is not one-sided: a shuffled bag (its order is hidden, any order is a
    position) loads; a float coin value (issue 11: it used to load and fail later) is refused."""
    config, original = POSITIONS[1]
    shuffled = copy.deepcopy(original)
    random.Random(1).shuffle(shuffled["bag"])
    env = wapi_v0.raw_env(**config)
    env.load_state_dict(shuffled)
    assert env.state_dict() == shuffled
    late = next(data for _, data in POSITIONS[2:4] if any(m["silver"] for m in data["mines"]))
    broken = copy.deepcopy(late)
    mine = next(m for m in broken["mines"] if m["silver"])
    mine["silver"][0] = float(mine["silver"][0])
    assert_refused(env, lambda: env.load_state_dict(broken), r"mines\[\d\]\.silver")


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("current_player", 1.0, "current_player must be an int"),
        ("current_player", True, "current_player must be an int"),
        ("current_player", np.int64(0), "current_player must be an int"),
        ("current_player", 10**400, "current_player must be an int"),
        ("terminal", 0, "terminal must be true or false"),
        ("drawn", ["S1"], "drawn must be a tile code"),
        ("scores", [10**400, 0], r"scores\[0\]"),
        ("scores", [np.float64(0.0), 0.0], r"scores\[0\]"),
        ("scores", [float("nan"), 0.0], r"scores\[0\]"),
        ("totems_left", [3, 3.0], "totems_left must be an int"),
        ("bag", ["S1"] * 200_000, "bag must be a list of at most"),
    ],
)
def test_each_field_is_checked_by_type_and_range(field, value, message):
    """Types are checked, not compared: 1.0, True and numpy scalars are not ints; huge ints are out of range."""
    env = wapi_v0.raw_env(num_players=2)
    env.reset(seed=4)
    data = env.state_dict()
    data[field] = value
    assert_refused(env, lambda: env.load_state_dict(data), message)
