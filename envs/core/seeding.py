"""The generators of many seeds at once: ``gymnasium.utils.seeding.np_random(seed)`` for a whole batch.

Why: a batch engine deals each game from its own seed (the game ``env().reset(seed)`` deals), and
building a generator costs about 10 µs, mostly numpy's ``SeedSequence`` hashing the seed. At a few
hundred thousand deals a second that was more than half of a batch's time. Here the hashing runs
vectorised over all the seeds (numpy's published ``SeedSequence`` and ``PCG64`` seeding algorithms,
which numpy keeps stable for reproducibility), and one reusable generator is set to each seed's state
in turn (:func:`seeded`). Deals that are permutations go further (:func:`permutations`): the generators'
draws and numpy's shuffles themselves run over arrays of seeds, with no generator object per seed.
``tests/test_batch_protocol.py`` and ``tests/test_dealing.py`` check states, draws and permutations
against numpy's own for many seeds.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache

import numpy as np

# numpy.random.SeedSequence's constants (numpy/random/bit_generator.pyx), pool of 4 words.
INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
MIX_MULT_L, MIX_MULT_R, XSHIFT, POOL_SIZE = 0xCA01F9DD, 0x4973F715, 16, 4
MASK32, MASK64, MASK128 = 0xFFFFFFFF, (1 << 64) - 1, (1 << 128) - 1
U64_32 = np.uint64(32)
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


def _seed_words(seeds: list[int]) -> Iterator[tuple[list[int] | np.ndarray, np.ndarray]]:
    """For each group of seeds of one entropy length: their positions and their ``(4, k)`` uint64
    ``SeedSequence.generate_state(4)`` (the words PCG64 is seeded from). Seeds below 2**64 (all a batch
    deals) are split into words over arrays; larger ones one by one."""
    if seeds and max(seeds) <= MASK64:
        values = np.array(seeds, dtype=np.uint64)
        wide = values > MASK32
        for length, positions in ((1, np.flatnonzero(~wide)), (2, np.flatnonzero(wide))):
            if positions.size:
                chosen = values[positions]
                words = np.stack([chosen & MASK32, chosen >> U64_32][:length]).astype(np.uint32)
                yield positions, _state_words(_pools(words))
        return
    for length, positions in _words(seeds).items():
        words = np.array([[(seeds[p] >> (32 * w)) & MASK32 for p in positions] for w in range(length)], np.uint32)
        yield positions, _state_words(_pools(words))


def pcg64_states(seeds: list[int]) -> list[dict]:
    """The ``bit_generator.state`` of ``np_random(seed)`` for each non-negative int seed."""
    states: list[dict | None] = [None] * len(seeds)
    for positions, words in _seed_words(seeds):
        values = words.tolist()
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


# --- numpy's draws for many seeds at once ------------------------------------------------------------
# A deal is a few permutations. numpy's ``Generator.permutation(n)`` is a Fisher-Yates shuffle of
# ``arange(n)`` (numpy/random/_generator.pyx, ``_shuffle_raw``): for i from n-1 down to 1 it swaps i with
# ``random_interval(i)``, which masks 32-bit draws to i's bit length and rejects those above i
# (numpy/random/src/distributions/distributions.c). Its 32-bit draws are the low then the high half of
# each 64-bit PCG64 output (``pcg64_next32``). Below, the PCG64 outputs of many seeds are computed over
# arrays (128-bit arithmetic in pairs of uint64) and the shuffles run over all the seeds at once, so a
# thousand deals cost a few numpy calls per shuffle step instead of a few Python calls each.


def _split(value: int) -> tuple[np.uint64, np.uint64]:
    return np.uint64(value >> 64), np.uint64(value & MASK64)


def _mulhi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The high 64 bits of the 128-bit products ``a * b`` (uint64), by 32-bit halves."""
    a0, a1, b0, b1 = a & MASK32, a >> U64_32, b & MASK32, b >> U64_32
    cross, other = a0 * b1, a1 * b0
    middle = ((a0 * b0) >> U64_32) + (cross & MASK32) + (other & MASK32)
    return a1 * b1 + (cross >> U64_32) + (other >> U64_32) + (middle >> U64_32)


