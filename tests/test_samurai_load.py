"""Samurai state loading never half-succeeds (issue 11.2).

Generated mutations (hypothesis) of real ``state_dict()``s, taken from seeded
random games of every configuration: values of the wrong type (``1.0``,
``True``, numpy integers, strings, None), out-of-range and huge integers,
wrong lengths, deleted or extra keys, values moved between fields. Each
mutant is either refused (a ValueError naming a field; the env exactly as it
was, and still playable) or loads to a valid, JSON-safe position that round
trips and plays to the end. Then the refusals the issue named, one by one.
"""

from __future__ import annotations

import copy
import json
import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs import samurai_v0
from envs.samurai.components import CHOOSE_HAND, DRAFT, FIGURE_TYPES, PLAY
from envs.samurai.serialize import KEYS, TURN_KEYS
from tests.conftest import assert_refused, random_positions
from tests.test_samurai_rules import EDO, default_figures, position

CONFIGS = (
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 2, "figure_setup": "draft"},
    {"num_players": 3, "choose_hand": True, "figure_setup": "draft"},
)
#: Words that name a field of the data (the ``invalid Samurai state_dict:`` prefix removed).
FIELDS = KEYS | TURN_KEYS | {"tile", "owner", "settlement", "type", "state_dict"} | set(FIGURE_TYPES)
MAX_STEPS = 3_000


#: Positions from the opening, every 13th decision and the end of seeded random games.
POSITIONS = random_positions(samurai_v0.raw_env, CONFIGS, lambda step: step % 13 == 0, MAX_STEPS)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, prefix + (i,))


def _get(data, path):
    for key in path:
        data = data[key]
    return data


def _set(data, path, value):
    if not path:
        return value
    _get(data, path[:-1])[path[-1]] = value
    return data


def _replacements(original) -> list:
    junk = [1.0, True, False, None, "x", [], {}, -1, 2**70, 10**400, "ronin", "helmet", [0] * 300]
    if isinstance(original, int) and not isinstance(original, bool):
        junk += [np.int64(original), float(original), original + 1, original - 1, str(original)]
    if isinstance(original, list):
        junk += [original[:-1], original + original[-1:], original[::-1]]
    return junk


@st.composite
def mutants(draw):
    config, data = draw(st.sampled_from(POSITIONS))
    data = copy.deepcopy(data)
    paths = list(_paths(data))
    path = draw(st.sampled_from(paths))
    kind = draw(st.sampled_from(["replace", "delete", "extra", "move"]))
    if kind == "replace" or (kind == "delete" and not path):
        data = _set(data, path, draw(st.sampled_from(_replacements(_get(data, path)))))
    elif kind == "delete":
        del _get(data, path[:-1])[path[-1]]
    elif kind == "extra":
        target = _get(data, path)
        if isinstance(target, dict):
            target[draw(st.sampled_from(["extra", "0", 1]))] = draw(st.sampled_from([0, "ronin", None]))
        elif isinstance(target, list):
            target.append(draw(st.sampled_from([0, "ronin", "helmet", None])))
        else:
            data = _set(data, path, [target, target])
    else:
        source = draw(st.sampled_from(paths))
        data = _set(data, path, copy.deepcopy(_get(copy.deepcopy(data), source)))
    return config, data


def _play_to_the_end(env) -> None:
    choose = random.Random(0).choice
    for _ in range(MAX_STEPS):
        if env.terminations[env.agent_selection]:
            return
        env.step(choose(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()))
    raise AssertionError("the loaded game did not end")


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_a_mutated_state_dict_is_refused_cleanly_or_loads_a_valid_position(mutant):
    """Bad input: every mutant is refused with a ValueError naming a field (the env unchanged and still
    playable), or it is a valid position: JSON-safe, round-tripping, playable to the end."""
    config, data = mutant
    env = samurai_v0.raw_env(**config)
    env.reset(seed=5)
    before = env.state_dict()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning may stand in for a refusal
            env.load_state_dict(data)
    except ValueError as error:
        message = str(error).removeprefix("invalid Samurai state_dict: ")
        assert any(field in message for field in FIELDS), f"the refusal names no field: {message}"
        assert len(message) < 1_500, "a rejected value is quoted cut short"
        assert env.state_dict() == before, "a refused load leaves the env as it was"
        _play_to_the_end(env)
        return
    loaded = env.state_dict()
    assert json.loads(json.dumps(loaded)) == loaded, "an accepted position is JSON-safe"
    other = samurai_v0.raw_env(**config)
    other.load_state_dict(json.loads(json.dumps(loaded)))
    assert other.state_dict() == loaded, "an accepted position round-trips"
    _play_to_the_end(env)


