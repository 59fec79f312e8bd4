"""Wakanda's observer: what one player may see, seats relative to the observer.

Layout (float32, every entry scaled into [0, 1]; seat pairs are relative:
first the observer, then the opponent):

| offset | size | content |
|---|---|---|
| 0   | 114 | per village slot v (line order) at 19v: the village kind one-hot over eagle chief tomahawk skin tipi sun variety height (all 0 while face down), face up, available, pieces on its totem per kind (eagle .. sun) / that kind's count in the bag (1 2 3 4 5 6), totem height / 21, owned by the observer, owned by the opponent |
| 114 | 12  | supplies per seat (observer then opponent), per kind / that kind's count |
| 126 | 2   | headdresses left per seat / 3 |
| 128 | 6   | the bag's remaining contents per kind / that kind's count (never its order) |
| 134 | 1   | pieces left in the bag / 21 |
| 135 | 2   | placed a third headdress first, per seat (both 0 until someone has) |
| 137 | 8   | candidate village kinds: 1 for each kind not visible in the line (the face-down and boxed villages are among them) |
| 145 | 2   | current score per seat, (score + 6) / 72 (scores lie in -6 .. 66) |
| 147 | 2   | to act, per seat (both 0 once the game is over) |
| 149 | 1   | advanced rules (1) or basic (0) |

Total: 150 entries. In the advanced game nothing here depends on which
kinds lie face down or in the box: only the candidates are shown; the bag's
order is never read. The offsets are the constants below;
``tests/test_wakanda_env.py`` checks this table against them.

Staying incremental (:class:`WakandaObserver`). Player 1's view is player
0's with every seat pair swapped, so the observer keeps one view: player
0's, as a list of floats, for the one state it follows. ``follow`` encodes
it from scratch; ``applied(state, action)`` brings it up to date from the
action alone:

- a build of kind k on slot v changes two entries of v's block (pieces of
  kind k, height);
- a finish on slot v changes v's owner pair, the block of the village it
  reveals (the observer remembers how many were revealed), and the
  headdresses, third headdress, candidates and the finisher's score (a
  finish changes no other score: builds go on unclaimed villages only);
- every move changes both supplies (a piece played, the next player's
  draw), the bag's contents and who is to act.

``observe`` packs the view into a fresh float32 array (and swaps the seats
for player 1); a state it does not follow is encoded from scratch.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import numpy as np

from envs.core.engine import Observer, shown
from envs.wakanda.actions import DECODED
from envs.wakanda.components import (
    HEADDRESSES,
    NUM_PIECE_KINDS,
    NUM_PIECES,
    NUM_PLAYERS,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
    PIECE_COUNTS,
)

if TYPE_CHECKING:
    from envs.wakanda.rules import WakandaState

MIN_SCORE = -6  # six suns, sun village not owned
MAX_SCORE = 66  # bound: height (2 x 21) + two villages of at most 12
SLOT_BLOCK = NUM_VILLAGE_KINDS + 4 + NUM_PIECE_KINDS + 1
#: Offsets inside a slot's block.
KIND, FACE_UP, AVAILABLE = 0, NUM_VILLAGE_KINDS, NUM_VILLAGE_KINDS + 1
TOTEM = AVAILABLE + 1  # pieces per kind, then the height
HEIGHT_ENTRY = TOTEM + NUM_PIECE_KINDS
OWNED = HEIGHT_ENTRY + 1  # by the observer, by the opponent

SLOTS = 0
SUPPLIES = SLOTS + NUM_SLOTS * SLOT_BLOCK
HEADDRESSES_LEFT = SUPPLIES + 2 * NUM_PIECE_KINDS
BAG = HEADDRESSES_LEFT + 2
BAG_SIZE = BAG + NUM_PIECE_KINDS
THIRD_FIRST = BAG_SIZE + 1
CANDIDATES = THIRD_FIRST + 2
SCORES = CANDIDATES + NUM_VILLAGE_KINDS
TO_ACT = SCORES + 2
ADVANCED = TO_ACT + 2
OBSERVATION_SIZE = ADVANCED + 1

_ONE_HOT = tuple(tuple(1.0 if i == k else 0.0 for i in range(NUM_VILLAGE_KINDS)) for k in range(NUM_VILLAGE_KINDS))
_HIDDEN = (0.0,) * NUM_VILLAGE_KINDS
_KINDS = range(NUM_PIECE_KINDS)
#: _SCALED[k][n]: n pieces of kind k as a fraction of that kind's count (a lookup, not a division).
_SCALED = tuple(tuple(n / count for n in range(count + 1)) for count in PIECE_COUNTS)
_LOOKUP = tuple.__getitem__
_FLAG = (0.0, 1.0)
#: Player 0's (owned by me, owned by the opponent) per owner; also player 0's "to act" pair per player to act.
_SEATS = {None: (0.0, 0.0), 0: (1.0, 0.0), 1: (0.0, 1.0)}
_SCORE = {s: (s - MIN_SCORE) / (MAX_SCORE - MIN_SCORE) for s in range(MIN_SCORE, MAX_SCORE + 1)}
_PACK = struct.Struct(f"{OBSERVATION_SIZE}f")  # list -> float32 bytes, twice as fast as np.array(list)


def _swap_seats() -> np.ndarray:
    """Indices that turn player 0's view into player 1's: every seat pair swapped."""
    index = np.arange(OBSERVATION_SIZE)
    pairs = [(v * SLOT_BLOCK + OWNED, 1) for v in range(NUM_SLOTS)]
    pairs += [(SUPPLIES, NUM_PIECE_KINDS), (HEADDRESSES_LEFT, 1), (THIRD_FIRST, 1), (SCORES, 1), (TO_ACT, 1)]
    for start, width in pairs:
        first, second = range(start, start + width), range(start + width, start + 2 * width)
        index[list(first) + list(second)] = list(second) + list(first)
    return index


_SWAP = _swap_seats()


class WakandaObserver(Observer):
    """Encodes Wakanda states for either player; incremental for the one state it follows
    (see the module docstring for the scheme)."""

    def __init__(self, game):
        super().__init__(game)
        self._state: WakandaState | None = None
        self._view: list[float] = []  # player 0's view of the followed state
        self._revealed = 0  # villages available when the view was last brought up to date

    def follow(self, state: WakandaState) -> None:
        self._state = state
        self._view = player0_view(state)
        self._revealed = state.revealed

    def applied(self, state: WakandaState, action: int) -> None:
        if state is not self._state:
            return
        view = self._view
        kind, slot = DECODED[action]
        if kind is None:
            self._claimed(state, slot)
        else:  # build: one more piece of ``kind`` on the totem of ``slot``
            totem, block = state.totems[slot], slot * SLOT_BLOCK
            view[block + TOTEM + kind] = _SCALED[kind][totem.count(kind)]
            view[block + HEIGHT_ENTRY] = len(totem) / NUM_PIECES
        view[SUPPLIES:HEADDRESSES_LEFT] = supplies_part(state)
        view[BAG:THIRD_FIRST] = bag_part(state)
        view[TO_ACT:ADVANCED] = _SEATS[state.current_player]

    def _claimed(self, state: WakandaState, slot: int) -> None:
        """A finish on ``slot``: its owner, the village it revealed, and the tail's public facts."""
        view = self._view
        finisher = state.owner[slot]
        block = slot * SLOT_BLOCK + OWNED
        view[block:block + 2] = _SEATS[finisher]
        for revealed in range(self._revealed, state.revealed):
            view[revealed * SLOT_BLOCK:(revealed + 1) * SLOT_BLOCK] = slot_entries(state, revealed)
        self._revealed = state.revealed
        view[HEADDRESSES_LEFT:HEADDRESSES_LEFT + 2] = headdresses_part(state)
        view[THIRD_FIRST:THIRD_FIRST + 2] = _SEATS[state.third_headdress_first]
        view[CANDIDATES:SCORES] = candidates_part(state)
        view[SCORES + finisher] = _SCORE[state.player_score(finisher)]

    def observe(self, state: WakandaState, player: int) -> np.ndarray:
        view = self._view if state is self._state else player0_view(state)
        vector = np.frombuffer(bytearray(_PACK.pack(*view)), dtype=np.float32)  # writable, fresh buffer
        if type(player) is int:
            if player == 0:
                return vector
            if player == 1:
                return vector[_SWAP]
        raise ValueError(f"player must be a seat in 0..{NUM_PLAYERS - 1}, got {shown(player)}")


