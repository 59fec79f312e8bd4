"""The generators of many seeds at once: ``gymnasium.utils.seeding.np_random(seed)``'s draws for a whole batch.

Why: a batch engine deals each game from its own seed (the game ``env().reset(seed)`` deals), and
building a numpy generator costs about 10 µs, mostly ``SeedSequence`` hashing the seed; a deal's
shuffles then cost a few µs more in numpy calls. Here numpy's published ``SeedSequence`` and ``PCG64``
algorithms (which numpy keeps stable for reproducibility) and the draws of its ``Generator.permutation``
and bounded integers run as compiled kernels (``envs.core.compiled``) over arrays of seeds, with no
generator object per seed: about a µs a deal. :func:`seeded` also sets one reusable numpy generator to
each seed's state, for code that deals through numpy's own calls. ``tests/test_dealing.py`` and
``tests/test_batch_protocol.py`` check states, draws, permutations and bounded draws against numpy's own
for many seeds, small and huge.

numpy's algorithms (numpy/random/bit_generator.pyx, src/pcg64, _generator.pyx, src/distributions):
``SeedSequence`` hashes the seed's little-endian 32-bit words into a pool of four and generates four
64-bit words from it; PCG64 is seeded from them (``initstate``, ``initseq``) and steps a 128-bit LCG whose
XSL-RR output is a 64-bit draw, read as two 32-bit draws (low half first). ``permutation(n)`` is a
Fisher-Yates shuffle of ``arange(n)``: for i from n-1 down to 1 it swaps i with ``random_interval(i)``,
32-bit draws masked to i's bit length until one is at most i. Bounded integers (``choice`` without
replacement) use Lemire's method on 32-bit draws.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from envs.core.compiled import kernel

# numpy.random.SeedSequence's constants (numpy/random/bit_generator.pyx), pool of 4 words.
INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
MIX_MULT_L, MIX_MULT_R, XSHIFT, POOL_SIZE = 0xCA01F9DD, 0x4973F715, 16, 4
MASK32, MASK64, MASK128 = 0xFFFFFFFF, (1 << 64) - 1, (1 << 128) - 1
#: PCG64's multiplier (numpy/random/src/pcg64/pcg64.h: PCG_DEFAULT_MULTIPLIER_128).
PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645

# The same as uint64 scalars: numba types a global by its value's type, and uint64 mixed with a Python
# int (int64) would become float64.
U_MASK32, U_0, U_1, U_32, U_58, U_63, U_64 = (np.uint64(v) for v in (MASK32, 0, 1, 32, 58, 63, 64))
U_INIT_A, U_MULT_A, U_INIT_B, U_MULT_B = (np.uint64(v) for v in (INIT_A, MULT_A, INIT_B, MULT_B))
U_MIX_L, U_MIX_R, U_XSHIFT = np.uint64(MIX_MULT_L), np.uint64(MIX_MULT_R), np.uint64(XSHIFT)
MULT_HIGH, MULT_LOW = np.uint64(PCG_MULT >> 64), np.uint64(PCG_MULT & MASK64)
#: A generator's row: the 128-bit state and increment as (high, low) uint64, then the 32-bit draw held
#: back (the high half of the last output, read next when an odd number of draws has been read).
HIGH, LOW, INC_HIGH, INC_LOW, HELD = range(5)


# --- SeedSequence and PCG64 seeding -------------------------------------------------------------------
@kernel
def _hashmix(value, const):
    """SeedSequence's ``hashmix``: ``(mixed, next hash constant)`` (32-bit words held in uint64)."""
    value = (value ^ const) & U_MASK32
    const = (const * U_MULT_A) & U_MASK32
    value = (value * const) & U_MASK32
    return value ^ (value >> U_XSHIFT), const


@kernel
def _mix(x, y):
    result = (U_MIX_L * x - U_MIX_R * y) & U_MASK32
    return result ^ (result >> U_XSHIFT)


