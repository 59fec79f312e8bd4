"""Wapi rules, one scenario per rule of ``docs/rules/wapi.md``: inject the draw
order, play the moves, assert the exact state and scores."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from envs.core import IllegalActionError
from envs.wapi import WapiGame
from envs.wapi.actions import DECLINE, NUM_ACTIONS, PLACE_TOTEM, coin_action
from envs.wapi.components import TILE_CODES

RNG = np.random.default_rng(0)


def bag(game: WapiGame, *first: str) -> list[str]:
    """A full draw order for ``game`` starting with ``first``, the rest in a fixed order."""
    rest = Counter(TILE_CODES[t] for t in game.tiles) - Counter(first)
    return list(first) + sorted(rest.elements())


def start(*first: str, num_players: int = 3, scoring: str = "full", coins=None):
    game = WapiGame(num_players, scoring, coins)
    return game.new_state(RNG, {"bag": bag(game, *first)})


def mines(state) -> list[tuple]:
    return [(d["silver"], d["masks"], d["totems"]) for d in state.to_dict()["mines"]]


def test_setup_player_0_starts_with_three_totems_each_and_72_tiles():
    """Setup: player_0 starts; 3 totem poles per player; 24 masks + 48 coins (default 0x8 1x12 2x12 3x8 5x8)."""
    game = WapiGame(4)
    assert Counter(TILE_CODES[t] for t in game.tiles) == {
        "S0": 8,
        "S1": 12,
        "S2": 12,
        "S3": 8,
        "S5": 8,
        **{f"M{k}": 4 for k in range(6)},
    }
    state = game.new_state(RNG)
    assert state.current_player == 0 and state.totems_left == [3, 3, 3, 3]
    assert len(state.bag) == 71 and state.drawn is not None


def test_turn_draws_the_top_tile_and_play_goes_clockwise():
    """Turn: the current player draws the top tile of the bag; then the turn passes clockwise."""
    state = start("S2", "S3", "S5", "S0")
    order = []
    for _ in range(4):
        order.append((state.current_player, TILE_CODES[state.drawn]))
        state.apply(coin_action(1))
    assert order == [(0, "S2"), (1, "S3"), (2, "S5"), (0, "S0")]
    assert mines(state)[1] == ([2, 3, 5, 0], 0, [])


def test_silver_goes_to_any_free_mine_when_no_mine_has_a_totem():
    """Silver coin: with no totem anywhere (the very start), any mine with a free silver field may be chosen."""
    state = start("S3")
    assert state.legal_actions() == [coin_action(k) for k in range(6)]
    state.apply(coin_action(4))
    assert mines(state)[4] == ([3], 0, [])


def test_silver_is_forced_into_a_mine_with_a_totem():
    """Silver coin: if possible, it must go to a mine that holds at least one totem pole (any player's)."""
    state = start("M2", "S5", "S1")
    state.apply(PLACE_TOTEM)  # player 0 poles mine 2
    assert state.legal_actions() == [coin_action(2)], "player 1 must feed player 0's mine"
    with pytest.raises(IllegalActionError):
        state.apply(coin_action(0))
    state.apply(coin_action(2))
    assert mines(state)[2] == ([5], 1, [0])


def test_silver_goes_anywhere_free_when_every_totem_mine_is_full():
    """Silver coin: if no mine with a totem has a free silver field, any mine with a free field may be chosen."""
    state = start("M0", "S1", "S1", "S1", "S1", "S1", "S2")
    state.apply(PLACE_TOTEM)
    for _ in range(5):
        assert state.legal_actions() == [coin_action(0)]
        state.apply(coin_action(0))
    assert state.legal_actions() == [coin_action(k) for k in range(1, 6)]
    state.apply(coin_action(3))
    assert mines(state)[0] == ([1, 1, 1, 1, 1], 1, [0]) and mines(state)[3] == ([2], 0, [])


def test_mask_goes_on_its_own_mine_and_the_totem_is_a_decision():
    """Mask: placed on a free mask field of the mine with that symbol (no choice); then the player may place
    one totem."""
    state = start("M4", "M4")
    assert state.legal_actions() == [PLACE_TOTEM, DECLINE], "every draw is a decision"
    state.apply(DECLINE)
    assert mines(state)[4] == ([], 1, []) and state.totems_left == [3, 3, 3]
    state.apply(PLACE_TOTEM)
    assert mines(state)[4] == ([], 2, [1]) and state.totems_left == [3, 2, 3]


def test_totem_is_now_or_never_and_never_moves():
    """The choice is now or never: a declined mask cannot take a totem later; totems never move."""
    state = start("M1", "S2", "S3", "M1")
    state.apply(DECLINE)
    state.apply(coin_action(0))
    state.apply(coin_action(0))
    # player 0's next turn offers a totem only on the mask just drawn (mine 1 again), never the old one
    assert state.current_player == 0 and TILE_CODES[state.drawn] == "M1"
    state.apply(PLACE_TOTEM)
    assert mines(state)[1] == ([], 2, [0])


def test_no_totem_left_means_only_decline():
    """Totem: placed only 'if they have one left'; a player without poles gets a single legal action."""
    state = start("M0", "S0", "M1", "S0", "M2", "S0", "M3", num_players=2)
    for _ in range(3):
        state.apply(PLACE_TOTEM)  # player 0
        state.apply(state.legal_actions()[0])  # player 1 places a coin
    assert state.totems_left == [0, 3]
    assert state.legal_actions() == [DECLINE]
    assert np.flatnonzero(state.legal_mask()).tolist() == [DECLINE]


def test_totem_may_go_on_a_mine_whose_silver_is_full():
    """A totem may be placed even in a mine whose silver fields are already full (its value is then final)."""
    state = start("S5", "S5", "S5", "S5", "S5", "M0")
    for _ in range(5):
        state.apply(coin_action(0))
    assert state.legal_actions() == [PLACE_TOTEM, DECLINE]
    state.apply(PLACE_TOTEM)
    assert mines(state)[0] == ([5] * 5, 1, [2]) and state.scores() == [0, 0, 25]


def test_game_ends_immediately_at_the_thirtieth_silver_coin():
    """Decision: the game ends immediately when the 30th silver field is filled; tiles left in the bag are unused."""
    game = WapiGame(3, coins={1: 30, 5: 2})
    state = game.new_state(RNG, {"bag": bag(game, *["S1"] * 30)})
    for i in range(30):
        assert state.current_player == i % 3
        state.apply(state.legal_actions()[0])
    assert state.current_player is None and state.is_terminal() and state.drawn is None
    assert len(state.bag) == 26 and state.legal_actions() == []
    assert sum(len(d["silver"]) for d in state.to_dict()["mines"]) == 30


def test_full_scoring_finnish_example_two_poles_in_a_mine_worth_4():
    """Scoring 'full': each pole scores its mine's total; two poles of one player in a mine worth 4 score 2 x 4 = 8."""
    state = start("M3", "S0", "M3", "S1", "S3", num_players=2)
    state.apply(PLACE_TOTEM)  # p0 pole 1
    state.apply(coin_action(3))  # p1: 0 into mine 3 (forced)
    state.apply(PLACE_TOTEM)  # p0 pole 2
    state.apply(coin_action(3))  # p1: 1
    state.apply(coin_action(3))  # p0: 3 -> mine 3 worth 4
    assert mines(state)[3] == ([0, 1, 3], 2, [0, 0])
    assert state.scores() == [8.0, 0.0]


def test_shared_scoring_finnish_example_mine_worth_9_split_three_ways():
    """Scoring 'shared': a mine worth 9 with one pole of A and two of B: 9/3 = 3 per pole -> 3 and 6 points."""
    state = start("M0", "M0", "M0", "S5", "S3", "S1", num_players=2, scoring="shared")
    state.apply(PLACE_TOTEM)  # p0
    state.apply(PLACE_TOTEM)  # p1
    state.apply(PLACE_TOTEM)  # p0 again
    for _ in range(3):
        state.apply(coin_action(0))
    assert mines(state)[0] == ([5, 3, 1], 3, [0, 1, 0])
    assert state.scores() == [6.0, 3.0]


def test_shared_scores_stay_exact_fractions():
    """Scores may be fractional: kept exact inside (Fraction), floats outside."""
    from fractions import Fraction

    state = start("M0", "M0", "M0", "S1", num_players=3, scoring="shared")
    for _ in range(3):
        state.apply(PLACE_TOTEM)
    state.apply(coin_action(0))
    assert state.exact_scores() == [Fraction(1, 3)] * 3
    assert sum(state.exact_scores()) == 1
    assert state.scores() == [1 / 3] * 3


def test_unused_totems_score_nothing_and_ties_are_shared_wins():
    """Unused totems score nothing; the players with the most points win, ties are shared wins."""
    game = WapiGame(3, coins={2: 30})
    state = game.new_state(RNG, {"bag": bag(game, "M0", "M1", *["S2"] * 30)})
    state.apply(PLACE_TOTEM)  # p0 on mine 0
    state.apply(PLACE_TOTEM)  # p1 on mine 1
    while state.current_player is not None:  # coins forced into mines 0 and 1, then the rest
        state.apply(state.legal_actions()[0])
    assert state.totems_left == [2, 2, 3]
    assert state.scores() == [10.0, 10.0, 0.0] and state.winners() == [0, 1]
    assert state.rewards("win") == [1.0, 1.0, -1.0]
    assert state.rewards("score") == [5.0, 5.0, -10.0]


def test_everyone_tied_gets_zero_reward():
    """reward='win': all 0 if every player ties."""
    game = WapiGame(2, coins={1: 30})
    state = game.new_state(RNG, {"bag": bag(game, *["S1"] * 30)})
    while state.current_player is not None:
        state.apply(state.legal_actions()[0])
    assert state.scores() == [0.0, 0.0] and state.winners() == [0, 1]
    assert state.rewards("win") == [0.0, 0.0] and state.rewards("score") == [0.0, 0.0]


def test_illegal_actions_never_change_the_state():
    """An illegal action raises and leaves the state exactly as it was."""
    state = start("M2", "S1")
    before = state.to_dict()
    for action in (coin_action(0), coin_action(5), NUM_ACTIONS, 99, -1):
        with pytest.raises(IllegalActionError):
            state.apply(action)
        assert state.to_dict() == before
