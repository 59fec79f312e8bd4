"""The statistics of luck of a pair of agents: what duplicate deals buy and how much of the pair's outcome the
deal decides (the games it takes for skill to show are :func:`research.core.measures.games_to_lead`).

Both work on a per-game performance ``x`` of one agent against another
(``d = 1`` if it finished ahead, ``-1`` behind, ``0`` on a tie: a win-rate
difference), laid out by deal and seating.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchmarks.core.rating import Z95


@dataclass(frozen=True)
class DuplicateEffect:
    """The variance of a win-rate difference per game, with independent deals and with duplicate deals.

    ``factor`` = var_independent / var_duplicate: how many times more games
    independent deals need for the same confidence interval (the interval is
    ``sqrt(factor)`` times narrower with duplicate deals for the same games).
    """

    mean: float  # the estimated win-rate difference
    games: int
    var_independent: float  # per game, seats balanced, a fresh deal every game
    var_duplicate: float  # per game, every deal played in every seating

    @property
    def factor(self) -> float:
        if self.var_duplicate <= 0:
            return math.inf if self.var_independent > 0 else 1.0
        return self.var_independent / self.var_duplicate

    def half_width(self, games: int, duplicate: bool) -> float:
        """The 95% CI half-width of the mean difference after ``games`` games."""
        var = self.var_duplicate if duplicate else self.var_independent
        return Z95 * math.sqrt(var / games)


def duplicate_effect(x: np.ndarray) -> DuplicateEffect:
    """From ``x[set, seating]`` (a duplicate set = one deal played in every seating), estimate both variances.

    Independent deals with the seats balanced: the mean of the per-seating
    variances across deals. Duplicate deals: the variance of a set's mean
    times the set size (a set counts as that many games). Both come from the
    same games, so the comparison is at equal cost.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"x must be a (sets >= 2, seatings) array, got shape {x.shape}")
    sets, size = x.shape
    var_independent = float(x.var(axis=0, ddof=1).mean())
    var_duplicate = float(x.mean(axis=1).var(ddof=1) * size)
    return DuplicateEffect(float(x.mean()), int(x.size), var_independent, var_duplicate)


def deal_share(y: np.ndarray) -> tuple[float, float, float]:
    """One-way random-effects ANOVA of ``y[deal, replay]`` (the same deal replayed with fresh agent seeds).

    Returns (variance across deals, variance within a deal, deal share =
    across / (across + within)); the across-deal component is
    (MS_between - MS_within) / replays, floored at 0.
    """
    y = np.asarray(y, dtype=float)
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2:
        raise ValueError(f"y must be a (deals >= 2, replays >= 2) array, got shape {y.shape}")
    deals, replays = y.shape
    within = float(y.var(axis=1, ddof=1).mean())
    between_ms = float(y.mean(axis=1).var(ddof=1) * replays)
    across = max(0.0, (between_ms - within) / replays)
    total = across + within
    return across, within, (across / total if total > 0 else math.nan)
