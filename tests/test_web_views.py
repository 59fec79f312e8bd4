"""The page's view of a game holds only what the human player may see (``web.views``).

Checked the way the env's no-leak tests are: positions of seeded random games are written
out with ``to_dict()``, what the viewer cannot see is re-dealt consistently with what they
can (the bag's order; other hands and every pile's order; face-down and boxed villages),
and fresh states loaded from both must give that viewer identical views. The words of
other players' moves in the log must not tell more than the position after the move. Each
check is shown to catch a planted leak.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

import envs
from envs.games import make_game
from tests.test_samurai_observer import hidden_twin as samurai_twin
from web.views import move_text, public_view, view_module


def configurations(name: str) -> list[dict]:
    """The game's defaults, then each option's other choices one at a time (from its description)."""
    description = envs.describe(name)
    configs = [{}]
    for option in description.options:
        configs += [{option.name: choice} for choice in option.choices or () if choice != option.default]
    return configs


CASES = [(name, config) for name in envs.GAMES for config in configurations(name)]


def redeal_wapi(game, data: dict, seat: int, rng: random.Random) -> dict:
    """The bag's order is hidden from everyone."""
    out = copy.deepcopy(data)
    rng.shuffle(out["bag"])
    return out


def redeal_wakanda(game, data: dict, seat: int, rng: random.Random) -> dict:
    """The bag's order; under the advanced rule, which kinds lie face down and which are boxed."""
    out = copy.deepcopy(data)
    rng.shuffle(out["bag"])
    hidden = [v for v in out["villages"] if not v["face_up"]]
    kinds = [v["kind"] for v in hidden] + out["removed_villages"]
    rng.shuffle(kinds)
    for village, kind in zip(hidden, kinds):
        village["kind"] = kind
    out["removed_villages"] = kinds[len(hidden) :]
    return out


#: Per game, a re-deal of what ``seat`` cannot see, written on ``state_dict`` data.
REDEALS = {
    "wapi": redeal_wapi,
    "wakanda": redeal_wakanda,
    "samurai": lambda g, d, s, r: samurai_twin(g, d, s, r).to_dict(),
}


def fresh_view(game, data: dict, seat: int) -> dict:
    return public_view(game.state_from_dict(data), seat)


def check_views(name: str, config: dict, seeds: range, every: int = 5, redeals: int = 2) -> int:
    """Views of fresh states that differ only in what ``seat`` cannot see are identical, for
    every seat; returns how many re-deals really changed the position."""
    game = make_game(name, **config)
    rng, changed = random.Random(0), 0
    for seed in seeds:
        state = game.new_state(np.random.default_rng(seed))
        choose, step = random.Random(seed).choice, 0
        while state.current_player is not None:
            if step % every == 0:
                data = state.to_dict()
                for seat in range(game.num_players):
                    expected = fresh_view(game, data, seat)
                    for _ in range(redeals):
                        other = REDEALS[name](game, data, seat, rng)
                        changed += other != data
                        assert fresh_view(game, other, seat) == expected, f"{name} {config}: seed {seed} step {step}"
            state.apply(choose(state.legal_actions()))
            step += 1
    return changed


def check_move_texts(name: str, config: dict, seeds: range, every: int = 4) -> None:
    """The log's words for another player's move tell no more than the position after it:
    moves that leave the viewer seeing the same position read the same, and a move reads
    the same in every re-deal of what the viewer cannot see."""
    game = make_game(name, **config)
    rng = random.Random(1)
    for seed in seeds:
        state = game.new_state(np.random.default_rng(seed))
        choose, step = random.Random(seed).choice, 0
        while state.current_player is not None:
            player = state.current_player
            if step % every == 0:
                data = state.to_dict()
                for seat in (p for p in range(game.num_players) if p != player):
                    words: dict[str, str] = {}
                    for action in state.legal_actions():
                        after = game.state_from_dict(data)
                        text = move_text(after, player, action, seat)
                        after.apply(action)
                        seen = repr(public_view(after, seat))
                        assert words.setdefault(seen, text) == text, (
                            f"{name} {config}: {text!r} tells more than the board"
                        )
                    twin = game.state_from_dict(REDEALS[name](game, data, seat, rng))
                    for action in set(state.legal_actions()) & set(twin.legal_actions()):
                        assert move_text(twin, player, action, seat) == move_text(state, player, action, seat)
            state.apply(choose(state.legal_actions()))
            step += 1


def test_every_game_has_a_view_module_and_a_redeal():
    """Adding a game means writing its view module; this test names the one missing."""
    for name in envs.GAMES:
        module = view_module(name)
        assert callable(module.static) and callable(module.board) and callable(module.move_text)
        assert name in REDEALS
    with pytest.raises(ValueError, match="unknown game"):
        view_module("chess")


@pytest.mark.parametrize("name,config", CASES)
def test_views_ignore_what_the_player_cannot_see(name, config):
    """Information: fresh states re-dealt in what a seat cannot see give that seat identical views."""
    seeds = range(3) if name == "samurai" else range(6)
    assert check_views(name, config, seeds) > 10, "the re-deals must really change the hidden information"


@pytest.mark.parametrize("name,config", CASES)
def test_move_texts_tell_no_more_than_the_board(name, config):
    check_move_texts(name, config, range(2) if name == "samurai" else range(3))


LEAKS = {
    "wapi": ({}, lambda state, seat: {"next_tile": state.bag[0] if state.bag else None}),
    "wakanda": ({"advanced": True}, lambda state, seat: {"kinds": list(state.villages)}),
    "samurai": ({}, lambda state, seat: {"hands": [sorted(hand) for hand in state.hands]}),
}


@pytest.mark.parametrize("name", envs.GAMES)
def test_the_view_check_catches_a_planted_leak(name, monkeypatch):
    """The check is real: a view module that also shows a hidden fact fails it."""
    config, leak = LEAKS[name]
    module = view_module(name)
    honest = module.board
    monkeypatch.setattr(module, "board", lambda state, seat: {**honest(state, seat), **leak(state, seat)})
    with pytest.raises(AssertionError, match=f"{name} .* seed"):
        check_views(name, config, range(2))


def test_the_log_check_catches_a_planted_leak(monkeypatch):
    """Naming another player's choice of a starting tile (Samurai, choose_hand) fails the log check."""
    module = view_module("samurai")
    monkeypatch.setattr(module, "move_text", lambda state, player, action, seat: state.describe_action(action))
    with pytest.raises(AssertionError, match="tells more than the board"):
        check_move_texts("samurai", {"choose_hand": True}, range(1))


@pytest.mark.parametrize("name", envs.GAMES)
def test_view_shape(name):
    """Legal moves in words only on the human's turn; the result once the game is over."""
    game = make_game(name)
    state = game.new_state(np.random.default_rng(3))
    choose = random.Random(3).choice
    while True:
        for seat in range(game.num_players):
            view = public_view(state, seat)
            assert view["done"] == (state.current_player is None)
            if state.current_player == seat:
                assert [m["action"] for m in view["legal"]] == state.legal_actions()
                assert all(m["text"] == state.describe_action(m["action"]) for m in view["legal"])
            else:
                assert view["legal"] == []
        if state.current_player is None:
            break
        state.apply(choose(state.legal_actions()))
    assert view["scores"] == state.scores() and view["winners"] == state.winners()
