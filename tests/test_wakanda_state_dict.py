"""Generated mutations of Wakanda ``state_dict``s: every load is refused cleanly or gives a sound game.

Positions are taken from seeded random games of both variants and mutated:
values swapped for other types (``1.0``, ``True``, ``np.int64``, strings,
None, containers), out-of-range and huge integers, deleted and extra keys,
lists cut, extended and reordered, values moved between fields. Each mutant
must be either

- refused: a ValueError naming a field, the env exactly as it was and still
  playable; or
- loaded: a JSON-safe position (real ints, no numpy scalars) that round-trips
  through ``state_from_dict`` and plays to the end with a legal move at every
  turn.
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from envs import wakanda_v0
from envs.wakanda.serialize import KEYS, VILLAGE_KEYS
from tests.conftest import mutation_settings, parent_of, places

BAD_VALUES = [
    1.0,
    0.0,
    True,
    False,
    np.int64(1),
    np.int64(0),
    np.float64(2.0),
    "x",
    "sun",
    "variety",
    "",
    None,
    -1,
    2,
    3,
    7,
    10**30,
    -(10**30),
    2**64,
    [],
    {},
    [None],
    ["sun"],
    [0, 1],
    {"kind": "sun"},
    0.5,
    float("nan"),
]


def positions() -> list[dict]:
    """state_dicts from seeded random games: the opening, every 4th move and the end, both variants."""
    found = []
    for advanced in (False, True):
        for seed in range(6):
            env = wakanda_v0.raw_env(advanced=advanced)
            env.reset(seed=seed)
            choose, moves = random.Random(seed).choice, 0
            while not env.terminations[env.agent_selection]:
                if moves % 4 == 0:
                    found.append(env.state_dict())
                env.step(choose(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()))
                moves += 1
            found.append(env.state_dict())
    return found


POSITIONS = positions()


def assert_json_exact(value) -> None:
    """Only JSON's own types (bool, int, str, None, list, dict with str keys): no numpy scalar, no float."""
    if isinstance(value, dict):
        assert all(isinstance(k, str) for k in value)
        for item in value.values():
            assert_json_exact(item)
    elif isinstance(value, list):
        for item in value:
            assert_json_exact(item)
    else:
        assert value is None or type(value) in (bool, int, str), f"{value!r} ({type(value).__name__}) is not JSON-exact"


FIELDS = sorted(KEYS | VILLAGE_KEYS) + ["state_dict"]


def check_mutant(env, before: dict, mutant) -> str:
    """Load ``mutant`` into ``env`` (which holds ``before``); check the outcome; restore ``before``."""
    try:
        env.load_state_dict(mutant)
    except ValueError as error:
        message = str(error)
        assert any(field in message for field in FIELDS), f"the refusal names no field: {message}"
        assert len(message) < 1000, "a refusal quotes a cut value"
        assert env.state_dict() == before, "a refused load leaves the env as it was"
        playable(env)
        env.load_state_dict(before)
        return "refused"
    data = env.state_dict()
    assert_json_exact(data)
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert env.game.state_from_dict(copy.deepcopy(data)).to_dict() == data, "the loaded position round-trips"
    choose = random.Random(0).choice
    while not env.terminations[env.agent_selection]:
        playable(env, choose)
    env.load_state_dict(before)
    return "loaded"


def playable(env, choose=random.Random(1).choice) -> None:  # noqa: B008 - one stream for every call
    """The agent to act has a legal move, and playing it works (unless the game is over)."""
    if env.terminations[env.agent_selection]:
        assert env.game_state.is_terminal()
        return
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask.any(), "a live position has a legal move"
    env.step(choose(np.flatnonzero(mask).tolist()))


def test_every_single_field_swapped_for_a_bad_value_is_refused_or_sound():
    """Each place in a few positions, replaced by each bad value, or deleted."""
    outcomes = {"refused": 0, "loaded": 0}
    env = wakanda_v0.raw_env()
    for before in POSITIONS[::14]:
        if before["advanced"]:
            env = wakanda_v0.raw_env(advanced=True)
        env.load_state_dict(before)
        for path, _ in list(places(before)):
            for value in BAD_VALUES + ["<delete>"]:
                mutant = copy.deepcopy(before)
                parent = parent_of(mutant, path)
                if value == "<delete>":
                    del parent[path[-1]]
                else:
                    parent[path[-1]] = copy.deepcopy(value)
                outcomes[check_mutant(env, before, mutant)] += 1
    assert outcomes["refused"] > 5000 and outcomes["loaded"] > 0, outcomes


@st.composite
def mutants(draw):
    """A position with one to three mutations of any kind, anywhere."""
    before = draw(st.sampled_from(POSITIONS))
    mutant = copy.deepcopy(before)
    for _ in range(draw(st.integers(1, 3))):
        where = list(places(mutant))
        if not where:
            break
        path, value = draw(st.sampled_from(where))
        parent = parent_of(mutant, path)
        operation = draw(st.sampled_from(["replace", "delete", "extra", "move", "reorder", "swap fields"]))
        if operation == "replace":
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(BAD_VALUES)))
        elif operation == "delete":
            del parent[path[-1]]
        elif operation == "extra" and isinstance(value, dict):
            value[draw(st.sampled_from(["extra", "kind", "owner", "bag"]))] = draw(st.sampled_from(BAD_VALUES))
        elif operation == "extra" and isinstance(value, list):
            value.append(copy.deepcopy(draw(st.sampled_from(value or BAD_VALUES))))
        elif operation == "move":
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(where))[1])
        elif operation == "reorder" and isinstance(value, list):
            parent[path[-1]] = draw(st.permutations(value))
        elif operation == "swap fields" and isinstance(mutant, dict) and len(mutant) > 1:
            a, b = draw(st.lists(st.sampled_from(sorted(mutant)), min_size=2, max_size=2, unique=True))
            mutant[a], mutant[b] = mutant[b], mutant[a]
    return before, mutant


@mutation_settings(300)
@given(mutants())
def test_generated_mutants_are_refused_cleanly_or_load_sound_games(case):
    before, mutant = case
    env = wakanda_v0.raw_env(advanced=before["advanced"])
    env.load_state_dict(before)
    check_mutant(env, before, mutant)


def test_a_huge_rejected_value_is_quoted_cut():
    """Error messages quote a cut version of a long rejected value."""
    env = wakanda_v0.raw_env()
    env.reset(seed=0)
    before = env.state_dict()
    for field, value in [("bag", ["sun"] * 200_000), ("current_player", 10**5000), ("winner", "w" * 100_000)]:
        mutant = {**before, field: value}
        try:
            env.load_state_dict(mutant)
        except ValueError as error:
            assert field in str(error) and len(str(error)) < 500
        else:
            raise AssertionError(f"{field}={value!r:.40} was loaded")
        assert env.state_dict() == before
