"""The Samurai heuristic's constants and its chance estimate, shared by the per-game strategy
(:mod:`agents.heuristic.samurai`) and the batched one (:mod:`agents.heuristic.samurai_batch`)."""

from __future__ import annotations

import functools

from envs.samurai.components import FIGURE_SWAP, INFLUENCE, KIND_COUNTS, TILE_SWAP

#: A quick tile (ronin, ship) is played only when it gains at least this much.
QUICK_MIN_GAIN = 0.25
#: A figure swap is played only when it gains at least this much.
SWAP_MIN_GAIN = 0.6
#: Cost of spending a tile, per point of its total influence (keeps strong tiles for big fights).
TILE_COST = 0.02
#: Starting-hand preference (choose_hand): the strongest tiles first.
STRENGTH = tuple(
    sum(INFLUENCE[k]) + (2 if k == FIGURE_SWAP else 0) + (1 if k == TILE_SWAP else 0) for k in range(len(KIND_COUNTS))
)


@functools.lru_cache(maxsize=1 << 12)
def chance(lead: int, open_land: int) -> float:
    """Rough chance of taking a figure with ``lead`` while ``open_land`` hexes remain to fill
    (also the search's leaf evaluation, ``agents/leaf_values.py``); remembered, since the heuristic and
    the search ask it for the same few small ints again and again."""
    if open_land <= 0:
        return 1.0 if lead > 0 else 0.0
    return min(0.95, max(0.05, 0.5 + lead / (4.0 + 4.0 * open_land)))
