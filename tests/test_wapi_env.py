"""Wapi through the AEC adapter: spaces, observation layout, infos, state as data, errors."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

from envs import wapi_v0
from envs.core import IllegalActionError
from envs.core.engine import GameState
from envs.wapi import WapiGame, WapiState
from envs.wapi import observation as layout
from envs.wapi.actions import DECLINE, NUM_ACTIONS, PLACE_TOTEM, coin_action
from envs.wapi.serialize import KEYS
from tests import conftest
from tests.conftest import assert_refused, assert_reset_refused, assert_steps_refused, documented_keys
from tests.test_wapi_rules import bag


def test_observation_table_matches_the_offsets():
    """The layout table in observation.py states the real offsets and sizes."""
    rows = conftest.assert_layout_table(
        layout, "MINES DRAWN TOTEMS_LEFT BAG COINS_PLACED SCORING SCORES PRESENT TO_ACT"
    )
    assert rows[-1][0] + rows[-1][1] == layout.OBSERVATION_SIZE == 92


def test_observation_is_relative_to_the_observer():
    """Observer first: the same totem shows in seat slot 0 for its owner and slot n-1 for the next player."""
    env = wapi_v0.raw_env(num_players=3)
    game = env.game
    env.reset(options={"bag": bag(game, "M5", "S3")})
    env.step(PLACE_TOTEM)  # player_0 poles mine 5
    poles5 = layout.MINES + 5 * layout.MINE_BLOCK + layout.MINE_POLES  # mine 5's poles, seat slot 0 first
    own = env.observe("player_0")["observation"]
    next_ = env.observe("player_1")["observation"]
    assert own[poles5] == pytest.approx(1 / 3) and own[poles5 + 1] == 0
    assert next_[poles5] == 0 and next_[poles5 + 2] == pytest.approx(1 / 3)
    assert next_[layout.DRAWN + 3] == 1, "player_1 sees the drawn S3"
    assert next_[layout.TO_ACT] == 1 and own[layout.TO_ACT + 1] == 1
    assert own[layout.PRESENT : layout.PRESENT + 5].tolist() == [1, 1, 1, 0, 0]
    assert env.observe("player_0")["action_mask"].sum() == 0, "no moves for an agent not to act"
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == [coin_action(5)], "S3 must feed mine 5"


def test_final_infos_and_rewards_through_env():
    """Rewards at the end only; infos[agent]['score'] is the agent's own final score."""
    env = wapi_v0.env(num_players=3, reward="score")
    env.reset(seed=5)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination:
            finals[agent] = (reward, info["score"])
            env.step(None)
        else:
            assert reward == 0 and info == {"score": 0.0}, "the final info's keys from reset on, zero until the end"
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    scores = [finals[f"player_{p}"][1] for p in range(3)]
    for p in range(3):
        others = [s for q, s in enumerate(scores) if q != p]
        assert finals[f"player_{p}"][0] == pytest.approx(scores[p] - sum(others) / 2)


def test_state_dict_has_exactly_the_documented_keys_and_round_trips():
    env = wapi_v0.raw_env(num_players=4, scoring="shared")
    env.reset(seed=11)
    for _ in range(25):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    data = env.state_dict()
    assert set(data) == KEYS == documented_keys(wapi_v0.__doc__)
    assert json.loads(json.dumps(data)) == data
    assert data["game"] == "wapi" and data["current_player"] == env.possible_agents.index(env.agent_selection)
    other = wapi_v0.raw_env(num_players=4, scoring="shared")
    other.load_state_dict(json.loads(json.dumps(data)))
    assert other.state_dict() == data
    for agent in env.possible_agents:
        assert np.array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])


