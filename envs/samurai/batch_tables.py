"""Lookup tables of the Samurai batch engine (``batch.py``), built once at import from the board and
component data, so that a step of N games is a few gathers instead of a walk over the map.

Settlement axes have one more entry than there are settlements: :data:`DUMMY` (index 34) stands for
"no settlement", so that a hex's neighbouring settlements fit a fixed-width table (``near``) and a
write to the padding lands in a column nobody reads. Tables indexed by tile kind have one more row:
a kind of -1 (no tile) reads the last row, which is all zero or False.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.samurai.board import CAPACITY, HEX_KIND, LAND, LAYOUTS, NUM_HEXES, NUM_SETTLEMENTS, SEA, SETTLEMENTS
from envs.samurai.components import FIGURE_SWAP, INFLUENCE, MOVABLE, NUM_KINDS, QUICK, SHIPS, TILE_SWAP
from envs.samurai.rules import ON_LAND, ON_SEA, SWAP_FIGURES, SWAP_TILE, TARGET

#: Phases, as indices of ``components.PHASES``.
CHOOSE_HAND, DRAFT, PLAY = 0, 1, 2
#: The settlement index that stands for "none" (padding of ``near``, a spare column of every settlement axis).
DUMMY = NUM_SETTLEMENTS
#: Per tile kind (+ a zero row for -1): its influence on helmet, buddha, rice.
INFLUENCE_OF = np.array(INFLUENCE + ((0, 0, 0),), dtype=np.int64)
#: Per tile kind (+ False for -1): a tile swap may pick it up.
MOVABLE_OF = np.array(MOVABLE + (False,))
#: Per tile kind: quick (any number a turn).
QUICK_OF = np.array(QUICK)
#: Per tile kind (+ an unused class for -1): what it needs to be playable (``rules.TARGET``).
TARGET_OF = np.array(TARGET + (4,), dtype=np.int64)
#: Per hex id: plain land (where a tile fills a settlement's surroundings).
IS_LAND = np.array([k == LAND for k in HEX_KIND])
#: Per settlement index (+ 0 for the dummy): how many figures it holds when full.
CAPACITY_OF = np.array([CAPACITY[h] for h in SETTLEMENTS] + [0], dtype=np.int64)
#: Per settlement index: its hex id.
SETTLEMENT_HEX = np.array(SETTLEMENTS, dtype=np.int64)
assert (ON_LAND, ON_SEA, SWAP_FIGURES, SWAP_TILE) == (0, 1, 2, 3)
assert FIGURE_SWAP not in SHIPS and TILE_SWAP not in SHIPS and INFLUENCE_OF.shape == (NUM_KINDS + 1, 3)


@dataclass(frozen=True)
class Tables:
    """What a step needs of one player count's board."""

    land_on: np.ndarray  # (hexes,) bool: plain land on this board
    sea_on: np.ndarray  # (hexes,) bool: sea on this board
    near: np.ndarray  # (hexes, 2) int: the settlements on the board next to each hex, padded with DUMMY
    on_board: np.ndarray  # (settlements + 1,) bool: the settlements on this board
    land_around: np.ndarray  # (settlements + 1, hexes) int: 1 where a land hex must be filled to surround it
    settlements: np.ndarray  # the settlement indices on this board, ascending
    land_hexes: np.ndarray  # the land hex ids on this board, ascending
    sea_near: np.ndarray  # the sea hex ids on this board next to a settlement, ascending
    sea_hexes: np.ndarray  # the sea hex ids on this board, ascending
    supply: int  # figures per type


def _tables(n: int) -> Tables:
    layout = LAYOUTS[n]
    on = np.array(layout.on_board)
    near = np.full((NUM_HEXES, 2), DUMMY, dtype=np.int64)
    for h in range(NUM_HEXES):
        near[h, : len(layout.settlements_near[h])] = layout.settlements_near[h]
    land_around = np.zeros((NUM_SETTLEMENTS + 1, NUM_HEXES), dtype=np.int64)
    for s, hexes in enumerate(layout.land_around):
        land_around[s, list(hexes)] = 1
    settlements_on = np.zeros(NUM_SETTLEMENTS + 1, dtype=bool)
    settlements_on[list(layout.settlements)] = True
    return Tables(
        land_on=on & IS_LAND,
        sea_on=on & np.array([k == SEA for k in HEX_KIND]),
        near=near,
        on_board=settlements_on,
        land_around=land_around,
        settlements=np.array(layout.settlements, dtype=np.int64),
        land_hexes=np.array(layout.land, dtype=np.int64),
        sea_near=np.array([h for h in layout.sea if layout.settlements_near[h]], dtype=np.int64),
        sea_hexes=np.array(layout.sea, dtype=np.int64),
        supply=layout.supply,
    )


TABLES = {n: _tables(n) for n in LAYOUTS}
