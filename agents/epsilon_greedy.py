"""ε-greedy agents: a known agent that plays a uniformly random legal move with probability ε.

Why: the luck study needs pairs of agents with a *moderate*, known strength
gap. On Samurai the heuristic beats random in every game and ISMCTS is too
slow to play many deals, so no pair of the stock agents has upsets to count.
Mixing the heuristic with random moves gives a ladder whose rungs are
ordered by construction, random = ``heuristic~1`` < ``heuristic~0.5`` <
``heuristic~0`` = heuristic, with gaps set by ε.

An ε-greedy agent is written ``NAME~EPS`` (``heuristic~0.5``); any other
name goes to :func:`agents.make_agent` unchanged. The wrapper draws its coin
flips and random moves from its own generator, seeded apart from the wrapped
agent's, so ``heuristic~0`` seeded s plays exactly as ``heuristic`` seeded s
and a seed fixes every move.

``benchmarks.matches.build_agent`` builds such names through :func:`make`,
so the luck study can seat them (tournaments take plain agent names only).
It lives with the agents because it is one: anything that builds agents by
name can offer the spelling through :func:`make`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents import Agent, PlayerView, make_agent
from envs.core.engine import shown

SEPARATOR = "~"


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
        self.name = name or f"{getattr(agent, 'name', type(agent).__name__)}{SEPARATOR}{epsilon:g}"
        # a stream of its own (spawn key 1), so that the wrapped agent's seeded choices are untouched
        self.rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)) if seed is not None else None)

    def reset(self) -> None:
        self.agent.reset()

    def act(self, view: PlayerView) -> int:
        if self.epsilon > 0 and self.rng.random() < self.epsilon:
            legal = view.legal_actions
            return legal[int(self.rng.integers(len(legal)))]
        return self.agent.act(view)


def parse(name: str) -> tuple[str, float | None]:
    """``"heuristic~0.5"`` -> ``("heuristic", 0.5)``; a plain name -> ``(name, None)``."""
    if not isinstance(name, str) or SEPARATOR not in name:
        return name, None
    base, _, text = name.rpartition(SEPARATOR)
    try:
        epsilon = float(text)
    except ValueError:
        epsilon = -1.0
    if not base or not 0 <= epsilon <= 1:
        raise ValueError(f"an ε-greedy agent is written NAME~EPS with EPS in [0, 1], got {shown(name)}")
    return base, epsilon


def make(name: str, game: Any = None, seed: int | None = None, **options: Any) -> Agent:
    """Build ``NAME~EPS`` as an :class:`EpsilonGreedy` around ``make_agent(NAME, ...)``, or any plain name."""
    base, epsilon = parse(name)
    agent = make_agent(base, game, seed=seed, **options)
    return agent if epsilon is None else EpsilonGreedy(agent, epsilon, seed, name=name)
