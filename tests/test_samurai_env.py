"""Samurai through the AEC adapter: the env card, spaces, observation layout, PettingZoo's
tests, reproducibility, rewards and infos, state as data, rendering and every error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pettingzoo
import pytest

import envs
from envs import samurai_v0
from envs.core import IllegalActionError
from envs.samurai import SamuraiGame, actions
from envs.samurai import observation as layout
from envs.samurai.components import DRAFT, FIGURE_TYPES, PLAYER_TILES, TILE_NAMES
from envs.samurai.serialize import KEYS
from tests import conftest
from tests.conftest import aec_trace, assert_refused, assert_reset_refused, assert_steps_refused, documented_keys
from tests.test_samurai_rules import AKITA, EDO, NON_QUICK_HAND, A, B, at, fig, play, position

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 3, "choose_hand": True, "figure_setup": "draft"},
]


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# --- the env card ---------------------------------------------------------------------
def test_env_card_matches_the_spaces():
    """The module docstring of samurai_v0 states the real spaces and action offsets."""
    doc = samurai_v0.__doc__
    env = samurai_v0.raw_env(num_players=4)
    space = env.observation_space("player_0")
    assert f"Discrete({env.action_space('player_0').n})" in doc
    assert f"Box(0, 1, ({space['observation'].shape[0]},), float32)" in doc
    assert f"Box(0, 1, ({space['action_mask'].shape[0]},), int8)" in doc
    assert f"0 .. {actions.END_TURN - 1}" in doc and f"\n    {actions.END_TURN} " in doc
    assert f"{actions.HEX} .. {actions.FIGURE - 1}" in doc and f"{actions.FIGURE} .. {actions.NUM_ACTIONS - 1}" in doc
    names = re.search(r"order ``(.*?)``", doc, re.S).group(1).split()
    assert names[:3] == list(TILE_NAMES[:3]) and names[-6:] == list(TILE_NAMES[-6:])
    for n in (2, 3):
        other = samurai_v0.env(num_players=n)
        assert other.action_space("player_0") == env.action_space("player_0")
        assert other.observation_space("player_0") == space


def test_env_card_links_the_projects_rules_page():
    """The rules travel with the project (issue 11.5): the card links docs/rules/samurai.md, which exists,
    marks our decisions and states the draft as the engine plays it."""
    page = Path(__file__).resolve().parents[1] / "docs" / "rules" / "samurai.md"
    assert "docs/rules/samurai.md" in samurai_v0.__doc__ and "shared/rules" not in samurai_v0.__doc__
    text = page.read_text()
    assert text.count("(ours)") >= 5 and "Edo starts with one figure of each" in text


def test_observation_table_matches_the_offsets():
    """The layout table in observation.py states the real offsets and sizes."""
    blocks = "HEXES PLAYERS SET_ASIDE ON_BOARD SUPPLY HAND PHASE PENDING FIRST_FIGURE SWAP_PICKED NON_QUICK_USED"
    rows = conftest.assert_layout_table(layout, blocks + " PLAYED TURN NUM_PLAYERS")
    assert rows[-1][0] + rows[-1][1] == layout.OBSERVATION_SIZE == 3807


def test_observation_is_relative_to_the_observer_and_shows_the_sub_step():
    """Observation: seats relative to the observer; own hand; the sub-step of the turn in progress."""
    env = samurai_v0.raw_env(num_players=3)
    env.load_state_dict(
        position(
            3, tiles={57: ("samurai2", A)}, hands=[["tile_swap", "ronin", "ship1", "helmet2", "buddha2"], None, None]
        )
    )
    env.step(play("tile_swap"))
    env.step(at(57))
    own = env.observe("player_0")["observation"]
    nxt = env.observe("player_1")["observation"]
    cell = layout.HEXES + 57 * layout.HEX_FEATURES
    assert own[cell + layout.F_OWNER] == 1 and nxt[cell + layout.F_OWNER + 2] == 1
    assert own[cell + layout.F_INFLUENCE : cell + layout.F_INFLUENCE + 3].tolist() == [0.5, 0.5, 0.5]
    assert own[cell + layout.F_SELECTED] == 1 and own[layout.SWAP_PICKED] == 1
    assert own[layout.PENDING + TILE_NAMES.index("tile_swap")] == 1
    assert own[layout.PHASE + 2] == 1 and own[layout.NUM_PLAYERS + 1] == 1
    assert own[layout.HAND + TILE_NAMES.index("ronin")] == 1
    assert nxt[layout.HAND : layout.HAND + 17].sum() > 0 and not np.array_equal(
        nxt[layout.HAND : layout.HAND + 17], own[layout.HAND : layout.HAND + 17]
    ), "each sees only their own hand"
    assert own[layout.PLAYERS + 1] == 1 and nxt[layout.PLAYERS + 2 * layout.PLAYER_BLOCK + 1] == 1, "to act"
    assert env.observe("player_1")["action_mask"].sum() == 0
    mask = env.observe("player_0")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [actions.hex_action(h) for h in env.game_state.empty_land]


# --- PettingZoo conformance ---------------------------------------------------------------
def test_registered_with_pettingzoo_make():
    env = pettingzoo.make("aec", envs.ENV_IDS["samurai"], num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.state_dict()["num_players"] == 3


def whole_games(make, seed: int, games: int) -> list:
    env = make()
    trace = aec_trace(env, seed)
    for episode in range(1, games):
        env.reset()
        trace.append(("reset", episode))
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            trace.append((agent, obs["observation"].tobytes(), reward, termination, repr(info)))
            mask = np.flatnonzero(obs["action_mask"]).tolist()
            env.step(None if termination or truncation else mask[(len(trace) * 7) % len(mask)])
    return trace


def test_one_seed_reproduces_twenty_whole_games_and_other_seeds_differ():
    """Seeding: reset(seed) fixes every pile and the figures; later resets without a seed carry on
    from the same generator, so one seed reproduces a whole run of 20 games."""
    make = lambda: samurai_v0.env(num_players=3)  # noqa: E731
    first = whole_games(make, 11, 20)
    assert first == whole_games(make, 11, 20)
    assert first != whole_games(make, 12, 20)


def test_seed_fixes_piles_and_figures_independently_of_the_actions():
    """Seeding: the draws never depend on the actions (piles and figures fixed at reset)."""
    env = samurai_v0.raw_env(num_players=2)
    env.reset(seed=3)
    start = env.state_dict()
    env.reset(seed=3)
    assert env.state_dict() == start
    assert env.state_dict()["hands"][0] + env.state_dict()["piles"][0] != start["hands"][1] + start["piles"][1]


# --- rewards and infos -----------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4])
def test_final_rewards_and_infos(n):
    """Rewards: +1 each winner, -1 each other (0 for all if all share); infos hold the captures, a 0/1
    winner flag per seat and whether this agent won."""
    env = samurai_v0.env(num_players=n)
    env.reset(seed=21)
    rewards, infos = {}, {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination:
            rewards[agent], infos[agent] = reward, info
        env.step(None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[-1]))
    state = env.unwrapped.game_state
    winners = state.winners()
    assert winners
    expected = [0.0] * n if len(winners) == n else [1.0 if p in winners else -1.0 for p in range(n)]
    assert [rewards[f"player_{p}"] for p in range(n)] == expected
    for p in range(n):
        info = infos[f"player_{p}"]
        assert info["winners"] == [int(q in winners) for q in range(n)] and info["won"] is (p in winners)
        assert info["captured"] == [[c[t] for t in FIGURE_TYPES] for c in env.unwrapped.state_dict()["captured"]]
        assert json.loads(json.dumps(info)) == info


def info_shape(value):
    """The structure of an info value: keys, list lengths and leaf types (what a batching library stacks)."""
    if isinstance(value, dict):
        return tuple((key, info_shape(item)) for key, item in sorted(value.items()))
    if isinstance(value, list):
        return tuple(info_shape(item) for item in value)
    return type(value).__name__


@pytest.mark.parametrize("n", [2, 3, 4])
def test_infos_are_fixed_shape_for_every_outcome(n):
    """Infos (issue 11.4): the same keys, lengths and types for one winner, a shared win and a win shared
    by all (Tianshou's buffers stack them): winners is a 0/1 flag per seat, won a bool for this agent."""
    state = SamuraiGame(n).new_state(np.random.default_rng(0))
    outcomes = {1: [[1, 0, 0]] + [[0, 0, 0]] * (n - 1), 2: [[1, 1, 0]] * 2 + [[0, 0, 0]] * (n - 2), n: [[0, 0, 0]] * n}
    shapes = set()
    for size, captured in outcomes.items():
        state.captured = [c[:] for c in captured]  # a finished game with these captures
        state.game_over()
        assert len(state.winners()) == size
        for p in range(n):
            info = state.final_info(p)
            assert info["winners"] == [int(q in state.winners()) for q in range(n)]
            assert info["won"] is (p in state.winners())
            shapes.add(info_shape(info))
    env = samurai_v0.env(num_players=n)
    for seed in range(3):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, termination, truncation, info = env.last()
            if termination:
                shapes.add(info_shape(info))
            env.step(None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(shapes) == 1, shapes


# --- state as data -------------------------------------------------------------------------------
def test_state_dict_has_exactly_the_documented_keys_and_round_trips_mid_turn():
    """State as data: exactly the listed keys, JSON-safe; load_state_dict restores a game mid-turn."""
    env = samurai_v0.raw_env(num_players=2)
    env.load_state_dict(
        position(
            figures={54: ["helmet"], 65: ["buddha"]},
            hands=[["figure_swap", "ronin", "helmet2", "helmet3", "ship1"], None],
        )
    )
    env.step(play("ronin"))
    env.step(at(57))
    env.step(play("figure_swap"))
    env.step(fig(54, "helmet"))
    data = env.state_dict()
    assert set(data) == KEYS == documented_keys(samurai_v0.__doc__)
    assert json.loads(json.dumps(data)) == data
    assert data["turn"]["played"] == ["ronin"] and data["turn"]["tile"] == "figure_swap"
    assert data["turn"]["first_figure"] == {"settlement": 54, "type": "helmet"}
    other = samurai_v0.raw_env(num_players=2)
    other.load_state_dict(json.loads(json.dumps(data)))
    assert other.state_dict() == data
    for agent in ("player_0", "player_1"):
        for key in ("observation", "action_mask"):
            assert np.array_equal(other.observe(agent)[key], env.observe(agent)[key])
    other.step(fig(65, "buddha"))
    assert other.state_dict()["figures"]["65"] == ["helmet"]


def test_load_state_dict_restores_a_finished_game():
    data = conftest.assert_reloads_finished(samurai_v0, num_players=2)
    assert data["terminal"] and data["current_player"] is None and data["winners"]


def _with(d: dict, path: str, value) -> None:
    keys = path.split(".")
    for key in keys[:-1]:
        d = d[int(key)] if isinstance(d, list) else d[key]
    d[int(keys[-1]) if isinstance(d, list) else keys[-1]] = value


def _place_from_pile(d: dict, player: int, tiles: dict[str, str]) -> None:
    for h, name in tiles.items():
        d["piles"][player].remove(name)
        d["board"][h] = {"tile": name, "owner": player}


def _empty_settlement(d: dict, h: str) -> None:
    for t in d["figures"][h]:
        d["captured"][0][t] += 1
    d["figures"][h] = []


def _move_tile(d: dict, to: str) -> None:
    cell = d["board"].pop("57")
    d["board"][to] = cell


BROKEN = [
    (lambda d: d.pop("piles"), "missing"),
    (lambda d: d.update(extra=1), "unknown keys"),
    (lambda d: d.update(game="wapi"), "game"),
    (lambda d: d.update(num_players=3), "num_players"),
    (lambda d: _with(d, f"figures.{AKITA}", ["helmet", "helmet"]), "two figures of one type"),
    (lambda d: _with(d, "figures.54", ["ninja"]), "figure types"),
    (lambda d: _move_tile(d, "54"), "settlement"),
    (lambda d: _move_tile(d, "20"), "off the board"),
    (lambda d: _move_tile(d, "41"), "ships go only on sea"),
    (lambda d: _move_tile(d, "500"), "off the board"),
    (lambda d: _with(d, "board.57.owner", 5), "owner"),
    (lambda d: _with(d, "board.57.tile", "figure_swap"), "figure swap"),
    (lambda d: d["piles"][0].pop(), "not conserved"),
    (lambda d: d["hands"][1].append("ronin"), r"hands\[1\] must be a list of at most 5"),
    (lambda d: d["piles"][1].append("ronin"), "not conserved"),
    (lambda d: _with(d, "hands.0.0", "dragon"), r"hands\[0\]\[0\] must be a tile name"),
    (lambda d: _with(d, "captured.0.helmet", 99), r"captured\[0\].helmet must be an int in 0..7"),
    (lambda d: _with(d, "captured.0.helmet", 6), "not conserved"),
    (lambda d: _with(d, "set_aside.rice", -1), "set_aside.rice must be an int in 0..7"),
    (lambda d: _empty_settlement(d, "131"), "must still hold"),
    (
        lambda d: d["board"].update({"129": {"tile": "ship1", "owner": 1}, "130": {"tile": "ship2", "owner": 1}}),
        "ships go only on sea",
    ),
    (lambda d: _place_from_pile(d, 1, {"59": "rice4", "55": "rice3"}), "surrounded but figures still stand"),
    (lambda d: d.update(terminal=True, current_player=None), "terminal is true"),
    (lambda d: d.update(current_player=1), "current_player"),
    (lambda d: d.update(winners=[0]), "winners"),
    (lambda d: _with(d, "turn.phase", DRAFT), "phase"),
    (lambda d: _with(d, "turn.non_quick_used", True), "non_quick_used"),
    (lambda d: d["turn"].update(played=["helmet3"], non_quick_used=True), "not played"),
    (lambda d: _with(d, "turn.tile", "samurai3"), "cannot be played"),
    (lambda d: _with(d, "turn.swap_from", 57), "need turn.tile"),
    (lambda d: d["piles"][0].append(d["hands"][0].pop()), "must hold 5"),
]


@pytest.mark.parametrize("change,message", BROKEN)
def test_load_state_dict_refuses_broken_states(change, message):
    """Bad input: a state_dict that breaks the rules is refused with a clear error; nothing changes."""
    env = samurai_v0.raw_env(num_players=2)
    env.reset(seed=4)
    data = position(tiles={57: ("helmet2", A)}, hands=[["helmet3", "helmet4", "buddha2", "buddha3", "buddha4"], None])
    data["hands"][0][0], data["piles"][0][0] = data["piles"][0][0], data["hands"][0][0]  # keep sizes
    env.load_state_dict(json.loads(json.dumps(data)))  # the unbroken position is fine
    env.reset(seed=4)
    change(data)
    assert_refused(env, lambda: env.load_state_dict(data), message)


def test_load_state_dict_refuses_a_game_that_should_have_ended():
    """Bad input: a terminal flag that disagrees with the end conditions (4 figures set aside) is refused."""
    tiles = {
        129: ("rice2", B),
        130: ("rice3", B),
        118: ("rice4", B),
        120: ("samurai1", B),
        86: ("samurai1", B),
        88: ("samurai2", B),
        55: ("helmet2", B),
        59: ("helmet3", B),
    }
    data = position(
        tiles=tiles, figures={131: [], 121: [], 89: [], 54: []}, set_aside={"helmet": 1, "buddha": 1, "rice": 1}
    )
    samurai_v0.raw_env().load_state_dict(json.loads(json.dumps(data)))  # 3 set aside, 1 captured: fine
    (kind,) = [t for t, c in data["captured"][0].items() if c]
    data["captured"][0][kind] -= 1
    data["set_aside"][kind] += 1
    with pytest.raises(ValueError, match="terminal is false but an end condition holds"):
        samurai_v0.raw_env().load_state_dict(data)


# --- bad arguments, options and actions ---------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"num_players": 2.0}, "num_players must be one of \\[2, 3, 4\\], got 2.0"),  # types are checked, not compared
        ({"num_players": np.int64(3)}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"choose_hand": 1}, "choose_hand must be True or False"),
        ({"choose_hand": "yes"}, "choose_hand"),
        ({"figure_setup": "fixed"}, "figure_setup must be one of \\['random', 'draft'\\]"),
        ({"reward": "score"}, "reward must be one of \\['win'\\]"),
        ({"render_mode": "svg"}, "render_mode"),
    ],
)
@pytest.mark.parametrize("make", [samurai_v0.env, samurai_v0.raw_env])
def test_bad_arguments_are_named(make, kwargs, message):
    with pytest.raises(ValueError, match=message):
        make(**kwargs)


