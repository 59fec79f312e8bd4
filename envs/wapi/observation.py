"""Wapi observation encoder: everything public, seats relative to the observer.

Layout (float32, every entry scaled into [0, 1]; seat slots are relative:
slot 0 is the observer, slot 1 the next player clockwise, ...; slots past
the player count stay 0):

| offset | size | content |
|---|---|---|
| 0   | 48 | per mine k at 8k: coins placed / 5, silver total / 25, masks placed / 4, then totems of seat slots 0..4 / 3 |
| 48  | 11 | the drawn tile, one-hot: S0 S1 S2 S3 S5 M0 .. M5 (all 0 once the game is over) |
| 59  | 5  | totems left per seat slot / 3 |
| 64  | 11 | remaining bag contents per tile code (same order), / that code's count in the full set |
| 75  | 1  | coins placed in all mines / 30 |
| 76  | 1  | scoring mode: 0 full, 1 shared |
| 77  | 5  | current score per seat slot / 75 (the most three poles can score) |
| 82  | 5  | seat slot is in the game (1) or not (0) |
| 87  | 5  | one-hot: seat slot of the player to act (all 0 once over) |

Total: 92 entries, for every player count.

The exact offsets are the constants below; ``tests/test_wapi_env.py``
checks this table against them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.wapi.components import (
    COINS_TO_END,
    MASK_FIELDS,
    NUM_MINES,
    NUM_TILE_KINDS,
    SILVER_FIELDS,
    TOTEMS_PER_PLAYER,
)

if TYPE_CHECKING:
    from envs.wapi.rules import WapiState

MAX_PLAYERS = 5
MAX_MINE_VALUE = 5 * SILVER_FIELDS
MAX_SCORE = TOTEMS_PER_PLAYER * MAX_MINE_VALUE
MINE_BLOCK = 3 + MAX_PLAYERS

MINES = 0
DRAWN = MINES + NUM_MINES * MINE_BLOCK
TOTEMS_LEFT = DRAWN + NUM_TILE_KINDS
BAG = TOTEMS_LEFT + MAX_PLAYERS
COINS_PLACED = BAG + NUM_TILE_KINDS
SCORING = COINS_PLACED + 1
SCORES = SCORING + 1
PRESENT = SCORES + MAX_PLAYERS
TO_ACT = PRESENT + MAX_PLAYERS
OBSERVATION_SIZE = TO_ACT + MAX_PLAYERS


SEAT_BLOCKS = [MINES + k * MINE_BLOCK + 3 for k in range(NUM_MINES)] + [TOTEMS_LEFT, SCORES, PRESENT, TO_ACT]


def _rotation(num_players: int, observer: int) -> np.ndarray:
    """Indices that turn the absolute-seat vector into ``observer``'s relative view."""
    index = np.arange(OBSERVATION_SIZE)
    for block in SEAT_BLOCKS:
        for slot in range(num_players):
            index[block + slot] = block + (observer + slot) % num_players
    return index


ROTATIONS = {n: [_rotation(n, o) for o in range(n)] for n in range(2, MAX_PLAYERS + 1)}


def encode(state: WapiState, observer: int) -> np.ndarray:
    """The observation of ``observer``: a fresh float32 vector of OBSERVATION_SIZE.

    The state keeps the public vector in absolute seats (``state.public``);
    moves only note the mines they touch (``state.stale_mines``) and the
    vector is brought up to date here, when an observation is asked for, so
    search rollouts that never look do not pay for it. An observer's view is
    a rotation of it: one array build and one gather.
    """
    if state.public is None:
        state.public = public_vector(state)
    elif state.stale_mines:
        refresh(state)
    state.stale_mines.clear()
    return np.array(state.public, dtype=np.float32)[ROTATIONS[state.game.num_players][observer]]


def public_vector(state: WapiState) -> list[float]:
    """Everything public, in absolute seats (player 0 in slot 0)."""
    out: list[float] = []
    for mine in range(NUM_MINES):
        out += mine_block(state, mine)
    return out + tail(state)


def refresh(state: WapiState) -> None:
    """Bring ``state.public`` up to date after moves that touched ``state.stale_mines``."""
    for mine in set(state.stale_mines):
        start = MINES + mine * MINE_BLOCK
        state.public[start:start + MINE_BLOCK] = mine_block(state, mine)
    state.public[DRAWN:] = tail(state)


def mine_block(state: WapiState, mine: int) -> list[float]:
    silver, poles = state.silver[mine], state.totems[mine]
    n = state.game.num_players
    out = [len(silver) / SILVER_FIELDS, sum(silver) / MAX_MINE_VALUE, state.masks[mine] / MASK_FIELDS]
    out += [poles.count(p) / TOTEMS_PER_PLAYER for p in range(n)] if poles else [0.0] * n
    return out + [0.0] * (MAX_PLAYERS - n)


def tail(state: WapiState) -> list[float]:
    """Everything after the mines: drawn tile, totems left, bag, progress, mode, scores, seats."""
    game = state.game
    n = game.num_players
    pad = [0.0] * (MAX_PLAYERS - n)
    out = [0.0] * NUM_TILE_KINDS
    if state.drawn is not None:
        out[state.drawn] = 1.0
    out += [left / TOTEMS_PER_PLAYER for left in state.totems_left]
    out += pad
    out += [r * c for r, c in zip(state.bag_counts, game.tile_scale)]
    out.append(state.coins_placed / COINS_TO_END)
    out.append(1.0 if game.scoring == "shared" else 0.0)
    out += [score / MAX_SCORE for score in state.approximate_scores()]
    out += pad
    out += [1.0] * n + pad
    to_act = [0.0] * MAX_PLAYERS
    if state.current_player is not None:
        to_act[state.current_player] = 1.0
    return out + to_act
