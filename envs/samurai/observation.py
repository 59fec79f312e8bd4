"""Samurai observation encoder: everything public, seats relative to the observer.

Layout (float32, every entry in [0, 1]; seat slots are relative: slot 0 is
the observer, slot 1 the next player clockwise, ...; slots past the player
count stay 0). Counts of figures are divided by 13, the largest supply.

| offset | size | content |
|---|---|---|
| 0    | 174 x 21 | per hex id h at 21h: the 21 hex features below |
| 3654 | 4 x 24   | per seat slot r at 3654 + 24r: the 24 seat features below |
| 3750 | 4  | figures set aside: helmet, buddha, rice / 13, total / 4 (capped at 1) |
| 3754 | 3  | figures on the board per type / 13 |
| 3757 | 3  | figures still in the supply per type / 13 (non-zero only during the draft) |
| 3760 | 17 | the observer's own hand per tile kind / the kind's count |
| 3777 | 3  | phase one-hot: choose_hand, draft, play (all 0 once over) |
| 3780 | 17 | the tile chosen in the action in progress, one-hot by kind |
| 3797 | 3  | the type of the figure swap's first figure, one-hot |
| 3800 | 1  | the tile swap's tile to move has been picked |
| 3801 | 1  | the turn's non-quick tile has been played |
| 3802 | 1  | tiles played this turn / 6 |
| 3803 | 1  | turns played so far / 160 (capped at 1) |
| 3804 | 3  | player count one-hot: 2, 3, 4 |

Hex features (offsets within a hex's 21): 0 on the board, 1 sea, 2 plain
land, 3 settlement, 4 capacity / 3, 5-7 figures there (helmet, buddha,
rice), 8-11 the tile owner's seat slot one-hot, 12-14 the tile's influence
on helmet, buddha, rice / 4, 15-19 tile class one-hot (helmet/buddha/rice
tile, samurai, ronin, ship, tile swap), 20 selected in the sub-step (the
tile swap's picked tile, or the settlement of the figure swap's first figure).

Seat features (offsets within a seat's 24): 0 in the game, 1 to act, 2-4
captured helmet, buddha, rice / 13, 5 hand size / 5, 6 pile size / 20,
7-23 tiles not yet played (hand + pile, public) per tile kind / the kind's
count in the set.

Total: 3807 entries, for every player count. Other players' hands and the
order of every pile are never encoded. The hex block and the seat blocks
are kept up to date incrementally by the rules (``set_tile``,
``set_figures``, ``set_sizes``, ...) in absolute seats; ``encode`` copies
them and rotates the seats so that the observer comes first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.samurai.board import CAPACITY, HEX_KIND, LAND, LAYOUTS, NUM_HEXES, SEA, SETTLEMENT, SETTLEMENTS
from envs.samurai.components import (
    HAND_SIZE, INFLUENCE, KIND_COUNTS, NUM_KINDS, RONIN, SAMURAI1, SAMURAI3, SHIPS, TILE_SWAP, TILES_PER_PLAYER,
)  # fmt: skip

if TYPE_CHECKING:
    from envs.samurai.rules import SamuraiState

MAX_PLAYERS = 4
MAX_SUPPLY = 13
HEX_FEATURES = 21
F_ON, F_SEA, F_LAND, F_SETTLEMENT, F_CAPACITY, F_FIGURES, F_OWNER, F_INFLUENCE, F_CLASS, F_SELECTED = (
    0, 1, 2, 3, 4, 5, 8, 12, 15, 20)  # fmt: skip
TILE_COLUMNS = slice(F_OWNER, F_SELECTED)  # owner, influence, class: what a tile writes
PLAYER_BLOCK = 2 + 3 + 2 + NUM_KINDS

HEXES = 0
PLAYERS = HEXES + NUM_HEXES * HEX_FEATURES
SET_ASIDE = PLAYERS + MAX_PLAYERS * PLAYER_BLOCK
ON_BOARD = SET_ASIDE + 4
SUPPLY = ON_BOARD + 3
HAND = SUPPLY + 3
PHASE = HAND + NUM_KINDS
PENDING = PHASE + 3
FIRST_FIGURE = PENDING + NUM_KINDS
SWAP_PICKED = FIRST_FIGURE + 3
NON_QUICK_USED = SWAP_PICKED + 1
PLAYED = NON_QUICK_USED + 1
TURN = PLAYED + 1
NUM_PLAYERS = TURN + 1
OBSERVATION_SIZE = NUM_PLAYERS + 3
MAX_PLAYED, MAX_TURNS = 6, 160
PHASES = ("choose_hand", "draft", "play")


def _tile_row(kind: int, owner: int) -> np.ndarray:
    row = np.zeros(F_SELECTED - F_OWNER, dtype=np.float32)
    row[owner] = 1.0
    row[4:7] = [v / 4 for v in INFLUENCE[kind]]
    cls = 0 if kind < SAMURAI1 else 1 if kind <= SAMURAI3 else 2 if kind == RONIN else 3 if kind in SHIPS else 4
    if cls < 4 or kind == TILE_SWAP:  # the figure swap is never placed
        row[7 + cls] = 1.0
    return row


#: What a placed tile writes into its hex's columns F_OWNER..F_CLASS+4, per (kind, owner).
TILE_ROWS = [[_tile_row(k, p) for p in range(MAX_PLAYERS)] for k in range(NUM_KINDS)]
NO_TILE = np.zeros(F_SELECTED - F_OWNER, dtype=np.float32)
#: Figure columns per figure set, indexed by a 3-bit mask (bit t: type t present).
FIGURE_ROWS = [np.array([(m >> t) & 1 for t in range(3)], dtype=np.float32) for m in range(8)]


def _template(n: int) -> np.ndarray:
    base = np.zeros((NUM_HEXES, HEX_FEATURES), dtype=np.float32)
    for h, on in enumerate(LAYOUTS[n].on_board):
        if on:
            base[h, F_ON] = 1.0
            base[h, F_SEA + (HEX_KIND[h] == LAND) + 2 * (HEX_KIND[h] == SETTLEMENT)] = 1.0
            base[h, F_CAPACITY] = CAPACITY[h] / 3
    assert SEA == 0
    return base


TEMPLATES = {n: _template(n) for n in LAYOUTS}
UNPLAYED_SCALE = np.array([1 / c for c in KIND_COUNTS], dtype=np.float32)


def new_hex_block(n: int) -> np.ndarray:
    """The hex block of an empty board for ``n`` players (figures and tiles added by the rules)."""
    return TEMPLATES[n].copy()


def new_player_rows(n: int) -> np.ndarray:
    """Per absolute seat, the seat block (``to act`` is filled in by ``encode``)."""
    rows = np.zeros((n, PLAYER_BLOCK), dtype=np.float32)
    rows[:, 0] = 1.0
    return rows


def set_player(rows: np.ndarray, p: int, captured: list[int], hand: list[int], pile: list[int]) -> None:
    """Refresh seat ``p``'s block after its captures, hand or pile changed."""
    unplayed = np.bincount(hand + pile, minlength=NUM_KINDS) if hand or pile else np.zeros(NUM_KINDS)
    row = rows[p]
    row[2:5] = [c / MAX_SUPPLY for c in captured]
    row[5] = len(hand) / HAND_SIZE
    row[6] = len(pile) / TILES_PER_PLAYER
    row[7:] = unplayed * UNPLAYED_SCALE


