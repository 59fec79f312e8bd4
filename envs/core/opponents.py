"""The built-in opponents of the batched environments: a move for every game of a batch at once.

A batch opponent is any callable ``opponent(batch, where, rng) -> actions``: given a
:class:`~envs.core.batch.BatchGames`, the games it is to move in (``where``, a ``(N,)`` bool; in
each the player to act is one it plays) and a generator, an int vector of N with a legal action
for the player to act in each of those games (the other entries are ignored). The single-agent
vector env (:mod:`envs.core.vector`) asks it for the games where an opponent is to act.

Why the heuristic is found by name here and never imported at module import: ``envs`` knows
nothing of the agents (DESIGN, "Homes"). A game's heuristic is the module ``agents.heuristic.<game
name>`` (``agents.heuristic.heuristic_module``); :func:`batch_opponent` imports it by that name only
when someone asks for ``"heuristic"``. Any other player comes in as a callable.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from envs.core.batch import BatchGames, batch_class
from envs.core.engine import Game, shown

#: An opponent of a batch: ``opponent(batch, where, rng) -> (N,) actions`` (see the module docstring).
BatchOpponent = Callable[[BatchGames, np.ndarray, np.random.Generator], np.ndarray]
BUILT_IN = ("random", "heuristic")


def random_moves(batch: BatchGames, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action in every game of ``where`` (0 elsewhere): the k-th legal action, k
    drawn uniformly. One draw per game (not per action: Samurai has hundreds of actions), whether or not
    it moves, so that the moves depend on the generator only, not on ``where``. The legal actions of all the
    games are listed once (``flatnonzero``, in game then action order), and game i's k-th is read at its offset:
    a running count over every action of every game was most of Samurai's random step."""
    mask = batch.legal_mask_where(where)  # only the games it moves in: an engine may compute just those
    legal = mask.sum(axis=1)
    k = (rng.random(len(mask)) * legal).astype(np.int64)  # 0 <= k < legal
    actions = np.flatnonzero(mask) % mask.shape[1]  # 2-d nonzero was 6x slower
    if not actions.size:
        return np.zeros(len(mask), dtype=np.int64)
    chosen = actions[np.minimum(np.cumsum(legal) - legal + k, actions.size - 1)]  # the (k+1)-th legal action
    return np.where(legal > 0, chosen, 0).astype(np.int64)


def batch_opponent(opponent: str | BatchOpponent, game: Game) -> BatchOpponent:
    """The opponent ``opponent`` names (``"random"``, ``"heuristic"``) or the callable itself.

    ``"heuristic"`` is the game's hand-written strategy: its module's ``batch_policy(batch)`` where it has
    one and the batch is the engine it reads (the game's fast engine), else the per-game ``policy`` on a
    determinization drawn for the player to act (so it reads only what that player may see), game by game.
    """
    if callable(opponent):
        return opponent
    if opponent == "random":
        return random_moves
    if opponent == "heuristic":
        return _heuristic(game)
    raise ValueError(
        f"opponents must be one of {list(BUILT_IN)} or a callable (batch, where, rng) -> actions, got {shown(opponent)}"
    )


def _heuristic(game: Game) -> BatchOpponent:
    module = importlib.import_module(f"agents.heuristic.{game.name}")  # by name: see the module docstring
    fast = batch_class(game)
    batch_policy = getattr(module, "batch_policy", None)
    policy = module.policy

    def heuristic(batch: BatchGames, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if batch_policy is not None and type(batch) is fast:
            return batch_policy(batch)
        players = batch.current_player
        moves = np.zeros(len(batch), dtype=np.int64)
        for i in np.flatnonzero(where & (players >= 0)):
            moves[i] = policy(batch.state(int(i)).determinize(int(players[i]), rng))
        return moves

    return heuristic


__all__ = ["BUILT_IN", "BatchOpponent", "batch_opponent", "random_moves"]
