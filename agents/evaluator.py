"""What guides a search: the :class:`Evaluator` protocol, and rollouts as one evaluator among others.

As in OpenSpiel's MCTS, a search takes an evaluator (move priors and every
player's value for positions it owns) and a random or heuristic rollout is
one evaluator among others: :class:`RolloutEvaluator` here, the game's
heuristic and static evaluation (:mod:`agents.heuristic_evaluator`), a learned
network (:mod:`agents.network_evaluator`). Why a module of its own, without
torch: the plain search and the heuristic's guide need no network, and
importing the protocol should not load one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from agents.leaf_values import Evaluation
from envs.core.engine import GameState, win_rewards


@runtime_checkable
class Evaluator(Protocol):
    """What a search asks of its guide (any object with this method)."""

    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        """For unfinished positions: move priors ``(B, num_actions)`` of the player to act (0 off the
        legal moves, rows summing to 1) and values ``(B, num_players)`` on the win scale -1..1."""


class RolloutEvaluator:
    """Rollouts, then the result or the game's static evaluation: plain ISMCTS's value of a leaf.

    A rollout plays ``depth`` plies (None: to the end) by ``policy`` (the game's heuristic; None: at random),
    a random move with probability ``epsilon``; an unfinished position is then scored by ``evaluation``
    (:mod:`agents.leaf_values`). Every value is blended with the rank by score (``score_weight``), so that at
    a table of four a second place counts for more than a fourth. ``rnd`` is the search's own stream: the
    search replays it for paired simulations (common random numbers), so the evaluator draws from it rather
    than from a stream of its own. Its priors are uniform over the legal moves: rollouts know no move better.

    ``played_out`` (where the game has one: :func:`agents.heuristic.compiled_roll_out_for`) plays a rollout to the
    end by the heuristic in compiled code, ``played_out(state, epsilon, rnd) -> (scores, winners)``, with the same
    moves and dice as :meth:`roll_out` (the determinization fixes every draw): the same values, many times faster.
    """

    def __init__(
        self,
        policy: Callable[[GameState], int] | None,
        evaluation: Evaluation | None,
        epsilon: float,
        depth: int | None,
        score_weight: float,
        rnd: random.Random,
        played_out: Callable[[GameState, float, random.Random], tuple[list[float], list[int]]] | None = None,
    ):
        self.policy, self.evaluation, self.epsilon, self.depth = policy, evaluation, epsilon, depth
        self.score_weight, self.rnd = score_weight, rnd
        self.played_out = played_out if policy is not None and depth is None else None

    def evaluate(self, states: Sequence[GameState]) -> tuple[np.ndarray, np.ndarray]:
        """The :class:`Evaluator` answer: uniform priors, and each position's value played out on a copy."""
        game = states[0].game
        priors = np.zeros((len(states), game.num_actions), np.float32)
        values = np.empty((len(states), game.num_players), np.float32)
        for k, state in enumerate(states):
            legal = state.legal_tuple()
            priors[k, list(legal)] = 1 / len(legal)
            values[k] = self.value(state.clone())
        return priors, values

    def value(self, state: GameState) -> list[float]:
        """Every player's blended value of ``state`` after a rollout played on it (``state`` may be changed)."""
        if self.played_out is not None:
            scores, winners = self.played_out(state, self.epsilon, self.rnd)
            return self.blend(win_rewards(len(scores), winners), scores)
        self.roll_out(state)
        return self.rewards(state) if state.current_player is None else self.evaluated(state)

    def roll_out(self, state: GameState) -> None:
        """Play ``depth`` plies (None: to the end): the policy (with probability ``1 - epsilon``) or at random."""
        rnd, policy, epsilon = self.rnd, self.policy, self.epsilon
        left = -1 if self.depth is None else self.depth
        while state.current_player is not None and left != 0:
            left -= 1
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            elif policy is not None and rnd.random() >= epsilon:
                action = policy(state)
            else:
                action = legal[rnd.randrange(len(legal))]
            state.apply(action)

    def evaluated(self, state: GameState) -> list[float]:
        """The game's evaluation of an unfinished position, blended with the rank by its score estimate."""
        win, scores = self.evaluation(state, self.rnd)
        return self.blend(win, scores)

    def rewards(self, state: GameState) -> list[float]:
        """A finished game's win rewards (+1/-1), blended with the rank by score (+1 above everyone, -1 below)."""
        return self.blend(state.rewards("win"), state.scores())

    def blend(self, win: list[float], scores: list[float]) -> list[float]:
        if self.score_weight == 0:
            return win
        n = len(scores)
        rank = [(sum(s < mine for s in scores) - sum(s > mine for s in scores)) / (n - 1) for mine in scores]
        w = self.score_weight
        return [(1 - w) * v + w * r for v, r in zip(win, rank)]

    def batch_rewards(self, scores: np.ndarray, winners: np.ndarray, me: int) -> np.ndarray:
        """:meth:`rewards` of player ``me`` for every game of a batch (``players x games`` arrays)."""
        win = np.where(winners.all(axis=0), 0.0, np.where(winners[me], 1.0, -1.0))
        if self.score_weight == 0:
            return win
        mine = scores[me]
        rank = ((scores < mine).sum(axis=0) - (scores > mine).sum(axis=0)) / (len(scores) - 1)
        w = self.score_weight
        return (1 - w) * win + w * rank
