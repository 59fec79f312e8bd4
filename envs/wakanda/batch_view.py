"""Both players' observations of every game of a :class:`~envs.wakanda.batch.WakandaBatch`, kept up to date.

The layout is the observer's (``observation.py``: seat pairs relative to the viewer). As the
per-game :class:`~envs.wakanda.observation.WakandaObserver` does for one game, :class:`BatchViews`
encodes each game from scratch once (a deal, a loaded position) and is then told explicitly of the
moves the batch played (:meth:`BatchViews.moved`): it rewrites the entries a move can change (the
totem built on; for a finish, the claim, the scores and the village it revealed; the supplies and the
bag, which the draws change; who is to act), each from the batch's arrays as they now are. It keeps a
view per seat, so observing is one gather of rows; it reads the batch's arrays and never writes them.
The work is compiled kernels over the games (``envs.core.compiled``), all in this module (numba's cache
does not notice a change to a kernel of another file). ``tests/test_wakanda_batch.py`` compares every
view with the per-game observer's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.compiled import kernel
from envs.wakanda.actions import FINISH
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
from envs.wakanda.observation import (
    ADVANCED,
    AVAILABLE,
    BAG,
    BAG_SIZE,
    CANDIDATES,
    FACE_UP,
    HEADDRESSES_LEFT,
    HEIGHT_ENTRY,
    KIND,
    OBSERVATION_SIZE,
    OWNED,
    SCORES,
    SLOT_BLOCK,
    SUPPLIES,
    THIRD_FIRST,
    TO_ACT,
    TOTEM,
)

if TYPE_CHECKING:
    from envs.wakanda.batch import WakandaBatch

#: Pieces of each kind, as the divisor of every count the observation scales (n / count, as the observer).
COUNTS = np.array(PIECE_COUNTS, dtype=np.float64)
SCORE_RANGE = MAX_SCORE - MIN_SCORE  # the observer's scaled_score: (score - MIN_SCORE) / SCORE_RANGE


class BatchViews:
    """``views[i, q]``: game i as seat q sees it (float32), for every game of one batch."""

    def __init__(self, batch: WakandaBatch):
        self.views = np.zeros((batch.num_games, NUM_PLAYERS, OBSERVATION_SIZE), dtype=np.float32)
        self.encode(batch, np.arange(batch.num_games))

    def observe(self, players: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """``(N, 150)``: game i as ``players[i]`` sees it (a fresh array); only the games ``rows`` when given."""
        rows = np.arange(len(players)) if rows is None else rows
        return self.views.reshape(-1, OBSERVATION_SIZE)[NUM_PLAYERS * rows + players[rows]]

    def encode(self, batch: WakandaBatch, rows: np.ndarray) -> None:
        """Both views of the games ``rows``, from scratch."""
        encode(self.views, batch.games, rows, batch.game.advanced)

    def moved(self, batch: WakandaBatch, actions: np.ndarray, moving: np.ndarray) -> None:
        """The batch has played ``actions[i]`` in the games ``moving``."""
        after_moves(self.views, batch.games, actions, moving, batch.game.advanced)


# --- the entries, from the batch's arrays (each helper takes the arrays it reads: see batch_rules.py) -------
@kernel
def _both(views, i, entry, value):
    """An entry both seats see alike."""
    views[i, 0, entry] = value
    views[i, 1, entry] = value


@kernel
def _seat(views, i, seat, entry, value, width):
    """An entry of a seat pair: seat 0's view has ``seat``'s at ``entry + width * seat``, seat 1's view at
    ``entry + width * (1 - seat)`` (the viewer first)."""
    views[i, 0, entry + width * seat] = value
    views[i, 1, entry + width * (1 - seat)] = value


@kernel
def _village(views, villages, revealed, i, slot, advanced):
    """The village on ``slot``: its kind (while face up), face and availability."""
    block = slot * SLOT_BLOCK
    available = slot < revealed[i]
    face_up = available or not advanced
    for kind in range(NUM_VILLAGE_KINDS):
        _both(views, i, block + KIND + kind, 1.0 if face_up and villages[i, slot] == kind else 0.0)
    _both(views, i, block + FACE_UP, 1.0 if face_up else 0.0)
    _both(views, i, block + AVAILABLE, 1.0 if available else 0.0)


@kernel
def _totem(views, totem_counts, heights, i, slot):
    """The totem on ``slot``: its pieces per kind and its height."""
    block = slot * SLOT_BLOCK
    for kind in range(NUM_PIECE_KINDS):
        _both(views, i, block + TOTEM + kind, totem_counts[i, slot, kind] / COUNTS[kind])
    _both(views, i, block + HEIGHT_ENTRY, heights[i, slot] / NUM_PIECES)


@kernel
def _owner(views, owner, i, slot):
    """Who owns ``slot``'s village (a seat pair)."""
    for seat in range(NUM_PLAYERS):
        _seat(views, i, seat, slot * SLOT_BLOCK + OWNED, 1.0 if owner[i, slot] == seat else 0.0, 1)


