"""An example agent for ``python -m benchmarks.rate examples/my_agent.py:MyAgent --game wapi --quick``.

It takes the move that the game's heuristic would make, except that with
probability ``explore`` it plays a random legal move instead. Any class with
``act(view) -> int`` rates; ``game`` and ``seed`` are passed when ``__init__``
takes them, and ``--option KEY=VALUE`` sets the rest.
"""

import numpy as np

from agents import Agent, PlayerView, make_agent


class MyAgent(Agent):
    name = "my-agent"

    def __init__(self, game=None, seed=None, explore: float = 0.1):
        self.rng = np.random.default_rng(seed)
        self.explore = explore
        self.heuristic = make_agent("heuristic", game, seed=seed)

    def act(self, view: PlayerView) -> int:
        if self.rng.random() < self.explore:
            return int(self.rng.choice(view.legal_actions))
        return self.heuristic.act(view)
