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


def encode(state: WapiState, observer: int) -> np.ndarray:
    """The observation of ``observer``: a fresh float32 vector of OBSERVATION_SIZE."""
    game = state.game
    n = game.num_players
    seats = [(observer + r) % n for r in range(n)]  # absolute player in each relative slot
    pad = [0.0] * (MAX_PLAYERS - n)
    out: list[float] = []
    for mine in range(NUM_MINES):
        silver, poles = state.silver[mine], state.totems[mine]
        out += (len(silver) / SILVER_FIELDS, sum(silver) / MAX_MINE_VALUE, state.masks[mine] / MASK_FIELDS)
        out += [poles.count(p) / TOTEMS_PER_PLAYER for p in seats]
        out += pad
    drawn = [0.0] * NUM_TILE_KINDS
    if state.drawn is not None:
        drawn[state.drawn] = 1.0
    out += drawn
    out += [state.totems_left[p] / TOTEMS_PER_PLAYER for p in seats]
    out += pad
    remaining = [0] * NUM_TILE_KINDS
    for tile in state.bag:
        remaining[tile] += 1
    out += [r / c if c else 0.0 for r, c in zip(remaining, game.tile_counts)]
    out.append(state.coins_placed / COINS_TO_END)
    out.append(1.0 if game.scoring == "shared" else 0.0)
    scores = state.approximate_scores()
    out += [scores[p] / MAX_SCORE for p in seats]
    out += pad
    out += [1.0] * n + pad
    to_act = [0.0] * MAX_PLAYERS
    if state.current_player is not None:
        to_act[(state.current_player - observer) % n] = 1.0
    out += to_act
    return np.array(out, dtype=np.float32)

