"""Variance components of a balanced crossed model, and their shares with intervals.

The luck study's ladder is balanced: every agent plays every seat of every deal the same number of times
(``y[deal, seat, agent, replay]``). Three estimators of the same components are given:

- **Moments, unconstrained** (the study's estimator): each mean square equated to its expectation and solved
  from the highest interaction down, negative components kept. A negative component is a covariance (Nelder,
  1954): in the study's design one hero among deterministic heuristics holds a deal's mean nearly fixed, so a
  deal that favours one seat disfavours the others, and the deal's component comes out below 0.
- **REML**: in a balanced crossed design the mean squares are independent, each ``df * MS / E[MS]`` a chi-square
  with ``df`` degrees of freedom for normal effects, and they are the restricted likelihood's sufficient
  statistics; so REML maximizes ``-1/2 sum df (log E[MS] + MS / E[MS])`` over components >= 0 (Searle, Casella
  and McCulloch, *Variance Components*, 1992, ch. 4 and 6). Where no moment is negative it is the moments'
  solution; where one is, it is a fit on the boundary of a model the data reject.
- **ANOVA, floored** (the estimator the study's code began with): the moments' solve with each component floored
  at 0 as it is solved, the ones below solved from the floored values. A floored component's negative part is
  dropped rather than refitted, so its components add up to more than the model's total variance, and its shares
  are of that inflated sum (:func:`flooring_inflation`).

A component is the variance of a new draw of its factors' effects (divisor levels - 1). For factors whose levels
are the whole population of interest (the study's four agents and its seats), ``fixed`` turns a component of those
factors alone into the variance across those levels (divisor levels): times (L - 1) / L for each of its factors,
Gelman's finite-population variance (Annals of Statistics 33, 2005). Shares are of the components' sum,
with percentile intervals from resampling whole deals (:func:`research.core.measures.bootstrap_all`), clipped
to [0, 1] for the two estimators whose components cannot be negative.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import optimize

from research.core.measures import Estimate, bootstrap_all

#: The estimators by name, the study's first.
ESTIMATORS = ("moments", "reml", "anova")
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


def _per_cell(y: np.ndarray, subset: tuple[int, ...]) -> float:
    """Observations in one cell of an effect's margin: its coefficient in the expected mean squares."""
    return y.size / math.prod(y.shape[a] for a in subset)


def _name(factors: tuple[str, ...], subset: tuple[int, ...]) -> str:
    return " x ".join(factors[a] for a in subset)


def _named(factors: tuple[str, ...], found: dict[tuple[int, ...], float], y: np.ndarray, residual: float) -> dict:
    named = {_name(factors, subset): found[subset] for subset in sorted(found, key=lambda s: (len(s), s))}
    return named | {"replay": residual if y.shape[-1] > 1 else math.nan}


def _mean_squares(y: np.ndarray, factors: tuple[str, ...]) -> list[tuple[tuple[int, ...], float, int]]:
    """Every effect's ``(subset, mean square, df)``, largest first: the one table both estimators read."""
    cells = y.mean(axis=-1)
    return [(subset, *_mean_square(cells, subset, y.size)) for subset in _effect_subsets(len(factors))]


def _moments(y: np.ndarray, table: list, residual: float, floored: bool) -> dict[tuple[int, ...], float]:
    """The moments solved from ``table`` from the highest interaction down (floored at 0 as solved, or not)."""
    found: dict[tuple[int, ...], float] = {}
    for subset, mean_square, df in table:
        if not df:
            found[subset] = 0.0
            continue
        above = sum(_per_cell(y, g) * found[g] for g in found if set(subset) < set(g))
        solved = (mean_square - residual - above) / _per_cell(y, subset)
        found[subset] = max(0.0, solved) if floored else solved
    return found