def test_the_generated_positions_cover_every_phase_and_sub_step():
    """The mutations start from positions of every phase, mid-turn sub-steps and finished games."""
    phases = {data["turn"]["phase"] for _, data in POSITIONS}
    assert phases == {CHOOSE_HAND, DRAFT, PLAY}
    assert any(data["terminal"] for _, data in POSITIONS)
    assert any(data["turn"]["tile"] is not None for _, data in POSITIONS)
    assert any(data["turn"]["played"] for _, data in POSITIONS)


# --- the refusals named in issue 11.2 ---------------------------------------------------------
def _fresh_env(**config):
    env = samurai_v0.raw_env(**config)
    env.reset(seed=1)
    return env


@pytest.mark.parametrize("value", [0.0, False, np.int64(0), "0", 2**70, -1, 2])
def test_current_player_must_be_a_seat_as_an_int(value):
    """Types are checked, not compared: a float, bool or numpy current_player (which compare equal to 0)
    is refused, as are huge and out-of-range seats; the env keeps its game."""
    env = _fresh_env()
    data = position()
    data["current_player"] = value
    assert_refused(env, lambda: env.load_state_dict(data), "current_player")
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))  # still playable


@pytest.mark.parametrize(
    "path,value,field",
    [
        (("turn", "number"), 1.0, "turn.number"),
        (("turn", "number"), np.int64(0), "turn.number"),
        (("turn", "number"), 10**400, "turn.number"),
        (("captured", 0, "helmet"), True, r"captured\[0\].helmet"),
        (("set_aside", "rice"), np.int64(0), "set_aside.rice"),
        (("board", "57", "owner"), 0.0, r"board\['57'\].owner"),
        (("turn", "swap_from"), 57.0, "turn.swap_from"),
        (("winners",), [0.0], "winners"),
        (("turn", "non_quick_used"), 0, "turn.non_quick_used"),
        (("terminal",), 0, "terminal"),
    ],
)
def test_values_that_only_compare_equal_are_refused(path, value, field):
    """Types are checked: 1.0, True and numpy integers are not ints (nor 0 a bool), wherever they appear."""
    env = _fresh_env()
    data = position(tiles={57: ("helmet2", 0)})
    env.load_state_dict(copy.deepcopy(data))  # the unbroken position loads
    env.reset(seed=1)
    _set(data, path, value)
    assert_refused(env, lambda: env.load_state_dict(data), field)


def _draft_position(**config) -> dict:
    env = samurai_v0.raw_env(figure_setup="draft", **config)
    env.reset(seed=2)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    data = env.state_dict()
    assert data["turn"]["phase"] == DRAFT
    return data


def test_a_draft_position_with_every_figure_placed_is_refused():
    """Setup (draft): a draft-phase position whose supply is empty would have no legal move: refused."""
    data = _draft_position()
    data["figures"] = default_figures(2, {})  # every settlement full, the whole supply placed
    env = _fresh_env(figure_setup="draft")
    assert_refused(env, lambda: env.load_state_dict(data), "turn.phase: the draft is over when every figure is placed")


def test_a_draft_position_with_tiles_on_the_board_is_refused():
    """Setup (draft): tiles are laid only in play; a draft position with a tile on the board is refused."""
    data = _draft_position()
    tile = data["piles"][0].pop()
    data["board"]["57"] = {"tile": tile, "owner": 0}
    env = _fresh_env(figure_setup="draft")
    assert_refused(env, lambda: env.load_state_dict(data), "board must be empty during the draft phase")


def test_a_draft_position_without_edo_full_is_refused():
    """Setup (draft, issue 11.5): Edo holds one figure of each type from the start of the draft."""
    data = _draft_position()
    data["figures"][str(EDO)] = ["helmet"]
    env = _fresh_env(figure_setup="draft")
    assert_refused(env, lambda: env.load_state_dict(data), "Edo holds one figure of each type")


def test_a_huge_rejected_value_is_quoted_cut_short():
    """Error messages quote a cut version of a long rejected value (a 200,000-item list)."""
    data = position()
    data["hands"][0] = ["ronin"] * 200_000
    with pytest.raises(ValueError, match=r"hands\[0\]") as error:
        samurai_v0.raw_env().load_state_dict(data)
    assert len(str(error.value)) < 400, "the message names the field, not 200,000 tiles"
