"""Opponents for training: who sits in the seats the learner does not, and how they move in a batch.

Each member is a batch opponent of the vector env (``(batch, where, rng) -> actions``,
:data:`envs.core.opponents.BatchOpponent`) with ``new_game(games)``, told the games it was just dealt
(:mod:`training.league_games` deals them; the evaluation deals one member to every game).

A **member** is named by a spec (:func:`training.league.baseline_spec`, ``snapshot_spec``), plain data:

- ``("agent", name)``: an agent of :func:`agents.make_agent` (``random``,
  ``heuristic``, ``ismcts``). Uniform random play looks at nothing but the
  legal masks; the heuristic is the opponent home's batch opponent
  (:func:`agents.opponents.batch_opponent`: its ``batch_policy`` over the whole
  batch where the game has a fast engine, else game by game); for ``ismcts``
  each game of the batch has its own opponent (``reset()`` before each game, as
  the agent protocol requires) moving through its :class:`~agents.protocol.PlayerView`,
  so it sees only what its player may see;
- ``("network", path, deterministic)``: a model file (a self-play snapshot,
  or ``ppo:PATH`` given as an opponent), loaded with the safe loader of
  :mod:`agents.models.network`. All the games in which a network member is to move
  are answered by **one batched forward pass**.

All the games where a member is to move are answered at once: the random and heuristic members are the
opponent home's batch opponents; the others keep one opponent per game where they need one.
"""

from __future__ import annotations

import numpy as np

from agents.opponents import AgentOpponent, batch_opponent, make_opponent
from envs.core.batch import BatchGames
from envs.core.engine import Game
from training.league import BASELINE_AGENTS, MemberSpec


def slot_rng(seed: int, game: int) -> np.random.Generator:
    """The view generator of a member's opponent in one game of the batch (by the game's index)."""
    return np.random.default_rng([seed, game, 1])


class SharedMember:
    """One batch opponent of the opponent home (``random``, ``heuristic``) for every game: no game's own state."""

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


class NetworkMember:
    """A model file's policy: every game where it is to move answered by one forward pass."""

    def __init__(self, path: str, game: Game, deterministic: bool):
        from agents.models.network import load_network

        self.network = load_network(path, game)
        self.deterministic = deterministic

    def new_game(self, games: np.ndarray) -> None:
        pass

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


def build_member(spec: MemberSpec, game: Game, seed: int) -> SharedMember | AgentMember | NetworkMember:
    """The in-process opponent of ``spec`` (a model file is loaded safely and checked against ``game``)."""
    if spec[0] == "agent" and spec[1] in ("random", "heuristic"):
        return SharedMember(spec[1], game)
    if spec[0] == "agent" and spec[1] in BASELINE_AGENTS:
        return AgentMember(spec[1], game, seed)
    if spec[0] == "network" and len(spec) == 3:
        return NetworkMember(spec[1], game, bool(spec[2]))
    raise ValueError(f"unknown opponent spec {spec!r}")
