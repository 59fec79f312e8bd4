"""Variance components of a balanced crossed random-effects model, and their shares with intervals.

The luck study's ladder is balanced: every agent plays every seat of every deal the same number of times
(``y[deal, seat, agent, replay]``). Two estimators of the same model are given:

- **ANOVA** (method of moments, the pre-registered estimator): each mean square equated to its expectation,
  solved from the highest interaction down, negative components set to 0 (and the others left as solved).
- **REML**: in a balanced crossed design the mean squares are independent, each ``df * MS / E[MS]`` a chi-square
  with ``df`` degrees of freedom for normal effects, and they are the restricted likelihood's sufficient
  statistics; so REML maximizes ``-1/2 sum df (log E[MS] + MS / E[MS])`` over components >= 0. Where every
  ANOVA estimate is positive the two agree; where one is negative, REML refits the others with it held at 0
  instead of keeping their solved values (Searle, Casella and McCulloch, *Variance Components*, 1992, ch. 4
  and 6).

Shares are of the components' sum, with percentile intervals from resampling whole deals
(:func:`benchmarks.luck_measures.bootstrap_all`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import optimize

from benchmarks.luck_measures import Estimate, bootstrap_all

ESTIMATORS = ("anova", "reml")
#: Fisher scoring steps of a REML fit at most (a fit takes a handful).
MAX_STEPS = 500


def _effect_subsets(k: int) -> list[tuple[int, ...]]:
    """Every non-empty set of the k factors, largest first (the order the moments are solved in)."""
    subsets = [s for size in range(1, k + 1) for s in itertools.combinations(range(k), size)]
    return sorted(subsets, key=len, reverse=True)


def _mean_square(cells: np.ndarray, subset: tuple[int, ...], total: int) -> tuple[float, int]:
    """The mean square and degrees of freedom of one effect (a main effect or an interaction) of a balanced design:
    the margin over the effect's factors, centred along each of them, squared and weighted by its cell size."""
    others = tuple(axis for axis in range(cells.ndim) if axis not in subset)
    effect = cells.mean(axis=others, keepdims=True)
    for axis in subset:
        effect = effect - effect.mean(axis=axis, keepdims=True)
    levels = math.prod(cells.shape[axis] for axis in subset)
    df = math.prod(cells.shape[axis] - 1 for axis in subset)
    return (total / levels * float((effect**2).sum()) / df if df else math.nan), df


def _checked(y: np.ndarray, factors: tuple[str, ...]) -> np.ndarray:
    y = np.asarray(y, dtype=float)
    if y.ndim != len(factors) + 1:
        raise ValueError(f"y needs one axis per factor {factors} and a last axis of replays, got shape {y.shape}")
    return y


def _residual(y: np.ndarray) -> float:
    """The replays' mean square within cells (0 with one replay, where the highest interaction holds it)."""
    cells, replays = y.mean(axis=-1), y.shape[-1]
    return float(((y - cells[..., None]) ** 2).sum() / (cells.size * (replays - 1))) if replays > 1 else 0.0


def _named(factors: tuple[str, ...], found: dict[tuple[int, ...], float], y: np.ndarray, residual: float) -> dict:
    named = {
        " x ".join(factors[a] for a in subset): found[subset] for subset in sorted(found, key=lambda s: (len(s), s))
    }
    return named | {"replay": residual if y.shape[-1] > 1 else math.nan}


def variance_components(y: np.ndarray, factors: tuple[str, ...]) -> dict[str, float]:
    """The ANOVA estimates of a crossed random-effects model of ``y[factor axes..., replay]`` (balanced).

    E[MS_E] = var_replay + sum over effects G containing E of (observations per G cell) * var_G; solved from
    the highest interaction down, each component floored at 0. Keys are the factors joined by ``x``
    (``"deal x agent"``) and ``"replay"``; with one replay the highest interaction holds the replay's variance
    too, and ``"replay"`` is nan."""
    y = _checked(y, factors)
    cells, total, residual = y.mean(axis=-1), y.size, _residual(y)
    found: dict[tuple[int, ...], float] = {}
    for subset in _effect_subsets(len(factors)):
        mean_square, df = _mean_square(cells, subset, total)
        if not df:
            found[subset] = 0.0
            continue
        above = sum(total / math.prod(y.shape[a] for a in g) * found[g] for g in found if set(subset) < set(g))
        found[subset] = max(0.0, (mean_square - residual - above) / (total / math.prod(y.shape[a] for a in subset)))
    return _named(factors, found, y, residual)


