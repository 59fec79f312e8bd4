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
0's, as a float32 array, for the one state it follows. ``follow`` encodes
it from scratch and notes the public counts it will need: both supplies
and the bag's contents per kind, the bag's size, the villages revealed and
the player to act. ``applied(state, action)`` then updates only the
entries the action changed:

- a build of kind k on slot v by the player who was to act: two entries of
  v's block (pieces of kind k, height) and one of their supply;
- a finish on slot v: v's owner pair, the finisher's headdresses and score
  (a finish changes no other score: builds go on unclaimed villages only),
  the third-headdress mark, and the village it revealed: its kind, face and
  availability (its totem is still empty), and its kind is no longer a
  candidate;
- a draw (the bag is one piece shorter; the drawer is the player now to
  act): one entry of their supply, one of the bag's contents and the bag's
  size. The piece drawn is the kind their supply gained: public, since
  pieces come out of the bag in front of both players;
- who is to act.

``observe`` copies the view (and swaps the seats for player 1); a state it
does not follow is encoded from scratch.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import numpy as np

from envs.core.engine import Observer, shown
from envs.wakanda.actions import DECODED
from envs.wakanda.components import (
    HEADDRESSES,
    MAX_SCORE,
    MIN_SCORE,
    NUM_PIECE_KINDS,
    NUM_PIECES,
    NUM_PLAYERS,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
    PIECE_COUNTS,
)

if TYPE_CHECKING:
    from envs.core.engine import Game
    from envs.wakanda.rules import WakandaState

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


def scaled_score(score):
    """Scores (an int or an array) as the observation shows them: (score + 6) / 72."""
    return (score - MIN_SCORE) / (MAX_SCORE - MIN_SCORE)


_ONE_HOT = tuple(tuple(1.0 if i == k else 0.0 for i in range(NUM_VILLAGE_KINDS)) for k in range(NUM_VILLAGE_KINDS))
_HIDDEN = (0.0,) * NUM_VILLAGE_KINDS
_NO_PIECES = (0.0,) * NUM_PIECE_KINDS
_KINDS = range(NUM_PIECE_KINDS)
#: _SCALED[k][n]: n pieces of kind k as a fraction of that kind's count (a lookup, not a division).
_SCALED = tuple(tuple(n / count for n in range(count + 1)) for count in PIECE_COUNTS)
_LOOKUP = tuple.__getitem__
_FLAG = (0.0, 1.0)
#: Player 0's (owned by me, owned by the opponent) per owner; also player 0's "to act" pair per player to act.
_SEATS = {None: (0.0, 0.0), 0: (1.0, 0.0), 1: (0.0, 1.0)}
_SCORE = {s: scaled_score(s) for s in range(MIN_SCORE, MAX_SCORE + 1)}
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

    def __init__(self, game: Game):
        super().__init__(game)
        self._state: WakandaState | None = None
        self._view = np.zeros(OBSERVATION_SIZE, dtype=np.float32)  # player 0's view of the followed state
        # The public counts the view was last brought up to date with:
        self._supplies: list[list[int]] = []
        self._in_bag: list[int] = []
        self._bag_left = 0
        self._revealed = 0
        self._to_act: int | None = None

    def follow(self, state: WakandaState) -> None:
        self._state = state
        self._view = encode(state)
        self._supplies = [supply[:] for supply in state.supplies]
        self._in_bag = list(map(state.bag.count, _KINDS))
        self._bag_left = len(state.bag)
        self._revealed = state.revealed
        self._to_act = state.current_player

    def applied(self, state: WakandaState, action: int) -> None:
        if state is not self._state:
            return
        view, mover = self._view, self._to_act
        kind, slot = DECODED[action]
        if kind is None:
            self._claimed(state, slot)
        else:  # one piece of ``kind`` from the mover's supply onto the totem of ``slot``
            totem, block, held = state.totems[slot], slot * SLOT_BLOCK, self._supplies[mover]
            view[block + TOTEM + kind] = _SCALED[kind][totem.count(kind)]
            view[block + HEIGHT_ENTRY] = len(totem) / NUM_PIECES
            held[kind] -= 1
            view[SUPPLIES + NUM_PIECE_KINDS * mover + kind] = _SCALED[kind][held[kind]]
        to_act = self._to_act = state.current_player
        if len(state.bag) != self._bag_left:  # the player now to act drew the piece their supply gained
            supply, held = state.supplies[to_act], self._supplies[to_act]
            drawn = next(k for k in _KINDS if supply[k] != held[k])
            held[drawn] += 1
            self._in_bag[drawn] -= 1
            self._bag_left -= 1
            view[SUPPLIES + NUM_PIECE_KINDS * to_act + drawn] = _SCALED[drawn][held[drawn]]
            view[BAG + drawn] = _SCALED[drawn][self._in_bag[drawn]]
            view[BAG_SIZE] = self._bag_left / NUM_PIECES
        view[TO_ACT] = to_act == 0
        view[TO_ACT + 1] = to_act == 1

    def _claimed(self, state: WakandaState, slot: int) -> None:
        """A finish on ``slot`` by its new owner: the owner pair, the finisher's headdresses and
        score, the third-headdress mark, and the village revealed (its totem is empty and unowned,
        so only its kind, face and availability change, and its kind is no candidate any more)."""
        view, finisher = self._view, state.owner[slot]
        view[slot * SLOT_BLOCK + OWNED + finisher] = 1.0
        view[HEADDRESSES_LEFT + finisher] = state.headdresses[finisher] / HEADDRESSES
        view[SCORES + finisher] = _SCORE[state.player_score(finisher)]
        if state.third_headdress_first is not None:
            view[THIRD_FIRST + state.third_headdress_first] = 1.0
        for revealed in range(self._revealed, state.revealed):
            block, kind = revealed * SLOT_BLOCK, state.villages[revealed]
            view[block + KIND + kind] = view[block + FACE_UP] = view[block + AVAILABLE] = 1.0
            view[CANDIDATES + kind] = 0.0
        self._revealed = state.revealed

    def observe(self, state: WakandaState, player: int) -> np.ndarray:
        view = self._view if state is self._state else encode(state)
        if type(player) is int:
            if player == 0:
                return view.copy()
            if player == 1:
                return view[_SWAP]
        raise ValueError(f"player must be a seat in 0..{NUM_PLAYERS - 1}, got {shown(player)}")


# --- encoding from scratch (player 0's view) ---------------------------------------------------
def encode(state: WakandaState) -> np.ndarray:
    """Player 0's view of ``state`` as a fresh float32 array."""
    return np.frombuffer(bytearray(_PACK.pack(*player0_view(state))), dtype=np.float32)  # writable


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
        _SCORE[scores[0]],
        _SCORE[scores[1]],
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
        *(map(_LOOKUP, _SCALED, map(totem.count, _KINDS)) if totem else _NO_PIECES),
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
