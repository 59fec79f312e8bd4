"""Anchored ratings with intervals clustered by deal, from record games (the protocol's scoring).

- **Model.** Every game is decomposed into its pairs of seats held by different
  agents (who finished ahead; a tie is half), and a Bradley–Terry model is
  fitted to those pairwise results (:func:`bradley_terry`).
  For two players that is plain Bradley–Terry. For more it is the pairwise
  decomposition of Plackett–Luce: under Plackett–Luce the chance that ``i``
  finishes ahead of ``j`` is exactly Bradley–Terry's ``w_i / (w_i + w_j)``, so
  the pairwise fit estimates the same strengths, in batch and independent of
  the order of the games (openskill's online updates are neither). The pairs
  of one game are not independent; the intervals below account for that.
- **Scale.** Log-strengths are mapped linearly so that ``random`` is 0 and
  ``heuristic`` 1000 (:data:`benchmarks.core.protocol.ANCHORS`): a rating is the
  fraction of the heuristic's lead over random, in thousandths; differences
  are Elo-like (log-odds), the unit set by the anchors, so one scale serves
  every configuration.
- **Intervals.** 95% percentile bootstrap over deals: every replicate draws
  the deals with replacement and refits everything, anchors included. All the
  games of a deal (every rotation, every table) move together, so their
  correlation (the same luck) widens the interval as it should; resampling
  games instead (``cluster="game"``) gives the naive interval.

Win shares (a k-way shared win counts 1/k) have the cluster-robust interval of
a mean: the mean over deals of each deal's share, ± t standard errors of those deal means (below).

**Small samples** (:data:`SMALL_SAMPLE`, the default of every interval below, so every report's, v1's and
v2's records alike): with 12 to 24 deals the normal quantile and the plain percentile bootstrap are too narrow.
A win share's interval then uses the t quantile with (deals − 1) degrees of freedom, and a rating's the
*expanded* percentile bootstrap (Hesterberg 2015): the percentiles at Φ(−√(n/(n−1)) · t₀.₉₇₅,ₙ₋₁) and its
complement, n the number of deals, which widens the interval as much as t with the same n would.
``small_sample=False`` gives the plain intervals (1.96, the 2.5% and 97.5% percentiles), which no report
prints: the tests compare the two.

The model itself, shared by every report (the protocol's above, the tournament's and the luck study's):
:func:`bradley_terry` (maximum likelihood by Newton's method on log-strengths, on the Elo scale, 400 points =
odds of 10 to 1; batch and order-free). A table without both anchors (a tournament) is rated on the Elo scale
centred on 0 (:func:`centred_ratings`), with the same deal bootstrap. And the bookkeeping: finishing ranks from
scores and winners, a game's win share, and "who finished ahead of whom" counts.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from benchmarks.core.protocol import ANCHORS

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


#: Bootstrap replicates, and the generator seed that makes a report reproduce byte for byte.
REPLICATES = 400
BOOTSTRAP_SEED = 20261203
#: Virtual drawn games added to every pair that met, so that an agent that always wins has a finite rating.
PRIOR_DRAWS = 1.0
#: Whether intervals are the small-sample ones (see the module docstring): the one switch of every report.
SMALL_SAMPLE = True
#: Student's t 0.975 quantiles for 1 to 30 degrees of freedom (beyond, :func:`t975`'s series is as close).
T975 = tuple(
    map(
        float,
        """12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131
    2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042""".split(),
    )
)


def t975(df: int) -> float:
    """Student's t 0.975 quantile: the table to 30 degrees of freedom, then the Cornish-Fisher series in 1/df
    (within 1e-4 there), so that no statistics library is needed."""
    if df < 1:
        return math.inf
    if df <= len(T975):
        return T975[df - 1]
    z = Z95
    terms = ((z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96, (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384)
    return z + sum(term / df ** (k + 1) for k, term in enumerate(terms))


def tail_percent(clusters: int, small_sample: bool) -> float:
    """The lower percentile of a 95% bootstrap interval over ``clusters`` deals: 2.5, or expanded for a small
    sample (see the module docstring)."""
    if not small_sample:
        return 2.5
    if clusters < 2:
        return 0.0
    return 100 * NormalDist().cdf(-math.sqrt(clusters / (clusters - 1)) * t975(clusters - 1))


@dataclass(frozen=True)
class AnchoredRating:
    """A rating on the anchored scale with its 95% interval; ``games`` the games the agent played."""

    name: str
    value: float
    low: float
    high: float
    games: int


def deal_of(game: dict) -> str:
    """The cluster a game belongs to: its configuration and deal seed."""
    return f"{game['game']} {json.dumps(game['config'], sort_keys=True)} {game['seed']}"


def cluster_wins(games: Sequence[dict], names: Sequence[str], cluster: str = "deal") -> np.ndarray:
    """``wins[c, i, j]``: in cluster ``c`` (a deal, or a single game), the pairs where ``i`` finished ahead of
    ``j`` (ties half), over every pair of seats held by different agents."""
    if cluster not in ("deal", "game"):
        raise ValueError(f"cluster must be 'deal' or 'game', got {cluster!r}")
    index = {name: i for i, name in enumerate(names)}
    rows: dict[str, np.ndarray] = {}
    seen: dict[str, int] = defaultdict(int)
    for game in games:
        key = deal_of(game)
        if cluster == "game":  # each game its own cluster (identical lines in any order stay apart)
            key = json.dumps(game, sort_keys=True)
            seen[key] += 1
            key += f" #{seen[key]}"
        wins = rows.setdefault(key, np.zeros((len(names), len(names))))
        ranks = finishing_ranks(game["scores"], game["winners"])
        seats = game["seats"]
        for a in range(len(seats)):
            for b in range(len(seats)):
                if seats[a] != seats[b]:
                    wins[index[seats[a]], index[seats[b]]] += ahead(ranks, a, b)
    return np.array([rows[key] for key in sorted(rows)])  # a canonical order: the same games, the same draws


def strengths(names: Sequence[str], wins: np.ndarray) -> np.ndarray:
    return np.array([r.value for r in bradley_terry(names, wins, prior_draws=PRIOR_DRAWS)]) / ELO


def anchor(names: Sequence[str], theta: np.ndarray) -> np.ndarray:
    """Log-strengths on the anchored scale (NaN everywhere when the anchors are not in order)."""
    (low_name, low_value), (high_name, high_value) = sorted(ANCHORS.items(), key=lambda kv: kv[1])
    low, high = theta[list(names).index(low_name)], theta[list(names).index(high_name)]
    if not high > low:
        return np.full(len(names), np.nan)
    out = low_value + (theta - low) * (high_value - low_value) / (high - low)
    for name, value in ANCHORS.items():  # exactly, not to rounding
        out[list(names).index(name)] = value
    return out


def _replicates(names: Sequence[str], wins: np.ndarray, scale, replicates: int, seed: int) -> np.ndarray:
    """``scale`` (log-strengths to a report's scale) of the fit to each of ``replicates`` draws of the clusters
    of ``wins`` (``cluster_wins``) with replacement."""
    rng = np.random.default_rng(seed)
    draws = np.empty((replicates, len(names)))
    for r in range(replicates):
        weights = np.bincount(rng.integers(0, len(wins), len(wins)), minlength=len(wins))
        draws[r] = scale(strengths(names, np.tensordot(weights, wins, axes=1)))
    return draws


def _games_of(games: Sequence[dict]) -> dict[str, int]:
    count: dict[str, int] = defaultdict(int)
    for game in games:
        for label in set(game["seats"]):
            count[label] += 1
    return count


def anchored_ratings(
    games: Sequence[dict],
    cluster: str = "deal",
    replicates: int = REPLICATES,
    seed: int = BOOTSTRAP_SEED,
    small_sample: bool = SMALL_SAMPLE,
) -> list[AnchoredRating]:
    """Every agent of ``games`` (which must include both anchors) on the anchored scale, best first.

    An interval is infinite when more than 2.5% of the replicates cannot place the anchors
    (the heuristic not ahead of random): the games then do not fix the scale."""
    names = sorted({label for game in games for label in game["seats"]})
    missing = [name for name in ANCHORS if name not in names]
    if missing:
        raise ValueError(f"the games must include the anchors {list(ANCHORS)}; missing {missing}")
    wins = cluster_wins(games, names, cluster)
    value = anchor(names, strengths(names, wins.sum(axis=0)))
    draws = _replicates(names, wins, lambda theta: anchor(names, theta), replicates, seed)
    placed = ~np.isnan(draws[:, 0])
    if placed.mean() < 0.975:
        low, high = np.full(len(names), -math.inf), np.full(len(names), math.inf)
    else:
        tail = tail_percent(len(wins), small_sample)
        low, high = np.percentile(draws[placed], [tail, 100 - tail], axis=0)
    count = _games_of(games)
    out = [AnchoredRating(n, float(v), float(lo), float(hi), count[n]) for n, v, lo, hi in zip(names, value, low, high)]
    return sorted(out, key=lambda r: (-r.value, r.name))


def centred_ratings(
    games: Sequence[dict], replicates: int = REPLICATES, seed: int = BOOTSTRAP_SEED, small_sample: bool = SMALL_SAMPLE
) -> list[Rating]:
    """Every agent of ``games`` on the Elo scale centred on 0, in name order, with the anchored ratings' deal
    bootstrap: for tables without both anchors (a tournament), at any player count (the pairwise fit)."""
    names = sorted({label for game in games for label in game["seats"]})
    wins = cluster_wins(games, names)
    value = strengths(names, wins.sum(axis=0)) * ELO
    draws = _replicates(names, wins, lambda theta: theta * ELO, replicates, seed)
    tail = tail_percent(len(wins), small_sample)
    low, high = np.percentile(draws, [tail, 100 - tail], axis=0)
    count = _games_of(games)
    return [Rating(n, float(v), float(lo), float(hi), count[n]) for n, v, lo, hi in zip(names, value, low, high)]


@dataclass(frozen=True)
class Share:
    """The hero's win share at a table (shared wins count 1/k) with its interval clustered by deal."""

    hero: str
    opponent: str
    value: float
    low: float
    high: float
    games: int
    deals: int


def mean_interval(per_deal: Sequence[float], small_sample: bool = SMALL_SAMPLE) -> tuple[float, float, float]:
    """The mean of per-deal values (deals are the independent units, since a deal's games share its luck) and its
    95% interval: ± t with deals − 1 degrees of freedom (without ``small_sample``: 1.96) standard errors;
    unbounded from fewer than two deals. Every deal-clustered mean of the benchmarks is this one."""
    x = np.asarray(per_deal, dtype=float)
    mean = float(x.mean()) if len(x) else math.nan
    if len(x) < 2:
        return mean, -math.inf, math.inf
    half = (t975(len(x) - 1) if small_sample else Z95) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, mean - half, mean + half


def share_interval(deals: Sequence[Sequence[float]], small_sample: bool = SMALL_SAMPLE) -> tuple[float, float, float]:
    """A win share from its games' shares grouped by deal, with its 95% interval: the :func:`mean_interval` of
    the per-deal means, the interval within [0, 1]."""
    mean, low, high = mean_interval([float(np.mean(deal)) for deal in deals], small_sample)
    return mean, max(0.0, low), min(1.0, high)


def win_shares(games: Sequence[dict], small_sample: bool = SMALL_SAMPLE) -> list[Share]:
    """Per table (hero, opponent): the hero's mean win share over deals with its :func:`share_interval`."""
    by_table: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for game in games:
        hero, opponent = game["table"]
        seat = game["seats"].index(hero)
        by_table[(hero, opponent)][deal_of(game)].append(win_share(game["winners"], seat))
    out = []
    for (hero, opponent), deals in sorted(by_table.items()):
        mean, low, high = share_interval(list(deals.values()), small_sample)
        games_played = sum(len(v) for v in deals.values())
        out.append(Share(hero, opponent, mean, low, high, games_played, len(deals)))
    return out
