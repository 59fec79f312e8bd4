"""The one home of opponents: a player of the project as the opponent an environment is given.

An environment knows no player (``envs`` imports no other package: docs/architecture.md); it takes its
opponents as callables. This module makes them from players:

- :func:`make_opponent`: any agent ``make_agent`` knows, as an opponent of one game
  (``opponent(state, player) -> action``, moving through its own :class:`~agents.protocol.PlayerView`);
  training's members make one per game slot, each with the slot's own view generator (``rng``);
- :func:`batch_opponent`: ``"random"``, ``"heuristic"`` or a callable, as an opponent of a batch of games
  (``opponent(batch, where, rng) -> actions``, :data:`envs.core.opponents.BatchOpponent`), for the vector
  env: ``envs.wapi_v0.vector_env(n, opponents=batch_opponent("heuristic", game))``;
- :func:`heuristic_batch_policy`: the heuristic's one numpy pass over a batch of the game's fast engine,
  which both the vector env's heuristic and training's heuristic member play.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents import make_agent
from agents.heuristic import heuristic_module
from agents.protocol import Agent, PlayerView
from envs.core.batch import BatchGames, batch_class
from envs.core.engine import Game, GameState
from envs.core.opponents import BatchOpponent
from envs.core.opponents import batch_opponent as envs_batch_opponent


class AgentOpponent:
    """An agent of the agent protocol as an opponent callable: it moves through its own
    :class:`~agents.protocol.PlayerView` (built with this opponent's generator: ``rng``, else one
    seeded with ``seed``), so it cannot read the true hidden state."""

    def __init__(self, agent: Agent, seed: int | None = None, rng: np.random.Generator | None = None):
        self.agent = agent
        self.rng = np.random.default_rng(seed) if rng is None else rng

    def reset(self) -> None:
        self.agent.reset()

    def __call__(self, state: GameState, player: int) -> int:
        return int(self.agent.act(PlayerView(state, self.rng)))


def make_opponent(
    name: str, game: Game, seed: int | None = None, rng: np.random.Generator | None = None
) -> AgentOpponent:
    """An opponent callable of the agent ``name`` (any name ``agents.make_agent`` knows), seeded with
    ``seed``; its views drawn with ``rng`` where given (a stream of the caller's: training keeps one per
    game slot, so that a split of the slots over processes changes no game), else with ``seed``."""
    return AgentOpponent(make_agent(name, game=game, seed=seed), seed, rng)


def heuristic_batch_policy(game: Game) -> Callable[[BatchGames, np.ndarray], np.ndarray | None]:
    """``moves(batch, where)``: the game's heuristic over the games ``where`` of the batch in one pass (its
    module's ``batch_policy``, the same moves as the per-game strategy) where the module has one and ``batch``
    is the game's fast engine, the engine it reads; else None, and the caller plays the heuristic game by game."""
    batch_policy = getattr(heuristic_module(game), "batch_policy", None)
    fast = batch_class(game)

    def moves(batch: BatchGames, where: np.ndarray) -> np.ndarray | None:
        return batch_policy(batch, where) if batch_policy is not None and type(batch) is fast else None

    return moves


def batch_opponent(opponent: str | BatchOpponent, game: Game) -> BatchOpponent:
    """The batch opponent ``opponent`` names (``"random"``, ``"heuristic"``) or the callable itself.

    ``"heuristic"`` is the game's hand-written strategy: its module's ``batch_policy(batch)`` where it has
    one and the batch is the engine it reads (the game's fast engine), else the per-game ``policy`` on a
    determinization drawn for the player to act (so it reads only what that player may see), game by game.
    The rest (``"random"``, a callable, a refusal) is the environments' :func:`envs.core.opponents.batch_opponent`.
    """
    if isinstance(opponent, str) and opponent == "heuristic":
        return _heuristic(game)
    return envs_batch_opponent(opponent)


def _heuristic(game: Game) -> BatchOpponent:
    at_once, policy = heuristic_batch_policy(game), heuristic_module(game).policy

    def heuristic(batch: BatchGames, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        moves = at_once(batch, where)
        if moves is not None:
            return moves
        players = batch.current_player
        moves = np.zeros(len(batch), dtype=np.int64)
        for i in np.flatnonzero(where & (players >= 0)):
            moves[i] = policy(batch.state(int(i)).determinize(int(players[i]), rng))
        return moves

    return heuristic
