"""ε-greedy agents: a known agent that plays a uniformly random legal move with probability ε.

Why: the luck study needs pairs of agents with a *moderate*, known strength
gap. On Samurai the heuristic beats random in every game and ISMCTS is too
slow to play many deals, so no pair of the stock agents has upsets to count.
Mixing the heuristic with random moves gives a ladder whose rungs are
ordered by construction, random = ``heuristic~1`` < ``heuristic~0.5`` <
``heuristic~0`` = heuristic, with gaps set by ε.

An ε-greedy agent is written ``NAME~EPS`` (``heuristic~0.5``) wherever agents
are built by name: :func:`agents.make_agent` parses the spelling
(:func:`agents.split_epsilon`) and wraps NAME's agent in :class:`EpsilonGreedy`,
so ``agents.play``, the tournament and the luck study take it.
The wrapper draws its coin flips and random moves from its own generator,
seeded apart from the wrapped agent's, so ``heuristic~0`` seeded s plays
exactly as ``heuristic`` seeded s and a seed fixes every move.
"""

from __future__ import annotations

import numpy as np

from agents.protocol import Agent, PlayerView
from envs.core.engine import shown

#: How an ε-greedy agent is spelled: NAME~EPS (``heuristic~0.25``).
EPSILON_SEPARATOR = "~"


class EpsilonGreedy(Agent):
    """Plays ``agent``'s move with probability 1 - ε, a uniformly random legal move with probability ε.

    The wrapped agent is asked only when its move is played: agents here keep no
    state between moves, and asking it every move would cost the full heuristic
    time even at ε = 1.
    """

    def __init__(self, agent: Agent, epsilon: float, seed: int | None = None, name: str | None = None):
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be a number in [0, 1], got {shown(epsilon)}")
        self.agent, self.epsilon = agent, float(epsilon)
        self.name = name or f"{getattr(agent, 'name', type(agent).__name__)}{EPSILON_SEPARATOR}{epsilon:g}"
        # a stream of its own (spawn key 1), so that the wrapped agent's seeded choices are untouched
        self.rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)) if seed is not None else None)

    def reset(self) -> None:
        self.agent.reset()

    def act(self, view: PlayerView) -> int:
        if self.epsilon > 0 and self.rng.random() < self.epsilon:
            legal = view.legal_actions
            return legal[int(self.rng.integers(len(legal)))]
        return self.agent.act(view)
