"""Game-level measures of luck and skill, with intervals clustered by deal.

The luck study of :mod:`research.luck` describes pairs of agents; these
measures describe the game, each with what it assumes and bounds:

- **Relative skill** (Borm and van der Genugten): with a beginner, our best
  player and a clairvoyant (:mod:`research.core.clairvoyant`) on the same deals
  against the same field, the learning effect LE = best - beginner, the random
  effect RE = clairvoyant - best and RS = LE / (LE + RE). Our best is below
  optimal, so RS estimates from below the share of the game's decidable
  result that players of best's strength reach.
- **Variance components** of a crossed random-effects model (deal, seat,
  agent and their interactions, replay as the residual): in
  :mod:`research.core.variance_components`, which uses these intervals.
- **Elo spread** (Duersch, Lambrecht and Oechssler, on agents) of a ladder
  and the **upset frequency** between adjacent rungs (Ben-Naim et al.).
- **N\\*** (close to Fiedler and Rock's critical repetition frequency): the
  games after which the better of two players leads with probability 0.95.

Intervals are percentile bootstrap intervals resampling whole deals (every
game of a deal together), their half-widths scaled by sqrt(n / (n - 1)) to
undo the bootstrap's small-sample shrinkage (n deals); means use t quantiles,
and RS, a ratio of means, has Fieller's interval beside its bootstrap one.
Every estimator is checked on synthetic games whose answer is known
(:mod:`research.core.synthetic_games`, ``tests/test_luck_measures.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from benchmarks.core import rating
from benchmarks.core.variance import duplicate_effect

#: Bootstrap resamples of the reports (the tests use fewer).
RESAMPLES = 2000
LEVEL = 0.95  # t975's level: mean_interval's quantile is fixed at it


@dataclass(frozen=True)
class Estimate:
    """A point estimate and its interval (``low``, ``high``) at ``LEVEL``; a confidence set that is two rays (a
    Fieller set, :func:`fieller_ratio`) is the whole line less the open interval ``excluded``."""

    value: float
    low: float
    high: float
    excluded: tuple[float, float] | None = None

    def contains(self, x: float, tolerance: float = 1e-9) -> bool:
        if self.excluded is not None and self.excluded[0] + tolerance < x < self.excluded[1] - tolerance:
            return False
        return self.low - tolerance <= x <= self.high + tolerance

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


def bootstrap_draws(
    data: np.ndarray, statistics: Callable[[np.ndarray], np.ndarray], resamples: int | None = None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``statistics(data)`` (a vector) and its value on each resample of the rows of ``data`` (the deals) drawn
    with replacement: ``(values, draws[resample, statistic])``."""
    data, resamples = np.asarray(data, dtype=float), RESAMPLES if resamples is None else resamples
    n = len(data)
    if n < 2:
        raise ValueError(f"an interval clustered by deal needs at least 2 deals, got {n}")
    values = np.atleast_1d(np.asarray(statistics(data), dtype=float))
    rng = np.random.default_rng(seed)
    draws = np.array([np.atleast_1d(statistics(data[rng.integers(0, n, n)])) for _ in range(resamples)], dtype=float)
    return values, draws


def widened(value: float, draw: np.ndarray, n: int) -> np.ndarray:
    """Bootstrap draws moved away from the estimate by sqrt(n / (n - 1)), n the deals: the bootstrap's spread is
    that of a sample of n with divisor n (the small-sample correction of every interval here)."""
    return value + math.sqrt(n / (n - 1)) * (np.asarray(draw, dtype=float) - value)


def percentile_estimates(values: np.ndarray, draws: np.ndarray, n: int) -> list[Estimate]:
    """Each value with the percentile interval of its (widened) draws; undefined draws (nan or infinite) dropped."""
    tail, estimates = (1 - LEVEL) / 2, []
    for value, column in zip(values, np.asarray(draws, dtype=float).T):
        column = column[np.isfinite(column)]
        if not len(column) or not math.isfinite(value):
            estimates.append(Estimate(float(value), math.nan, math.nan))
            continue
        low, high = widened(value, np.quantile(column, [tail, 1 - tail]), n)
        estimates.append(Estimate(float(value), float(low), float(high)))
    return estimates


def bootstrap_all(
    data: np.ndarray, statistics: Callable[[np.ndarray], np.ndarray], resamples: int | None = None, seed: int = 0
) -> list[Estimate]:
    """Each of ``statistics(data)`` (a vector) with a percentile interval from resampling the rows of ``data``
    (the deals) with replacement (:func:`bootstrap_draws`), widened for small samples (:func:`widened`).
    Resamples where a statistic is undefined (nan or infinite) are dropped for it."""
    values, draws = bootstrap_draws(data, statistics, resamples, seed)
    return percentile_estimates(values, draws, len(data))


