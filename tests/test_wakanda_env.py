"""Wakanda through the AEC adapter: the env card, spaces, observation layout, PettingZoo's own
tests, seeding, rewards and infos, state as data, rendering, and every bad input."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from gymnasium.spaces import Discrete

import envs
from envs import wakanda_v0
from envs.core import GameEnv, IllegalActionError
from envs.wakanda import observation as layout
from envs.wakanda.serialize import KEYS
from tests.conftest import (
    assert_layout_table,
    assert_refused,
    assert_reset_refused,
    assert_steps_refused,
    documented_keys,
)
from tests.test_wakanda_rules import (
    LINE,
    WORKED_DRAWS,
    WORKED_MOVES,
    WORKED_VILLAGES,
    bag,
    build,
    drawn_position,
    finish,
    position,
)

MODES = [False, True]
WORKED_EXAMPLE = {"villages": WORKED_VILLAGES, "bag": bag(*WORKED_DRAWS)}


pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_env_card_matches_the_real_spaces():
    """The module docstring (the env card) states the real spaces, agents and entry points."""
    doc = wakanda_v0.__doc__
    env = wakanda_v0.env()
    env.reset(seed=0)
    assert env.action_space("player_1") == Discrete(42)
    assert "Discrete(42)" in doc and f"Box(0, 1, ({layout.OBSERVATION_SIZE},), float32)" in doc
    assert env.observation_space("player_0")["observation"].shape == (layout.OBSERVATION_SIZE,)
    assert env.observation_space("player_0")["action_mask"].shape == (42,)
    assert env.possible_agents == ["player_0", "player_1"] and env.agent_selection == "player_0"
    assert "drawluck/wakanda-v0" in doc and envs.ENV_IDS["wakanda"] == "drawluck/wakanda-v0"
    for word in ("Decisions", "Version history", "advanced", "reward", "render_mode", "options"):
        assert word in doc


def test_the_env_card_links_the_projects_own_rules_page():
    """The rules travel with the project: the card points to docs/rules/wakanda.md, which covers
    every part of the game and the decisions taken where the sources are silent."""
    assert "docs/rules/wakanda.md" in wakanda_v0.__doc__ and "shared/rules" not in wakanda_v0.__doc__
    page = (Path(__file__).parents[1] / "docs" / "rules" / "wakanda.md").read_text()
    for section in (
        "## Components",
        "## Setup",
        "## A turn",
        "## The end",
        "## Scoring",
        "## Information",
        "## Decisions we made",
        "## The actions",
    ):
        assert section in page


def test_observation_table_matches_the_offsets():
    """The layout table in observation.py states the real offsets and sizes."""
    blocks = "SLOTS SUPPLIES HEADDRESSES_LEFT BAG BAG_SIZE THIRD_FIRST CANDIDATES SCORES TO_ACT ADVANCED"
    rows = assert_layout_table(layout, blocks)
    assert rows[-1][0] + rows[-1][1] == layout.OBSERVATION_SIZE == 150
    assert layout.SLOT_BLOCK * 6 == rows[0][1]


def test_observation_is_relative_to_the_observer_and_in_the_unit_box():
    """Seats are relative: owners, supplies, headdresses and scores show the observer first."""
    env = wakanda_v0.raw_env()
    env.reset(options=WORKED_EXAMPLE)
    for move in WORKED_MOVES[:11]:  # B owns slot 1, A owns slot 0
        env.step(move)
    own, other = env.observe("player_0")["observation"], env.observe("player_1")["observation"]
    owner = lambda obs, slot: obs[slot * layout.SLOT_BLOCK + layout.OWNED :][:2].tolist()  # noqa: E731
    assert owner(own, 0) == [1, 0] and owner(other, 0) == [0, 1]
    assert owner(own, 1) == [0, 1] and owner(other, 1) == [1, 0]
    assert own[layout.HEADDRESSES_LEFT : layout.HEADDRESSES_LEFT + 2].tolist() == pytest.approx([2 / 3, 2 / 3])
    mine, theirs = slice(layout.SUPPLIES, layout.SUPPLIES + 6), slice(layout.SUPPLIES + 6, layout.SUPPLIES + 12)
    assert own[mine].tolist() == other[theirs].tolist() and own[theirs].tolist() == other[mine].tolist()
    scores = env.state_dict()["scores"]
    assert own[layout.SCORES] == pytest.approx((scores[0] + 6) / 72)
    assert own[layout.SCORES + 1] == other[layout.SCORES]
    assert other[layout.TO_ACT : layout.TO_ACT + 2].tolist() == [1, 0], "player_1 is to act"
    assert env.observe("player_0")["action_mask"].sum() == 0, "no moves for the agent not to act"
    for obs in (own, other):
        assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1


def test_registered_with_pettingzoo_make():
    env = pettingzoo.make("aec", "drawluck/wakanda-v0", advanced=True)
    env.reset(seed=1)
    assert isinstance(env.unwrapped, GameEnv) and env.unwrapped.game.advanced is True


def run_episodes(seed: int, advanced: bool, count: int = 20) -> tuple[list, list]:
    """reset(seed) then reset() x (count - 1), random legal play; the deals and everything observed."""
    env = wakanda_v0.env(advanced=advanced)
    deals, traces = [], []
    for episode in range(count):
        env.reset(seed=seed) if episode == 0 else env.reset()
        deals.append(json.dumps(env.unwrapped.state_dict(), sort_keys=True))
        choose, trace = random.Random(episode).choice, []
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, repr(info)))
            env.step(None if termination or truncation else choose(np.flatnonzero(obs["action_mask"]).tolist()))
        traces.append(trace)
    return deals, traces


@pytest.mark.parametrize("advanced", MODES)
def test_one_seed_reproduces_twenty_whole_games_and_seeds_differ(advanced):
    """Seeding: reset(seed=s) then reset() x19 replays the same 20 games in another env; another
    seed shuffles different bags."""
    deals, traces = run_episodes(11, advanced)
    assert (deals, traces) == run_episodes(11, advanced)
    assert len(set(deals)) == 20
    other, _ = run_episodes(12, advanced, count=5)
    assert all(json.loads(a)["bag"] != json.loads(b)["bag"] for a, b in zip(deals, other))


def test_injecting_one_order_keeps_the_other_as_the_seed_deals_it():
    """Seeding (decision): both orders are always drawn from the seed, so injecting the bag keeps
    the seed's villages and injecting the villages keeps the seed's bag."""
    env = wakanda_v0.raw_env()
    env.reset(seed=3)
    dealt = env.state_dict()
    env.reset(seed=3, options={"bag": WORKED_EXAMPLE["bag"]})
    assert env.state_dict()["villages"] == dealt["villages"]
    assert env.state_dict()["supplies"][0] + env.state_dict()["bag"] == WORKED_EXAMPLE["bag"]
    env.reset(seed=3, options={"villages": LINE})
    assert env.state_dict()["bag"] == dealt["bag"]
    assert [v["kind"] for v in env.state_dict()["villages"]] == LINE
    assert env.state_dict()["removed_villages"] == ["variety", "height"]


@pytest.mark.parametrize("reward,expected", [("win", [1.0, -1.0]), ("score", [4.0, -4.0])])
def test_final_rewards_and_infos_through_env(reward, expected):
    """Rewards: +1/-1 under "win", own score minus the opponent's under "score"; infos hold the
    agent's own final score (the worked example: 20 against 16)."""
    env = wakanda_v0.env(reward=reward)
    env.reset(options=WORKED_EXAMPLE)
    for move in WORKED_MOVES:
        assert not any(env.terminations.values())
        env.step(move)
    assert env.rewards == dict(zip(env.possible_agents, expected))
    assert env._cumulative_rewards == dict(zip(env.possible_agents, expected))
    assert env.infos == {"player_0": {"score": 20.0}, "player_1": {"score": 16.0}}
    assert all(env.terminations.values())