NAMES = [TILE_NAMES[k] for k in PLAYER_TILES]


@pytest.mark.parametrize(
    "options,message",
    [
        ("piles", "options must be a dict"),
        ({"piles": [NAMES]}, "list of 2 lists"),
        ({"piles": [NAMES, NAMES[:-1]]}, "not a permutation"),
        ({"piles": [NAMES, ["dragon"] + NAMES[1:]]}, "unknown names"),
        ({"figures": [1, 2]}, "must be a dict"),
        ({"figures": {"20": ["helmet"]}}, "settlements on this board"),
        ({"figures": {"54": ["helmet"]}}, "missing"),
        ({"figures": {"82": ["helmet", "helmet", "rice"]}}, "two figures of one type"),
        ({"figures": {"54": ["monk"]}}, "figure types"),
        ({"figures": {"54": [["helmet"]]}}, "figure types"),
        ({"figures": {"²": ["helmet"]}}, "settlements on this board"),
        ({"figures": {np.int64(54): ["helmet"]}}, "settlements on this board"),
        ({"figures": {True: ["helmet"]}}, "settlements on this board"),
    ],
)
def test_bad_options_are_refused(options, message):
    """Bad input: bad reset options are refused with the option named; the game is untouched."""
    assert_reset_refused(samurai_v0.raw_env(num_players=2), options, message)


