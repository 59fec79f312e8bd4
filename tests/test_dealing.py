"""Deals for many games at once (``envs/core/seeding.py``'s compiled draws, ``envs/core/dealing.py``):
exactly numpy's draws of ``np_random(seed)``, so that a batch's games stay the per-game engine's games
whichever way, and whenever, their deals were made."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding as gym_seeding
from hypothesis import given, settings
from hypothesis import strategies as st
from test_batch_protocol import ENGINES, make, play_alongside

from envs.core.batch import StateBatch
from envs.core.dealing import DealsAhead
from envs.core.seeding import FEW_DEALS, Draws, bounded, pcg64_states, permutations, shuffled


def numpy_permutations(seeds: list[int], sizes: list[int]) -> list[list[list[int]]]:
    generators = [gym_seeding.np_random(seed)[0] for seed in seeds]
    return [[generator.permutation(size).tolist() for generator in generators] for size in sizes]


@pytest.mark.parametrize("sizes", [[66], [21, 8], [1, 2, 3, 129], [300]])
def test_permutations_are_numpys_for_many_seeds_small_and_huge(sizes):
    """Row k of each size is ``rng.permutation(size)`` after the sizes before, ``rng = np_random(seeds[k])``:
    seeds below and above 2**32 and 2**64, sizes whose shuffles reject many draws (129: masks of 255) or
    read many (300), one seed and none."""
    rng = np.random.default_rng(1)
    seeds = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1] + [int(s) for s in rng.integers(0, 2**40, 150)]
    for some in (seeds, seeds[:1], [], [*seeds[:80], 2**64, 2**90 + 3]):
        got = permutations(some, sizes)
        assert [p.shape for p in got] == [(len(some), size) for size in sizes]
        assert [p.tolist() for p in got] == numpy_permutations(some, sizes)


#: Seeds as ``SeedSequence`` takes them: one to five 32-bit words, the edges of each width included.
SEEDS = st.one_of(
    st.integers(0, 2**32 + 5),
    st.integers(2**63 - 5, 2**64 + 5),
    st.integers(0, 2**160),
    st.sampled_from([0, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64, 2**128 - 1, 2**128]),
)


@settings(max_examples=60, deadline=None)
@given(seeds=st.lists(SEEDS, min_size=1, max_size=12), sizes=st.lists(st.integers(0, 140), min_size=1, max_size=3))
def test_compiled_seeding_and_shuffles_are_numpys_for_any_seed(seeds, sizes):
    """Each seed's generator state is ``np_random(seed)``'s, and its permutations are numpy's, for seeds of any
    width (numpy's ``SeedSequence`` reads an int's 32-bit words, however many); as a list or an int array."""
    generators = [gym_seeding.np_random(seed)[0] for seed in seeds]
    assert pcg64_states(seeds) == [generator.bit_generator.state for generator in generators]
    expected = [[generator.permutation(size).tolist() for generator in generators] for size in sizes]
    assert [p.tolist() for p in permutations(seeds, sizes)] == expected
    if max(seeds) < 2**63:
        for dtype in (np.int64, np.uint64):
            assert [p.tolist() for p in permutations(np.array(seeds, dtype), sizes)] == expected


@settings(max_examples=60, deadline=None)
@given(
    seeds=st.lists(SEEDS, min_size=1, max_size=8),
    reads=st.lists(st.tuples(st.sampled_from(["shuffle", "bounded", "skip"]), st.integers(1, 2**32 - 2)), max_size=6),
)
def test_draws_read_in_any_order_of_shuffles_bounded_ints_and_skips_are_numpys(seeds, reads):
    """``Draws`` read by ``shuffled``, ``bounded`` and skipped draws (``flat += seeds``) give what one numpy
    generator per seed gives for ``permutation``, ``integers(0, high + 1)`` (Lemire's method on 32-bit draws)
    and a discarded 32-bit draw, in that order: odd numbers of draws (an output's high half held back) and
    bounds whose rejection zone is wide (just above 2**31) included."""
    generators = [gym_seeding.np_random(seed)[0] for seed in seeds]
    draws, flat = Draws(seeds), np.arange(len(seeds))
    for what, number in reads:
        if what == "shuffle":
            size = number % 90
            got, expected = shuffled(draws, flat, size), [g.permutation(size) for g in generators]
        elif what == "bounded":
            high = number if number % 3 else 2**31 + number % 1000
            got, expected = bounded(draws, flat, high), [g.integers(0, high + 1) for g in generators]
        else:
            flat += len(seeds)
            got, expected = np.zeros(len(seeds)), [g.integers(0, 2**32, dtype=np.uint32) * 0 for g in generators]
        assert got.tolist() == np.array(expected).reshape(got.shape).tolist()


def test_draws_are_read_forward_only_and_bad_bounds_are_refused():
    """A position read already cannot be read again (the generators only step forward): a ValueError, as are
    a bound numpy draws differently (0: no draw; 2**32 - 1: a plain draw), a size of 2**32 and negative seeds."""
    draws, flat = Draws([1, 2]), np.arange(2)
    shuffled(draws, flat, 10)
    with pytest.raises(ValueError, match="read forward only"):
        shuffled(draws, np.arange(2), 5)
    for high in (0, 2**32 - 1):
        with pytest.raises(ValueError, match="high must be in 1..2\\*\\*32 - 2"):
            bounded(draws, flat, high)
    with pytest.raises(ValueError, match="sizes must be in 0..2\\*\\*32 - 1"):
        permutations([1], [2**32])
    for seeds in ([3, -1], np.array([3, -1])):
        with pytest.raises(ValueError, match="seeds must be non-negative"):
            permutations(seeds, [3])


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


#: The fast engines, which deal through the compiled draws (deals made ahead).
VECTOR_DEALT = [param for param in ENGINES if param.values[2] is not StateBatch]


@pytest.mark.parametrize("name,config,cls", VECTOR_DEALT)
def test_a_large_batch_plays_and_deals_as_the_per_game_engine(name, config, cls):
    """A batch large enough for the vectorised deals, made ahead as games end at different steps: every
    mask, observation, score and deal is the per-game engine's (the protocol test's check, at this size)."""
    num_games = FEW_DEALS + 40
    assert play_alongside(cls, make(name, config), num_games=num_games, seed=3, games=2 * num_games) >= 2 * num_games
