"""Deals for many games at once (``envs/core/seeding.py``'s ``permutations``, ``envs/core/dealing.py``):
exactly numpy's draws of ``np_random(seed)``, so that a batch's games stay the per-game engine's games
whichever way, and whenever, their deals were made."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding as gym_seeding
from test_batch_protocol import ENGINES, make, play_alongside

from envs.core.batch import StateBatch
from envs.core.dealing import DealsAhead
from envs.core.seeding import FEW_DEALS, permutations


def numpy_permutations(seeds: list[int], sizes: list[int]) -> list[list[list[int]]]:
    generators = [gym_seeding.np_random(seed)[0] for seed in seeds]
    return [[generator.permutation(size).tolist() for generator in generators] for size in sizes]


@pytest.mark.parametrize("sizes", [[66], [21, 8], [1, 2, 3, 129], [300]])
def test_permutations_are_numpys_for_many_seeds_small_and_huge(sizes):
    """Row k of each size is ``rng.permutation(size)`` after the sizes before, ``rng = np_random(seeds[k])``:
    seeds below and above 2**32 and 2**64, sizes whose shuffles reject many draws (129: masks of 255) and
    read past the draws computed ahead (300), and a few seeds (numpy's own generators)."""
    rng = np.random.default_rng(1)
    seeds = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1] + [int(s) for s in rng.integers(0, 2**40, 150)]
    for some in (seeds, seeds[: FEW_DEALS - 1], [*seeds[:80], 2**64, 2**90 + 3]):
        got = permutations(some, sizes)
        assert [p.shape for p in got] == [(len(some), size) for size in sizes]
        assert [p.tolist() for p in got] == numpy_permutations(some, sizes)


def test_deals_made_ahead_are_the_seeds_deals_and_made_in_bulk():
    """``DealsAhead.take`` hands out the deal of each asked seed, whether made ahead or not, as games of
    20 to 30 steps end at random (``reset_done``'s asks: seeds advanced by N); and it deals far less often
    than it is asked, each time for many games."""
    calls = []

    def deal(seeds):
        calls.append(len(seeds))
        return (seeds[:, None] * 10 + np.arange(3),)  # a pure function of the seed

    num_games, rng = 50, np.random.default_rng(2)
    ahead, seeds = DealsAhead(deal, num_games), np.arange(num_games)
    asks, left = 0, rng.integers(1, 30, num_games)
    for _ in range(300):
        left -= 1
        rows = np.flatnonzero(left == 0)
        left[rows] = rng.integers(20, 31, rows.size)
        if rows.size:
            seeds[rows] += num_games
            (got,) = ahead.take(rows, seeds[rows], seeds + num_games)
            assert got.tolist() == (seeds[rows, None] * 10 + np.arange(3)).tolist()
            asks += 1
    assert len(calls) < asks / 5 and np.mean(calls) > num_games / 2


#: The fast engines that deal through ``permutations`` (Samurai's still deals game by game).
VECTOR_DEALT = [
    param for param in ENGINES if param.values[0] in ("wapi", "wakanda") and param.values[2] is not StateBatch
]


@pytest.mark.parametrize("name,config,cls", VECTOR_DEALT)
def test_a_large_batch_plays_and_deals_as_the_per_game_engine(name, config, cls):
    """A batch large enough for the vectorised deals, made ahead as games end at different steps: every
    mask, observation, score and deal is the per-game engine's (the protocol test's check, at this size)."""
    num_games = FEW_DEALS + 6
    assert play_alongside(cls, make(name, config), num_games=num_games, seed=3, games=2 * num_games) >= 2 * num_games