@kernel
def _seed_generators(words, lengths, generators):
    """Row k of ``generators`` (k, 5) uint64: PCG64 seeded from ``SeedSequence`` of seed k, given as its
    ``lengths[k]`` little-endian 32-bit words ``words[k]``, nothing held back."""
    pool = np.zeros(POOL_SIZE, np.uint64)
    state = np.zeros(2 * POOL_SIZE, np.uint64)
    for k in range(len(lengths)):
        length, const = lengths[k], U_INIT_A
        for i in range(POOL_SIZE):
            pool[i], const = _hashmix(words[k, i] if i < length else U_0, const)
        for src in range(POOL_SIZE):
            for dst in range(POOL_SIZE):
                if src != dst:
                    hashed, const = _hashmix(pool[src], const)
                    pool[dst] = _mix(pool[dst], hashed)
        for src in range(POOL_SIZE, length):
            for dst in range(POOL_SIZE):
                hashed, const = _hashmix(words[k, src], const)
                pool[dst] = _mix(pool[dst], hashed)
        const = U_INIT_B  # generate_state(4, uint64): eight 32-bit words, paired little-endian
        for i in range(2 * POOL_SIZE):
            value = (pool[i % POOL_SIZE] ^ const) & U_MASK32
            const = (const * U_MULT_B) & U_MASK32
            value = (value * const) & U_MASK32
            state[i] = value ^ (value >> U_XSHIFT)
        init_high, init_low = state[0] | (state[1] << U_32), state[2] | (state[3] << U_32)
        seq_high, seq_low = state[4] | (state[5] << U_32), state[6] | (state[7] << U_32)
        inc_high, inc_low = (seq_high << U_1) | (seq_low >> U_63), (seq_low << U_1) | U_1
        low = inc_low + init_low  # from state 0: a step (to inc), add initstate, a step
        high = inc_high + init_high + (U_1 if low < inc_low else U_0)
        generators[k, HIGH], generators[k, LOW] = _advance(high, low, inc_high, inc_low)
        generators[k, INC_HIGH], generators[k, INC_LOW], generators[k, HELD] = inc_high, inc_low, 0


# --- PCG64's draws ------------------------------------------------------------------------------------
@kernel
def _mulhi(a, b):
    """The high 64 bits of the 128-bit product of two uint64, by 32-bit halves."""
    a0, a1, b0, b1 = a & U_MASK32, a >> U_32, b & U_MASK32, b >> U_32
    cross, other = a0 * b1, a1 * b0
    middle = ((a0 * b0) >> U_32) + (cross & U_MASK32) + (other & U_MASK32)
    return a1 * b1 + (cross >> U_32) + (other >> U_32) + (middle >> U_32)


@kernel
def _advance(high, low, inc_high, inc_low):
    """A PCG64 step: ``state * PCG_MULT + inc`` mod 2**128, as (high, low)."""
    new_high = _mulhi(low, MULT_LOW) + high * MULT_LOW + low * MULT_HIGH
    product_low = low * MULT_LOW
    new_low = product_low + inc_low
    return new_high + inc_high + (U_1 if new_low < product_low else U_0), new_low


@kernel
def _draw(generator, held, count):
    """The 32-bit draw after ``count`` of a generator ``(high, low, inc_high, inc_low)`` whose last output's
    high half is ``held`` (``pcg64_next32``: the low half of a new output, then its high half):
    ``(draw, generator, held)``. Values in and out so that a kernel keeps them in registers."""
    if count & 1:
        return held, generator, held
    high, low = _advance(generator[0], generator[1], generator[2], generator[3])
    rotate, mixed = high >> U_58, high ^ low
    output = (mixed >> rotate) | (mixed << ((U_64 - rotate) & U_63))
    return output & U_MASK32, (high, low, generator[2], generator[3]), output >> U_32


