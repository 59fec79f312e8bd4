"""Opponents for training: who sits in the seats the learner does not, and how they move in a batch.

A **member** is named by a spec, plain data that crosses process boundaries:

- ``("agent", name)``: an agent of :func:`agents.make_agent` (``random``,
  ``heuristic``, ``ismcts``), played in-process through its
  :class:`~agents.protocol.PlayerView`, so it sees only what its player may
  see. Each game slot gets its own instance (``reset()`` before each game),
  as the agent protocol requires;
- ``("network", path, deterministic)``: a model file (a self-play snapshot,
  or ``ppo:PATH`` given as an opponent), loaded with the safe loader of
  :mod:`agents.network`. All the games in which a network member is to move
  are answered by **one batched forward pass**.

Uniform random play skips the view (it looks at nothing but the legal moves).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.core.engine import Game, GameState, Observer

#: The opponent kinds ``train.py --opponents`` accepts besides ``ppo:PATH``; "self" stands for the snapshots.
OPPONENT_KINDS = ("random", "heuristic", "ismcts", "self")
BASELINE_AGENTS = ("random", "heuristic", "ismcts")

MemberSpec = tuple


def baseline_spec(name: str) -> MemberSpec:
    """The spec of an opponent named on the command line: an agent name or ``ppo:PATH``."""
    if name in BASELINE_AGENTS:
        return ("agent", name)
    if isinstance(name, str) and name.startswith("ppo:") and len(name) > 4:
        return ("network", name[4:], True)
    raise ValueError(f"opponent must be one of {list(BASELINE_AGENTS)} or 'ppo:PATH', got {name!r}")


def snapshot_spec(path: str) -> MemberSpec:
    """A self-play snapshot: sampled from its policy, so that it is a varied opponent."""
    return ("network", path, False)


def spec_label(spec: MemberSpec) -> str:
    """A short name for logs and tables: ``heuristic``, ``ppo:PATH``, ``snapshot_40960``."""
    if spec[0] == "agent":
        return spec[1]
    from pathlib import Path

    return Path(spec[1]).stem if not spec[2] else f"ppo:{spec[1]}"


def slot_rng(seed: int, slot: int) -> np.random.Generator:
    """A member's generator for one slot: games do not depend on how slots are split over processes."""
    return np.random.default_rng([seed, slot, 1])


class AgentMember:
    """An agent of the agent protocol, one instance per game slot, moving through its PlayerView."""

    batched = False

    def __init__(self, name: str, game: Game, seed: int):
        self.name, self.game, self.seed = name, game, seed
        self.agents: dict[int, Any] = {}
        self.rngs: dict[int, np.random.Generator] = {}  # the views' determinizations, per slot

    def new_game(self, slot: int) -> None:
        agent = self.agents.get(slot)
        if agent is None:
            from agents import make_agent

            agent = self.agents[slot] = make_agent(self.name, self.game, seed=self.seed * 7919 + slot)
            self.rngs[slot] = slot_rng(self.seed, slot)
        agent.reset()

    def act(self, slot: int, state: GameState) -> int:
        from agents.protocol import PlayerView

        return int(self.agents[slot].act(PlayerView(state, self.rngs[slot])))


class RandomMember(AgentMember):
    """Uniform over the legal moves (the same play as the ``random`` agent, without a view)."""

    def new_game(self, slot: int) -> None:
        if slot not in self.rngs:
            self.rngs[slot] = slot_rng(self.seed, slot)

    def act(self, slot: int, state: GameState) -> int:
        legal = state.legal_tuple()
        return legal[int(self.rngs[slot].integers(len(legal)))]


class NetworkMember:
    """A model file's policy: every game where it is to move answered by one forward pass."""

    batched = True

    def __init__(self, path: str, game: Game, deterministic: bool, seed: int):
        from agents.network import load_network

        self.network = load_network(path, game)
        self.deterministic, self.seed = deterministic, seed
        self.rngs: dict[int, np.random.Generator] = {}
        self._obs = np.zeros((0, game.observation_size), np.float32)
        self._masks = np.zeros((0, game.num_actions), bool)

    def new_game(self, slot: int) -> None:
        pass

    def act_batch(self, states: Sequence[GameState], observers: Sequence[Observer], slots: Sequence[int]) -> list[int]:
        n = len(states)
        if len(self._obs) < n:
            self._obs = np.zeros((n, self._obs.shape[1]), np.float32)
            self._masks = np.zeros((n, self._masks.shape[1]), bool)
        obs, masks = self._obs[:n], self._masks[:n]
        masks[:] = False
        for k, (state, observer) in enumerate(zip(states, observers)):
            obs[k] = observer.observe(state, state.current_player)
            masks[k, state.legal_tuple()] = True
        probs = self.network.policy(obs, masks)
        if self.deterministic:
            return probs.argmax(axis=1).tolist()
        for slot in slots:
            if slot not in self.rngs:
                self.rngs[slot] = slot_rng(self.seed, slot)
        return sample_actions(probs, np.array([self.rngs[slot].random() for slot in slots]))


def sample_actions(probs: np.ndarray, uniforms: np.ndarray) -> list[int]:
    """One move per row drawn from its probabilities with the given uniform numbers (inverse CDF;
    a zero-probability move is never drawn)."""
    cumulative = np.cumsum(probs, axis=1, dtype=np.float64)
    draws = uniforms * cumulative[:, -1]
    picks = (cumulative <= draws[:, None]).sum(axis=1)
    # Round-off may point past the last legal move: step back to the most probable one then.
    rows = np.arange(len(probs))
    bad = (picks >= probs.shape[1]) | (probs[rows, np.minimum(picks, probs.shape[1] - 1)] == 0)
    picks[bad] = probs[bad].argmax(axis=1)
    return picks.tolist()


def build_member(spec: MemberSpec, game: Game, seed: int):
    """The in-process opponent of ``spec`` (a model file is loaded safely and checked against ``game``)."""
    if spec[0] == "agent" and spec[1] == "random":
        return RandomMember("random", game, seed)
    if spec[0] == "agent" and spec[1] in BASELINE_AGENTS:
        return AgentMember(spec[1], game, seed)
    if spec[0] == "network" and len(spec) == 3:
        return NetworkMember(spec[1], game, bool(spec[2]), seed)
    raise ValueError(f"unknown opponent spec {spec!r}")
