"""A ``random.Random``'s next draws lent to compiled code as 32-bit words, the Random then moved past those used.

Why: plain ISMCTS's rollouts take their dice from the search's own ``random.Random`` (the paired root replays it),
so a rollout played by compiled code must draw exactly what ``rnd.random()`` and ``rnd.randrange(n)`` would have
drawn, and leave the stream where they would have left it, for the search to choose the same moves. Both are made
of the Mersenne Twister's 32-bit words (CPython's ``_randommodule.c`` and ``random.py``): ``random()`` takes two,
``randrange(n)`` one per try of ``getrandbits(n.bit_length())``. So the words are taken ahead
(``getrandbits(32 * count)`` gives them in order, the first in the lowest bits), the kernels below draw from them
as the Random does, and :func:`give_back` rewinds the Random and draws again just the words used.
"""

from __future__ import annotations

import random

import numpy as np

from envs.core.compiled import kernel

#: What ``random()`` multiplies its 53 bits by, and its high word's weight (CPython's ``random_random``).
TWO_TO_MINUS_53, TWO_TO_26 = 1.0 / 9007199254740992.0, 67108864.0


def lend(rnd: random.Random, count: int) -> tuple[tuple, np.ndarray]:
    """The next ``count`` words of ``rnd`` (``(count,)`` uint32, in drawing order) and ``rnd``'s state before them."""
    state = rnd.getstate()
    return state, take(rnd, count)


def take(rnd: random.Random, count: int) -> np.ndarray:
    """The next ``count`` words of ``rnd`` (``(count,)`` uint32, in drawing order), ``rnd`` moved past them: the
    words of ``count / 2`` calls of ``rnd.random()`` (``tests/test_ismcts_speed.py`` checks it)."""
    return np.frombuffer(rnd.getrandbits(32 * count).to_bytes(4 * count, "little"), dtype="<u4")


def give_back(rnd: random.Random, state: tuple, used: int) -> None:
    """Leave ``rnd`` as if it had drawn only the first ``used`` words lent from ``state``."""
    rnd.setstate(state)
    if used:
        rnd.getrandbits(32 * used)


@kernel
def uniform(words, at):
    """``rnd.random()`` from ``words[at]`` and ``words[at + 1]`` (the caller checks that both are there)."""
    high, low = np.int64(words[at]) >> 5, np.int64(words[at + 1]) >> 6
    return (high * TWO_TO_26 + low) * TWO_TO_MINUS_53


@kernel
def below(words, at, n):
    """``rnd.randrange(n)`` (n > 0) from the words at ``at``: (the number, the next word's index), or
    (-1, -1) when the words ran out."""
    bits = 0
    while n >> bits:
        bits += 1  # n.bit_length()
    while at < len(words):
        draw = np.int64(words[at]) >> (32 - bits)
        at += 1
        if draw < n:
            return draw, at
    return -1, -1