def bootstrap(
    data: np.ndarray, statistic: Callable[[np.ndarray], float], resamples: int | None = None, seed: int = 0
) -> Estimate:
    """One statistic with its cluster-bootstrap interval (:func:`bootstrap_all`)."""
    return bootstrap_all(data, statistic, resamples, seed)[0]


def mean_interval(per_deal: np.ndarray) -> Estimate:
    """The mean of per-deal values with its t interval (:func:`benchmarks.core.rating.mean_interval`, the one
    every deal-clustered mean uses)."""
    return Estimate(*rating.mean_interval(per_deal))


# --- relative skill ------------------------------------------------------------------------------


def relative_skill(per_deal: np.ndarray) -> float:
    """RS = LE / (LE + RE) from ``per_deal[deal, 3]``: the mean results of (beginner, best, clairvoyant) on each
    deal. nan where LE + RE = 0 (nothing to decide: the measure is undefined, not 0 or 1)."""
    beginner, best, clairvoyant = np.asarray(per_deal, dtype=float).mean(axis=0)
    learning, random_effect = best - beginner, clairvoyant - best
    total = learning + random_effect
    return learning / total if total != 0 else math.nan


def fieller_ratio(numerator: np.ndarray, denominator: np.ndarray) -> Estimate:
    """The ratio of two means over deals, mean(numerator) / mean(denominator), with Fieller's interval.

    The interval is every ratio r that a t test of mean(numerator - r * denominator) = 0 does not reject (t quantile
    of mean_interval): the roots of a quadratic in r, exact for normal per-deal means. Unlike a bootstrap of the
    ratio it stays honest where the denominator is small: when the denominator's own t interval holds 0 the set
    is unbounded, (-inf, inf), either the whole line or two rays (the line less ``excluded``)."""
    a, b = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    n = len(a)
    if n < 2:
        raise ValueError(f"a Fieller interval needs at least 2 deals, got {n}")
    (vaa, vab), (_, vbb) = np.cov(a, b, ddof=1) / n
    ma, mb, t2 = a.mean(), b.mean(), rating.t975(n - 1) ** 2
    value = ma / mb if mb != 0 else math.nan
    square, linear, constant = mb * mb - t2 * vbb, ma * mb - t2 * vab, ma * ma - t2 * vaa
    discriminant = linear * linear - square * constant
    if square > 0:
        half = math.sqrt(max(0.0, discriminant))
        return Estimate(float(value), float((linear - half) / square), float((linear + half) / square))
    if square < 0 and discriminant > 0:  # the quadratic opens downwards: the set is outside its roots
        roots = sorted(((linear - math.sqrt(discriminant)) / square, (linear + math.sqrt(discriminant)) / square))
        return Estimate(float(value), -math.inf, math.inf, (float(roots[0]), float(roots[1])))
    return Estimate(float(value), -math.inf, math.inf)


def relative_skill_estimates(per_deal: np.ndarray, resamples: int | None = None, seed: int = 0) -> dict[str, Estimate]:
    """LE and RE (t intervals of the per-deal differences), RS (cluster bootstrap, the pre-registered interval) and
    RS with Fieller's interval (LE / (LE + RE) is a ratio of means: :func:`fieller_ratio`) from ``per_deal[deal,
    3]``."""
    per_deal = np.asarray(per_deal, dtype=float)
    learning, whole = per_deal[:, 1] - per_deal[:, 0], per_deal[:, 2] - per_deal[:, 0]
    return {
        "LE": mean_interval(learning),
        "RE": mean_interval(per_deal[:, 2] - per_deal[:, 1]),
        "RS": bootstrap(per_deal, relative_skill, resamples, seed),
        "RS Fieller": fieller_ratio(learning, whole),
    }


# --- Elo spread, upsets, N* --------------------------------------------------------------------------


def elo(share: float) -> float:
    """The Elo difference implied by a pairwise score share: 400 log10(p / (1 - p)); +-inf at 1 and 0."""
    if share <= 0 or share >= 1:
        return math.copysign(math.inf, share - 0.5)
    return 400 * math.log10(share / (1 - share))


def elo_of_results(results: np.ndarray) -> float:
    """The Elo over the field of a player's pairwise results in [0, 1], its share taken as (sum + 1/2) / (n + 1)
    so that a player who beat the field in every game still has a finite rating (a continuity correction)."""
    results = np.asarray(results, dtype=float).ravel()
    return elo((results.sum() + 0.5) / (results.size + 1))


