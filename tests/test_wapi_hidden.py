"""Wapi's hidden information: the bag's order, hidden from every player (``docs/rules/wapi.md``,
"Information"). Each check compares a position with its *hidden twin*, the same position
with the bag re-dealt, built fresh through ``state_from_dict`` (no cache, no list shared),
and observed by fresh observers; the last tests plant leaks and show the checks catch them.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from envs.wapi import WapiGame, WapiState
from envs.wapi.observation import WapiObserver

CONFIGS = [(2, "full"), (3, "shared"), (4, "full"), (5, "shared")]


def hidden_twin(state: WapiState, rnd: random.Random) -> WapiState:
    """``state`` with the bag's order re-dealt, rebuilt from data: it shares nothing with ``state``."""
    data = json.loads(json.dumps(state.to_dict()))
    rnd.shuffle(data["bag"])
    return state.game.state_from_dict(data)


def positions(game: WapiGame, seed: int, observer_class=WapiObserver):
    """The positions of one random game, each with an observer that followed the game to it."""
    state = game.new_state(np.random.default_rng(seed))
    observer = observer_class(game)
    observer.follow(state)
    rnd = random.Random(seed)
    while True:
        yield state, observer
        if state.is_terminal():
            return
        action = rnd.choice(state.legal_actions())
        state.apply(action)
        observer.applied(state, action)


def check_no_leak(game: WapiGame, seeds: range, observer_class=WapiObserver) -> int:
    """Every seat gets the same observation, mask and determinizations in a position and in its
    hidden twins; the real side is observed by ``observer_class`` following the game, the twin
    by a fresh one. Returns how many twins really differed from the real position (the check
    has teeth only where they do)."""
    differing = 0
    for seed in seeds:
        rnd = random.Random(seed)
        for state, observer in positions(game, seed, observer_class):
            twin = hidden_twin(state, rnd)
            differing += twin.bag != state.bag
            fresh = observer_class(game)
            for player in range(game.num_players):
                assert np.array_equal(observer.observe(state, player), fresh.observe(twin, player)), (seed, player)
                ours = state.determinize(player, np.random.default_rng(seed)).to_dict()
                assert ours == twin.determinize(player, np.random.default_rng(seed)).to_dict(), (seed, player)
            assert np.array_equal(state.legal_mask(), twin.legal_mask())
            assert state.legal_actions() == twin.legal_actions()
    return differing


@pytest.mark.parametrize("num_players,scoring", CONFIGS)
def test_observations_masks_and_determinizations_never_depend_on_the_bag_order(num_players, scoring):
    """Information: the bag's remaining contents are public, its order hidden from every player."""
    game = WapiGame(num_players, scoring)
    assert check_no_leak(game, range(4)) > 120, "most twins really differ from the real position"


def test_the_bags_contents_and_the_drawn_tile_are_public():
    """Information: the drawn tile and the bag's contents are public: swapping the tile in hand
    with a different one from the bag changes every seat's observation (the twins above differ
    only in what nobody sees, and this shows the observation is not blind to the rest)."""
    game = WapiGame(3)
    state = game.new_state(np.random.default_rng(3))
    data = json.loads(json.dumps(state.to_dict()))
    i = next(i for i, code in enumerate(data["bag"]) if code != data["drawn"])
    data["bag"][i], data["drawn"] = data["drawn"], data["bag"][i]
    other = game.state_from_dict(data)
    for player in range(3):
        assert not np.array_equal(WapiObserver(game).observe(other, player), WapiObserver(game).observe(state, player))


class PeekingObserver(WapiObserver):
    """A planted leak: the next tile of the bag shows in the first entry."""

    def observe(self, state, player):
        observation = super().observe(state, player)
        if state.bag:
            observation[0] = state.bag[0] / 10
        return observation


def test_the_no_leak_check_catches_a_peeking_observer():
    with pytest.raises(AssertionError):
        check_no_leak(WapiGame(3), range(2), PeekingObserver)


def test_the_no_leak_check_catches_a_determinization_that_keeps_the_true_order(monkeypatch):
    monkeypatch.setattr(WapiState, "determinize", lambda self, player, rng: self.clone())
    with pytest.raises(AssertionError):
        check_no_leak(WapiGame(3), range(2))
