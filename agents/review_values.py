"""What a game's review values positions with: rollouts (the default), a search, or a network's value head.

An estimator answers, for positions of one game, every player's expected outcome: the win share (1, 1/k for
a win shared by k, 0) or, with ``outcome="score"``, the score margin (own score minus the mean of the
others', the game's ``score`` reward). Two questions, each with a ``seed`` that fixes its samples:

- ``values(states, seed)``: ``(len(states), players)``, a finished game's by its result;
- ``action_values(state, actions, seed)``: ``(len(actions), players)``, each action's value before the
  chance event it triggers (the expectation over its outcomes).

What each one sees. **Rollouts** (:class:`RolloutValues`) start from the true position (every hand: a review
comes after the game) with every hidden order shuffled (:func:`envs.core.chance.reshuffled`), so nothing
of the draws to come; the game's heuristic (or a given policy) plays every seat to the end, ``rollouts``
times, the same shuffles for every position asked at once (common random numbers). **Search**
(:class:`SearchValues`, two players) is ISMCTS from the player to act's view (its own information only) at a
budget of iterations; its root value and its root actions' values. **Network** (:class:`NetworkValues`,
``trained`` or ``ppo:PATH``) reads each player's own observation, its value head's expected win reward
``v`` read as the share ``(v + 1) / 2`` (normalised to sum to 1 at larger tables).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from agents.heuristic import batch_play_out_for, rollout_policy_for
from envs.core import chance
from envs.core.engine import Game, GameState, is_int, shown

OUTCOMES = ("win", "score")
#: The estimators by name; a network is ``trained`` or ``ppo:PATH``.
ESTIMATORS = ("rollouts", "search", "trained", "ppo:PATH")


def result_values(scores: np.ndarray, winners: np.ndarray, outcome: str) -> np.ndarray:
    """Finished games' outcomes (``games x players``): win shares, or score margins against the others' mean."""
    if outcome == "win":
        won = winners.astype(float)
        return won / won.sum(axis=1, keepdims=True)
    n = scores.shape[1]
    return scores - (scores.sum(axis=1, keepdims=True) - scores) / (n - 1)


def state_result(state: GameState, outcome: str) -> np.ndarray:
    """A finished game's outcome per player (see :func:`result_values`)."""
    n = state.game.num_players
    winners = np.zeros((1, n), bool)
    winners[0, state.winners()] = True
    return result_values(np.array([state.scores()], float), winners, outcome)[0]


#: What each of a question's generators draws (``seeded(seed, purpose, ...)``): apart, whatever the seed.
SHUFFLES, OUTCOME_SAMPLES, SEARCH_VIEWS = range(3)


def seeded(*key: int) -> np.random.Generator:
    """The generator of one question's samples: the same key, the same samples."""
    return np.random.default_rng(np.random.SeedSequence([int(k) for k in key]))


class Outcomes(NamedTuple):
    """A chance event's outcomes as valued: the outcomes, their weights (summing to 1), each one's values
    ``(K, players)``, how many there are in all, and how many were drawn at random (None: all enumerated)."""

    outcomes: list
    weights: np.ndarray
    values: np.ndarray
    count: int
    sampled: int | None


def outcome_values(estimator, state: GameState, action: int, seed: int, max_outcomes: int) -> Outcomes:
    """The chance event ``action`` triggers, valued: every outcome with its probability, or where there are
    more than ``max_outcomes``, that many drawn at random, each weighing 1/M (an unbiased estimate of the
    expectation)."""
    listed = chance.outcomes(state, action)
    count, sampled = len(listed), None
    if count > max_outcomes:
        rng = seeded(seed, OUTCOME_SAMPLES)
        listed = [(chance.sample_outcome(state, action, rng), 1 / max_outcomes) for _ in range(max_outcomes)]
        sampled = max_outcomes
    children = []
    for outcome, _ in listed:
        child = state.clone()
        chance.play_outcome(child, action, outcome)
        children.append(child)
    weights = np.array([p for _, p in listed])
    return Outcomes([o for o, _ in listed], weights, estimator.values(children, seed), count, sampled)


