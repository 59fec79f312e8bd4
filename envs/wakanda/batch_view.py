"""Both players' observations of every game of a :class:`~envs.wakanda.batch.WakandaBatch`, kept up to date.

The layout is the observer's (``observation.py``: seat pairs relative to the viewer). As the
per-game :class:`~envs.wakanda.observation.WakandaObserver` does for one game, :class:`BatchViews`
encodes each game from scratch once (a deal, a loaded position) and is then told of every change
explicitly by the batch: a build, a finish (with the village it revealed), a draw, the next player.
It keeps a view per seat, so observing is one gather of rows; it reads the batch's arrays and never
writes them. ``tests/test_wakanda_batch.py`` compares every view with the per-game observer's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.wakanda import components
from envs.wakanda.components import (
    NUM_PIECE_KINDS,
    NUM_PIECES,
    NUM_PLAYERS,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
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

#: Pieces of each kind, as the divisor of every count the observation scales (n / count, as the observer).
COUNTS = np.array(components.PIECE_COUNTS, dtype=np.float64)
_ROW = NUM_PLAYERS * OBSERVATION_SIZE  # one game's two views, in the flat array


class BatchViews:
    """``views[i, q]``: game i as seat q sees it (float32), for every game of one batch."""

    def __init__(self, batch: WakandaBatch):
        self.views = np.zeros((batch.num_games, NUM_PLAYERS, OBSERVATION_SIZE), dtype=np.float32)
        self._flat = self.views.reshape(-1)
        self.encode(batch, np.arange(batch.num_games))

    def observe(self, players: np.ndarray) -> np.ndarray:
        """``(N, 150)``: game i as ``players[i]`` sees it (a fresh array)."""
        return self.views.reshape(-1, OBSERVATION_SIZE)[NUM_PLAYERS * np.arange(len(players)) + players]

    # --- the changes the batch tells of -------------------------------------------------------
    def built(self, batch: WakandaBatch, rows, mover, kind, slot) -> None:
        """A piece of ``kind`` from the mover's supply onto ``slot``: its count and height, their supply."""
        on = rows * NUM_SLOTS + slot
        block = slot * SLOT_BLOCK
        count = batch.totem_counts.reshape(-1)[on * NUM_PIECE_KINDS + kind]
        self._both(rows, block + TOTEM + kind, count / COUNTS[kind])
        self._both(rows, block + HEIGHT_ENTRY, batch.heights.reshape(-1)[on] / NUM_PIECES)
        held = batch.supplies.reshape(-1)[(rows * NUM_PLAYERS + mover) * NUM_PIECE_KINDS + kind]
        self._seat(rows, mover, SUPPLIES + kind, held / COUNTS[kind], NUM_PIECE_KINDS)

    def claimed(self, batch: WakandaBatch, rows, mover, slot, tilted) -> None:
        """A finish on ``slot``: its owner, the finisher's headdresses, the scores, the third-headdress mark;
        in ``tilted`` games the village revealed (its kind, face and availability; no longer a candidate)."""
        self._seat(rows, mover, slot * SLOT_BLOCK + OWNED, 1.0)
        self._seat(rows, mover, HEADDRESSES_LEFT, batch.headdresses[rows, mover] / components.HEADDRESSES)
        for seat in range(NUM_PLAYERS):
            self._seat(rows, seat, SCORES, scaled_score(batch.score[rows, seat]))
        third = rows[batch.third_first[rows] >= 0]
        self._seat(third, batch.third_first[third], THIRD_FIRST, 1.0)
        revealed = batch.revealed[tilted] - 1
        kind = batch.villages[tilted, revealed]
        block = revealed * SLOT_BLOCK
        for entry in (block + KIND + kind, block + FACE_UP, block + AVAILABLE):
            self._both(tilted, entry, 1.0)
        self._both(tilted, CANDIDATES + kind, 0.0)

    def drew(self, batch: WakandaBatch, rows, player, piece) -> None:
        """``player`` drew ``piece``: their supply of it, the bag's contents of it, the bag's size."""
        held = batch.supplies.reshape(-1)[(rows * NUM_PLAYERS + player) * NUM_PIECE_KINDS + piece]
        self._seat(rows, player, SUPPLIES + piece, held / COUNTS[piece], NUM_PIECE_KINDS)
        in_bag = batch.bag_counts.reshape(-1)[rows * NUM_PIECE_KINDS + piece]
        self._both(rows, BAG + piece, in_bag / COUNTS[piece])
        self._both(rows, BAG_SIZE, (NUM_PIECES - batch.next_draw[rows]) / NUM_PIECES)

    def turned(self, batch: WakandaBatch) -> None:
        """Who is to act, in every game (both 0 once a game is over)."""
        for viewer in range(NUM_PLAYERS):
            for seat in range(NUM_PLAYERS):
                self.views[:, viewer, TO_ACT + seat] = batch.player == (viewer + seat) % NUM_PLAYERS

    def _both(self, rows, entry, value) -> None:
        """An entry both seats see alike."""
        at = rows * _ROW + entry
        self._flat[at] = value
        self._flat[at + OBSERVATION_SIZE] = value

    def _seat(self, rows, seat, entry, value, width: int = 1) -> None:
        """An entry of a seat pair: seat 0's view has ``seat``'s at ``entry + width * seat``, seat 1's
        view at ``entry + width * (1 - seat)`` (the viewer first)."""
        at = rows * _ROW + entry
        self._flat[at + width * seat] = value
        self._flat[at + OBSERVATION_SIZE + width * (1 - seat)] = value

    # --- from scratch ---------------------------------------------------------------------------
    def encode(self, batch: WakandaBatch, rows: np.ndarray) -> None:
        """Both views of the games ``rows``, from scratch."""
        for viewer in range(NUM_PLAYERS):
            self.views[rows, viewer] = _encode(batch, rows, np.array([viewer, 1 - viewer]))


