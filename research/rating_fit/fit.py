"""The rating model checked: does Bradley–Terry predict the head-to-head shares it was fitted to?

    python -m research.rating_fit --out research/results/rating_fit.md

Every rating of the benchmarks (:mod:`benchmarks.core.rating`) fits one strength per agent to the pairwise
results of the games (who finished ahead of whom, ties half; at three to five players the pairwise
decomposition of Plackett–Luce). A fitted model predicts each pair's share, ``p_ij = 1 / (1 + exp(θ_j − θ_i))``;
this report sets the prediction against what was observed, for every pair of agents that met, in every
configuration of the committed records that rate agents (the v2 leaderboard's full ladder, v1's quick ladder,
tournament, skill ceiling, levels).

- **Identical agents are one player.** A label whose agent (name and options) is another label's (a level that
  plays the heuristic, ``heuristic#2`` at a tournament's table) is merged into it, since the model claims one
  strength per agent: that is what makes the levels' ladder a cycle the model can fail (the published reports
  rate such labels apart, so a ladder is a tree that the model fits exactly).
- **Test.** Per pair, ``z = (O − E) / sd``: ``O`` the comparisons won, ``E = n p_ij``, and ``sd`` the
  deal-clustered standard deviation of ``O − E`` (the games of a deal share their luck, and the pairs of a game
  their finishing order), or the binomial ``sqrt(n p (1 − p))`` for the naive test. ``X² = Σ z²`` with
  ``df = pairs − (agents − components)`` degrees of freedom; a configuration whose comparison graph is a tree
  has ``df = 0`` and no test. A *separated* pair (one agent finished ahead in every comparison) is left out of
  the test and of the graph that counts ``df``: its fitted share is set by :data:`~benchmarks.core.rating.PRIOR_DRAWS`
  (one virtual draw), not by the games. The pairs of one configuration are not independent of each other, so
  the clustered X² is an approximation; p-values are Holm-adjusted over the configurations tested.
- **Calibration.** Every pair, oriented so that its predicted share is at least 1/2, pooled in bins of the
  prediction: the comparisons' mean prediction against the share observed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats
from scipy.sparse.csgraph import connected_components

from benchmarks.core import records
from benchmarks.core.protocol import ANCHORS
from benchmarks.core.rating import cluster_wins, strengths
from benchmarks.core.report import by_configuration, label_of
from research.levels import pooled_by_game

#: The record folders whose games rate agents, by the name the report gives each, in the report's order (the full
#: ladder, the one to cite, first): the benchmarks' and the studies' (``research/records``), from the checkout's root.
SOURCES = {
    "leaderboard_v2": "benchmarks/records/leaderboard_v2",
    "leaderboard": "benchmarks/records/leaderboard",
    "tournament": "benchmarks/records/tournament",
    "ceiling": "research/records/ceiling",
    "levels": "research/records/levels",
}
#: Calibration bins of the predicted share of a pair's favourite.
BINS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0 + 1e-9)


@dataclass(frozen=True)
class PairFit:
    """One pair that met: comparisons ``n``, the share ``a`` won (observed, predicted) and the residual's z."""

    a: str
    b: str
    n: float
    observed: float
    predicted: float
    z: float
    z_naive: float


@dataclass(frozen=True)
class Fit:
    """One configuration's fit: its strengths (log-odds), every pair, and the goodness-of-fit statistics."""

    theta: dict[str, float]
    pairs: list[PairFit]
    df: int
    chi2: float
    chi2_naive: float
    deals: int

    @property
    def p(self) -> float:
        return float(stats.chi2.sf(self.chi2, self.df)) if self.df > 0 else math.nan

    @property
    def p_naive(self) -> float:
        return float(stats.chi2.sf(self.chi2_naive, self.df)) if self.df > 0 else math.nan


def fit(games: Sequence[dict]) -> Fit:
    """The Bradley–Terry fit of ``games`` (the benchmarks' own: pairwise, ``PRIOR_DRAWS``) and its residuals."""
    names = sorted({label for game in games for label in game["seats"]})
    wins = cluster_wins(games, names)  # wins[deal, i, j]
    theta = strengths(names, wins.sum(axis=0))
    pairs = []
    for i, j in zip(*np.triu_indices(len(names), 1)):
        won, played = wins[:, i, j], wins[:, i, j] + wins[:, j, i]
        met = played > 0
        if not met.any():
            continue
        p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
        residual = won[met] - played[met] * p
        clusters = int(met.sum())
        variance = clusters / (clusters - 1) * float(np.sum(residual**2)) if clusters > 1 else math.nan
        n, share = float(played.sum()), float(won.sum() / played.sum())
        if share in (0.0, 1.0):  # separated: the fit's share is the prior's, not the data's; no test
            pairs.append(PairFit(names[i], names[j], n, share, p, math.nan, math.nan))
            continue
        z = float(residual.sum() / math.sqrt(variance)) if variance > 0 else math.nan
        z_naive = float(residual.sum() / math.sqrt(n * p * (1 - p)))
        pairs.append(PairFit(names[i], names[j], n, share, p, z, z_naive))
    tested = [pf for pf in pairs if not math.isnan(pf.z_naive)]
    met = np.zeros((len(names), len(names)), dtype=bool)
    for pf in tested:
        met[names.index(pf.a), names.index(pf.b)] = True
    df = len(tested) - (len(names) - connected_components(met, directed=False)[0])
    chi2 = float(sum(pf.z**2 for pf in tested if not math.isnan(pf.z)))
    chi2_naive = float(sum(pf.z_naive**2 for pf in tested))
    return Fit(dict(zip(names, theta.tolist())), pairs, df, chi2, chi2_naive, len(wins))


def merged_labels(agents: dict[str, dict]) -> dict[str, str]:
    """Label -> the label it is merged into: every label playing the same agent (name and options) as another
    becomes the first of them in sorted order, an anchor's label (``heuristic``, ``random``) before any other."""
    first: dict[str, str] = {}
    out = {}
    for label in sorted(agents, key=lambda name: (name not in ANCHORS, name)):
        spec = agents[label]
        key = repr((spec["name"], sorted(spec.get("options", {}).items())))
        out[label] = first.setdefault(key, label)
    return {label: into for label, into in out.items() if label != into}


def relabelled(games: Sequence[dict], merge: dict[str, str]) -> list[dict]:
    """The games with their seats' labels merged (new dicts; the records' lines are not touched)."""
    return [game | {"seats": [merge.get(label, label) for label in game["seats"]]} for game in games]


@dataclass(frozen=True)
class Section:
    """One configuration of one source: its games as published and as fitted (merged), and what was merged."""

    source: str
    label: str
    games: list[dict]
    merge: dict[str, str]

    @property
    def merged(self) -> list[dict]:
        return relabelled(self.games, self.merge)


def sections(root: Path) -> list[Section]:
    """Every configuration of every source folder (:data:`SOURCES`) of the checkout at ``root``, in order."""
    out = []
    for source, folder in SOURCES.items():
        paths = sorted((root / folder).glob("*.jsonl*"))
        pooled = pooled_by_game(paths) if source == "levels" else {"": records.read(paths)}
        for record in pooled.values():
            merge = merged_labels(record.agents())
            for (game, config), games in by_configuration(record.games).items():
                seated = {label for g in games for label in g["seats"]}
                used = {label: into for label, into in merge.items() if label in seated}
                out.append(Section(source, label_of(game, config), games, used))
    return out
