"""The baseline: a uniformly random legal action, reproducible from a seed."""

from __future__ import annotations

import numpy as np

from agents.protocol import Agent, PlayerView
from envs.core.engine import Game


class RandomAgent(Agent):
    """Uniform over the legal actions; the same seed gives the same choices."""

    name = "random"

    def __init__(self, game: Game | None = None, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        return legal[int(self.rng.integers(len(legal)))]
