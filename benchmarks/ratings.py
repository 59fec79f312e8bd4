"""Ratings with 95% confidence intervals from tournament results.

- Two players: a Bradley–Terry model fitted by maximum likelihood (Newton's
  method on log-strengths), reported on the Elo scale (400 points = odds of
  10 to 1) with intervals from the Fisher information. It is batch and
  order-free, so the same games give the same ratings in any order.
- Three to five players: openskill's Plackett–Luce model (Weng–Lin), a
  well-kept library rating whole finishing orders; the interval is
  mu ± 1.96 sigma, with ``tau=0`` so that sigma measures the evidence, not
  a drift allowance, averaged over fixed shuffles of the games (the updates
  are online, so one order would favour the first games).

Also the pairwise bookkeeping both reports share: finishing ranks from
scores and winners, and "who finished ahead of whom" counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Rating points per unit of log-strength on the Elo scale.
ELO = 400.0 / math.log(10.0)
Z95 = 1.959964


@dataclass(frozen=True)
class Rating:
    """One agent's rating and its 95% interval (``low``, ``high``)."""

    name: str
    value: float
    low: float
    high: float
    games: int


def finishing_ranks(scores: Sequence[float], winners: Sequence[int]) -> list[int]:
    """Dense ranks, 0 = first: the winners first (the rules' tie-breaks decide them), then by score."""
    keys = [(p not in winners, -float(s)) for p, s in enumerate(scores)]
    order = sorted(set(keys))
    return [order.index(k) for k in keys]


def win_share(winners: Sequence[int], seat: int) -> float:
    """Seat ``seat``'s win share of one game: 1 for an outright win, 1/k for a win shared by k players, else 0."""
    return 1.0 / len(winners) if seat in winners else 0.0


def ahead(ranks: Sequence[int], a: int, b: int) -> float:
    """1 if seat ``a`` finished ahead of seat ``b``, 0.5 on a tie, 0 behind."""
    if ranks[a] == ranks[b]:
        return 0.5
    return 1.0 if ranks[a] < ranks[b] else 0.0


def pairwise_counts(
    names: Sequence[str], games: Sequence[tuple[Sequence[str], Sequence[int]]]
) -> tuple[np.ndarray, np.ndarray]:
    """From ``(agent name per seat, ranks)`` per game: ``wins[i, j]`` (ties count half) and ``played[i, j]``."""
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    wins, played = np.zeros((k, k)), np.zeros((k, k))
    for seats, ranks in games:
        for a in range(len(seats)):
            for b in range(len(seats)):
                if a != b:
                    i, j = index[seats[a]], index[seats[b]]
                    wins[i, j] += ahead(ranks, a, b)
                    played[i, j] += 1
    return wins, played


def bradley_terry(names: Sequence[str], wins: np.ndarray, prior_draws: float = 1.0) -> list[Rating]:
    """Maximum-likelihood Bradley–Terry ratings on the Elo scale, centred on 0, with 95% intervals.

    ``wins[i, j]``: games (ties as halves) that ``i`` won against ``j``.
    ``prior_draws`` virtual drawn games are added to every pair that played,
    so that an agent that always wins gets a large finite rating instead of
    an infinite one (0 gives the plain MLE, used by the known-answer tests).
    """
    wins = np.asarray(wins, dtype=float)
    k = len(names)
    if wins.shape != (k, k):
        raise ValueError(f"wins must be a {k}x{k} matrix, got shape {wins.shape}")
    played = wins + wins.T
    met = played > 0
    wins = wins + np.where(met, prior_draws / 2.0, 0.0)
    n = wins + wins.T
    theta = np.zeros(k)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        grad = (wins - n * p).sum(axis=1)
        w = n * p * (1.0 - p)
        hessian = np.diag(w.sum(axis=1)) - w  # the information matrix (a weighted graph Laplacian)
        step = np.linalg.pinv(hessian) @ grad
        theta += step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = n * p * (1.0 - p)
    covariance = np.linalg.pinv(np.diag(w.sum(axis=1)) - w)  # sum-to-zero constraint
    games = played.sum(axis=1)
    out = []
    for i, name in enumerate(names):
        half = Z95 * math.sqrt(max(covariance[i, i], 0.0)) * ELO
        value = theta[i] * ELO
        out.append(Rating(name, value, value - half, value + half, int(round(games[i]))))
    return out


def plackett_luce(
    names: Sequence[str], games: Sequence[tuple[Sequence[str], Sequence[int]]], shuffles: int = 16
) -> list[Rating]:
    """openskill Plackett–Luce ratings (mu, mu ± 1.96 sigma) from ``(agent name per seat, ranks)`` per game.

    Weng–Lin updates are online, so the order of the games matters a little
    (the first games move a rating most); mu and sigma are averaged over
    ``shuffles`` fixed shuffles of the games, which keeps the result
    reproducible and independent of the order the tournament played them in.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    mu, sigma = np.zeros(len(names)), np.zeros(len(names))
    games = sorted((tuple(seats), tuple(int(r) for r in ranks)) for seats, ranks in games)  # a canonical order
    rng = np.random.default_rng(0)
    for _ in range(shuffles):
        current = {name: model.rating(name=name) for name in names}
        for g in rng.permutation(len(games)):
            seats, ranks = games[g]
            new = model.rate([[current[name]] for name in seats], ranks=[float(r) for r in ranks])
            for name, (rating,) in zip(seats, new):
                current[name] = rating
        mu += [current[name].mu for name in names]
        sigma += [current[name].sigma for name in names]
    mu, sigma = mu / shuffles, sigma / shuffles
    count = dict.fromkeys(names, 0)
    for seats, _ in games:
        for name in seats:
            count[name] += 1
    return [
        Rating(name, float(m), float(m - Z95 * s), float(m + Z95 * s), count[name])
        for name, m, s in zip(names, mu, sigma)
    ]
