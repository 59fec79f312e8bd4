"""Win shares with the luck taken out: the chance-node control variate of AIVAT, over reviewed games.

A game's review (:mod:`agents.review`) gives each seat's luck, the sum over the game's chance events (the
deal, every draw) of ``value(after) - expectation over the outcomes``. Each term has expectation 0 over its
draw whatever the value estimate (exactly where the outcomes are enumerated; over the sampled outcomes, or
the sampled deals, where they are drawn at random), so a seat's ``result - luck`` has the result's
expectation: the corrected mean estimates the same share, with the variance the draws put in it taken out
as far as the values explain it (Burch, Schmid, Moravčík, Morrill and Bowling 2018, AIVAT, here at chance
nodes only). Both means come with the benchmarks' interval: clustered by deal
(:func:`benchmarks.core.rating.deal_of`), ± t standard errors of the per-deal means
(:func:`benchmarks.core.rating.mean_interval`), kept within [0, 1] for win shares.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.core.rating import SMALL_SAMPLE, deal_of, mean_interval, win_share


@dataclass(frozen=True)
class CorrectedShare:
    """An agent's mean result, raw and with the luck taken out, each with its 95% interval."""

    name: str
    raw: float
    raw_low: float
    raw_high: float
    corrected: float
    corrected_low: float
    corrected_high: float
    games: int
    deals: int

    @property
    def width_ratio(self) -> float:
        """The corrected interval's width over the raw one's (below 1: the correction paid)."""
        return (self.corrected_high - self.corrected_low) / (self.raw_high - self.raw_low)


def corrected_mean(
    results: Sequence[float],
    lucks: Sequence[float],
    clusters: Sequence[Any] | None = None,
    shares: bool = True,
    small_sample: bool = SMALL_SAMPLE,
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The raw mean of ``results`` and the mean of ``results - lucks``, each ``(mean, low, high)``: the mean over
    clusters (games of one deal share its luck: the independent units; None: each game its own) of each
    cluster's mean, ± t standard errors; ``shares`` keeps the intervals within [0, 1]."""
    results, lucks = np.asarray(results, float), np.asarray(lucks, float)
    if results.shape != lucks.shape:
        raise ValueError(f"results and lucks must have the same length, got {len(results)} and {len(lucks)}")
    keys = range(len(results)) if clusters is None else clusters
    groups: dict[Any, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        groups[key].append(i)
    out = []
    for values in (results, results - lucks):
        mean, low, high = mean_interval([float(values[idx].mean()) for idx in groups.values()], small_sample)
        out.append((mean, max(0.0, low), min(1.0, high)) if shares else (mean, low, high))
    return out[0], out[1]


def corrected_shares(
    games: Sequence[dict], lucks: Sequence[Sequence[float]], small_sample: bool = SMALL_SAMPLE
) -> list[CorrectedShare]:
    """Per agent label (every seat it holds in ``games``, record game lines): its win share (a k-way shared win
    counts 1/k), raw and corrected by ``lucks[i][seat]`` (the review's luck of that seat in game ``i``),
    clustered by deal. Sorted by label."""
    if len(games) != len(lucks):
        raise ValueError(f"one luck list per game is needed: {len(games)} games, {len(lucks)} lucks")
    by_name: dict[str, tuple[list, list, list]] = defaultdict(lambda: ([], [], []))
    for game, luck in zip(games, lucks):
        if len(luck) != len(game["seats"]):
            raise ValueError(f"game {deal_of(game)} has {len(game['seats'])} seats but {len(luck)} luck terms")
        for seat, name in enumerate(game["seats"]):
            results, seat_lucks, clusters = by_name[name]
            results.append(win_share(game["winners"], seat))
            seat_lucks.append(luck[seat])
            clusters.append(deal_of(game))
    out = []
    for name, (results, seat_lucks, clusters) in sorted(by_name.items()):
        raw, corrected = corrected_mean(results, seat_lucks, clusters, True, small_sample)
        out.append(CorrectedShare(name, *raw, *corrected, len(results), len(set(clusters))))
    return out


def review_lucks(games: Sequence[dict], **review_options: Any) -> list[list[float]]:
    """Each record game line reviewed (:func:`agents.review.review_game`, with ``review_options``): each seat's
    luck, the input of :func:`corrected_shares`. Needs game lines with their ``actions`` (schema v2)."""
    import envs
    from agents.review import review_game

    out = []
    for game in games:
        if "actions" not in game:
            raise ValueError(f"game {deal_of(game)} holds no actions: only v2 records' games can be reviewed")
        configured = envs.describe(game["game"]).make_from_json(game["config"])
        review = review_game(configured, list(game["actions"]), game["seed"], **review_options)
        out.append([player.luck for player in review.players])
    return out