def test_a_draw_gives_zero_rewards_and_loading_a_finished_game_ends_the_episode():
    env = wakanda_v0.raw_env()
    env.reset(seed=0)
    env.load_state_dict(drawn_position())
    assert all(env.terminations.values()) and env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.infos["player_1"] == {"score": 17.0}


def test_state_dict_has_exactly_the_documented_keys_is_json_safe_and_round_trips():
    env = wakanda_v0.raw_env(advanced=True)
    env.reset(seed=5)
    for _ in range(12):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    data = env.state_dict()
    assert set(data) == KEYS == documented_keys(wakanda_v0.__doc__)
    assert set(data["villages"][0]) == {"kind", "available", "face_up", "owner", "totem"}
    assert json.loads(json.dumps(data)) == data
    other = wakanda_v0.raw_env(advanced=True)
    other.reset(seed=99)
    other.load_state_dict(json.loads(json.dumps(data)))
    assert other.state_dict() == data and other.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        for key in ("observation", "action_mask"):
            assert np.array_equal(other.observe(agent)[key], env.observe(agent)[key])


def twins():
    """Two advanced-game state_dicts differing only in which kinds lie face down or in the box."""
    env = wakanda_v0.raw_env(advanced=True)
    env.reset(options={"villages": LINE, "bag": bag("tipi", "sun")})
    env.step(build("tipi", 0))
    data = env.state_dict()
    other = json.loads(json.dumps(data))
    other["villages"][3]["kind"], other["villages"][5]["kind"] = "variety", "skin"
    other["removed_villages"] = ["height", "sun"]
    other["villages"][4]["kind"] = "tipi"
    return data, other