@kernel
def _supplies_and_bag(views, supplies, bag_counts, next_draw, i):
    """Both supplies, the bag's contents per kind and its size (what draws and builds change)."""
    for seat in range(NUM_PLAYERS):
        for kind in range(NUM_PIECE_KINDS):
            _seat(views, i, seat, SUPPLIES + kind, supplies[i, seat, kind] / COUNTS[kind], NUM_PIECE_KINDS)
    for kind in range(NUM_PIECE_KINDS):
        _both(views, i, BAG + kind, bag_counts[i, kind] / COUNTS[kind])
    _both(views, i, BAG_SIZE, (NUM_PIECES - next_draw[i]) / NUM_PIECES)


@kernel
def _claims(views, headdresses, score, third_first, i):
    """What finishes change besides the village: headdresses left, scores, the third-headdress mark."""
    for seat in range(NUM_PLAYERS):
        _seat(views, i, seat, HEADDRESSES_LEFT, headdresses[i, seat] / HEADDRESSES, 1)
        _seat(views, i, seat, SCORES, (score[i, seat] - MIN_SCORE) / SCORE_RANGE, 1)
        _seat(views, i, seat, THIRD_FIRST, 1.0 if third_first[i] == seat else 0.0, 1)


@kernel
def _candidates(views, villages, revealed, i, advanced):
    """The village kinds not visible in the line (the face-down and boxed villages are among them)."""
    for kind in range(NUM_VILLAGE_KINDS):
        seen = False
        for slot in range(NUM_SLOTS):
            seen |= (slot < revealed[i] or not advanced) and villages[i, slot] == kind
        _both(views, i, CANDIDATES + kind, 0.0 if seen else 1.0)


@kernel
def _to_act(views, player, i):
    """Who is to act (both 0 once the game is over)."""
    for seat in range(NUM_PLAYERS):
        _seat(views, i, seat, TO_ACT, 1.0 if player[i] == seat else 0.0, 1)


# --- the entry kernels --------------------------------------------------------------------------------------
@kernel
def encode(views, g, rows, advanced):
    """Both views of the games ``rows``, every entry."""
    player, villages, revealed, owner, totem_counts, heights = (
        g.player, g.villages, g.revealed, g.owner, g.totem_counts, g.heights
    )  # fmt: skip
    supplies, bag_counts, next_draw, headdresses, score, third_first = (
        g.supplies, g.bag_counts, g.next_draw, g.headdresses, g.score, g.third_first
    )  # fmt: skip
    for i in rows:
        for slot in range(NUM_SLOTS):
            _village(views, villages, revealed, i, slot, advanced)
            _totem(views, totem_counts, heights, i, slot)
            _owner(views, owner, i, slot)
        _supplies_and_bag(views, supplies, bag_counts, next_draw, i)
        _claims(views, headdresses, score, third_first, i)
        _candidates(views, villages, revealed, i, advanced)
        _to_act(views, player, i)
        _both(views, i, ADVANCED, 1.0 if advanced else 0.0)


@kernel
def after_moves(views, g, actions, moving, advanced):
    """The entries each game ``moving`` changed in playing ``actions[i]``: a build's totem, or a finish's
    claim, scores and revealed village (rewritten even where none was revealed: the same values); then the
    draws' supplies and bag, and who is to act."""
    player, villages, revealed, owner, totem_counts, heights = (
        g.player, g.villages, g.revealed, g.owner, g.totem_counts, g.heights
    )  # fmt: skip
    supplies, bag_counts, next_draw, headdresses, score, third_first = (
        g.supplies, g.bag_counts, g.next_draw, g.headdresses, g.score, g.third_first
    )  # fmt: skip
    for i in range(len(moving)):
        if not moving[i]:
            continue
        slot = actions[i] % NUM_SLOTS
        if actions[i] < FINISH:  # _totem, written out as the rest of a move's entries (a call passing arrays
            block = slot * SLOT_BLOCK  # costs their reference counts: twice the work, measured)
            for kind in range(NUM_PIECE_KINDS):
                views[i, 0, block + TOTEM + kind] = views[i, 1, block + TOTEM + kind] = (
                    totem_counts[i, slot, kind] / COUNTS[kind]
                )
            views[i, 0, block + HEIGHT_ENTRY] = views[i, 1, block + HEIGHT_ENTRY] = heights[i, slot] / NUM_PIECES
        else:
            _owner(views, owner, i, slot)
            _claims(views, headdresses, score, third_first, i)
            _village(views, villages, revealed, i, revealed[i] - 1, advanced)
            _candidates(views, villages, revealed, i, advanced)
        for seat in range(NUM_PLAYERS):  # _supplies_and_bag and _to_act: the viewer's seat first
            for kind in range(NUM_PIECE_KINDS):
                held = supplies[i, seat, kind] / COUNTS[kind]
                views[i, 0, SUPPLIES + NUM_PIECE_KINDS * seat + kind] = held
                views[i, 1, SUPPLIES + NUM_PIECE_KINDS * (1 - seat) + kind] = held
            to_act = 1.0 if player[i] == seat else 0.0
            views[i, 0, TO_ACT + seat] = to_act
            views[i, 1, TO_ACT + 1 - seat] = to_act
        for kind in range(NUM_PIECE_KINDS):
            views[i, 0, BAG + kind] = views[i, 1, BAG + kind] = bag_counts[i, kind] / COUNTS[kind]
        views[i, 0, BAG_SIZE] = views[i, 1, BAG_SIZE] = (NUM_PIECES - next_draw[i]) / NUM_PIECES
