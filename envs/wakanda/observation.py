"""Wakanda observation encoder: what one player may see, seats relative to the observer.

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
kinds lie face down or in the box: only the candidates are shown. The
offsets are the constants below; ``tests/test_wakanda_env.py`` checks this
table against them.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import numpy as np

from envs.wakanda.components import HEADDRESSES, NUM_PIECE_KINDS, NUM_PIECES, NUM_SLOTS, NUM_VILLAGE_KINDS, PIECE_COUNTS

if TYPE_CHECKING:
    from envs.wakanda.rules import WakandaState

MIN_SCORE = -6  # six suns, sun village not owned
MAX_SCORE = 66  # bound: height (2 x 21) + two villages of at most 12
SLOT_BLOCK = NUM_VILLAGE_KINDS + 4 + NUM_PIECE_KINDS + 1

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
_OWNER_BITS = {None: ((0.0, 0.0), (0.0, 0.0)), 0: ((1.0, 0.0), (0.0, 1.0)), 1: ((0.0, 1.0), (1.0, 0.0))}
_SCORE = {s: (s - MIN_SCORE) / (MAX_SCORE - MIN_SCORE) for s in range(MIN_SCORE, MAX_SCORE + 1)}
_PACK = struct.Struct(f"{OBSERVATION_SIZE}f")  # list -> float32 bytes, twice as fast as np.array(list)


def slot_block(state: WakandaState, slot: int) -> tuple[float, ...]:
    """The observer-independent part of a slot's block (all but the two owner entries).

    States memoise it per slot (``_slot_obs``) and drop it when the slot changes: a
    build changes one slot, a finish reveals at most one.
    """
    available = slot < state.revealed
    face_up = available or not state.game.advanced
    totem = state.totems[slot]
    return (
        *(_ONE_HOT[state.villages[slot]] if face_up else _HIDDEN),
        _FLAG[face_up],
        _FLAG[available],
        *map(_LOOKUP, _SCALED, map(totem.count, _KINDS)),
        len(totem) / NUM_PIECES,
    )


def _swap_seats() -> np.ndarray:
    """Indices that turn player 0's view into player 1's: every seat pair swapped."""
    index = np.arange(OBSERVATION_SIZE)
    pairs = [(v * SLOT_BLOCK + SLOT_BLOCK - 2, 1) for v in range(NUM_SLOTS)]  # owned by me / by them
    pairs += [(SUPPLIES, NUM_PIECE_KINDS), (HEADDRESSES_LEFT, 1), (THIRD_FIRST, 1), (SCORES, 1), (TO_ACT, 1)]
    for start, width in pairs:
        first, second = range(start, start + width), range(start + width, start + 2 * width)
        index[list(first) + list(second)] = list(second) + list(first)
    return index


_SWAP = _swap_seats()


def encode(state: WakandaState, observer: int) -> np.ndarray:
    """The observation of ``observer``: a fresh float32 vector of OBSERVATION_SIZE.

    The state keeps player 0's view (``state.public``, refreshed after each move
    by :func:`refresh`); player 1's is the same vector with the seat pairs swapped.
    """
    if state.public is None:
        state.public = public_vector(state)
    vector = np.frombuffer(bytearray(_PACK.pack(*state.public)), dtype=np.float32)  # writable, fresh buffer
    return vector if observer == 0 else vector[_SWAP]


def public_vector(state: WakandaState) -> list[float]:
    """Player 0's view: every slot block, then the tail."""
    out: list[float] = []
    for slot in range(NUM_SLOTS):
        out += slot_entries(state, slot)
    return out + tail(state)


def refresh(state: WakandaState, slots: tuple[int, ...], finished: bool) -> None:
    """Bring ``state.public`` up to date after a move that changed ``slots``. Only a
    finish changes headdresses, candidates and scores; every move changes a supply,
    the bag (the next draw) and who is to act."""
    public = state.public
    for slot in slots:
        public[slot * SLOT_BLOCK:(slot + 1) * SLOT_BLOCK] = slot_entries(state, slot)
    if finished:
        public[SUPPLIES:] = tail(state)
    else:
        public[SUPPLIES:HEADDRESSES_LEFT] = supplies_part(state)
        public[BAG:THIRD_FIRST] = bag_part(state)
        public[TO_ACT:ADVANCED] = to_act_part(state)


def slot_entries(state: WakandaState, slot: int) -> list[float]:
    """A slot's whole block as player 0 sees it (the shared part memoised per slot)."""
    block = state._slot_obs[slot]
    if block is None:
        block = state._slot_obs[slot] = slot_block(state, slot)
    return [*block, *_OWNER_BITS[state.owner[slot]][0]]


def tail(state: WakandaState) -> list[float]:
    """Everything after the slots, as player 0 sees it."""
    first = state.third_headdress_first
    candidates = [1.0] * NUM_VILLAGE_KINDS
    villages = state.villages
    for slot in range(state.revealed if state.game.advanced else NUM_SLOTS):
        candidates[villages[slot]] = 0.0
    scores = state.int_scores()
    return [
        *supplies_part(state),
        state.headdresses[0] / HEADDRESSES, state.headdresses[1] / HEADDRESSES,
        *bag_part(state),
        _FLAG[first == 0], _FLAG[first == 1],
        *candidates,
        _SCORE[scores[0]], _SCORE[scores[1]],
        *to_act_part(state),
        _FLAG[state.game.advanced],
    ]


def supplies_part(state: WakandaState) -> list[float]:
    return [*map(_LOOKUP, _SCALED, state.supplies[0]), *map(_LOOKUP, _SCALED, state.supplies[1])]


def bag_part(state: WakandaState) -> list[float]:
    bag = state.bag
    return [*map(_LOOKUP, _SCALED, map(bag.count, _KINDS)), len(bag) / NUM_PIECES]


def to_act_part(state: WakandaState) -> tuple[float, float]:
    return _FLAG[state.current_player == 0], _FLAG[state.current_player == 1]