def test_bad_figure_options_capacity_supply_and_draft():
    """Options: injected figures must fill each settlement to capacity and use the supply exactly;
    they cannot be combined with the draft."""
    figures = position()["figures"]
    env = samurai_v0.raw_env(num_players=2)
    env.reset(options={"figures": figures})
    assert env.state_dict()["figures"] == figures
    with pytest.raises(ValueError, match="capacity"):
        env.reset(options={"figures": {**figures, str(AKITA): ["helmet"]}})
    swapped = {**figures, "54": ["rice" if figures["54"] != ["rice"] else "helmet"]}
    with pytest.raises(ValueError, match="the supply"):
        env.reset(options={"figures": swapped})
    with pytest.raises(ValueError, match="draft"):
        samurai_v0.raw_env(figure_setup="draft").reset(options={"figures": figures})
    with pytest.warns(UserWarning, match="not used"):
        env.reset(seed=1, options={"deck": 1})


def test_raw_env_rejects_bad_actions_without_changing_anything():
    """Bad input: an illegal, out-of-range or None action raises and leaves the state untouched."""
    env = samurai_v0.raw_env()
    env.load_state_dict(position(hands=[NON_QUICK_HAND, None]))
    cases = [(actions.END_TURN, IllegalActionError), (at(EDO), IllegalActionError)]
    cases += [(actions.NUM_ACTIONS, ValueError), (-1, ValueError), (None, ValueError)]
    assert_steps_refused(env, [(action, error, None) for action, error in cases])