@kernel
def _load(generators, drawn, flat, k):
    """Seed k's generator, held draw and draw count, advanced to the draw ``flat[k]`` names (draw p of seed k
    is ``p * seeds + k``); a count of -1 where that draw was read already (draws are read forward only)."""
    row = generators[k]
    generator, held, count = (row[HIGH], row[LOW], row[INC_HIGH], row[INC_LOW]), row[HELD], drawn[k]
    wanted = flat[k] // len(flat)
    if wanted < count:
        return generator, held, -1
    while count < wanted:
        _, generator, held = _draw(generator, held, count)
        count += 1
    return generator, held, count


@kernel
def _store(generators, drawn, flat, k, generator, held, count):
    generators[k, HIGH], generators[k, LOW], generators[k, HELD] = generator[0], generator[1], held
    drawn[k] = count
    flat[k] = count * len(flat) + k


@kernel
def _shuffle(generators, drawn, flat, size, out):
    """Row k of ``out``: ``permutation(size)`` of seed k from draw ``flat[k]`` on (advanced in place): for i
    from size-1 down to 1, numpy's ``random_interval(i)`` (draws masked to i's bit length until one is at
    most i) swapped with i. False where some seed's draw was read already."""
    for k in range(len(flat)):
        generator, held, count = _load(generators, drawn, flat, k)
        if count < 0:
            return False
        for i in range(size):
            out[k, i] = i
        for i in range(size - 1, 0, -1):
            high = np.uint64(i)
            mask = high
            for shift in (1, 2, 4, 8, 16):
                mask |= mask >> np.uint64(shift)
            value = high + U_1
            while value > high:
                value, generator, held = _draw(generator, held, count)
                value &= mask
                count += 1
            j = np.int64(value)
            out[k, i], out[k, j] = out[k, j], out[k, i]
        _store(generators, drawn, flat, k, generator, held, count)
    return True


@kernel
def _bounded(generators, drawn, flat, high, out):
    """``out[k]``: numpy's Lemire bounded integer in ``0..high`` of seed k from draw ``flat[k]`` on (advanced
    in place). False where some seed's draw was read already."""
    excl = np.uint64(high + 1)
    threshold = (U_MASK32 - np.uint64(high)) % excl
    for k in range(len(flat)):
        generator, held, count = _load(generators, drawn, flat, k)
        if count < 0:
            return False
        value, generator, held = _draw(generator, held, count)
        product, count = value * excl, count + 1
        while (product & U_MASK32) < threshold:
            value, generator, held = _draw(generator, held, count)
            product, count = value * excl, count + 1
        out[k] = product >> U_32
        _store(generators, drawn, flat, k, generator, held, count)
    return True