def expected_action_values(estimator, state: GameState, actions: Sequence[int], seed: int, max_outcomes: int):
    """Each action's value as the expectation of its chance event's outcomes' values (the states after it
    where it draws nothing): the answer of estimators that value positions, not moves."""
    rows = []
    for action in actions:
        if chance.outcomes(state, action):
            valued = outcome_values(estimator, state, action, seed, max_outcomes)
            rows.append(valued.weights @ valued.values)
        else:
            child = state.clone()
            child.apply(action)
            rows.append(estimator.values([child], seed)[0])
    return np.array(rows)


class RolloutValues:
    """Rollouts from the true position with the hidden orders shuffled (see the module docstring): by the game's
    heuristic, many games at once where it plays batches, or by ``policy(state) -> action`` one by one."""

    def __init__(self, game: Game, rollouts: int = 32, outcome: str = "win", policy: Callable | None = None):
        if not is_int(rollouts) or rollouts < 1:
            raise ValueError(f"rollouts must be a positive int, got {shown(rollouts)}")
        self.game, self.rollouts, self.outcome = game, rollouts, outcome
        self.play_out = batch_play_out_for(game) if policy is None else None
        self.policy = rollout_policy_for(game) if policy is None else policy
        self.name = f"rollouts ({rollouts} a position, {'heuristic' if policy is None else 'given policy'})"

    def values(self, states: Sequence[GameState], seed: int) -> np.ndarray:
        out = np.empty((len(states), self.game.num_players))
        groups: dict[int, list[int]] = {}  # by the policy's first move: one batch each
        for i, state in enumerate(states):
            if state.current_player is None:
                out[i] = state_result(state, self.outcome)
            else:
                groups.setdefault(self.policy(state), []).append(i)
        for first, indices in groups.items():
            samples = [
                chance.reshuffled(states[i], seeded(seed, SHUFFLES, j)) for i in indices for j in range(self.rollouts)
            ]
            results = self._play(samples, [first])
            out[indices] = results.reshape(len(indices), self.rollouts, -1).mean(axis=1)
        return out

    def action_values(self, state: GameState, actions: Sequence[int], seed: int) -> np.ndarray:
        samples = [chance.reshuffled(state, seeded(seed, SHUFFLES, j)) for j in range(self.rollouts)]
        return self._play(samples, list(actions)).reshape(self.rollouts, len(actions), -1).mean(axis=0)

    def _play(self, states: list[GameState], first_moves: list[int]) -> np.ndarray:
        """Every state after each first move, played to the end: outcomes ``(len(states) * len(first_moves),
        players)``, game ``i * len(first_moves) + j`` being ``states[i]`` after ``first_moves[j]``."""
        if self.play_out is not None:
            scores, winners = self.play_out(states, first_moves)
            return result_values(np.asarray(scores, float), np.asarray(winners, bool), self.outcome)
        rows = []
        for state in states:
            for first in first_moves:
                game = state.clone()
                game.apply(first)
                while game.current_player is not None:
                    game.apply(self.policy(game))
                rows.append(state_result(game, self.outcome))
        return np.array(rows)


class NetworkValues:
    """A model file's value head (``trained`` or ``ppo:PATH``), read from each player's own observation."""

    def __init__(self, game: Game, network: str, outcome: str = "win", max_outcomes: int = 32):
        if outcome != "win":
            raise ValueError(f"value={network!r} gives win shares only (a value head's win reward); use outcome='win'")
        from agents.network_evaluator import NetworkEvaluator  # torch, loaded only for this estimator

        self.evaluator = NetworkEvaluator(network, game)
        self.game, self.outcome, self.max_outcomes = game, outcome, max_outcomes
        self.name = f"network {network}"

    def values(self, states: Sequence[GameState], seed: int) -> np.ndarray:
        out = np.empty((len(states), self.game.num_players))
        live = [i for i, state in enumerate(states) if state.current_player is not None]
        for i, state in enumerate(states):
            if state.current_player is None:
                out[i] = state_result(state, self.outcome)
        if live:
            _, values = self.evaluator.evaluate([states[i] for i in live])
            shares = np.clip((np.asarray(values, float) + 1) / 2, 0, None)
            out[live] = shares / np.maximum(shares.sum(axis=1, keepdims=True), 1e-12)
        return out

    def action_values(self, state: GameState, actions: Sequence[int], seed: int) -> np.ndarray:
        return expected_action_values(self, state, actions, seed, self.max_outcomes)