# --- encoding from scratch (player 0's view) ---------------------------------------------------
def player0_view(state: WakandaState) -> list[float]:
    """Player 0's whole view: every slot block, then the tail."""
    view: list[float] = []
    for slot in range(NUM_SLOTS):
        view += slot_entries(state, slot)
    scores = state.int_scores()
    return view + [
        *supplies_part(state),
        *headdresses_part(state),
        *bag_part(state),
        *_SEATS[state.third_headdress_first],
        *candidates_part(state),
        _SCORE[scores[0]], _SCORE[scores[1]],
        *_SEATS[state.current_player],
        _FLAG[state.game.advanced],
    ]


def slot_entries(state: WakandaState, slot: int) -> list[float]:
    """A slot's block as player 0 sees it: the kind only while face up."""
    available = slot < state.revealed
    face_up = available or not state.game.advanced
    totem = state.totems[slot]
    return [
        *(_ONE_HOT[state.villages[slot]] if face_up else _HIDDEN),
        _FLAG[face_up],
        _FLAG[available],
        *map(_LOOKUP, _SCALED, map(totem.count, _KINDS)),
        len(totem) / NUM_PIECES,
        *_SEATS[state.owner[slot]],
    ]


def supplies_part(state: WakandaState) -> list[float]:
    return [*map(_LOOKUP, _SCALED, state.supplies[0]), *map(_LOOKUP, _SCALED, state.supplies[1])]


def headdresses_part(state: WakandaState) -> tuple[float, float]:
    return state.headdresses[0] / HEADDRESSES, state.headdresses[1] / HEADDRESSES


def bag_part(state: WakandaState) -> list[float]:
    """The bag's contents per kind and its size: counts only, never its order."""
    bag = state.bag
    return [*map(_LOOKUP, _SCALED, map(bag.count, _KINDS)), len(bag) / NUM_PIECES]


def candidates_part(state: WakandaState) -> list[float]:
    """1 for every village kind not visible in the line."""
    candidates = [1.0] * NUM_VILLAGE_KINDS
    villages = state.villages
    for slot in range(NUM_SLOTS):
        if state.face_up(slot):
            candidates[villages[slot]] = 0.0
    return candidates
