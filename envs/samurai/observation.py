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
the seat blocks, which change little per action. For the one state it
follows (``follow``) the observer keeps the board block as each seat sees
it (tile owners relative to that seat, so that no observation rotates the
174 hexes) and the seat blocks in absolute seats; the rest (phase,
sub-step, counts, the own hand) is read from the state on each ``observe``,
which copies the seat's board block and the seat blocks, rotated.
Before each action it also notes what the next action will act on: the
player to act, the tile chosen, the hex the tile swap picked up and the
settlement of the figure swap's first figure; and it keeps Python copies of
the encoded figures and hand and pile sizes, to write only what changed.
``applied(state, action)`` then refreshes exactly what that action can have
changed (a hex or a settlement in every seat's board block):

- a tile chosen in play: nothing (it is still in hand; the one-hot of the
  tile in progress is read from the state);
- any other action: the actor's hand and pile sizes (a pick for the
  starting hand, a played tile, a refill);
- a hex ``h``: hex ``h`` and the hex picked up before (tile swap); the
  figures of the settlements next to ``h`` that lost theirs (a capture, which
  only a tile on ``h`` can cause), and then every seat's captures;
- a figure on settlement ``s``: settlement ``s`` and that of the figure
  swap's first figure (draft, figure swap);
- the action that completes the chosen tile (no tile in progress after
  it): the actor's count of unplayed tiles of that kind.

``follow`` keeps the board blocks it has and rewrites only the hexes and
settlements whose tile, owner or figures differ from the state followed (a
search follows one determinization after another of the same position,
which differ in a few tiles); it keeps Python copies of every hex's tile and
owner for that, and writes the seat blocks anew.

