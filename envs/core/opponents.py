"""What an opponent of the batched environments is, and the one they play by default: random moves.

A batch opponent is any callable ``opponent(batch, where, rng) -> actions``: given a
:class:`~envs.core.batch.BatchGames`, the games it is to move in (``where``, a ``(N,)`` bool; in
each the player to act is one it plays) and a generator, an int vector of N with a legal action
for the player to act in each of those games (the other entries are ignored). The single-agent
vector env (:mod:`envs.core.vector`) asks it for the games where an opponent is to act.

Why only random moves here: ``envs`` knows nothing of the players (docs/architecture.md). A player
comes in as a callable, made by the players' home of opponents: ``agents.opponents.batch_opponent(
"heuristic", game)`` is the game's heuristic for a whole batch.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envs.core.batch import BatchGames
from envs.core.engine import shown
from envs.core.uniform import kth_legal

#: An opponent of a batch: ``opponent(batch, where, rng) -> (N,) actions`` (see the module docstring).
BatchOpponent = Callable[[BatchGames, np.ndarray, np.random.Generator], np.ndarray]
BUILT_IN = ("random",)


def random_moves(batch: BatchGames, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action in every game of ``where`` (0 elsewhere): the k-th legal action, k
    drawn uniformly. One draw per game (not per action: Samurai has hundreds of actions), whether or not
    it moves, so that the moves depend on the generator only, not on ``where``."""
    mask = batch.legal_mask_where(where)  # only the games it moves in: an engine may compute just those
    return kth_legal(np.ascontiguousarray(mask, dtype=bool), rng.random(len(mask)))


def batch_opponent(opponent: str | BatchOpponent) -> BatchOpponent:
    """``"random"`` (:func:`random_moves`) or the callable itself; a player by name is the agents'
    (``agents.opponents.batch_opponent``), never found from here."""
    if callable(opponent):
        return opponent
    if opponent == "random":
        return random_moves
    raise ValueError(
        f"opponents must be one of {list(BUILT_IN)} or a callable (batch, where, rng) -> actions (a player: "
        f"agents.opponents.batch_opponent('heuristic', game)), got {shown(opponent)}"
    )


__all__ = ["BUILT_IN", "BatchOpponent", "batch_opponent", "kth_legal", "random_moves"]