def _mul128(ah, al, bh, bl) -> tuple[np.ndarray, np.ndarray]:
    """``(a * b) mod 2**128`` of 128-bit numbers given as (high, low) uint64."""
    return _mulhi(al, bl) + ah * bl + al * bh, al * bl


def _add128(ah, al, bh, bl) -> tuple[np.ndarray, np.ndarray]:
    low = al + bl
    return ah + bh + (low < al).astype(np.uint64), low


#: PCG_MULT as (high, low) uint64.
MULT_HIGH, MULT_LOW = _split(PCG_MULT)


def _outputs(state: tuple[np.ndarray, np.ndarray], inc: tuple[np.ndarray, np.ndarray], count: int):
    """``count`` PCG64 steps of every state (``state * PCG_MULT + inc``) and their XSL-RR outputs:
    ``((count, k) uint64 outputs, the last state)``. A step at a time over all the seeds: short vectors
    that stay in cache (computing all the steps at once by jumps was several times slower)."""
    high, low = state
    out = np.empty((count, len(low)), np.uint64)
    for k in range(count):
        high, low = _add128(*_mul128(high, low, MULT_HIGH, MULT_LOW), *inc)
        rotate, mixed = high >> np.uint64(58), high ^ low
        out[k] = (mixed >> rotate) | (mixed << ((np.uint64(64) - rotate) & np.uint64(63)))
    return out, (high, low)


class Draws:
    """The 32-bit draws numpy's ``Generator.permutation`` reads from ``np_random(seed)``, for many seeds
    (:meth:`read`). Computed a block of outputs at a time for all the seeds, and extended when a shuffle
    reads past the end."""

    BLOCK = 16

    def __init__(self, seeds: list[int], outputs: int):
        count = len(seeds)
        self.state = (np.empty(count, np.uint64), np.empty(count, np.uint64))
        self.inc = (np.empty(count, np.uint64), np.empty(count, np.uint64))
        for positions, words in _seed_words(seeds):
            initstate, initseq = (words[0], words[1]), (words[2], words[3])
            inc = ((initseq[0] << np.uint64(1)) | (initseq[1] >> np.uint64(63)), (initseq[1] << np.uint64(1)) | 1)
            state = _add128(*_mul128(*_add128(*inc, *initstate), MULT_HIGH, MULT_LOW), *inc)
            for mine, theirs in zip(self.state + self.inc, state + inc):
                mine[positions] = theirs
        self.values = np.empty((0, count), np.uint32)  # draw position by seed: a draw of every seed a row
        self._extend(outputs)

    def _extend(self, outputs: int) -> None:
        """``outputs`` more 64-bit outputs a seed, each split into its two draws (low half first)."""
        out, self.state = _outputs(self.state, self.inc, outputs)
        count, seeds = out.shape  # as little-endian words: each output's low half, then its high half
        halves = out.astype("<u8", copy=False).view("<u4").reshape(count, seeds, 2).transpose(0, 2, 1)
        halves = halves.reshape(2 * count, seeds)
        self.values = np.concatenate([self.values, halves])
        self._flat = self.values.reshape(-1)

    def read(self, flat: np.ndarray, width: int = 1) -> np.ndarray:
        """``(width, len(flat))`` uint32: the draws at ``flat`` (draw ``p`` of seed ``k`` is at ``p * seeds + k``)
        and the ``width - 1`` after each."""
        seeds = self.values.shape[1]
        while int(flat.max()) // seeds + width > len(self.values):
            self._extend(self.BLOCK)
        return self._flat[flat + np.arange(0, width * seeds, seeds)[:, None]]


def expected_draws(size: int) -> float:
    """How many 32-bit draws ``permutation(size)`` reads on average (rejections included)."""
    return sum((1 << i.bit_length()) / (i + 1) for i in range(1, size))