def test_load_state_dict_restores_a_finished_game():
    data = conftest.assert_reloads_finished(wapi_v0, num_players=2)
    assert data["terminal"] and data["current_player"] is None and data["drawn"] is None


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda d: d.pop("bag"), "missing"),
        (lambda d: d.update(game="wakanda"), "game"),
        (lambda d: d.update(num_players=3), "num_players"),
        (lambda d: d["mines"].pop(), "mines must be a list of 6"),
        (lambda d: d["mines"][0]["silver"].append(4), "silver"),
        (lambda d: d["mines"][1].update(masks=5), "masks"),
        (lambda d: d["bag"].pop(), "not conserved"),
        (lambda d: d["bag"].__setitem__(0, "S9"), r"bag\[0\] must be a tile code"),
        (lambda d: d.update(current_player=(d["current_player"] + 1) % 2), "current_player"),
        (lambda d: d.update(terminal=True), "terminal"),
        (lambda d: d.update(scores=[99.0, 0.0]), "scores"),
        (lambda d: d.update(totems_left=[0, 3]), "totems_left"),
    ],
)
def test_load_state_dict_refuses_broken_states(change, message):
    env = wapi_v0.raw_env(num_players=2)
    env.reset(seed=4)
    for _ in range(10):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = env.state_dict()
    data = json.loads(json.dumps(before))
    change(data)
    assert_refused(env, lambda: env.load_state_dict(data), message)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"num_players": 4.0}, "num_players"),
        ({"num_players": np.int64(4)}, "num_players"),
        ({"scoring": "half"}, "scoring"),
        ({"coins": {4: 48}}, "unknown coin values"),
        ({"coins": {1: -1, 2: 40}}, "non-negative"),
        ({"coins": {1: 29}}, "at least 30"),
        ({"coins": [8, 12]}, "coins must be a dict"),
        ({"coins": {1: 30.0}}, "non-negative int"),
        ({"coins": {1: np.int64(30)}}, "non-negative int"),
        ({"coins": {1: True, 2: 30}}, "non-negative int"),
        ({"coins": {1.0: 30}}, "unknown coin values"),
        ({"coins": {True: 30}}, "unknown coin values"),
        ({"coins": {"1": 30}}, "unknown coin values"),
        ({"coins": {1: 10**400}}, "at most 1000"),
        ({"coins": {1: 600, 2: 600}}, "at most 1000"),
        ({"reward": "rank"}, "reward"),
        ({"render_mode": "svg"}, "render_mode"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        wapi_v0.env(**kwargs)


@pytest.mark.parametrize(
    "options,message",
    [
        ({"bag": ["S1"] * 72}, "not a permutation"),
        ({"bag": "S1 S2"}, "list of names"),
        ({"bag": ["X1"] + ["S1"] * 71}, "unknown names"),
        ("bag", "options must be a dict"),
    ],
)
def test_bad_injected_bags_are_refused(options, message):
    assert_reset_refused(wapi_v0.raw_env(), options, message)


def test_raw_env_rejects_bad_actions_without_changing_anything():
    env = wapi_v0.raw_env()
    env.reset(options={"bag": bag(env.game, "M1")})
    bad = ((coin_action(0), IllegalActionError), (NUM_ACTIONS, ValueError), (-1, ValueError), (None, ValueError))
    assert_steps_refused(env, [(action, error, None) for action, error in bad])


def test_env_illegal_action_ends_the_game_with_minus_one_for_the_offender(caplog):
    """Under env(), as in PettingZoo classic: a logged warning, -1 for the offender, 0 for the others."""
    env = wapi_v0.env(num_players=3)
    env.reset(options={"bag": bag(env.unwrapped.game, "M1")})
    env.step(coin_action(0))
    assert "Illegal move made" in caplog.text
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0, "player_2": 0}
    assert all(env.terminations.values()) and all(env.truncations.values())
    with pytest.raises(AssertionError, match="action space"):
        env.step(NUM_ACTIONS + 1)


def test_describe_action_and_text_render():
    env = wapi_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(options={"bag": bag(env.game, "S5", "M2")})
    assert env.describe_action(coin_action(3)) == "put silver 5 in mine 3"
    text = env.render()
    assert "A (player_0) drew a silver coin 5" in text and "mine 5" in text
    env.step(coin_action(3))
    assert env.describe_action(PLACE_TOTEM) == "place a totem on the mask just drawn"
    assert env.describe_action(DECLINE) == "decline (no totem)"
    assert "silver [5 _ _ _ _] =  5" in env.render()
    with pytest.raises(ValueError, match="action"):
        env.describe_action(NUM_ACTIONS)


def test_the_env_card_links_the_rules_page_which_states_the_action_map():
    """The rules travel with the project: the card points to docs/rules/wapi.md (not shared/), and
    the page's action table is the one in envs/wapi/actions.py."""
    assert "docs/rules/wapi.md" in wapi_v0.__doc__ and "shared/rules" not in wapi_v0.__doc__
    page = (Path(__file__).parents[1] / "docs" / "rules" / "wapi.md").read_text()
    assert f"| {coin_action(0)} to {coin_action(5)} | put the drawn coin in mine 0 to 5 |" in page
    assert f"| {PLACE_TOTEM} | put a totem pole on the mask just drawn |" in page
    assert f"| {DECLINE} | decline: no pole on it |" in page
    assert f"`Discrete({NUM_ACTIONS})`" in page


def test_the_rules_engine_stands_apart_from_the_other_layers():
    """rules.py imports nothing from observation, render, serialize or game; the state is plain
    game data (no observer cache) and leaves observing, serialising and drawing to the game."""
    tree = ast.parse((Path(__file__).parents[1] / "envs" / "wapi" / "rules.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {f"envs.wapi.{layer}" for layer in ("observation", "render", "serialize", "game")} & imported
    state = WapiGame(3).new_state(np.random.default_rng(0))
    fields = {
        "game",
        "bag",
        "bag_counts",
        "drawn",
        "current_player",
        "silver",
        "masks",
        "totems",
        "totems_left",
        "coins_placed",
        "_legal",
    }
    assert set(vars(state)) == fields and set(vars(state.clone())) == fields
    for method in ("observation", "to_dict", "render_text", "render_image", "legal_actions"):
        assert getattr(WapiState, method) is getattr(GameState, method), f"WapiState overrides {method}"