Refreshing means re-encoding those entries from the state, so a missed
change cannot linger past the next refresh of the same entries; the tests
compare the followed observation with a fresh observer's after every move
of many random games, for every seat.
"""

from __future__ import annotations

import numpy as np

from envs.core.engine import Observer
from envs.samurai.actions import figure_of, hex_of, is_figure, is_hex, is_tile_choice
from envs.samurai.board import CAPACITY, HEX_KIND, LAND, LAYOUTS, NUM_HEXES, SEA, SETTLEMENT, SETTLEMENTS
from envs.samurai.components import (
    HAND_SIZE,
    INFLUENCE,
    KIND_COUNTS,
    NUM_KINDS,
    PHASES,
    PLAY,
    RONIN,
    SAMURAI1,
    SAMURAI3,
    SHIPS,
    TILE_SWAP,
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
PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}


def _tile_row(kind: int, owner: int) -> np.ndarray:
    row = np.zeros(F_SELECTED - F_OWNER, dtype=np.float32)
    row[owner] = 1.0
    row[4:7] = [v / 4 for v in INFLUENCE[kind]]
    cls = 0 if kind < SAMURAI1 else 1 if kind <= SAMURAI3 else 2 if kind == RONIN else 3 if kind in SHIPS else 4
    if cls < 4 or kind == TILE_SWAP:  # the figure swap is never placed
        row[7 + cls] = 1.0
    return row


#: What a placed tile writes into its hex's columns F_OWNER..F_CLASS+4, per (kind, owner); and the
#: same rows as ready-made views, ``TILE_ROW[kind][owner]`` (a third faster to write than indexing).
TILE_ROWS = np.array([[_tile_row(k, p) for p in range(MAX_PLAYERS)] for k in range(NUM_KINDS)])
TILE_ROW = [[TILE_ROWS[k, p] for p in range(MAX_PLAYERS)] for k in range(NUM_KINDS)]
HEX_IDS = range(NUM_HEXES)
#: The tile columns of a hex without a tile.
NO_TILE_ROW = np.zeros(F_SELECTED - F_OWNER, dtype=np.float32)
#: Figure columns per figure set, indexed by a 3-bit mask (bit t: type t present).
FIGURE_ROWS = np.array([[(m >> t) & 1 for t in range(3)] for m in range(8)], dtype=np.float32)
UNPLAYED_SCALE = np.array([1 / c for c in KIND_COUNTS], dtype=np.float32)
UNPLAYED_SCALES = tuple(1 / c for c in KIND_COUNTS)  # the same as Python floats (1 and 1/2: exact)


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
#: The hex ids of the settlements on the board, per player count (ascending settlement index).
SETTLEMENT_HEXES = {n: np.array([SETTLEMENTS[s] for s in layout.settlements]) for n, layout in LAYOUTS.items()}


def figure_mask(types: list[int]) -> int:
    mask = 0
    for t in types:
        mask |= 1 << t
    return mask


def encode_board(state: SamuraiState, seat: int) -> np.ndarray:
    """The board block as ``seat`` sees it (tile owners relative to the seat; no sub-step selection)."""
    n = state.game.num_players
    block = TEMPLATES[n].copy()
    placed = [h for h in range(NUM_HEXES) if state.tile[h] >= 0]
    if placed:
        kinds = [state.tile[h] for h in placed]
        block[placed, TILE_COLUMNS] = TILE_ROWS[kinds, [(state.owner[h] - seat) % n for h in placed]]
    masks = [figure_mask(state.figures[s]) for s in state.layout.settlements]
    block[SETTLEMENT_HEXES[n], F_FIGURES : F_FIGURES + 3] = FIGURE_ROWS[masks]
    return block


def encode_seats(state: SamuraiState) -> np.ndarray:
    """The seat blocks in absolute seats (``to act`` is set by ``observe``): n x 24."""
    seats = np.zeros((state.game.num_players, PLAYER_BLOCK), dtype=np.float32)
    seats[:, S_IN_GAME] = 1.0
    for p in range(state.game.num_players):
        seats[p, S_HAND] = len(state.hands[p]) / HAND_SIZE
        seats[p, S_PILE] = len(state.piles[p]) / TILES_PER_PLAYER
        set_captured(seats, state, p)
        unplayed = state.hands[p] + state.piles[p]
        seats[p, S_UNPLAYED:] = np.bincount(unplayed, minlength=NUM_KINDS) * UNPLAYED_SCALE
    return seats


def set_captured(seats: np.ndarray, state: SamuraiState, p: int) -> None:
    seats[p, S_CAPTURED : S_CAPTURED + 3] = [c / MAX_SUPPLY for c in state.captured[p]]


class SamuraiObserver(Observer):
    """Encodes what each player may see of Samurai states; incremental on the state it follows
    (see the module docstring for the scheme)."""

    def __init__(self, game):
        super().__init__(game)
        self._state: SamuraiState | None = None
        self._boards: list[np.ndarray] = []  # per seat: the board block as that seat sees it
        self._seats: np.ndarray | None = None  # the seat blocks, absolute seats
        # Python copies of what the blocks encode, to compare with the state cheaply.
        self._sizes: list[tuple[int, int]] = []  # per seat: the hand and pile sizes
        self._figures: list[list[int]] = []  # per settlement index: the figures
        self._tiles: list[int] = []  # per hex: the tile kind and its owner that the board blocks encode
        self._owners: list[int] = []
        # What the next action acts on, noted before it: actor, tile chosen, picked hex, first figure.
        self._actor: int | None = None
        self._tile = self._picked = self._first_settlement = -1

    def follow(self, state: SamuraiState) -> None:
        """Follow ``state``: the board blocks are brought up to it from what they encode now (only the hexes
        and settlements that differ are written: a search follows determinization after determinization of
        one position, which differ from the last in a few tiles), the seat blocks encoded anew."""
        self._state = state
        if not self._boards:
            self._boards = [encode_board(state, seat) for seat in range(state.game.num_players)]
            self._tiles, self._owners = state.tile[:], state.owner[:]
            self._figures = [types[:] for types in state.figures]
        else:
            self._catch_up(state)
        self._seats = encode_seats(state)
        self._sizes = [(len(hand), len(pile)) for hand, pile in zip(state.hands, state.piles)]
        self._note(state)

    def _catch_up(self, state: SamuraiState) -> None:
        """Re-encode the hexes and settlements of the board blocks that differ from ``state``'s."""
        tiles, owners = state.tile, state.owner
        if tiles != self._tiles or owners != self._owners:
            changed = [
                h for h, a, b, c, d in zip(HEX_IDS, tiles, self._tiles, owners, self._owners) if a != b or c != d
            ]
            for h in changed:
                self._lay(h, tiles[h], owners[h])
        if state.figures != self._figures:
            for s, types in enumerate(state.figures):
                if types != self._figures[s]:
                    self._refresh_figures(state, s)

    def _note(self, state: SamuraiState) -> None:
        self._actor, self._tile, self._picked = state.current_player, state.pending, state.swap_from
        self._first_settlement = -1 if state.first_figure is None else state.first_figure[0]

    def applied(self, state: SamuraiState, action: int) -> None:
        # Lean on purpose: this runs at every step of the env. Each numpy write costs about as
        # much as a dozen Python operations, so only entries that can have changed are written.
        if state is not self._state:
            return
        if is_tile_choice(action) and state.pending >= 0:  # a tile chosen in play: nothing cached changes
            self._tile = state.pending
            return
        actor, seats = self._actor, self._seats
        if is_hex(action):
            h = hex_of(action)
            if state.swap_from != h:  # a tile was laid on h (not the tile swap's pick)
                self._lay(h, state.tile[h], state.owner[h])
                if self._picked >= 0:  # the tile swap took the picked tile's hex
                    self._lay(self._picked, TILE_SWAP, actor)
                captured = False  # a capture empties a settlement next to the new tile
                for s in state.layout.settlements_near[h]:
                    if state.figures[s] != self._figures[s]:
                        self._refresh_figures(state, s)
                        captured = True
                if captured:
                    for p in range(state.game.num_players):
                        set_captured(seats, state, p)
        elif is_figure(action):
            self._refresh_figures(state, figure_of(action)[0])
            if self._first_settlement >= 0:
                self._refresh_figures(state, self._first_settlement)
        if self._tile >= 0 and state.pending < 0:  # the chosen tile has been played: one fewer unplayed
            k = self._tile
            left = state.hands[actor].count(k) + state.piles[actor].count(k)
            seats[actor, S_UNPLAYED + k] = left * UNPLAYED_SCALES[k]
        sizes = len(state.hands[actor]), len(state.piles[actor])
        if sizes != self._sizes[actor]:
            self._sizes[actor] = sizes
            seats[actor, S_HAND] = sizes[0] / HAND_SIZE
            seats[actor, S_PILE] = sizes[1] / TILES_PER_PLAYER
        self._note(state)

    def _lay(self, h: int, kind: int, owner: int) -> None:
        """Hex ``h`` holds ``kind`` of ``owner`` (no tile: ``kind`` -1) in every seat's board block."""
        self._tiles[h], self._owners[h] = kind, owner
        n = len(self._boards)
        for seat, board in enumerate(self._boards):
            board[h, TILE_COLUMNS] = NO_TILE_ROW if kind < 0 else TILE_ROW[kind][(owner - seat) % n]

    def _refresh_figures(self, state: SamuraiState, s: int) -> None:
        self._figures[s] = state.figures[s][:]
        row = FIGURE_ROWS[figure_mask(state.figures[s])]
        for board in self._boards:
            board[SETTLEMENTS[s], F_FIGURES : F_FIGURES + 3] = row

    def observe(self, state: SamuraiState, player: int) -> np.ndarray:
        """The observation of ``player``: a fresh float32 vector of OBSERVATION_SIZE."""
        if state is self._state:
            return compose(state, player, self._boards[player], self._seats)
        return compose(state, player, encode_board(state, player), encode_seats(state))


