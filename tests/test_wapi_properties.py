"""Property tests over thousands of seeded random Wapi games (every player count, both modes)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from envs.core import IllegalActionError
from envs.wapi import WapiGame
from envs.wapi.components import TILE_CODES
from tests.conftest import play_random

CONFIGS = list(itertools.product((2, 3, 4, 5), ("full", "shared")))


def scores_from_dict(data) -> list[Fraction]:
    """Scores recomputed from state_dict() alone, straight from the rules."""
    scores = [Fraction(0)] * data["num_players"]
    for mine in data["mines"]:
        value, poles = sum(mine["silver"]), mine["totems"]
        for player in poles:
            scores[player] += value if data["scoring"] == "full" else Fraction(value, len(poles))
    return scores


@pytest.mark.parametrize("num_players,scoring", CONFIGS)
def test_random_games_keep_every_invariant(num_players, scoring):
    """2,000 games in all (250 per configuration): termination, 30 coins, conservation, scores."""
    game = WapiGame(num_players, scoring)
    all_tiles = Counter(TILE_CODES[t] for t in game.tiles)
    for seed in range(250):
        state = game.new_state(np.random.default_rng(seed))
        moves = 0
        for state in play_random(state, seed, check_mask=seed < 25):  # noqa: B007, B020 - the state after each move
            moves += 1
            assert moves <= len(game.tiles), "terminates within one turn per tile"
        data = state.to_dict()
        assert data["terminal"] and data["current_player"] is None
        assert sum(len(m["silver"]) for m in data["mines"]) == 30
        placed = Counter(f"S{v}" for m in data["mines"] for v in m["silver"])
        placed += Counter(f"M{k}" for k, m in enumerate(data["mines"]) for _ in range(m["masks"]))
        assert placed + Counter(data["bag"]) == all_tiles, "tiles conserved"
        assert [float(s) for s in scores_from_dict(data)] == data["scores"]
        best = max(scores_from_dict(data))
        assert state.winners() == [p for p, s in enumerate(scores_from_dict(data)) if s == best]
        for player, poles_left in enumerate(data["totems_left"]):
            assert poles_left + sum(m["totems"].count(player) for m in data["mines"]) == 3


@pytest.mark.parametrize("num_players,scoring", CONFIGS[::3])
def test_mask_offers_exactly_the_legal_actions(num_players, scoring):
    """Every action the mask offers applies; every other one raises and changes nothing."""
    game = WapiGame(num_players, scoring)
    for seed in range(15):
        for state in play_random(game.new_state(np.random.default_rng(seed)), seed):
            if state.current_player is None:
                break
            mask = state.legal_mask()
            before = state.to_dict()
            for action in range(game.num_actions):
                trial = state.clone()
                if mask[action]:
                    trial.apply(action)
                else:
                    with pytest.raises(IllegalActionError):
                        trial.apply(action)
                    assert trial.to_dict() == before
            assert state.to_dict() == before, "clones are independent"


def test_round_trip_mid_game_gives_identical_observations():
    game = WapiGame(4, "shared")
    for seed in range(30):
        for state in play_random(game.new_state(np.random.default_rng(seed)), seed):
            if seed % 7 == 0 or state.current_player is None:
                copy = game.state_from_dict(state.to_dict())
                for player in range(4):
                    assert np.array_equal(copy.observation(player), state.observation(player))
                assert copy.legal_actions() == state.legal_actions()


def test_observations_stay_in_bounds():
    game = WapiGame(5, "full")
    for seed in range(20):
        for state in play_random(game.new_state(np.random.default_rng(seed)), seed):
            for player in range(5):
                obs = state.observation(player)
                assert obs.dtype == np.float32 and obs.shape == (92,)
                assert obs.min() >= 0 and obs.max() <= 1


@pytest.mark.parametrize("num_players,scoring", CONFIGS[::2] + [(3, "shared")])
def test_a_following_observer_sees_what_a_fresh_observer_sees(num_players, scoring):
    """The observer told of every move (and lazy: the first look comes at once or after ten moves,
    then one to four moves pass between two looks) gives every seat the observation a fresh
    observer gives on a fresh copy of the position."""
    game = WapiGame(num_players, scoring)
    for seed in range(20):
        state = game.new_state(np.random.default_rng(seed))
        observer = game.observer()
        observer.follow(state)
        rnd, every, first = random.Random(seed), 1 + seed % 4, 10 * (seed % 2)
        for step in itertools.count():
            if step >= first and (step - first) % every == 0 or state.is_terminal():
                fresh = game.state_from_dict(state.to_dict())
                for player in range(num_players):
                    assert np.array_equal(observer.observe(state, player), game.observer().observe(fresh, player))
            if state.is_terminal():
                break
            action = rnd.choice(state.legal_actions())
            state.apply(action)
            observer.applied(state, action)


def test_an_observer_encodes_a_state_it_does_not_follow_from_scratch():
    """A clone that went its own way is not the followed state: its observation is its own."""
    game = WapiGame(3)
    state = game.new_state(np.random.default_rng(8))
    observer = game.observer()
    observer.follow(state)
    observer.observe(state, 0)
    other = state.clone()
    for _ in range(5):
        other.apply(other.legal_actions()[0])
    assert np.array_equal(observer.observe(other, 1), game.observer().observe(other, 1))
    assert not np.array_equal(observer.observe(other, 1), observer.observe(state, 1))


@pytest.mark.parametrize("player", [-1, 3, True, 1.0, np.int64(0), "0", None])
def test_observing_a_seat_that_is_not_in_the_game_is_refused(player):
    game = WapiGame(3)
    state = game.new_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="player must be a seat in 0..2"):
        game.observer().observe(state, player)
