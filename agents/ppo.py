"""A trained policy as an agent: ``make_agent("ppo:PATH", game)`` or ``make_agent("trained", game)``.

The network (:mod:`agents.models.network`) is loaded without executing anything from
the file, and only after its card names this game, configuration and shapes;
any other file is refused with a ValueError. It plays the player's observation
with the legal mask: the most probable legal move (``deterministic=True``, the
default) or a move sampled from its probabilities with the agent's own seed.
"""

from __future__ import annotations

import numpy as np

from agents.models.network import load_network
from agents.protocol import Agent, PlayerView
from envs.core.engine import Game


class PPOAgent(Agent):
    """Plays a model file (``ppo:PATH``) or the shipped model of the game's configuration (``trained``)."""

    name = "ppo"

    def __init__(self, path: str, game: Game | None = None, deterministic: bool = True, seed: int | None = None):
        if game is None:
            raise ValueError("a trained-model agent needs game=... to check the model against")
        if not isinstance(deterministic, bool):
            raise ValueError(f"deterministic must be True or False, got {deterministic!r}")
        self.network = load_network(path, game)
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.name = "trained" if path == "trained" else f"ppo:{path}"

    def act(self, view: PlayerView) -> int:
        probs, _ = self.network.evaluate(view.observation[None, :], view.legal_mask.astype(bool)[None, :])
        probs = probs[0].astype(np.float64)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))
