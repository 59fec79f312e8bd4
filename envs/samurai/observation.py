"""Samurai observer: everything public, seats relative to the observer (layer 2, apart from the rules).

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
order of every pile are never encoded.

How it stays incremental. Most of the vector is the board (174 x 21) and
the seat blocks, which change little per action. The observer keeps both,
in absolute seats, for the one state it follows (``follow``), and the rest
(phase, sub-step, counts, the own hand) is read from the state on each
``observe``, which copies the blocks and rotates the seats to the observer.
Before each action it also notes what the next action will act on: the
player to act, the tile chosen, the hex the tile swap picked up, the
settlement of the figure swap's first figure, and how many figures stand
on the board. ``applied(state, action)``
then refreshes exactly what that action can have changed:

- any action: the actor's hand and pile sizes (a pick, a played tile, a refill);
- a hex ``h``: hex ``h`` and the hex picked up before (tile swap); when
  figures left the board (a capture, which only a tile on ``h`` can cause),
  the figures of the settlements next to ``h`` and every seat's captures;
- a figure on settlement ``s``: settlement ``s`` and that of the figure
  swap's first figure (draft, figure swap);
- the action that completes the chosen tile (no tile in progress after
  it): the actor's count of unplayed tiles of that kind.

Refreshing means re-encoding those entries from the state, so a missed
change cannot linger past the next refresh of the same entries; the tests
compare the followed observation with a fresh observer's after every move
of many random games, for every seat.
"""

from __future__ import annotations

import numpy as np

from envs.core.engine import Observer
from envs.samurai.actions import figure_of, hex_of, is_figure, is_hex
from envs.samurai.board import CAPACITY, HEX_KIND, LAND, LAYOUTS, NUM_HEXES, SEA, SETTLEMENT, SETTLEMENTS
from envs.samurai.components import (
    HAND_SIZE, INFLUENCE, KIND_COUNTS, NUM_KINDS, PHASES, PLAY, RONIN, SAMURAI1, SAMURAI3, SHIPS, TILE_SWAP,
    TILES_PER_PLAYER,
)  # fmt: skip
from envs.samurai.rules import SamuraiState

MAX_PLAYERS = 4
MAX_SUPPLY = 13
HEX_FEATURES = 21
F_ON, F_SEA, F_LAND, F_SETTLEMENT, F_CAPACITY, F_FIGURES, F_OWNER, F_INFLUENCE, F_CLASS, F_SELECTED = (
    0, 1, 2, 3, 4, 5, 8, 12, 15, 20)  # fmt: skip
TILE_COLUMNS = slice(F_OWNER, F_SELECTED)  # owner, influence, class: what a tile writes
PLAYER_BLOCK = 2 + 3 + 2 + NUM_KINDS
S_IN_GAME, S_TO_ACT, S_CAPTURED, S_HAND, S_PILE, S_UNPLAYED = 0, 1, 2, 5, 6, 7

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


def _tile_row(kind: int, owner: int) -> np.ndarray:
    row = np.zeros(F_SELECTED - F_OWNER, dtype=np.float32)
    row[owner] = 1.0
    row[4:7] = [v / 4 for v in INFLUENCE[kind]]
    cls = 0 if kind < SAMURAI1 else 1 if kind <= SAMURAI3 else 2 if kind == RONIN else 3 if kind in SHIPS else 4
    if cls < 4 or kind == TILE_SWAP:  # the figure swap is never placed
        row[7 + cls] = 1.0
    return row


#: What a placed tile writes into its hex's columns F_OWNER..F_CLASS+4, per (kind, owner).
TILE_ROWS = np.array([[_tile_row(k, p) for p in range(MAX_PLAYERS)] for k in range(NUM_KINDS)])
#: Figure columns per figure set, indexed by a 3-bit mask (bit t: type t present).
FIGURE_ROWS = np.array([[(m >> t) & 1 for t in range(3)] for m in range(8)], dtype=np.float32)
NO_SUPPLY = [0.0, 0.0, 0.0]
UNPLAYED_SCALE = np.array([1 / c for c in KIND_COUNTS], dtype=np.float32)
EMPTY_HAND = np.zeros(NUM_KINDS, dtype=np.int64)


def _template(n: int) -> np.ndarray:
    """The hex block of an empty board for ``n`` players: which hexes are on it, their kind and capacity."""
    base = np.zeros((NUM_HEXES, HEX_FEATURES), dtype=np.float32)
    for h, on in enumerate(LAYOUTS[n].on_board):
        if on:
            base[h, F_ON] = 1.0
            base[h, F_SEA + (HEX_KIND[h] == LAND) + 2 * (HEX_KIND[h] == SETTLEMENT)] = 1.0
            base[h, F_CAPACITY] = CAPACITY[h] / 3
    assert SEA == 0
    return base


TEMPLATES = {n: _template(n) for n in LAYOUTS}


def figure_mask(types: list[int]) -> int:
    mask = 0
    for t in types:
        mask |= 1 << t
    return mask


def encode_hexes(state: SamuraiState) -> np.ndarray:
    """The board block in absolute seats (no sub-step selection): 174 x 21."""
    block = TEMPLATES[state.game.num_players].copy()
    placed = [h for h in range(NUM_HEXES) if state.tile[h] >= 0]
    if placed:
        block[placed, TILE_COLUMNS] = TILE_ROWS[[state.tile[h] for h in placed], [state.owner[h] for h in placed]]
    settlements = state.layout.settlements
    block[[SETTLEMENTS[s] for s in settlements], F_FIGURES:F_FIGURES + 3] = FIGURE_ROWS[
        [figure_mask(state.figures[s]) for s in settlements]]
    return block