def test_advanced_no_leak_through_the_env_observations_and_masks():
    """Advanced rule: the identity of face-down villages is hidden from both players."""
    data, other = twins()
    a, b = wakanda_v0.raw_env(advanced=True), wakanda_v0.raw_env(advanced=True)
    a.reset(seed=0), b.reset(seed=0)
    a.load_state_dict(data), b.load_state_dict(other)
    assert a.state_dict()["villages"] != b.state_dict()["villages"]
    for agent in a.possible_agents:
        for key in ("observation", "action_mask"):
            assert np.array_equal(a.observe(agent)[key], b.observe(agent)[key])


BROKEN = [
    (lambda d: d.update(game="wapi"), "game"),
    (lambda d: d.update(advanced=True), "advanced"),
    (lambda d: d.pop("winner"), "missing keys"),
    (lambda d: d.update(extra=1), "unknown keys"),
    (lambda d: d["bag"].__setitem__(0, "feather"), r"bag\[0\] must be a piece name"),
    (lambda d: d["bag"].pop(), "not conserved"),
    (lambda d: d["supplies"][1].append("sun"), "not conserved"),
    (lambda d: d["villages"][0].update(kind="totem"), r"villages\[0\].kind must be a village name"),
    (lambda d: d["villages"][1].update(kind=d["villages"][0]["kind"]), "each once"),
    (lambda d: d.update(removed_villages=["variety"]), "removed_villages must be a list of 2"),
    (lambda d: d.update(removed_villages=["variety", "variety"]), "each once"),
    (lambda d: d["villages"][4].update(owner=0, totem=[]), "available must be"),
    (lambda d: d["villages"][5].update(available=True), "available must be"),
    (lambda d: d["villages"][5].update(face_up=False), "face_up"),
    (lambda d: d["villages"][1].update(owner=2), "owner must be"),
    (lambda d: d.update(headdresses_left=[2, 2]), "headdresses_left"),
    (lambda d: d.update(headdresses_left=[3, 3]), "headdresses_left"),
    (lambda d: d.update(third_headdress_first=0), "third_headdress_first"),
    (lambda d: d.update(terminal=True), "terminal"),
    (lambda d: d.update(current_player=1 - d["current_player"]), "current_player"),
    (lambda d: d.update(current_player=None), "current_player"),
    (lambda d: d.update(scores=[99, 0]), "scores"),
    (lambda d: d.update(winner=0), "winner"),
    (lambda d: d["supplies"][0].extend(d["bag"][:2]) or d["bag"].__delitem__(slice(0, 2)), "drawn"),
]


@pytest.mark.parametrize("change,message", BROKEN)
def test_load_state_dict_refuses_states_that_break_the_rules(change, message):
    """State as data: a load that breaks a rule is refused with a clear error, game untouched."""
    env = wakanda_v0.raw_env()
    env.reset(options={"villages": LINE, "bag": bag("tipi", "sun", "skin", "tipi")})
    for move in (build("tipi", 0), build("sun", 1), finish(0)):  # player 0 owns slot 0; slot 3 revealed
        env.step(move)
    before = env.state_dict()
    data = json.loads(json.dumps(before))
    change(data)
    assert_refused(env, lambda: env.load_state_dict(data), message)


def test_load_state_dict_refuses_more_than_three_villages_per_player():
    stacks = [["eagle"], ["chief"], ["tomahawk"], ["skin"], ["tipi"], ["sun"]]
    data = position(LINE, [0, 0, 0, 0, 1, 1], stacks, [0, 0], None)
    with pytest.raises(ValueError, match=r"headdresses_left\[0\] must be an int in 0..3, got -1"):
        wakanda_v0.raw_env().game.state_from_dict(data)
    data["headdresses_left"] = [0, 1]
    with pytest.raises(ValueError, match="owns 4 villages"):
        wakanda_v0.raw_env().game.state_from_dict(data)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"advanced": 1}, "advanced must be True or False"),
        ({"advanced": "yes"}, "advanced"),
        ({"advanced": None}, "advanced"),
        ({"reward": "rank"}, r"reward must be one of \['win', 'score'\]"),
        ({"render_mode": "svg"}, "render_mode must be one of"),
    ],
)
@pytest.mark.parametrize("make", [wakanda_v0.env, wakanda_v0.raw_env])
def test_bad_arguments_are_named(make, kwargs, message):
    with pytest.raises(ValueError, match=message):
        make(**kwargs)