def _reml_fit(mean_squares: np.ndarray, dfs: np.ndarray, expected: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The components >= 0 that maximize the restricted likelihood of independent mean squares with
    E[MS] = ``expected @ components``, by Fisher scoring: each step a non-negative least squares fit of the mean
    squares to their expectations, weighted by df / E[MS]^2 at the current components (the inverse of each mean
    square's variance, up to 2). Its fixed point is the likelihood's: the gradient is 0 in every free component
    and points out of the bound in every component at 0."""
    scale = float((dfs * mean_squares).sum() / dfs.sum()) or 1.0
    components, floor = np.asarray(start, dtype=float), 1e-12 * scale
    for _ in range(MAX_STEPS):
        weights = np.sqrt(dfs) / np.maximum(expected @ components, floor)
        step, _ = optimize.nnls(expected * weights[:, None], mean_squares * weights)
        if np.abs(step - components).max() <= 1e-12 * scale:
            return step
        components = step
    raise RuntimeError(f"REML's Fisher scoring did not converge in {MAX_STEPS} steps")


def reml_components(y: np.ndarray, factors: tuple[str, ...]) -> dict[str, float]:
    """The REML estimates of the model of :func:`variance_components` (same keys): a component whose effect has no
    degrees of freedom (a factor of one level) is 0, as there."""
    y = _checked(y, factors)
    cells, total, replays = y.mean(axis=-1), y.size, y.shape[-1]
    rows = [(s, *_mean_square(cells, s, total)) for s in _effect_subsets(len(factors))]
    rows = [(s, ms, df) for s, ms, df in rows if df]
    per_cell = [total / math.prod(y.shape[a] for a in s) for s, _, _ in rows]
    expected = np.array([[n if set(e) <= set(g) else 0.0 for (g, _, _), n in zip(rows, per_cell)] for e, _, _ in rows])
    mean_squares, dfs = np.array([ms for _, ms, _ in rows]), np.array([df for _, _, df in rows], dtype=float)
    if replays > 1:  # the replays' own row and component
        expected = np.pad(expected, ((0, 1), (0, 1)), constant_values=0.0)
        expected[:, -1] = 1.0
        mean_squares = np.append(mean_squares, _residual(y))
        dfs = np.append(dfs, cells.size * (replays - 1))
    anova = variance_components(y, factors)
    start = np.array([anova[" x ".join(factors[a] for a in s)] for s, _, _ in rows] + [_residual(y)] * (replays > 1))
    fitted = _reml_fit(mean_squares, dfs, expected, start)
    found = dict.fromkeys(_effect_subsets(len(factors)), 0.0) | {s: float(v) for (s, _, _), v in zip(rows, fitted)}
    return _named(factors, found, y, float(fitted[-1]) if replays > 1 else 0.0)


def component_shares(y: np.ndarray, factors: tuple[str, ...], estimator: str = "anova") -> dict[str, float]:
    """Each component's share of the outcome's variance (the components' sum); nan without variance."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    fit = variance_components if estimator == "anova" else reml_components
    components = {k: v for k, v in fit(y, factors).items() if not math.isnan(v)}
    total = sum(components.values())
    return {k: (v / total if total > 0 else math.nan) for k, v in components.items()}


def share_estimates(
    y: np.ndarray,
    factors: tuple[str, ...],
    resamples: int | None = None,
    seed: int = 0,
    groups: dict[str, tuple[str, ...]] | None = None,
    estimator: str = "anova",
) -> dict[str, Estimate]:
    """Every component's share with a cluster-bootstrap interval (the first factor must be the deal), then each
    of ``groups`` (a name and its components) that the model has a component of: the sum of its components'
    shares, from the same resamples."""
    names = list(component_shares(y, factors, estimator))
    groups = {group: members for group, members in (groups or {}).items() if set(members) & set(names)}

    def shares(data: np.ndarray) -> np.ndarray:
        found = component_shares(data, factors, estimator)
        grouped = [sum(found[name] for name in members if name in found) for members in groups.values()]
        return np.array([found[name] for name in names] + grouped)

    return dict(zip(names + list(groups), bootstrap_all(y, shares, resamples, seed)))