def variance_components(y: np.ndarray, factors: tuple[str, ...], floored: bool = True) -> dict[str, float]:
    """The moment (ANOVA) estimates of a crossed random-effects model of ``y[factor axes..., replay]`` (balanced).

    E[MS_E] = var_replay + sum over effects G containing E of (observations per G cell) * var_G; solved from
    the highest interaction down, each component floored at 0 as it is solved (``floored``) or kept as solved
    (the unconstrained moments, some of them negative). Keys are the factors joined by ``x``
    (``"deal x agent"``) and ``"replay"``; with one replay the highest interaction holds the replay's variance
    too, and ``"replay"`` is nan."""
    y = _checked(y, factors)
    residual = _residual(y)
    return _named(factors, _moments(y, _mean_squares(y, factors), residual, floored), y, residual)


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
    """The REML estimates of the model of :func:`variance_components` (same keys), started from its floored
    moments on the same table of mean squares: a component whose effect has no degrees of freedom (a factor of
    one level) is 0, as there."""
    y = _checked(y, factors)
    table, residual, replays = _mean_squares(y, factors), _residual(y), y.shape[-1]
    floored = _moments(y, table, residual, floored=True)
    rows = [(s, ms, df) for s, ms, df in table if df]
    expected = np.array([[_per_cell(y, g) if set(e) <= set(g) else 0.0 for g, _, _ in rows] for e, _, _ in rows])
    mean_squares, dfs = np.array([ms for _, ms, _ in rows]), np.array([df for _, _, df in rows], dtype=float)
    start = np.array([floored[s] for s, _, _ in rows])
    if replays > 1:  # the replays' own row and component
        expected = np.pad(expected, ((0, 1), (0, 1)), constant_values=0.0)
        expected[:, -1] = 1.0
        mean_squares, start = np.append(mean_squares, residual), np.append(start, residual)
        dfs = np.append(dfs, y.mean(axis=-1).size * (replays - 1))
    fitted = _reml_fit(mean_squares, dfs, expected, start)
    found = dict.fromkeys(_effect_subsets(len(factors)), 0.0) | {s: float(v) for (s, _, _), v in zip(rows, fitted)}
    return _named(factors, found, y, float(fitted[-1]) if replays > 1 else 0.0)


def components(y: np.ndarray, factors: tuple[str, ...], estimator: str) -> dict[str, float]:
    """The components of ``y`` by ``estimator`` (one of :data:`ESTIMATORS`); a ValueError naming it otherwise."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    if estimator == "reml":
        return reml_components(y, factors)
    return variance_components(y, factors, floored=estimator == "anova")


def finite(found: dict[str, float], y: np.ndarray, factors: tuple[str, ...], fixed: tuple[str, ...]) -> dict:
    """``found``'s components as variances across the levels of the ``fixed`` factors (divisor L, not L - 1):
    a component of fixed factors only (a main effect or their interaction, centred over those very levels) is
    scaled by (L - 1) / L for each of them; one that involves a drawn factor (the deal) is the variance of a new
    draw's effects, which nothing centres, and stays as it is. A ValueError names ``fixed`` for a factor the
    model does not have."""
    unknown = set(fixed) - set(factors)
    if unknown:
        raise ValueError(f"fixed must name factors of {factors}, got {sorted(unknown)}")
    levels = {f: y.shape[axis] for axis, f in enumerate(factors)}
    scale = {k: math.prod((levels[f] - 1) / levels[f] for f in k.split(" x ")) for k in found if k != "replay"}
    return {k: v * scale[k] if set(k.split(" x ")) <= set(fixed) else v for k, v in found.items()}


def component_shares(
    y: np.ndarray, factors: tuple[str, ...], estimator: str = "moments", fixed: tuple[str, ...] = ()
) -> dict[str, float]:
    """Each component's share of the outcome's variance (the components' sum, the ``fixed`` factors' components
    taken across their levels: :func:`finite`); nan without variance."""
    found = finite({k: v for k, v in components(y, factors, estimator).items() if not math.isnan(v)}, y, factors, fixed)
    total = sum(found.values())
    return {k: (v / total if total > 0 else math.nan) for k, v in found.items()}


def flooring_inflation(y: np.ndarray, factors: tuple[str, ...]) -> float:
    """How many times the model's total variance (the unconstrained moments' sum) the floored ANOVA's components
    add up to: the sum its shares are of, against the one they should be of."""
    floored, unconstrained = (
        sum(v for v in components(y, factors, e).values() if not math.isnan(v)) for e in ("anova", "moments")
    )
    return floored / unconstrained


def share_estimates(
    y: np.ndarray,
    factors: tuple[str, ...],
    resamples: int | None = None,
    seed: int = 0,
    groups: dict[str, tuple[str, ...]] | None = None,
    estimator: str = "moments",
    fixed: tuple[str, ...] = (),
) -> dict[str, Estimate]:
    """Every component's share with a cluster-bootstrap interval (the first factor must be the deal), then each
    of ``groups`` (a name and its components) that the model has a component of: the sum of its components'
    shares, from the same resamples. The interval is clipped to [0, 1] where no component can be negative (all
    but the unconstrained moments), as the small-sample widening may carry it past either end."""
    names = list(component_shares(y, factors, estimator, fixed))
    groups = {group: members for group, members in (groups or {}).items() if set(members) & set(names)}

    def shares(data: np.ndarray) -> np.ndarray:
        found = component_shares(data, factors, estimator, fixed)
        grouped = [sum(found[name] for name in members if name in found) for members in groups.values()]
        return np.array([found[name] for name in names] + grouped)

    estimates = bootstrap_all(y, shares, resamples, seed)
    if estimator != "moments":
        estimates = [Estimate(e.value, *(float(np.clip(end, 0.0, 1.0)) for end in (e.low, e.high))) for e in estimates]
    return dict(zip(names + list(groups), estimates))
