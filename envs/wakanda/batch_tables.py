"""The Wakanda batch's tables and array helpers, built once at import: the action map as arrays, 6-bit
sets (of village slots, of piece kinds) and their flags, the legal builds by set, and the deal of many
seeds at once. Apart from :mod:`envs.wakanda.batch` so that the engine reads as its rules."""

from __future__ import annotations

import numpy as np

from envs.core.seeding import permutations
from envs.wakanda.actions import DECODED, FINISH
from envs.wakanda.components import (
    ALL_PIECES,
    NUM_PIECE_KINDS,
    NUM_PIECES,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
    POINTS_PER_PIECE,
)

#: Per action: the piece kind it builds (-1 for a finish) and its village slot.
ACTION_KIND = np.array([-1 if kind is None else kind for kind, _ in DECODED], dtype=np.int64)
ACTION_SLOT = np.array([slot for _, slot in DECODED], dtype=np.int64)
#: ``BIT[i]``: slot (or kind) i in a 6-bit set; ``BITS[s]``: the set s as six flags.
BIT = 1 << np.arange(NUM_SLOTS, dtype=np.int64)
BITS = (np.arange(1 << NUM_SLOTS)[:, None] & BIT) > 0
#: ``BUILD_MASKS[supply kinds * 64 + open slots]``: the legal builds (kind-major, as the action map).
BUILD_MASKS = (BITS[:, None, :, None] & BITS[None, :, None, :]).reshape(1 << 2 * NUM_SLOTS, FINISH)
#: Points per piece of a village's own kind, for the six piece villages.
PER_PIECE = np.array(POINTS_PER_PIECE, dtype=np.int64)
#: ``AVAILABLE_SLOTS[revealed]``: the slots available once ``revealed`` are.
AVAILABLE_SLOTS = np.arange(NUM_SLOTS) < np.arange(NUM_SLOTS + 1)[:, None]
NO_OWNER = -1
#: The pieces in a fixed order (``WakandaGame.new_state`` shuffles them into the bag).
PIECE_ORDER = np.array(ALL_PIECES, dtype=np.int64)


def dealt(seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The deals ``WakandaGame.new_state`` draws from each seed's generator ``np_random(seed)``, for all the
    seeds at once: ``(bags (M, 21) in draw order, village kinds (M, 8): the line's six, then the box's two)``
    (the bag's permutation first, then the villages', from one generator)."""
    bag_order, kinds = permutations(seeds.tolist(), [NUM_PIECES, NUM_VILLAGE_KINDS])
    return PIECE_ORDER[bag_order], kinds


def bits_of(flags: np.ndarray) -> np.ndarray:
    """``(M, 6)`` flags as ``(M,)`` 6-bit sets."""
    return flags.astype(np.int64) @ BIT


def count_kinds(pieces: np.ndarray, present: np.ndarray) -> np.ndarray:
    """``(..., 6)``: how many of the ``present`` entries of ``pieces`` (``(..., L)``) are of each kind."""
    lines = np.arange(present[..., 0].size).reshape(present.shape[:-1])
    at = (lines[..., None] * NUM_PIECE_KINDS + pieces)[present]
    return np.bincount(at, minlength=lines.size * NUM_PIECE_KINDS).reshape(*lines.shape, NUM_PIECE_KINDS)