@pytest.mark.parametrize(
    "options,message",
    [
        ({"bag": ["sun"] * 21}, "not a permutation"),
        ({"bag": "sun tipi"}, "list of names"),
        ({"bag": ["feather"] + bag()[1:]}, "unknown names"),
        ({"bag": bag()[:-1]}, "not a permutation"),
        ({"villages": LINE[:5]}, "6 distinct villages"),
        ({"villages": LINE[:5] + ["eagle"]}, "6 distinct villages"),
        ({"villages": LINE[:5] + ["bridge"]}, r"unknown names \['bridge'\]; allowed: \['eagle'"),
        ({"villages": "eagle"}, "options\\['villages'\\] must be a list"),
        ({"villages": LINE, "bag": ["sun"]}, "options\\['bag'\\]"),
        ("bag", "options must be a dict"),
    ],
)
def test_bad_injected_bags_and_villages_are_refused(options, message):
    assert_reset_refused(wakanda_v0.raw_env(), options, message)


def test_raw_env_rejects_bad_actions_without_changing_anything():
    """raw_env: out-of-range, illegal (tilted village, empty totem, piece not held) and None raise."""
    env = wakanda_v0.raw_env()
    env.reset(options={"villages": LINE, "bag": bag("tipi")})
    cases = [
        (42, "out of range"),
        (-1, "out of range"),
        (None, "None"),
        (build("tipi", 3), "tilted"),
        (finish(0), "empty totem cannot be finished"),
        (build("eagle", 0), "no eagle in their supply"),
    ]
    assert_steps_refused(env, [(action, ValueError, message) for action, message in cases])
    with pytest.raises(IllegalActionError):
        env.step(finish(1))


def test_env_illegal_action_ends_the_game_with_minus_one_for_the_offender(caplog):
    """Under env(), as in PettingZoo classic: a logged warning, -1 for the offender, 0 for the other."""
    env = wakanda_v0.env()
    env.reset(options={"villages": LINE, "bag": bag("tipi")})
    env.step(finish(0))
    assert "Illegal move made" in caplog.text
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0}
    assert all(env.terminations.values()) and all(env.truncations.values())
    with pytest.raises(AssertionError, match="action space"):
        env.step(42)


def test_describe_action_and_renders():
    """Rendering: ansi text with the village line, availability, owners, stacks, supplies and
    scores; human prints it; rgb_array is an H x W x 3 uint8 picture of the line."""
    env = wakanda_v0.raw_env(render_mode="ansi")
    env.reset(options=WORKED_EXAMPLE)
    assert env.describe_action(build("tipi", 3)) == "build a tipi on village 3 (variety)"
    assert env.describe_action(finish(2)) == "finish the totem on village 2 (sun)"
    for move in WORKED_MOVES[:12]:
        env.step(move)
    text = env.render()
    for fragment in (
        "height",
        "tomahawk",
        "variety",
        "owned A",
        "owned B",
        "open",
        "tilted",
        "TIP",
        "EAG",
        "A (player_0): score",
        "headdresses 2",
        "supply:",
    ):
        assert fragment in text
    lines = text.splitlines()
    column = lines[1].index("0")
    stack = [line[column : column + 3] for line in lines[4:9]]
    assert stack == ["SUN", "SUN", "EAG", "TIP", "TIP"], "slot 0's totem, top piece first"
    with pytest.raises(ValueError, match="action"):
        env.describe_action(42)
    image = wakanda_v0.raw_env(render_mode="rgb_array")
    image.load_state_dict(env.state_dict())
    picture = image.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 8, "villages, pieces and owners in colour"


def test_human_render_prints_and_advanced_renders_keep_face_down_villages_hidden(capsys):
    env = wakanda_v0.raw_env(advanced=True, render_mode="human")
    env.reset(options={"villages": LINE, "bag": bag("tipi")})
    assert env.render() is None
    out = capsys.readouterr().out
    assert "face down" in out and "skin" not in out.split("\n")[2], "slot 3 (skin) lies face down"
    env.step(build("tipi", 0))
    assert "Wakanda (advanced)" in capsys.readouterr().out, "human mode renders after each step"


def test_a_skipped_player_leaves_the_turn_to_the_same_agent_and_the_episode_ends_when_neither_can_act():
    """End (through the env): a player who cannot act is skipped, so the same agent acts again;
    when neither can act the episode ends with rewards and scores."""
    stacks = [["eagle"] + ["sun"] * 6, ["chief"] * 2 + ["tomahawk"] * 3, ["skin"] * 3 + ["tipi"] * 5, [], [], []]
    env = wakanda_v0.env()
    env.reset(seed=0)
    env.unwrapped.load_state_dict(
        position(
            LINE,
            [1, 1, 1, None, None, None],
            stacks,
            [0, 24],
            None,
            supplies=[["skin"], []],
            bag_left=[],
            current_player=0,
        )
    )
    env.step(build("skin", 3))
    assert env.agent_selection == "player_0" and not any(env.terminations.values())
    assert env.observe("player_0")["action_mask"].tolist() == [1 if a == finish(3) else 0 for a in range(42)]
    env.step(finish(3))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.infos == {"player_0": {"score": 3.0}, "player_1": {"score": 24.0}}