#: Below this many seeds numpy's own generators (about 6 µs a deal of 66 tiles) beat the vectorised
#: shuffles' fixed cost (a few numpy calls per shuffle step; about 4 µs a deal at 4,096 seeds).
FEW_DEALS = 64


def permutations(seeds: Sequence[int], sizes: Sequence[int]) -> list[np.ndarray]:
    """For each size in turn, ``(len(seeds), size)`` int64: row k is ``rng.permutation(size)`` of
    ``rng = np_random(seeds[k])`` after the permutations of the sizes before (exactly numpy's)."""
    seeds = [int(seed) for seed in seeds]
    if any(size >= 1 << 32 for size in sizes):  # numpy draws 64-bit numbers there: not reproduced here
        raise ValueError(f"sizes must be below 2**32, got {max(sizes)}")
    if len(seeds) < FEW_DEALS:
        rows = [[rng.permutation(size) for size in sizes] for rng in seeded(seeds)]
        return [np.array([row[k] for row in rows], np.int64).reshape(len(seeds), size) for k, size in enumerate(sizes)]
    draws = Draws(seeds, int(sum(expected_draws(size) for size in sizes) * 0.6) + 4)
    flat = np.arange(len(seeds))  # each seed's next draw: its first
    return [shuffled(draws, flat, size) for size in sizes]


def shuffled(draws: Draws, flat: np.ndarray, size: int) -> np.ndarray:
    """``permutation(size)`` of every seed, reading its draws from ``flat`` on (advanced in place). A step
    reads each seed's next three draws and takes the first one accepted; the few seeds that rejected all
    three draw on one at a time."""
    count = len(flat)
    rows = np.arange(count)
    perm = np.repeat(np.arange(size, dtype=np.int64), count)  # (size, count) flat: entry i of every seed a row
    for i in range(size - 1, 0, -1):
        mask = np.uint32((1 << i.bit_length()) - 1)
        first, second, third = draws.read(flat, 3) & mask
        ok1, ok2, ok3 = first <= i, second <= i, third <= i
        pick = np.where(ok1, first, np.where(ok2, second, third)).astype(np.int64)
        flat += np.where(ok1, 1, np.where(ok2, 2, 3)) * count
        redo = np.flatnonzero(~(ok1 | ok2 | ok3))
        while redo.size:  # rejected: the next draw (numpy's random_interval)
            value = draws.read(flat[redo])[0] & mask
            flat[redo] += count
            pick[redo] = value
            redo = redo[value > i]
        other = pick * count + rows
        held = perm[i * count : (i + 1) * count].copy()
        perm[i * count : (i + 1) * count] = perm[other]
        perm[other] = held
    return perm.reshape(size, count).T


def bounded(draws: Draws, flat: np.ndarray, high: int) -> np.ndarray:
    """``(len(flat),)`` int64: numpy's bounded integer in ``0..high`` (``high`` below 2**32 - 1) of every seed,
    reading its draws from ``flat`` on (advanced in place): ``random_bounded_uint64``'s Lemire method
    (numpy/random/src/distributions/distributions.c), which ``Generator.choice`` without replacement uses;
    a draw is rejected while the low half of ``draw * (high + 1)`` is below ``(2**32 - 1 - high) % (high + 1)``."""
    count, excl = len(flat), np.uint64(high + 1)
    threshold = np.uint64((MASK32 - high) % (high + 1))
    product = draws.read(flat)[0].astype(np.uint64) * excl
    flat += count
    redo = np.flatnonzero((product & np.uint64(MASK32)) < threshold)
    while redo.size:
        product[redo] = draws.read(flat[redo])[0].astype(np.uint64) * excl
        flat[redo] += count
        redo = redo[(product[redo] & np.uint64(MASK32)) < threshold]
    return (product >> U64_32).astype(np.int64)


__all__ = ["Draws", "bounded", "pcg64_states", "permutations", "seeded", "shuffled"]
