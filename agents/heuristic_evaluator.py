"""The heuristic as a search's guide, where no trained network is shipped:
``make_agent("ismcts", game, evaluator="heuristic")``.

An :class:`~agents.evaluator.Evaluator` needs move priors and every player's value
for a batch of positions (the searcher's own determinizations). This one answers with what
the project already knows about each game, without a network:

- *Priors*: ``weight`` on the heuristic's move (:func:`agents.heuristic.rollout_policy_for`),
  the rest spread evenly over the legal moves. Why a one-hot mix and not a softer
  distribution: every game's heuristic names one move, so the guide needs nothing more of
  it, and ``1 - weight`` keeps every move reachable by PUCT.
- *Values*: the game's static evaluation (:func:`agents.leaf_values.evaluation_for`), the
  one plain ISMCTS scores its leaves with; for a game without one, a heuristic playout to
  the end. Both run on a copy, drawn from the evaluator's own seeded stream.

Why it exists: in Samurai at three and four players (no model shipped there), plain ISMCTS at
the levels' budgets loses to the heuristic it rolls out with (``research/results/levels.md``);
a search that starts from the heuristic's move and looks for better ones is the classic remedy
(progressive bias). Whether it helps is measured in docs/experiments/013-samurai-heuristic-guide.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from agents.heuristic import rollout_policy_for
from agents.leaf_values import evaluation_for
from envs.core.engine import Game, GameState, is_number, shown

#: The name ``evaluator=`` takes for this guide.
HEURISTIC_GUIDE = "heuristic"


class HeuristicEvaluator:
    """Priors from the heuristic's move, values from the game's evaluation (see the module docstring)."""

    def __init__(self, game: Game, weight: float = 0.5, seed: int | None = None):
        if not is_number(weight) or not 0 < weight < 1:
            raise ValueError(f"weight must be a number in (0, 1), the heuristic move's prior; got {shown(weight)}")
        self.game = game
        self.weight = float(weight)
        self.policy = rollout_policy_for(game)
        self.evaluation = evaluation_for(game)
        self.rnd = random.Random(seed)

    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        priors = np.zeros((len(states), self.game.num_actions), np.float32)
        values = np.empty((len(states), self.game.num_players), np.float32)
        for k, state in enumerate(states):
            legal = state.legal_tuple()
            priors[k, list(legal)] = (1 - self.weight) / len(legal)
            priors[k, self.policy(state)] += self.weight
            values[k] = self._value(state)
        return priors, values

    def _value(self, state: GameState) -> list[float]:
        """Every player's expected win reward in ``state`` (left as it is)."""
        if self.evaluation is not None:
            return self.evaluation(state, self.rnd)[0]
        state = state.clone()
        while state.current_player is not None:
            state.apply(self.policy(state))
        return state.rewards("win")
