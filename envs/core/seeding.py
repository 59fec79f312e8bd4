"""The generators of many seeds at once: ``gymnasium.utils.seeding.np_random(seed)`` for a whole batch.

Why: a batch engine deals each game from its own seed (the game ``env().reset(seed)`` deals), and
building a generator costs about 10 µs, mostly numpy's ``SeedSequence`` hashing the seed. At a few
hundred thousand deals a second that was more than half of a batch's time. Here the hashing runs
vectorised over all the seeds (numpy's published ``SeedSequence`` and ``PCG64`` seeding algorithms,
which numpy keeps stable for reproducibility), and one reusable generator is set to each seed's state
in turn. ``tests/test_batch_protocol.py`` checks the states and draws against numpy's own for many seeds.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import numpy as np

# numpy.random.SeedSequence's constants (numpy/random/bit_generator.pyx), pool of 4 words.
INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
MIX_MULT_L, MIX_MULT_R, XSHIFT, POOL_SIZE = 0xCA01F9DD, 0x4973F715, 16, 4
MASK32, MASK128 = 0xFFFFFFFF, (1 << 128) - 1
#: PCG64's multiplier (numpy/random/src/pcg64/pcg64.h: PCG_DEFAULT_MULTIPLIER_128).
PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645


@cache
def _hash_steps(start: int, multiplier: int, count: int) -> tuple[tuple[np.uint32, np.uint32], ...]:
    """For each of ``count`` hash steps, the hash constant before it and after it (they never depend on
    the data: computed once per count)."""
    steps, value = [], start
    for _ in range(count):
        after = (value * multiplier) & MASK32
        steps.append((np.uint32(value), np.uint32(after)))
        value = after
    return tuple(steps)


def _hashmix(value: np.ndarray, step: tuple[np.uint32, np.uint32]) -> np.ndarray:
    """SeedSequence's ``hashmix`` (also ``generate_state``'s step): xor, multiply, xor-shift."""
    before, after = step
    value = (value ^ before) * after
    return value ^ (value >> np.uint32(XSHIFT))


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = np.uint32(MIX_MULT_L) * x - np.uint32(MIX_MULT_R) * y
    return result ^ (result >> np.uint32(XSHIFT))


def _pools(words: np.ndarray) -> np.ndarray:
    """``(4, k)`` uint32: the SeedSequence pools of ``k`` seeds given as ``(w, k)`` little-endian words."""
    length = len(words)
    steps = POOL_SIZE + POOL_SIZE * (POOL_SIZE - 1) + max(0, length - POOL_SIZE) * POOL_SIZE
    constants = iter(_hash_steps(INIT_A, MULT_A, steps))
    zero = np.zeros(words.shape[1], dtype=np.uint32)
    pool = [_hashmix(words[i] if i < length else zero, next(constants)) for i in range(POOL_SIZE)]
    for src in range(POOL_SIZE):
        for dst in range(POOL_SIZE):
            if src != dst:
                pool[dst] = _mix(pool[dst], _hashmix(pool[src], next(constants)))
    for src in range(POOL_SIZE, length):
        for dst in range(POOL_SIZE):
            pool[dst] = _mix(pool[dst], _hashmix(words[src], next(constants)))
    return np.stack(pool)


def _state_words(pool: np.ndarray) -> np.ndarray:
    """``(4, k)`` uint64: ``SeedSequence.generate_state(4, np.uint64)`` of each pool."""
    out = [_hashmix(pool[i % POOL_SIZE], step) for i, step in enumerate(_hash_steps(INIT_B, MULT_B, 8))]
    return np.stack(
        [out[2 * j].astype(np.uint64) | (out[2 * j + 1].astype(np.uint64) << np.uint64(32)) for j in range(4)]
    )


def _words(seeds: list[int]) -> dict[int, list[int]]:
    """The seeds' positions grouped by how many 32-bit words their entropy has (0 has one)."""
    groups: dict[int, list[int]] = {}
    for position, seed in enumerate(seeds):
        groups.setdefault(max(1, -(-seed.bit_length() // 32)), []).append(position)
    return groups


def pcg64_states(seeds: list[int]) -> list[dict]:
    """The ``bit_generator.state`` of ``np_random(seed)`` for each non-negative int seed."""
    states: list[dict | None] = [None] * len(seeds)
    for length, positions in _words(seeds).items():
        words = np.array([[(seeds[p] >> (32 * w)) & MASK32 for p in positions] for w in range(length)], np.uint32)
        values = _state_words(_pools(words)).tolist()
        for column, position in enumerate(positions):
            initstate, initseq = (
                (values[0][column] << 64) | values[1][column],
                (values[2][column] << 64) | values[3][column],
            )
            inc = ((initseq << 1) | 1) & MASK128
            state = ((inc + initstate) * PCG_MULT + inc) & MASK128  # from state 0: a step (to inc), add, a step
            states[position] = {
                "bit_generator": "PCG64",
                "state": {"state": state, "inc": inc},
                "has_uint32": 0,
                "uinteger": 0,
            }
    return states


#: Below this many seeds numpy's own seeding (about 10 µs a seed) beats the vectorised hashing's fixed
#: cost (about 0.3 ms a call): training deals a few games at a time.
FEW_SEEDS = 16


def seeded(seeds: list[int]) -> Iterator[np.random.Generator]:
    """One generator, set in turn to the state of ``np_random(seed)`` for each seed (use each before the next)."""
    if len(seeds) < FEW_SEEDS:
        yield from (np.random.Generator(np.random.PCG64(seed)) for seed in seeds)
        return
    generator = np.random.Generator(np.random.PCG64())
    for state in pcg64_states(seeds):
        generator.bit_generator.state = state
        yield generator


__all__ = ["pcg64_states", "seeded"]