def test_env_illegal_action_ends_the_game_with_minus_one_for_the_offender(caplog):
    """Under env(), as in PettingZoo classic: a logged warning, -1 for the offender, 0 for the others."""
    env = samurai_v0.env(num_players=3)
    env.reset(seed=0)
    env.step(actions.END_TURN)
    assert "Illegal move made" in caplog.text
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0, "player_2": 0}
    assert all(env.terminations.values())
    with pytest.raises(AssertionError, match="action space"):
        env.step(actions.NUM_ACTIONS)


# --- descriptions and rendering --------------------------------------------------------------------
def test_describe_action_in_each_sub_step():
    env = samurai_v0.raw_env(num_players=2, render_mode="ansi")
    env.load_state_dict(
        position(
            tiles={57: ("samurai2", A)},
            figures={54: ["helmet"], 65: ["buddha"]},
            hands=[["figure_swap", "tile_swap", "helmet3", "ship1", "ronin"], None],
        )
    )
    assert env.describe_action(play("helmet3")) == "play helmet 3"
    assert env.describe_action(actions.END_TURN) == "end the turn"
    assert env.describe_action(at(60)) == "place on hex 60 (land, Honshu)"
    env.step(play("helmet3"))
    assert env.describe_action(at(60)) == "place helmet 3 on hex 60 (land, Honshu)"
    env.step(at(60))
    env.step(play("figure_swap"))
    assert env.describe_action(fig(54, "helmet")) == "figure swap: pick helmet of settlement 54"
    env.step(fig(54, "helmet"))
    assert env.describe_action(fig(65, "buddha")) == "swap helmet of settlement 54 with buddha of settlement 65"
    env.step(fig(65, "buddha"))
    env.step(play("ship1"))
    assert env.describe_action(at(41)) == "place ship 1 on hex 41 (sea)"
    with pytest.raises(ValueError, match="action must be in 0..293"):
        env.describe_action(294)
    text = env.render()
    assert "A:S2" in text and "A:H3" in text and "[b]" in text and "[h]" in text
    assert "A (player_0)" in text and "played this turn: helmet 3, figure swap" in text