def set_sizes(rows: np.ndarray, p: int, hand: int, pile: int) -> None:
    rows[p, 5] = hand / HAND_SIZE
    rows[p, 6] = pile / TILES_PER_PLAYER


def set_captured(rows: np.ndarray, p: int, figure_type: int, count: int) -> None:
    rows[p, 2 + figure_type] = count / MAX_SUPPLY


def tile_left_hand(rows: np.ndarray, p: int, kind: int, hand: int) -> None:
    """A tile was played: one fewer unplayed tile of its kind, a smaller hand."""
    rows[p, 7 + kind] -= UNPLAYED_SCALE[kind]
    rows[p, 5] = hand / HAND_SIZE


def set_tile(block: np.ndarray, h: int, kind: int, owner: int) -> None:
    block[h, TILE_COLUMNS] = TILE_ROWS[kind][owner]


def set_figures(block: np.ndarray, s: int, figures: list[int]) -> None:
    mask = 0
    for t in figures:
        mask |= 1 << t
    block[SETTLEMENTS[s], F_FIGURES:F_FIGURES + 3] = FIGURE_ROWS[mask]


def encode(state: SamuraiState, observer: int) -> np.ndarray:
    """The observation of ``observer``: a fresh float32 vector of OBSERVATION_SIZE."""
    n, o = state.game.num_players, observer
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    block = out[:PLAYERS].reshape(NUM_HEXES, HEX_FEATURES)
    base = state.hex_block
    block[...] = base
    rows = out[PLAYERS:SET_ASIDE].reshape(MAX_PLAYERS, PLAYER_BLOCK)
    if o:  # rotate the seats so that the observer comes first
        block[:, F_OWNER:F_OWNER + n - o] = base[:, F_OWNER + o:F_OWNER + n]
        block[:, F_OWNER + n - o:F_OWNER + n] = base[:, F_OWNER:F_OWNER + o]
        rows[:n - o] = state.player_rows[o:]
        rows[n - o:n] = state.player_rows[:o]
    else:
        rows[:n] = state.player_rows
    if state.current_player is not None:
        rows[(state.current_player - o) % n, 1] = 1.0
    if state.swap_from >= 0:
        block[state.swap_from, F_SELECTED] = 1.0
    if state.first_figure is not None:
        block[SETTLEMENTS[state.first_figure[0]], F_SELECTED] = 1.0
    aside = state.set_aside
    values = [c / MAX_SUPPLY for c in aside]
    values.append(min(1.0, sum(aside) / 4))
    values += [c / MAX_SUPPLY for c in state.figures_on_board]
    values += [c / MAX_SUPPLY for c in state.supply_left]
    out[SET_ASIDE:HAND] = values
    for k in state.hands[o]:
        out[HAND + k] += UNPLAYED_SCALE[k]
    if state.current_player is not None:
        out[PHASE + PHASES.index(state.phase)] = 1.0
    if state.pending >= 0:
        out[PENDING + state.pending] = 1.0
    if state.first_figure is not None:
        out[FIRST_FIGURE + state.first_figure[1]] = 1.0
    out[SWAP_PICKED] = 1.0 if state.swap_from >= 0 else 0.0
    out[NON_QUICK_USED] = 1.0 if state.non_quick_used else 0.0
    out[PLAYED] = len(state.played) / MAX_PLAYED
    out[TURN] = min(1.0, state.turn_number / MAX_TURNS)
    out[NUM_PLAYERS + n - 2] = 1.0
    return out
