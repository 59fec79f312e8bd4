"""An agent as an opponent of the single-agent view (:mod:`envs.single_agent`).

It lives with the players, not the environments, because it is the one place where an opponent is built
from an agent's name: ``envs`` imports none of the other packages (docs/architecture.md).
"""

from __future__ import annotations

import numpy as np

from agents import make_agent
from agents.protocol import PlayerView
from envs.core.engine import Game, GameState


class AgentOpponent:
    """An agent of the agent protocol as an opponent callable: it moves through its own
    :class:`~agents.protocol.PlayerView` (built with this opponent's seeded generator), so it
    cannot read the true hidden state."""

    def __init__(self, agent, seed: int | None = None):
        self.agent = agent
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        self.agent.reset()

    def __call__(self, state: GameState, player: int) -> int:
        return int(self.agent.act(PlayerView(state, self.rng)))


def make_opponent(name: str, game: Game, seed: int | None = None) -> AgentOpponent:
    """An opponent callable of the agent ``name`` (any name ``agents.make_agent`` knows)."""
    return AgentOpponent(make_agent(name, game=game, seed=seed), seed)