def test_render_text_shows_one_hand_by_perspective():
    """Hidden information: render_text(perspective=p) shows p's hand and nobody else's;
    None (the env's render, a hot-seat table) shows the hand of the player to act."""
    env = samurai_v0.raw_env(num_players=2)
    env.load_state_dict(
        position(
            hands=[
                ["helmet3", "helmet4", "ronin", "ship1", "tile_swap"],
                ["buddha4", "buddha3", "rice2", "ship2", "figure_swap"],
            ]
        )
    )
    state = env.game_state
    assert state.current_player == A
    mine, theirs = state.render_text(perspective=A), state.render_text(perspective=1)
    assert "to act: A (player_0); hand of A (player_0): " in mine and "helmet 3" in mine and "buddha 4" not in mine
    assert "to act: A (player_0); hand of B (player_1): " in theirs
    assert "buddha 4" in theirs and "helmet 3" not in theirs
    assert state.render_text() == mine  # (bad perspectives: tests/test_conformance.py)


def test_describe_tile_swap_and_draft_and_choose_hand():
    env = samurai_v0.raw_env(num_players=2)
    env.load_state_dict(
        position(tiles={57: ("samurai2", A)}, hands=[["tile_swap", "helmet3", "helmet4", "ship1", "ronin"], None])
    )
    env.step(play("tile_swap"))
    assert env.describe_action(at(57)) == "tile swap: pick up own samurai 2 from hex 57 (land, Honshu)"
    env.step(at(57))
    assert env.describe_action(at(60)) == "tile swap: move samurai 2 from hex 57 to hex 60 (land, Honshu)"
    draft = samurai_v0.raw_env(choose_hand=True, figure_setup="draft")
    draft.reset(seed=0)
    assert draft.describe_action(play("ronin")) == "take ronin into the starting hand"
    for _ in range(10):
        draft.step(int(np.flatnonzero(draft.observe(draft.agent_selection)["action_mask"])[0]))
    assert fig(AKITA, "rice") in draft.game_state.legal_actions()
    assert draft.describe_action(fig(AKITA, "rice")) == "put a rice figure on settlement 56 (Akita, Honshu)"


