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
    scaled_score,
)

if TYPE_CHECKING:
    from envs.wakanda.batch import WakandaBatch

#: The observer's scaled values as float32 tables (a lookup, not a division, as the observer's own ``_SCALED``):
#: ``SCALED[kind, n]`` n pieces of a kind over its count, ``OF_ALL[n]`` n pieces over all 21, ``SCORE[s + 6]``.
SCALED = np.array([[n / count for n in range(max(PIECE_COUNTS) + 1)] for count in PIECE_COUNTS], dtype=np.float32)
OF_ALL = np.array([n / NUM_PIECES for n in range(NUM_PIECES + 1)], dtype=np.float32)
SCORE = np.array([scaled_score(s) for s in range(MIN_SCORE, MAX_SCORE + 1)], dtype=np.float32)


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
# An entry both seats see alike is written in both views at once; an entry of a seat pair is at ``entry + seat`` in
# seat 0's view and at ``entry + 1 - seat`` in seat 1's (the viewer first; a pair of blocks of ``width``: likewise).
@kernel
def _village(views, villages, revealed, i, slot, advanced):
    """The village on ``slot``: its kind (while face up), face and availability."""
    block = slot * SLOT_BLOCK
    available = slot < revealed[i]
    face_up = available or not advanced
    for kind in range(NUM_VILLAGE_KINDS):
        entry = block + KIND + kind
        views[i, 0, entry] = views[i, 1, entry] = 1.0 if face_up and villages[i, slot] == kind else 0.0
    views[i, 0, block + FACE_UP] = views[i, 1, block + FACE_UP] = 1.0 if face_up else 0.0
    views[i, 0, block + AVAILABLE] = views[i, 1, block + AVAILABLE] = 1.0 if available else 0.0


@kernel
def _totem(views, totem_counts, heights, i, slot):
    """The totem on ``slot``: its pieces per kind and its height."""
    block = slot * SLOT_BLOCK
    for kind in range(NUM_PIECE_KINDS):
        entry = block + TOTEM + kind
        views[i, 0, entry] = views[i, 1, entry] = SCALED[kind, totem_counts[i, slot, kind]]
    views[i, 0, block + HEIGHT_ENTRY] = views[i, 1, block + HEIGHT_ENTRY] = OF_ALL[heights[i, slot]]


@kernel
def _owner(views, owner, i, slot):
    """Who owns ``slot``'s village (a seat pair)."""
    entry = slot * SLOT_BLOCK + OWNED
    for seat in range(NUM_PLAYERS):
        views[i, 0, entry + seat] = views[i, 1, entry + 1 - seat] = 1.0 if owner[i, slot] == seat else 0.0


@kernel
def _supplies_and_bag(views, supplies, bag_counts, next_draw, i):
    """Both supplies, the bag's contents per kind and its size (what draws and builds change)."""
    for kind in range(NUM_PIECE_KINDS):
        for seat in range(NUM_PLAYERS):
            entry, other = SUPPLIES + kind + NUM_PIECE_KINDS * seat, SUPPLIES + kind + NUM_PIECE_KINDS * (1 - seat)
            views[i, 0, entry] = views[i, 1, other] = SCALED[kind, supplies[i, seat, kind]]
        views[i, 0, BAG + kind] = views[i, 1, BAG + kind] = SCALED[kind, bag_counts[i, kind]]
    views[i, 0, BAG_SIZE] = views[i, 1, BAG_SIZE] = OF_ALL[NUM_PIECES - next_draw[i]]


@kernel
def _claims(views, headdresses, score, third_first, i):
    """What finishes change besides the village: headdresses left, scores, the third-headdress mark."""
    for seat in range(NUM_PLAYERS):
        other = 1 - seat
        views[i, 0, HEADDRESSES_LEFT + seat] = views[i, 1, HEADDRESSES_LEFT + other] = (
            headdresses[i, seat] / HEADDRESSES
        )
        views[i, 0, SCORES + seat] = views[i, 1, SCORES + other] = SCORE[score[i, seat] - MIN_SCORE]
        views[i, 0, THIRD_FIRST + seat] = views[i, 1, THIRD_FIRST + other] = 1.0 if third_first[i] == seat else 0.0


@kernel
def _candidates(views, villages, revealed, i, advanced):
    """The village kinds not visible in the line (the face-down and boxed villages are among them)."""
    for kind in range(NUM_VILLAGE_KINDS):
        seen = False
        for slot in range(NUM_SLOTS):
            seen |= (slot < revealed[i] or not advanced) and villages[i, slot] == kind
        views[i, 0, CANDIDATES + kind] = views[i, 1, CANDIDATES + kind] = 0.0 if seen else 1.0


@kernel
def _to_act(views, player, i):
    """Who is to act (both 0 once the game is over)."""
    for seat in range(NUM_PLAYERS):
        views[i, 0, TO_ACT + seat] = views[i, 1, TO_ACT + 1 - seat] = 1.0 if player[i] == seat else 0.0


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
        views[i, 0, ADVANCED] = views[i, 1, ADVANCED] = 1.0 if advanced else 0.0


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
        if actions[i] < FINISH:
            _totem(views, totem_counts, heights, i, slot)
        else:
            _owner(views, owner, i, slot)
            _claims(views, headdresses, score, third_first, i)
            _village(views, villages, revealed, i, revealed[i] - 1, advanced)
            _candidates(views, villages, revealed, i, advanced)
        _supplies_and_bag(views, supplies, bag_counts, next_draw, i)
        _to_act(views, player, i)