def encode_seats(state: SamuraiState) -> np.ndarray:
    """The seat blocks in absolute seats (``to act`` is set by ``observe``): n x 24."""
    seats = np.zeros((state.game.num_players, PLAYER_BLOCK), dtype=np.float32)
    seats[:, S_IN_GAME] = 1.0
    for p in range(state.game.num_players):
        set_sizes(seats[p], state, p)
        set_captured(seats[p], state, p)
        unplayed = state.hands[p] + state.piles[p]
        counts = np.bincount(unplayed, minlength=NUM_KINDS) if unplayed else EMPTY_HAND
        seats[p, S_UNPLAYED:] = counts * UNPLAYED_SCALE
    return seats


def set_sizes(row: np.ndarray, state: SamuraiState, p: int) -> None:
    row[S_HAND] = len(state.hands[p]) / HAND_SIZE
    row[S_PILE] = len(state.piles[p]) / TILES_PER_PLAYER


def set_captured(row: np.ndarray, state: SamuraiState, p: int) -> None:
    row[S_CAPTURED:S_CAPTURED + 3] = [c / MAX_SUPPLY for c in state.captured[p]]


class SamuraiObserver(Observer):
    """Encodes what each player may see of Samurai states; incremental on the state it follows
    (see the module docstring for the scheme)."""

    def __init__(self, game):
        super().__init__(game)
        self._state: SamuraiState | None = None
        self._hexes = self._seats = None
        # What the next action acts on, noted before it: actor, tile chosen, picked hex, first figure.
        self._actor: int | None = None
        self._tile = self._picked = -1
        self._first_settlement = self._on_board = -1

    def follow(self, state: SamuraiState) -> None:
        self._state = state
        self._hexes, self._seats = encode_hexes(state), encode_seats(state)
        self._note(state)

    def _note(self, state: SamuraiState) -> None:
        self._actor, self._tile, self._picked = state.current_player, state.pending, state.swap_from
        self._first_settlement = -1 if state.first_figure is None else state.first_figure[0]
        self._on_board = sum(state.figures_on_board)

    def applied(self, state: SamuraiState, action: int) -> None:
        if state is not self._state:
            return
        actor = self._actor
        if is_hex(action):
            h = hex_of(action)
            self._refresh_hex(state, h)
            if self._picked >= 0:
                self._refresh_hex(state, self._picked)
            if sum(state.figures_on_board) != self._on_board:  # a capture: only next to the new tile
                for s in state.layout.settlements_near[h]:
                    self._refresh_figures(state, s)
                for p in range(state.game.num_players):
                    set_captured(self._seats[p], state, p)
        elif is_figure(action):
            self._refresh_figures(state, figure_of(action)[0])
            if self._first_settlement >= 0:
                self._refresh_figures(state, self._first_settlement)
        if self._tile >= 0 and state.pending < 0:  # the chosen tile has been played: one fewer unplayed
            k = self._tile
            left = state.hands[actor].count(k) + state.piles[actor].count(k)
            self._seats[actor, S_UNPLAYED + k] = left * UNPLAYED_SCALE[k]
        set_sizes(self._seats[actor], state, actor)
        self._note(state)

    def _refresh_hex(self, state: SamuraiState, h: int) -> None:
        kind = state.tile[h]
        if kind >= 0:
            self._hexes[h, TILE_COLUMNS] = TILE_ROWS[kind, state.owner[h]]

    def _refresh_figures(self, state: SamuraiState, s: int) -> None:
        self._hexes[SETTLEMENTS[s], F_FIGURES:F_FIGURES + 3] = FIGURE_ROWS[figure_mask(state.figures[s])]

    def observe(self, state: SamuraiState, player: int) -> np.ndarray:
        """The observation of ``player``: a fresh float32 vector of OBSERVATION_SIZE."""
        if state is self._state:
            return compose(state, player, self._hexes, self._seats)
        return compose(state, player, encode_hexes(state), encode_seats(state))


def compose(state: SamuraiState, observer: int, hexes: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The whole vector from the board and seat blocks (absolute seats) and the state's small facts."""
    n, o = state.game.num_players, observer
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    block = out[:PLAYERS].reshape(NUM_HEXES, HEX_FEATURES)
    block[...] = hexes
    rows = out[PLAYERS:SET_ASIDE].reshape(MAX_PLAYERS, PLAYER_BLOCK)
    if o:  # rotate the seats so that the observer comes first
        block[:, F_OWNER:F_OWNER + n - o] = hexes[:, F_OWNER + o:F_OWNER + n]
        block[:, F_OWNER + n - o:F_OWNER + n] = hexes[:, F_OWNER:F_OWNER + o]
        rows[:n - o] = seats[o:]
        rows[n - o:n] = seats[:o]
    else:
        rows[:n] = seats
    if state.current_player is not None:
        rows[(state.current_player - o) % n, S_TO_ACT] = 1.0
    if state.swap_from >= 0:
        block[state.swap_from, F_SELECTED] = 1.0
    if state.first_figure is not None:
        block[SETTLEMENTS[state.first_figure[0]], F_SELECTED] = 1.0
    aside = state.set_aside
    values = [c / MAX_SUPPLY for c in aside]
    values.append(min(1.0, sum(aside) / 4))
    values += [c / MAX_SUPPLY for c in state.figures_on_board]
    if state.phase != PLAY:  # play begins only once the supply is empty
        values += [c / MAX_SUPPLY for c in state.figures_in_supply()]
    else:
        values += NO_SUPPLY
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
