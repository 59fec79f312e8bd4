"""Evaluation: a network against one opponent kind, seats swapped, fixed seeds, a 95% Wilson interval.

Game ``i`` is the deal of seed ``seed + i // n`` (``env().reset(seed=...)``'s) with the learner in seat
``i % n`` (n players), so every deal is played from every seat and the luck
is shared out evenly; every other seat is played by the opponent. The
learner plays its most probable legal move. A k-way shared win counts 1/k.
The games of a seat run at once in the public vector env (:class:`~envs.core.vector.GameVectorEnv`, the
opponent dealt to every game): the learner's moves in all of them take one forward pass.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from envs.core.engine import Game
from envs.core.vector import GameVectorEnv
from training.league import baseline_spec
from training.members import build_member


def evaluate(network, game: Game, opponent: str, games: int, seed: int = 0, reward: str = "win") -> dict[str, Any]:
    """Win rate of ``network`` (a :class:`~agents.models.network.PolicyValueNet`) against ``opponent``
    ("random", "heuristic", "ismcts" or "ppo:PATH") in every other seat (see the module docstring)."""
    if type(games) is not int or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    member, n = build_member(baseline_spec(opponent), game, seed), game.num_players
    points = []
    for seat in range(min(n, games)):
        deals = [seed + i // n for i in range(seat, games, n)]
        points += seat_points(network, game, member, seat, deals, reward)
    low, high = wilson_interval(sum(points), len(points))
    return {
        "opponent": opponent,
        "games": len(points),
        "win_rate": sum(points) / len(points),
        "ci_low": low,
        "ci_high": high,
    }


def seat_points(network, game: Game, member, seat: int, deals: list[int], reward: str) -> list[float]:
    """The learner's win points in seat ``seat`` of the deals of ``deals``, one game each, all at once."""

    def deal(games: np.ndarray, rng: np.random.Generator) -> list:
        member.new_game(games)
        return [member] * len(games)

    env = GameVectorEnv(game, len(deals), deal=deal, seat=seat, reward=reward)
    obs, infos = env.reset(seed=deals)
    points: dict[int, float] = {}
    while len(points) < len(deals):  # a game that ended is dealt again: its next one is not counted
        obs, _, ended, _, infos = env.step(network.policy(obs, infos["action_mask"]).argmax(axis=1))
        for i in np.flatnonzero(ended).tolist():
            won = infos["final_info"]["winners"][i]
            points.setdefault(i, win_points(won, seat))
    return [points[i] for i in range(len(deals))]


def win_points(winners: np.ndarray, seat: int) -> float:
    """A finished game's points for ``seat`` (``winners``: a bool per seat): 1 for a win, 1/k for a win shared
    by k, 0 for a loss (the benchmarks' win share)."""
    return 1.0 / int(winners.sum()) if winners[seat] else 0.0


def wilson_interval(points: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate of ``points`` wins (shared wins may count
    fractions) out of ``n`` games; (0, 1) when there are no games."""
    if n == 0:
        return 0.0, 1.0
    p = points / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
