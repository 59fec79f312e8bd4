"""The Samurai batch's arrays as the compiled kernels take them: two named tuples.

Why: a numba kernel cannot read an object's attributes, and thirty loose arguments per kernel would
hide the rules. :class:`Games` names the batch's fields (``batch.py``'s docstring says what each holds;
they stay the batch's attributes, the tuple only gathers them for a call) and :class:`Board` what a rule
needs of one configuration (its board's tables and options). Numba reads a named tuple's fields by
name, so a kernel reads ``games.hand[i, p]`` as the numpy code did ``self.hand[rows, players]``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from envs.samurai.batch_tables import TABLES

#: The batch's per-game fields, in the order of :class:`Games`.
GAME_FIELDS = (
    "phase",
    "player",
    "hand",
    "hand_len",
    "pile",
    "pile_len",
    "unplayed",
    "tile",
    "owner",
    "figures",
    "on_board",
    "set_aside",
    "captured",
    "influence",
    "need",
    "empty_land",
    "empty_sea",
    "movable",
    "turn",
    "played",
    "played_len",
    "non_quick",
    "pending",
    "first_s",
    "first_t",
    "swap_from",
    "swap_ok",
)
Games = namedtuple("Games", GAME_FIELDS)

#: One configuration's tables (``batch_tables.Tables``) and options, as a kernel reads them.
Board = namedtuple(
    "Board",
    ("near", "land_on", "sea_on", "on_board", "settlements", "land_hexes", "sea_hexes", "supply", "players", "draft"),
)


def games_of(batch) -> Games:
    """The fields of ``batch`` (a ``SamuraiBatch``) gathered for a kernel: the arrays themselves, not copies."""
    return Games(*[getattr(batch, name) for name in GAME_FIELDS])


def board_of(num_players: int, draft: bool) -> Board:
    """The :class:`Board` of a player count and figure set-up (``draft``: the players place the figures)."""
    tables = TABLES[num_players]
    return Board(
        near=tables.near,
        land_on=tables.land_on,
        sea_on=tables.sea_on,
        on_board=tables.on_board,
        settlements=tables.settlements,
        land_hexes=tables.land_hexes,
        sea_hexes=tables.sea_hexes,
        supply=np.int64(tables.supply),
        players=np.int64(num_players),
        draft=bool(draft),
    )
