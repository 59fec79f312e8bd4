"""The luck study's configurations, pairs and statistics: shared by the study (:mod:`research.luck`) and
its report (:mod:`research.luck.report`), which reads them back from records."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import envs
from benchmarks.core.variance import deal_share, duplicate_effect
from envs.games import GAME_NAMES
from research.core.measures import bootstrap_draws, games_to_lead


def _study_configs() -> dict[str, tuple[str, dict]]:
    """configuration name -> (game, constructor config): every game at each of its player counts
    (``wapi3``), or once if its count is fixed (``wakanda``), default rules; from the descriptions."""
    configs = {}
    for name in GAME_NAMES:
        description = envs.describe(name)
        if "num_players" in description.defaults():
            for n in description.option("num_players").choices:
                configs[f"{name}{n}"] = (name, {"num_players": n})
        else:
            configs[name] = (name, {})
    return configs


#: configuration name -> (game, constructor config)
CONFIGS = _study_configs()
#: (strong, weak) pairs, in the order of the known strength ladder
PAIRS = (("heuristic", "random"), ("ismcts", "random"), ("ismcts", "heuristic"))
#: Samurai: the heuristic wins every game against random (no upsets, nothing to measure), so the study
#: adds ε-greedy rungs with moderate gaps, chosen from a quick measurement (2 players, 40 games each:
#: d = +0.72, +0.70 and +0.45; at 4 players +0.60, +0.50, +0.20). Random is so weak that even
#: heuristic~0.75 beats it in every game, hence the 0.9 rung.
SAMURAI_PAIRS = (
    ("heuristic", "random"),
    ("heuristic", "heuristic~0.25"),
    ("heuristic~0.5", "heuristic~0.75"),
    ("heuristic~0.9", "random"),
    ("ismcts", "random"),
    ("ismcts", "heuristic"),
)
#: game -> its pairs where they are not ``PAIRS`` (``--pairs`` replaces them for a run)
GAME_PAIRS = {"samurai": SAMURAI_PAIRS}
#: Games whose ISMCTS pairs are opt-in (--ismcts-games): Samurai's heuristic rollouts make one ISMCTS
#: game take about a minute even at 30 iterations. ISMCTS is played by default on every other game.
ISMCTS_OPT_IN = ("samurai",)
ISMCTS_GAMES = tuple(name for name in GAME_NAMES if name not in ISMCTS_OPT_IN)
BOOTSTRAP = 400
CONFIGS_ORDER = list(CONFIGS)


@dataclass
class PairData:
    """One pair's games in one configuration: d[deal, replay, seating] and the outright wins."""

    config: str
    strong: str
    weak: str
    num_players: int
    d: np.ndarray
    strong_wins: float  # share of games the strong agent won outright (shared wins split)
    weak_wins: float


@dataclass
class PairStats:
    data: PairData
    mean: float
    upset: float
    share: float  # the deal's share of var(d)
    factor: float  # the variance-reduction factor of duplicate deals
    var_independent: float
    var_duplicate: float
    n_independent: float  # games after which the stronger leads with probability 0.95
    n_duplicate: float
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)


def pair_stats(data: PairData, bootstrap: int = BOOTSTRAP, seed: int = 0) -> PairStats:
    """Every statistic of the study for one pair, with bootstrap intervals resampling whole deals."""

    def compute(d: np.ndarray) -> tuple[float, ...]:
        deals, replays, seats = d.shape
        effect = duplicate_effect(d.reshape(deals * replays, seats))
        if replays >= 2:
            parts = [deal_share(d[:, :, s]) for s in range(seats)]
            across, within = np.mean([p[0] for p in parts]), np.mean([p[1] for p in parts])
            share = across / (across + within) if across + within > 0 else np.nan
        else:
            share = np.nan
        upset = float(((1 - d) / 2).mean())
        return (
            effect.mean,
            upset,
            share,
            effect.factor,
            effect.var_independent,
            effect.var_duplicate,
            games_to_lead(effect.mean, effect.var_independent),
            games_to_lead(effect.mean, effect.var_duplicate),
        )

    values, samples = bootstrap_draws(data.d, compute, bootstrap, seed)
    stats = PairStats(data, *values.tolist())
    names = ("mean", "upset", "share", "factor", "", "", "n_independent", "n_duplicate")
    for k, name in enumerate(names):
        if name:
            column = samples[:, k]
            column = column[~np.isnan(column)]
            stats.intervals[name] = (
                tuple(float(q) for q in np.quantile(column, [0.025, 0.975], method="inverted_cdf"))
                if len(column)
                else (np.nan, np.nan)
            )
    return stats
