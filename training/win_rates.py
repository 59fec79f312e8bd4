"""Evaluation: a network against one opponent kind, seats swapped, fixed seeds, a 95% Wilson interval.

Game ``i`` is the deal of seed ``seed + i // n`` (``env().reset(seed=...)``'s) with the learner in seat
``i % n`` (n players), so every deal is played from every seat and the luck
is shared out evenly; every other seat is played by the opponent. The
learner plays its most probable legal move. A k-way shared win counts 1/k.
The games run in lockstep (:mod:`training.lockstep`): the learner's
moves in all of them take one forward pass.
"""

from __future__ import annotations

import math
from typing import Any

from envs.core.engine import Game
from training.lockstep import LockstepGames, play_out
from training.members import baseline_spec, build_member


class FixedDeals:
    """The evaluation's deals, handed out in order; then the slots go idle."""

    def __init__(self, games: int, num_players: int, seed: int):
        self.deals = [(seed + i // num_players, i % num_players) for i in range(games)]
        self.next = 0

    def deal(self, slot: int):
        if self.next >= len(self.deals):
            return None
        deal_seed, seat = self.deals[self.next]
        self.next += 1
        return deal_seed, seat, 0


def evaluate(
    network, game: Game, opponent: str, games: int, seed: int = 0, reward: str = "win", batch: int = 64
) -> dict[str, Any]:
    """Win rate of ``network`` (a :class:`~agents.models.network.PolicyValueNet`) against ``opponent``
    ("random", "heuristic", "ismcts" or "ppo:PATH") in every other seat (see the module docstring)."""
    if type(games) is not int or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    member = build_member(baseline_spec(opponent), game, seed)
    lockstep = LockstepGames(game, min(batch, games), {0: member}, FixedDeals(games, game.num_players, seed), reward)

    def choose(obs, masks, slots):
        return network.policy(obs, masks).argmax(axis=1)

    outcomes = play_out(lockstep, choose)
    points = sum(o["win_points"] for o in outcomes)
    low, high = wilson_interval(points, len(outcomes))
    return {
        "opponent": opponent,
        "games": len(outcomes),
        "win_rate": points / len(outcomes),
        "ci_low": low,
        "ci_high": high,
    }


def wilson_interval(points: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate of ``points`` wins (shared wins may count
    fractions) out of ``n`` games; (0, 1) when there are no games."""
    if n == 0:
        return 0.0, 1.0
    p = points / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