@pytest.mark.parametrize("n", [2, 3, 4])
def test_render_modes(n, capsys):
    """Rendering: ansi text map, human prints it, rgb_array an H x W x 3 uint8 hex map."""
    env = samurai_v0.env(num_players=n, render_mode="rgb_array")
    env.reset(seed=n)
    for _ in range(30):
        obs, *_ = env.last()
        if env.terminations[env.agent_selection]:
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.shape[0] > 200
    assert len({tuple(px) for px in image.reshape(-1, 3)[::97]}) > 5, "sea, land, settlements, tiles"
    human = samurai_v0.raw_env(num_players=n, render_mode="human")
    human.load_state_dict(env.unwrapped.state_dict())
    assert human.render() is None and "Samurai" in capsys.readouterr().out
    ansi = samurai_v0.raw_env(num_players=n, render_mode="ansi")
    ansi.load_state_dict(env.unwrapped.state_dict())
    assert "~" in ansi.render() and f"{n} players" in ansi.render()


def test_engine_accepts_numpy_integer_actions_and_stays_json_safe():
    """Engine: actions taken from a numpy mask (np.int64) work and the state stays JSON-safe."""
    state = SamuraiGame(2).new_state(np.random.default_rng(3))
    for _ in range(25):
        state.apply(np.flatnonzero(state.legal_mask())[-1])
        data = state.to_dict()
        assert json.loads(json.dumps(data)) == data


def test_engine_game_from_player_count_only():
    """SamuraiGame(n) works with the player count alone (benchmarks, agents)."""
    for n in (2, 3, 4):
        state = SamuraiGame(n).new_state(np.random.default_rng(0))
        assert state.current_player == 0 and state.legal_actions()