def _encode(batch: WakandaBatch, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The games ``rows`` as the viewer ``seats[0]`` sees them (``seats``: the viewer, then the other)."""
    m = len(rows)
    out = np.zeros((m, OBSERVATION_SIZE), dtype=np.float32)
    available = np.arange(NUM_SLOTS) < batch.revealed[rows, None]
    face_up = available | (not batch.game.advanced)
    villages = batch.villages[rows]
    blocks = out[:, : NUM_SLOTS * SLOT_BLOCK].reshape(m, NUM_SLOTS, SLOT_BLOCK)
    blocks[:, :, KIND : KIND + NUM_VILLAGE_KINDS] = (villages[:, :, None] == np.arange(NUM_VILLAGE_KINDS)) & face_up[
        :, :, None
    ]
    blocks[:, :, FACE_UP] = face_up
    blocks[:, :, AVAILABLE] = available
    blocks[:, :, TOTEM : TOTEM + NUM_PIECE_KINDS] = batch.totem_counts[rows] / COUNTS
    blocks[:, :, HEIGHT_ENTRY] = batch.heights[rows] / NUM_PIECES
    blocks[:, :, OWNED : OWNED + NUM_PLAYERS] = batch.owner[rows, :, None] == seats
    out[:, SUPPLIES : SUPPLIES + NUM_PLAYERS * NUM_PIECE_KINDS] = (batch.supplies[rows][:, seats] / COUNTS).reshape(
        m, -1
    )
    out[:, HEADDRESSES_LEFT : HEADDRESSES_LEFT + NUM_PLAYERS] = (
        batch.headdresses[rows][:, seats] / components.HEADDRESSES
    )
    out[:, BAG : BAG + NUM_PIECE_KINDS] = batch.bag_counts[rows] / COUNTS
    out[:, BAG_SIZE] = (NUM_PIECES - batch.next_draw[rows]) / NUM_PIECES
    out[:, THIRD_FIRST : THIRD_FIRST + NUM_PLAYERS] = batch.third_first[rows, None] == seats
    seen = np.zeros((m, NUM_VILLAGE_KINDS), dtype=bool)
    seen[np.broadcast_to(np.arange(m)[:, None], face_up.shape)[face_up], villages[face_up]] = True
    out[:, CANDIDATES : CANDIDATES + NUM_VILLAGE_KINDS] = ~seen
    out[:, SCORES : SCORES + NUM_PLAYERS] = scaled_score(batch.score[rows][:, seats])
    out[:, TO_ACT : TO_ACT + NUM_PLAYERS] = batch.player[rows, None] == seats
    out[:, ADVANCED] = batch.game.advanced
    return out