# --- the Python side ----------------------------------------------------------------------------------
def _seed_words(seeds) -> tuple[np.ndarray, np.ndarray]:
    """``(k, w)`` uint64 little-endian 32-bit words of each seed and ``(k,)`` how many it has (0 has one), as
    ``SeedSequence`` reads an int; over arrays where every seed is below 2**64 (all a batch deals)."""
    values = np.asarray(seeds) if isinstance(seeds, np.ndarray) else None
    if values is None or values.dtype.kind not in "iu":
        seeds = [int(seed) for seed in seeds]
        if any(seed < 0 for seed in seeds):
            raise ValueError("seeds must be non-negative ints")
        if seeds and max(seeds) > MASK64:
            width = max(max(1, -(-seed.bit_length() // 32)) for seed in seeds)
            words = [[(seed >> (32 * w)) & MASK32 for w in range(width)] for seed in seeds]
            lengths = [max(1, -(-seed.bit_length() // 32)) for seed in seeds]
            return np.array(words, np.uint64).reshape(len(seeds), width), np.array(lengths, np.int64)
        values = np.array(seeds, dtype=np.uint64)
    elif values.dtype.kind == "i":
        if (values < 0).any():
            raise ValueError("seeds must be non-negative ints")
        values = values.astype(np.uint64)
    words = np.stack([values & U_MASK32, values >> U_32], axis=1)
    return words, np.where(values > U_MASK32, 2, 1)


def _generators(seeds) -> np.ndarray:
    """``(k, 5)`` uint64: the PCG64 of ``np_random(seed)`` for each seed (rows as ``HIGH`` ... ``HELD``)."""
    words, lengths = _seed_words(seeds)
    generators = np.empty((len(lengths), 5), np.uint64)
    _seed_generators(words, lengths, generators)
    return generators


def pcg64_states(seeds: list[int]) -> list[dict]:
    """The ``bit_generator.state`` of ``np_random(seed)`` for each non-negative int seed."""
    rows = _generators(seeds).tolist()
    return [
        {
            "bit_generator": "PCG64",
            "state": {"state": (row[HIGH] << 64) | row[LOW], "inc": (row[INC_HIGH] << 64) | row[INC_LOW]},
            "has_uint32": 0,
            "uinteger": 0,
        }
        for row in rows
    ]


#: Below this many seeds numpy's own seeding (about 10 µs a seed) beats building the states' dicts in bulk.
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


class Draws:
    """The 32-bit draws of ``np_random(seed)`` for many seeds, read forward by :func:`shuffled` and
    :func:`bounded` at positions ``flat`` (draw ``p`` of seed ``k`` is ``p * seeds + k``). Each seed's
    generator steps as its draws are read: ``outputs`` (how many 64-bit outputs a deal reads) is only a
    hint, kept for the callers that give it."""

    def __init__(self, seeds: Sequence[int], outputs: int = 0):
        self.generators = _generators(seeds)
        self.drawn = np.zeros(len(self.generators), np.int64)  # how many draws of each seed were read

    def check(self, ok: bool) -> None:
        if not ok:
            raise ValueError("draws are read forward only: a position asked for was read already")


def shuffled(draws: Draws, flat: np.ndarray, size: int) -> np.ndarray:
    """``(len(flat), size)`` int64: ``permutation(size)`` of every seed, reading its draws from ``flat`` on
    (advanced in place)."""
    if not 0 <= size < 1 << 32:  # numpy draws 64-bit numbers above: not reproduced here
        raise ValueError(f"size must be in 0..2**32 - 1, got {size}")
    out = np.empty((len(flat), size), np.int64)
    draws.check(_shuffle(draws.generators, draws.drawn, flat, size, out))
    return out


def bounded(draws: Draws, flat: np.ndarray, high: int) -> np.ndarray:
    """``(len(flat),)`` int64: numpy's bounded integer in ``0..high`` of every seed, reading its draws from
    ``flat`` on (advanced in place): ``random_bounded_uint64``'s Lemire method on 32-bit draws, which
    ``Generator.choice`` without replacement uses; a draw is rejected while the low half of
    ``draw * (high + 1)`` is below ``(2**32 - 1 - high) % (high + 1)``."""
    if not 0 < high < MASK32:  # numpy draws nothing for 0 and a plain 32-bit draw for 2**32 - 1
        raise ValueError(f"high must be in 1..2**32 - 2, got {high}")
    out = np.empty(len(flat), np.int64)
    draws.check(_bounded(draws.generators, draws.drawn, flat, high, out))
    return out


#: Below this many seeds a batch's deal may run numpy's own generators on the per-game code instead
#: (what Samurai's does); the compiled draws cost about a µs a deal from one seed up.
FEW_DEALS = 1


def permutations(seeds: Sequence[int], sizes: Sequence[int]) -> list[np.ndarray]:
    """For each size in turn, ``(len(seeds), size)`` int64: row k is ``rng.permutation(size)`` of
    ``rng = np_random(seeds[k])`` after the permutations of the sizes before (exactly numpy's). ``seeds``
    may be an int array."""
    if any(not 0 <= size < 1 << 32 for size in sizes):  # numpy draws 64-bit numbers above: not reproduced here
        raise ValueError(f"sizes must be in 0..2**32 - 1, got {list(sizes)}")
    draws = Draws(seeds)
    flat = np.arange(len(draws.drawn))  # each seed's next draw: its first
    return [shuffled(draws, flat, size) for size in sizes]


__all__ = ["FEW_DEALS", "Draws", "bounded", "pcg64_states", "permutations", "seeded", "shuffled"]