def elo_spread(pair_results: np.ndarray) -> float:
    """The Elo spread of a ladder from ``pair_results[deal, game, rung]``, each rung's pairwise results against
    the same field: the Elo of the top rung over the field minus that of the bottom rung (Duersch et al.'s
    spread, on agents: a game of more skill spreads its players further)."""
    pair_results = np.asarray(pair_results, dtype=float)
    return elo_of_results(pair_results[..., -1]) - elo_of_results(pair_results[..., 0])


def upset_frequency(weak: np.ndarray, strong: np.ndarray) -> float:
    """How often the weaker of two players did better than the stronger on the same deal, seat and field (ties
    count half): the duplicate form of Ben-Naim et al.'s upset frequency."""
    weak, strong = np.asarray(weak, dtype=float), np.asarray(strong, dtype=float)
    return float(((weak > strong) + 0.5 * (weak == strong)).mean())


def games_to_lead(mean: float, variance: float, confidence: float = 0.95) -> float:
    """The games N after which the better player's total leads with probability ``confidence``.

    The mean difference over N games is close to normal with mean ``mean`` and variance ``variance / N``, so
    P(lead) = Phi(mean sqrt(N) / sd) and N* = (z * sd / mean)^2, z the one-sided quantile (1.645 at 0.95).
    (var / mean^2 alone is where P(lead) = Phi(1) = 0.84.)"""
    if mean == 0:
        return math.inf
    z = stats.norm.ppf(confidence)
    return z * z * variance / (mean * mean)


def _field_lead_moments(stronger: np.ndarray, weaker: np.ndarray, duplicate: bool) -> tuple[float, float]:
    """The mean per-game difference of two players who each play a field, and its variance for one game: with
    fresh deals their games are independent (the variances add), with duplicate deals each game of one is paired
    with the other's on the same deal and seat (the variance of the difference)."""
    stronger, weaker = np.asarray(stronger, dtype=float), np.asarray(weaker, dtype=float)
    if duplicate:
        effect = duplicate_effect(stronger - weaker)
        return effect.mean, effect.var_independent
    variance = duplicate_effect(stronger).var_independent + duplicate_effect(weaker).var_independent
    return float((stronger - weaker).mean()), variance


def field_lead_games(stronger: np.ndarray, weaker: np.ndarray, duplicate: bool, confidence: float = 0.95) -> float:
    """N* for two players who each play a field, from their results ``[deal, seat]`` on the same deals and seats
    (:func:`_field_lead_moments`): the games after which the better of the two leads."""
    return games_to_lead(*_field_lead_moments(stronger, weaker, duplicate), confidence)


def field_lead_estimate(stronger: np.ndarray, weaker: np.ndarray, duplicate: bool) -> Estimate:
    """:func:`field_lead_games` with a 95% interval from the t interval of the mean difference over deals (the
    variance taken as known). N* falls as the difference moves away from 0, so the interval runs from N* at the
    end of that t interval farthest from 0 to N* at its end nearest 0, and is unbounded above when the t interval
    holds 0 (the data do not exclude players of equal strength, whom no number of games separates). A percentile
    bootstrap of N* itself is unusable there: its resamples cross 0, where N* is infinite."""
    mean, variance = _field_lead_moments(stronger, weaker, duplicate)
    difference = mean_interval((np.asarray(stronger, dtype=float) - np.asarray(weaker, dtype=float)).mean(axis=1))
    ends = sorted((abs(difference.low), abs(difference.high)))
    near = 0.0 if difference.low <= 0 <= difference.high else ends[0]
    return Estimate(games_to_lead(mean, variance), games_to_lead(ends[1], variance), games_to_lead(near, variance))


# --- multiplicity ---------------------------------------------------------------------------------


def paired_p_value(per_deal_difference: np.ndarray) -> float:
    """Two-sided p-value of a t test that the mean per-deal difference is 0 (deals independent)."""
    x = np.asarray(per_deal_difference, dtype=float)
    if x.std(ddof=1) == 0:
        return 0.0 if x.mean() != 0 else 1.0
    return float(stats.ttest_1samp(x, 0.0).pvalue)


def holm(p_values: dict[str, float]) -> dict[str, float]:
    """Holm's step-down adjusted p-values (family-wise error control for the claims made together)."""
    order = sorted(p_values, key=p_values.get)
    adjusted, running = {}, 0.0
    for rank, name in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * p_values[name]))
        adjusted[name] = running
    return adjusted
