"""Opponents for training: who sits in the seats the learner does not, and how they move in a batch.

Each member is a batch opponent of the vector env (``(batch, where, rng) -> actions``,
:data:`envs.core.opponents.BatchOpponent`) with ``new_game(games)``, told the games it was just dealt
(:mod:`training.league_games` deals them; the evaluation deals one member to every game).

A **member** is named by a spec (:func:`training.league.baseline_spec`, ``snapshot_spec``), plain data:

- ``("agent", name)``: an agent of :func:`agents.make_agent` (``random``,
  ``heuristic``, ``trained``, ``ismcts``). Uniform random play looks at nothing but the
  legal masks; the heuristic and the shipped model (``trained``) are the opponent home's
  batch opponents (:func:`agents.opponents.batch_opponent`: the heuristic's ``batch_policy``
  over the whole batch where the game has a fast engine, else game by game; the model's one
  forward pass); for ``ismcts`` each game of the batch has its own opponent (``reset()`` before
  each game, as the agent protocol requires) moving through its :class:`~agents.protocol.PlayerView`,
  so it sees only what its player may see;
- ``("network", path, deterministic)``: a model file (a self-play snapshot,
  or ``ppo:PATH`` given as an opponent), loaded with the safe loader of
  :mod:`agents.models.network`: the opponent home's :class:`~agents.opponents.NetworkOpponent`,
  which answers all the games in which it is to move by **one batched forward pass**.

All the games where a member is to move are answered at once: the random, heuristic, trained and network
members are the opponent home's batch opponents; the others keep one opponent per game where they need one.
"""

from __future__ import annotations

import numpy as np

from agents.opponents import AgentOpponent, NetworkOpponent, batch_opponent, make_opponent
from envs.core.batch import BatchGames
from envs.core.engine import Game
from training.league import BASELINE_AGENTS, MemberSpec

#: The members that are one batch opponent of the opponent home for every game (``trained``: the shipped model).
SHARED_AGENTS = ("random", "heuristic", "trained")


def slot_rng(seed: int, game: int) -> np.random.Generator:
    """The view generator of a member's opponent in one game of the batch (by the game's index)."""
    return np.random.default_rng([seed, game, 1])


class SharedMember:
    """One batch opponent of the opponent home (``random``, ``heuristic``, ``trained``) for every game: no game's
    own state."""

    def __init__(self, name: str, game: Game):
        self.opponent = batch_opponent(name, game)

    def new_game(self, games: np.ndarray) -> None:
        pass

    def __call__(self, batch: BatchGames, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.opponent(batch, where, rng)


class AgentMember:
    """An agent of the agent protocol, one opponent of the opponent home per game of the batch
    (:func:`agents.opponents.make_opponent`), its agent and its views seeded by the game's index
    (:func:`slot_rng`), reset at each new game."""

    def __init__(self, name: str, game: Game, seed: int):
        self.name, self.game, self.seed = name, game, seed
        self.opponents: dict[int, AgentOpponent] = {}

    def new_game(self, games: np.ndarray) -> None:
        for row in games.tolist():
            opponent = self.opponents.get(row)
            if opponent is None:
                seed = self.seed * 7919 + row
                opponent = self.opponents[row] = make_opponent(self.name, self.game, seed, slot_rng(self.seed, row))
            opponent.reset()

    def __call__(self, batch: BatchGames, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        moves = np.zeros(len(batch), dtype=np.int64)
        for row in np.flatnonzero(where).tolist():
            state = batch.state(row)
            moves[row] = self.opponents[row](state, state.current_player)
        return moves


class NetworkMember(NetworkOpponent):
    """A model file's policy (a self-play snapshot, or ``ppo:PATH``) as a member: the opponent home's network
    opponent (one forward pass for every game where it is to move), loaded from ``path``, with no game's own state."""

    def __init__(self, path: str, game: Game, deterministic: bool):
        from agents.models.network import load_network

        super().__init__(load_network(path, game), deterministic)

    def new_game(self, games: np.ndarray) -> None:
        pass


def build_member(spec: MemberSpec, game: Game, seed: int) -> SharedMember | AgentMember | NetworkMember:
    """The in-process opponent of ``spec`` (a model file is loaded safely and checked against ``game``)."""
    if spec[0] == "agent" and spec[1] in SHARED_AGENTS:
        return SharedMember(spec[1], game)
    if spec[0] == "agent" and spec[1] in BASELINE_AGENTS:
        return AgentMember(spec[1], game, seed)
    if spec[0] == "network" and len(spec) == 3:
        return NetworkMember(spec[1], game, bool(spec[2]))
    raise ValueError(f"unknown opponent spec {spec!r}")
