"""What each Wakanda player may see, checked on independent objects.

Information (``docs/rules/wakanda.md``): the bag's order is hidden from both
players, and in the advanced game so is which kinds lie face down and which
two are in the box. The checks here never copy a cache: every twin is a
fresh state built by ``state_from_dict`` from a re-dealt dict and observed by
a fresh observer, and each check is shown to fail on a planted leak.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs.wakanda import WakandaGame, WakandaState
from envs.wakanda import observation as layout
from envs.wakanda.actions import NUM_ACTIONS
from envs.wakanda.components import NUM_SLOTS, VILLAGES
from envs.wakanda.observation import WakandaObserver

SEEDS = range(120)


def followed_positions(game: WakandaGame, seed: int, observer_class=WakandaObserver):
    """A seeded random game, followed move by move by one observer: yields (state, observer) before
    each move and at the end, the observer told of every move."""
    state = game.new_state(np.random.default_rng(seed))
    observer = observer_class(game)
    observer.follow(state)
    choose = random.Random(seed).choice
    while True:
        yield state, observer
        if state.is_terminal():
            return
        action = choose(state.legal_actions())
        state.apply(action)
        observer.applied(state, action)


def hidden_twins(data: dict, advanced: bool, rnd: random.Random) -> list[dict]:
    """state_dicts that differ from ``data`` only in what no player sees: the bag's order (a
    reshuffle) and, in the advanced game, the face-down and boxed kinds (every rotation of them)."""
    twins = []
    if len(set(data["bag"])) > 1:
        twin = {**data, "bag": data["bag"][:]}
        while twin["bag"] == data["bag"]:
            rnd.shuffle(twin["bag"])
        twins.append(twin)
    if advanced:
        down = [v for v in range(NUM_SLOTS) if not data["villages"][v]["face_up"]]
        hidden = [data["villages"][v]["kind"] for v in down] + data["removed_villages"]
        for shift in range(1, len(hidden)):
            kinds = hidden[shift:] + hidden[:shift]
            villages = [dict(village) for village in data["villages"]]
            for slot, kind in zip(down, kinds):
                villages[slot]["kind"] = kind
            twins.append({**data, "villages": villages, "removed_villages": kinds[len(down) :]})
    return twins


def check_no_leak(advanced: bool, observer_class=WakandaObserver, seeds=SEEDS) -> int:
    """Every position of seeded random games against its hidden twins, for both players: the same
    observation (the game's followed observer against a fresh one on the fresh twin), the same
    mask and legal actions, the same action descriptions and text picture. Returns the number of
    twins compared."""
    game = WakandaGame(advanced)
    rnd, compared = random.Random(0), 0
    for seed in seeds:
        for state, observer in followed_positions(game, seed, observer_class):
            data = state.to_dict()
            for twin_data in hidden_twins(data, advanced, rnd):
                twin = game.state_from_dict(twin_data)
                assert twin.to_dict() != data, "the twins really differ"
                fresh = observer_class(game)
                for player in (0, 1):
                    assert np.array_equal(fresh.observe(twin, player), observer.observe(state, player)), (
                        f"seed {seed}: player {player}'s observation depends on hidden facts"
                    )
                assert np.array_equal(twin.legal_mask(), state.legal_mask()), f"seed {seed}: the mask leaks"
                assert twin.legal_actions() == state.legal_actions()
                assert [twin.describe_action(a) for a in range(NUM_ACTIONS)] == [
                    state.describe_action(a) for a in range(NUM_ACTIONS)
                ]
                assert twin.render_text() == state.render_text()
                compared += 1
    return compared


@pytest.mark.parametrize("advanced", [False, True])
def test_nothing_a_player_may_call_depends_on_the_bag_order_or_face_down_villages(advanced):
    """Information: the bag's remaining contents are public but not its order; in the advanced
    game the identity of the face-down and boxed villages is hidden from both players."""
    assert check_no_leak(advanced) > (5000 if advanced else 1500)


class PeekAtTheNextDraw(WakandaObserver):
    """A planted leak: the size-of-the-bag entry tells the next piece drawn."""

    def observe(self, state, player):
        vector = super().observe(state, player)
        if state.bag:
            vector[layout.BAG_SIZE] = state.bag[0] / 10
        return vector


class PeekAtAFaceDownVillage(WakandaObserver):
    """A planted leak: the last village's kind is shown even while it lies face down."""

    def observe(self, state, player):
        vector = super().observe(state, player)
        vector[layout.SLOTS + (NUM_SLOTS - 1) * layout.SLOT_BLOCK + state.villages[-1]] = 1.0
        return vector


@pytest.mark.parametrize(
    "advanced,leaky", [(False, PeekAtTheNextDraw), (True, PeekAtTheNextDraw), (True, PeekAtAFaceDownVillage)]
)
def test_the_no_leak_check_catches_a_planted_observation_leak(advanced, leaky):
    with pytest.raises(AssertionError, match="observation depends on hidden facts"):
        check_no_leak(advanced, leaky, seeds=range(3))


def test_the_no_leak_check_catches_a_planted_mask_leak(monkeypatch):
    """A mask that offers one more action when the next draw is a sun is caught too."""
    honest = WakandaState.legal_mask

    def leaky(state):
        mask = honest(state).copy()
        mask[0] |= bool(state.bag) and VILLAGES[state.bag[0]] == "sun"
        return mask

    monkeypatch.setattr(WakandaState, "legal_mask", leaky)
    with pytest.raises(AssertionError, match="the mask leaks"):
        check_no_leak(False, seeds=range(5))


# --- the observer's incremental scheme ------------------------------------------------------
def check_incremental(advanced: bool, observer_class=WakandaObserver, seeds=SEEDS) -> None:
    """Move by move, for both seats: the followed observer's view equals a fresh observer's on the
    same state, and on a fresh state loaded from its state_dict (every 10th game)."""
    game = WakandaGame(advanced)
    for seed in seeds:
        for state, observer in followed_positions(game, seed, observer_class):
            loaded = game.state_from_dict(state.to_dict()) if seed % 10 == 0 else state
            for player in (0, 1):
                expected = WakandaObserver(game).observe(loaded, player)
                assert np.array_equal(observer.observe(state, player), expected), (
                    f"seed {seed}: the followed view of player {player} went stale"
                )


@pytest.mark.parametrize("advanced", [False, True])
def test_the_followed_observation_equals_one_encoded_from_scratch(advanced):
    check_incremental(advanced)


class ForgetsFinishes(WakandaObserver):
    """A planted bug: the view is not brought up to date after a finish."""

    def _claimed(self, state, slot):
        pass


def test_the_incremental_check_catches_a_stale_view():
    with pytest.raises(AssertionError, match="went stale"):
        check_incremental(False, ForgetsFinishes, seeds=range(2))


def test_an_observer_encodes_states_it_does_not_follow_from_scratch():
    """Observer protocol: ``observe`` on another state (a clone that moved on) ignores the cache."""
    game = WakandaGame(advanced=True)
    state = game.new_state(np.random.default_rng(3))
    observer = game.observer()
    observer.follow(state)
    other = state.clone()
    other.apply(other.legal_actions()[-1])
    assert np.array_equal(observer.observe(other, 1), game.observer().observe(other, 1))
    assert not np.array_equal(observer.observe(other, 0), observer.observe(state, 0))
    with pytest.raises(ValueError, match="player must be a seat in 0..1"):
        observer.observe(state, 2)
    for bad in (True, 1.0, np.int64(0)):
        with pytest.raises(ValueError, match="player"):
            observer.observe(state, bad)
