"""A uniformly random legal action from one draw: the k-th legal action, k = floor(draw * legal count).

Why its own module: the random opponents (``envs.core.opponents``), the learner's sampler in the benchmarks
and an engine's fused random move (:meth:`envs.core.batch.BatchGames.play_kth_legal`) must all pick the very
same action from the same draw, so the choice is written once, here, below both the protocol and the opponents.
"""

from __future__ import annotations

import numpy as np

from envs.core.compiled import kernel


@kernel
def kth_in_row(row: np.ndarray, draw: float) -> int:
    """The k-th True of one mask row for k = floor(draw * its count of True), or -1 where none is True. The count
    is a plain sum (vectorised by the compiler) and a row without a legal action is not scanned again: rows of the
    games that do not move are all False."""
    legal = 0
    for action in range(row.shape[0]):
        legal += row[action]
    if legal == 0:
        return -1
    k = np.int64(draw * legal)  # 0 <= k < legal
    for action in range(row.shape[0]):
        if row[action]:
            if k == 0:
                return action
            k -= 1
    return -1  # not reached: k < legal


@kernel
def kth_legal(mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """In each row of ``mask``, the k-th legal action for k = floor(draw * legal count) (0 where none is legal).
    One pass over each row in machine code: the numpy version (a running count over every action of every game)
    was most of Samurai's random step."""
    actions = np.zeros(mask.shape[0], dtype=np.int64)
    for game in range(mask.shape[0]):
        actions[game] = max(kth_in_row(mask[game], draws[game]), 0)
    return actions


__all__ = ["kth_in_row", "kth_legal"]
