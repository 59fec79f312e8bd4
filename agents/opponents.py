"""The one home of opponents: a player of the project as the opponent an environment is given.

An environment knows no player (``envs`` imports no other package: docs/architecture.md); it takes its
opponents as callables. This module makes them from players:

- :func:`make_opponent`: any agent ``make_agent`` knows, as an opponent of one game
  (``opponent(state, player) -> action``, moving through its own :class:`~agents.protocol.PlayerView`);
  training's members make one per game slot, each with the slot's own view generator (``rng``);
- :func:`batch_opponent`: ``"random"``, ``"heuristic"``, ``"trained"``, ``"ppo:PATH"`` or a callable, as an
  opponent of a batch of games (``opponent(batch, where, rng) -> actions``,
  :data:`envs.core.opponents.BatchOpponent`), for the vector env:
  ``envs.wapi_v0.vector_env(n, opponents=batch_opponent("heuristic", game))``. The vector env also takes
  ``"heuristic"`` and ``"trained"`` by name: pyproject.toml declares :func:`heuristic_opponent` and
  :func:`trained_opponent` as entry points of the group ``drawluck.opponents``, which the environments load;
- :class:`NetworkOpponent`: a network answering every game where it is to move with one forward pass
  (the ``trained`` and ``ppo:PATH`` opponents, and training's network members);
- :func:`heuristic_batch_policy`: the heuristic's one numpy pass over a batch of the game's fast engine,
  which both the vector env's heuristic and training's heuristic member play.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from agents import make_agent
from agents.heuristic import heuristic_module
from agents.models.files import shipped_model_path
from agents.protocol import Agent, PlayerView
from envs.core.batch import BatchGames, batch_class
from envs.core.engine import Game, GameState, shown
from envs.core.opponents import BatchOpponent
from envs.core.opponents import batch_opponent as envs_batch_opponent

if TYPE_CHECKING:
    from agents.models.network import PolicyValueNet


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
    """The batch opponent ``opponent`` names (``"random"``, ``"heuristic"``, ``"trained"``, ``"ppo:PATH"``) or
    the callable itself; ValueError naming the argument for any other name.

    ``"heuristic"``: :func:`heuristic_opponent`; ``"trained"`` and ``"ppo:PATH"``: a :class:`NetworkOpponent`
    of the shipped model or the file, most probable legal move. ``"random"`` and a callable are the
    environments' (:func:`envs.core.opponents.batch_opponent`).
    """
    if callable(opponent) or opponent == "random":
        return envs_batch_opponent(opponent)
    if opponent == "heuristic":
        return heuristic_opponent(game)
    if opponent == "trained":
        return trained_opponent(game)
    if isinstance(opponent, str) and opponent.startswith("ppo:") and len(opponent) > 4:
        return network_opponent(opponent, game)
    raise ValueError(
        f"opponents must be one of ['random', 'heuristic', 'trained', 'ppo:PATH'] or a callable "
        f"(batch, where, rng) -> actions, got {shown(opponent)}"
    )


def trained_opponent(game: Game) -> NetworkOpponent:
    """The model shipped for ``game``'s configuration, most probable legal move (the ``trained`` entry
    point); refused before any game is played where none is shipped, naming the configurations that have one."""
    try:
        path = shipped_model_path(game)
    except ValueError as error:
        raise ValueError(f"opponents 'trained': {error}") from None
    return network_opponent(path, game)


def network_opponent(source: str, game: Game, deterministic: bool = True) -> NetworkOpponent:
    """The network of ``source`` (a path, ``"ppo:PATH"`` or ``"trained"``; loaded safely and checked against
    ``game``) as a batch opponent; torch is imported only here, when a network is asked for."""
    from agents.models.network import load_network

    return NetworkOpponent(load_network(source, game), deterministic)


class NetworkOpponent:
    """A network as a batch opponent: every game where it is to move answered by **one** forward pass (the
    network is the costly part: one call for the batch, not one per game). Deterministic: the most probable
    legal move, as ``make_agent("trained")`` plays it; else a move drawn from its probabilities with ``rng``."""

    def __init__(self, network: PolicyValueNet, deterministic: bool = True):
        self.network, self.deterministic = network, deterministic

    def __call__(self, batch: BatchGames, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        rows, moves = np.flatnonzero(where), np.zeros(len(batch), dtype=np.int64)
        probs = self.network.policy(batch.observe_rows(rows), batch.legal_mask_where(where)[rows])
        moves[rows] = probs.argmax(axis=1) if self.deterministic else sample_actions(probs, rng.random(len(rows)))
        return moves


def sample_actions(probs: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """One move per row drawn from its probabilities with the given uniform numbers (inverse CDF;
    a zero-probability move is never drawn)."""
    cumulative = np.cumsum(probs, axis=1, dtype=np.float64)
    draws = uniforms * cumulative[:, -1]
    picks = (cumulative <= draws[:, None]).sum(axis=1)
    # Round-off may point past the last legal move: step back to the most probable one then.
    rows = np.arange(len(probs))
    bad = (picks >= probs.shape[1]) | (probs[rows, np.minimum(picks, probs.shape[1] - 1)] == 0)
    picks[bad] = probs[bad].argmax(axis=1)
    return picks


def heuristic_opponent(game: Game) -> BatchOpponent:
    """The game's hand-written strategy for a batch (the ``heuristic`` entry point): its module's
    ``batch_policy(batch)`` where it has one and the batch is the engine it reads (the game's fast engine),
    else the per-game ``policy`` on a determinization drawn for the player to act (so it reads only what that
    player may see), game by game."""
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
