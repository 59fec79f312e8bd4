"""The Wakanda batch's tables, built once at import: 6-bit sets (of village slots) as flags, and the deal of
many seeds at once. Apart from :mod:`envs.wakanda.batch` so that the engine reads as its rules."""

from __future__ import annotations

import numpy as np

from envs.core.seeding import permutations
from envs.wakanda.components import ALL_PIECES, NUM_PIECES, NUM_SLOTS, NUM_VILLAGE_KINDS

#: ``BIT[i]``: slot (or kind) i in a 6-bit set; ``BITS[s]``: the set s as six flags.
BIT = 1 << np.arange(NUM_SLOTS, dtype=np.int64)
BITS = (np.arange(1 << NUM_SLOTS)[:, None] & BIT) > 0
#: The pieces in a fixed order (``WakandaGame.new_state`` shuffles them into the bag).
PIECE_ORDER = np.array(ALL_PIECES, dtype=np.int64)


def dealt(seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The deals ``WakandaGame.new_state`` draws from each seed's generator ``np_random(seed)``, for all the
    seeds at once: ``(bags (M, 21) in draw order, village kinds (M, 8): the line's six, then the box's two)``
    (the bag's permutation first, then the villages', from one generator)."""
    bag_order, kinds = permutations(seeds.tolist(), [NUM_PIECES, NUM_VILLAGE_KINDS])
    return PIECE_ORDER[bag_order], kinds
