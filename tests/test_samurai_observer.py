"""The Samurai observer over many seeded random games: the incremental observation of a
followed game equals a fresh observer's, move by move and seat by seat; nothing hidden
(other hands, any pile's order) reaches an observation or the mask, checked against
hidden twins built fresh from re-dealt data; and the no-leak check catches planted leaks."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from envs.samurai import SamuraiGame
from envs.samurai.observation import HAND, TURN, SamuraiObserver

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 3, "choose_hand": True, "figure_setup": "draft"},
    {"num_players": 4, "figure_setup": "draft"},
]


# --- incremental = from scratch ----------------------------------------------------------------
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_a_followed_game_is_observed_as_a_fresh_observer_sees_it(config):
    """Observer: told of each applied action, the observer's incremental observation of every seat
    equals a fresh observer's (which encodes from scratch) after every move of seeded random games,
    also after following a loaded mid-game position; observing never changes the state."""
    game = SamuraiGame(**config)
    for seed in range(8):
        state = game.new_state(np.random.default_rng(seed))
        followed = game.observer()
        followed.follow(state)
        choose = random.Random(seed).choice
        step = 0
        while True:
            before = state.to_dict() if step % 17 == 0 else None
            for seat in range(game.num_players):
                seen = followed.observe(state, seat)
                assert np.array_equal(seen, game.observer().observe(state, seat)), (seed, step, seat)
            assert before is None or state.to_dict() == before, "observing never writes the state"
            if state.current_player is None:
                break
            if step == 40:  # continue from a loaded copy, followed from scratch
                state = game.state_from_dict(json.loads(json.dumps(state.to_dict())))
                followed.follow(state)
            action = choose(state.legal_actions())
            state.apply(action)
            followed.applied(state, action)
            step += 1


def test_an_observer_encodes_from_scratch_a_state_it_does_not_follow():
    """Observer: a copy of the followed state, changed without telling the observer, is encoded from
    scratch (the caches describe only the followed state, and only while told of every action)."""
    game = SamuraiGame(3)
    state = game.new_state(np.random.default_rng(4))
    observer = game.observer()
    observer.follow(state)
    copy = state.clone()
    choose = random.Random(4).choice
    for _ in range(30):
        copy.apply(choose(copy.legal_actions()))
    observer.applied(copy, copy.legal_actions()[0])  # not the followed state: ignored
    assert np.array_equal(observer.observe(copy, 0), game.observer().observe(copy, 0))
    assert np.array_equal(observer.observe(state, 0), game.observer().observe(state, 0))
    assert not np.array_equal(observer.observe(copy, 0), observer.observe(state, 0))


# --- hidden information --------------------------------------------------------------------------
def redeal(data: dict, seat: int, rng: random.Random) -> dict:
    """A fresh copy of ``data`` with what ``seat`` cannot see re-dealt: every other player's hand and
    pile from their unplayed tiles (hand sizes kept; a tile being played stays in hand), and every
    pile's order, ``seat``'s own too."""
    out = json.loads(json.dumps(data))
    pending = data["turn"]["tile"]
    for p in range(data["num_players"]):
        if p == seat:
            rng.shuffle(out["piles"][p])
            continue
        keep = [pending] if pending is not None and p == data["current_player"] else []
        pool = data["hands"][p] + data["piles"][p]
        for tile in keep:
            pool.remove(tile)
        rng.shuffle(pool)
        cut = len(data["hands"][p]) - len(keep)
        out["hands"][p], out["piles"][p] = keep + pool[:cut], pool[cut:]
    return out


def hidden_twin(game: SamuraiGame, data: dict, seat: int, rng: random.Random):
    """A state built fresh (``state_from_dict``) from a re-deal of ``data`` for ``seat``. That the player to
    act is still acting is public (a turn ends by itself when nothing is playable): a re-deal that would
    change whose turn it is, or the turn in progress, is drawn again."""
    for _ in range(1000):
        twin = game.state_from_dict(redeal(data, seat, rng))
        if twin.current_player == data["current_player"] and twin.to_dict()["turn"] == data["turn"]:
            return twin
    raise AssertionError("no consistent re-deal found")


def leak_found(config: dict, observer_class: type, seeds: range, every: int = 9) -> tuple[str | None, int]:
    """Play seeded random games with an observer of ``observer_class`` following each; every ``every``
    moves, for every seat, compare what it shows that seat with what a fresh ``observer_class`` shows
    of a hidden twin (and of ``determinize``'s copy), and the mask of the player to act. Returns the
    first difference found (or None) and how many twins really differed from the true state."""
    game = SamuraiGame(**config)
    rng = random.Random(1)
    changed = 0
    for seed in seeds:
        state = game.new_state(np.random.default_rng(seed))
        followed = observer_class(game)
        followed.follow(state)
        choose = random.Random(seed).choice
        step = 0
        while state.current_player is not None:
            if step % every == 0:
                data = state.to_dict()
                for seat in range(game.num_players):
                    truth = followed.observe(state, seat)
                    twin = hidden_twin(game, data, seat, rng)
                    changed += twin.to_dict() != data
                    if not np.array_equal(observer_class(game).observe(twin, seat), truth):
                        return f"seed {seed}, step {step}: seat {seat}'s observation depends on hidden tiles", changed
                    if seat == state.current_player and not np.array_equal(twin.legal_mask(), state.legal_mask()):
                        return f"seed {seed}, step {step}: the mask depends on hidden tiles", changed
                    sample = state.determinize(seat, np.random.default_rng(step))
                    if not np.array_equal(observer_class(game).observe(sample, seat), truth):
                        return f"seed {seed}, step {step}: determinize changed what seat {seat} sees", changed
            action = choose(state.legal_actions())
            state.apply(action)
            followed.applied(state, action)
            step += 1
    return None, changed


@pytest.mark.parametrize("config", CONFIGS[1:4], ids=lambda c: "-".join(map(str, c.values())))
def test_no_leak_observations_and_mask_ignore_hidden_information(config):
    """Information: other players' hands and every pile's order are hidden: a twin built fresh from
    a re-deal consistent with the public information gives every seat the same observation (from a
    fresh observer, against the observer following the real game) and the player to act the same mask."""
    leak, changed = leak_found(config, SamuraiObserver, range(6))
    assert leak is None, leak
    assert changed > 50, "the re-deals must really change the hidden information"


class PeekAtOwnPile(SamuraiObserver):
    """A planted leak: the next tile of one's own pile (its order is hidden, even from oneself)."""

    def observe(self, state, player):
        out = super().observe(state, player)
        if state.piles[player]:
            out[TURN] = state.piles[player][0] / 17
        return out


class PeekAtNextHand(SamuraiObserver):
    """A planted leak: the tiles in the next player's hand, written where one's own hand goes."""

    def observe(self, state, player):
        out = super().observe(state, player)
        for kind in state.hands[(player + 1) % state.game.num_players]:
            out[HAND + kind] = 1.0
        return out


@pytest.mark.parametrize("planted", [PeekAtOwnPile, PeekAtNextHand])
def test_the_no_leak_check_catches_a_planted_leak(planted):
    """The no-leak check can fail: an observer that reads a hidden field is caught."""
    leak, _ = leak_found({"num_players": 2}, planted, range(2))
    assert leak is not None and ("observation depends on hidden tiles" in leak or "sees" in leak), leak