class SearchValues:
    """ISMCTS at ``iterations`` a position, from the view of the player to act (two players: the other's share
    is the rest). Its root actions' mean values answer ``action_values``; an action the search never tried is
    valued as the expectation of the positions after it."""

    def __init__(self, game: Game, iterations: int = 200, outcome: str = "win", max_outcomes: int = 32):
        if game.num_players != 2:
            raise ValueError(
                f"value='search' needs a two-player game (a search values positions for the player to act only), "
                f"got {game.num_players} players; use value='rollouts' or a network"
            )
        if outcome != "win":
            raise ValueError("value='search' gives win shares only (the search's values); use outcome='win'")
        if not is_int(iterations) or iterations < 1:
            raise ValueError(f"iterations must be a positive int, got {shown(iterations)}")
        self.game, self.iterations, self.outcome, self.max_outcomes = game, iterations, outcome, max_outcomes
        self.name = f"search (ISMCTS, {iterations} iterations a position)"

    def _search(self, state: GameState, seed: int):
        from agents.ismcts import ISMCTSAgent
        from agents.protocol import PlayerView

        agent = ISMCTSAgent(self.game, seed=seed, iterations=self.iterations, score_weight=0.0)
        return agent.search(PlayerView(state, seeded(seed, SEARCH_VIEWS))), ISMCTSAgent.root_value

    def _shares(self, mover: int, value: float) -> np.ndarray:
        out = np.empty(2)
        out[mover] = (value + 1) / 2
        out[1 - mover] = 1 - out[mover]
        return out

    def values(self, states: Sequence[GameState], seed: int) -> np.ndarray:
        out = np.empty((len(states), 2))
        for i, state in enumerate(states):
            if state.current_player is None:
                out[i] = state_result(state, self.outcome)
            else:
                root, root_value = self._search(state, seed)
                out[i] = self._shares(state.current_player, root_value(root))
        return out

    def action_values(self, state: GameState, actions: Sequence[int], seed: int) -> np.ndarray:
        root, _ = self._search(state, seed)
        out = np.empty((len(actions), 2))
        for k, action in enumerate(actions):
            edge = root.edges.get(action)
            if edge is not None and edge.visits:
                out[k] = self._shares(state.current_player, edge.total / edge.visits)
            else:
                out[k] = expected_action_values(self, state, [action], seed, self.max_outcomes)[0]
        return out


def make_estimator(
    value: str, game: Game, outcome: str = "win", rollouts: int = 32, iterations: int = 200, max_outcomes: int = 32
):
    """The estimator named by ``value`` (one of :data:`ESTIMATORS`) for ``game``; ValueError naming the choices."""
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {list(OUTCOMES)}, got {shown(outcome)}")
    if outcome not in game.reward_modes:
        raise ValueError(f"outcome must be one of {list(game.reward_modes)} for {game.name}, got {shown(outcome)}")
    if value == "rollouts":
        return RolloutValues(game, rollouts, outcome)
    if value == "search":
        return SearchValues(game, iterations, outcome, max_outcomes)
    if value == "trained" or (isinstance(value, str) and value.startswith("ppo:") and len(value) > 4):
        return NetworkValues(game, value, outcome, max_outcomes)
    raise ValueError(f"value must be one of {list(ESTIMATORS)}, got {shown(value)}")