def compose(state: SamuraiState, observer: int, board: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The whole vector from ``observer``'s board block, the seat blocks (absolute seats, rotated here
    so that the observer comes first) and the state's small facts."""
    n, o = state.game.num_players, observer
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    out[:PLAYERS] = board.ravel()  # both blocks are C-contiguous: ravel gives views, no copies
    seat_values = seats.ravel()
    cut = PLAYERS + (n - o) * PLAYER_BLOCK
    out[PLAYERS:cut] = seat_values[o * PLAYER_BLOCK :]
    if o:
        out[cut : PLAYERS + n * PLAYER_BLOCK] = seat_values[: o * PLAYER_BLOCK]
    if state.current_player is not None:
        out[PLAYERS + (state.current_player - o) % n * PLAYER_BLOCK + S_TO_ACT] = 1.0
    if state.swap_from >= 0:
        out[HEXES + state.swap_from * HEX_FEATURES + F_SELECTED] = 1.0
        out[SWAP_PICKED] = 1.0
    if state.first_figure is not None:
        out[HEXES + SETTLEMENTS[state.first_figure[0]] * HEX_FEATURES + F_SELECTED] = 1.0
    aside = state.set_aside
    values = [c / MAX_SUPPLY for c in aside]
    values.append(min(1.0, sum(aside) / 4))
    values += [c / MAX_SUPPLY for c in state.figures_on_board]
    out[SET_ASIDE:SUPPLY] = values
    if state.phase != PLAY:  # play begins only once the supply is empty
        out[SUPPLY:HAND] = [c / MAX_SUPPLY for c in state.figures_in_supply()]
    hand = state.hands[o]
    for k in set(hand):
        out[HAND + k] = hand.count(k) * UNPLAYED_SCALES[k]
    if state.current_player is not None:
        out[PHASE + PHASE_INDEX[state.phase]] = 1.0
    if state.pending >= 0:
        out[PENDING + state.pending] = 1.0
    if state.first_figure is not None:
        out[FIRST_FIGURE + state.first_figure[1]] = 1.0
    if state.non_quick_used:  # (entries that are 0 stay as np.zeros left them: each write costs)
        out[NON_QUICK_USED] = 1.0
    if state.played:
        out[PLAYED] = len(state.played) / MAX_PLAYED
    if state.turn_number:
        out[TURN] = min(1.0, state.turn_number / MAX_TURNS)
    out[NUM_PLAYERS + n - 2] = 1.0
    return out
