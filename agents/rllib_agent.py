"""The player of an RLlib-trained policy (``make_agent("rllib:PATH", game)``), beside the other players.

It plays the safe export that :mod:`agents.models.rllib_policy` reads (never
an RLlib checkpoint's pickles); RLlib itself is never imported, and torch only
when the policy is loaded.
"""

from __future__ import annotations

import numpy as np

from agents.models.rllib_policy import MaskedPolicy
from agents.protocol import Agent, PlayerView
from envs.core.engine import Game, shown


class RLlibAgent(Agent):
    """Plays an exported RLlib policy (``make_agent("rllib:PATH", game)``): greedy by default, or sampling
    the masked softmax with its own seeded generator."""

    def __init__(self, path: str, game: Game | None = None, deterministic: bool = True, seed: int | None = None):
        if game is None:
            raise ValueError("the rllib agent needs game=... to check the checkpoint against")
        if not isinstance(path, str) or not path:
            raise ValueError(f"rllib path must be a non-empty str, got {shown(path)}")
        self._setup(MaskedPolicy.load(path, game), deterministic, seed, f"rllib:{path}")

    @classmethod
    def playing(
        cls, policy: MaskedPolicy, deterministic: bool = True, seed: int | None = None, name: str = "rllib"
    ) -> RLlibAgent:
        """An agent for a policy already in memory (a self-play snapshot)."""
        agent = cls.__new__(cls)
        agent._setup(policy, deterministic, seed, name)
        return agent

    def _setup(self, policy: MaskedPolicy, deterministic: bool, seed: int | None, name: str) -> None:
        if not isinstance(deterministic, bool):
            raise ValueError(f"deterministic must be a bool, got {shown(deterministic)}")
        self.policy, self.deterministic, self.name = policy, deterministic, name
        self.rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        return self.policy.choose(view.observation, view.legal_mask, self.deterministic, self.rng)
