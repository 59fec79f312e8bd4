"""The opponent league of RLlib training: who sits in the seats the learner does not hold.

The league is the SB3 path's opponent pool (``training/league.py``) with one
change: an opponent kind is drawn more often the more the learner loses to it
(prioritized fictitious self-play). The trainer (the driver) keeps a
:class:`League`: it counts the learner's results against each kind, keeps the
last few frozen snapshots of the learner, and hands every environment a
:class:`LeagueState` (plain data: kinds, weights, snapshot weights) after each
training iteration. The environments only draw from that state
(:func:`draw_seats`), so what they do depends on nothing but the state and
their own seeded generator.

Kinds are agent names (``random``, ``heuristic``, ``ismcts``, ``ppo:PATH``,
``rllib:PATH``) played through the agent protocol, and ``self``: one of the
recent snapshots, or, before the first snapshot exists, the live learning
policy itself (that seat is then one more learner seat: pure self-play).

Nothing here imports Ray or torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: The kind that stands for the learner's own frozen snapshots (the live learner before the first one).
SELF = "self"
#: Each game's result weighs this much less for every later game of the same kind: a window of about
#: 1 / (1 - DECAY) = 200 recent games, so the weights follow the learner as it improves.
DECAY = 0.995
#: No kind's weight falls below this share of the largest: a beaten opponent is still met now and then.
MIN_WEIGHT = 0.1


@dataclass(frozen=True)
class LeagueState:
    """What an environment needs to seat opponents: kinds with their draw weights, snapshot weights."""

    kinds: tuple[str, ...]
    weights: tuple[float, ...]
    snapshots: tuple[dict[str, np.ndarray], ...] | None = ()  # None: unchanged since the last state of this version
    version: int = 0  # grows with every new snapshot: environments rebuild their snapshot players only then


@dataclass
class Seats:
    """One game's seating: the learner's seats and each other seat's opponent kind (and snapshot index)."""

    learner: tuple[int, ...]
    opponents: dict[int, tuple[str, int | None]] = field(default_factory=dict)


def draw_seats(state: LeagueState, num_players: int, rng: np.random.Generator) -> Seats:
    """The learner in one seat drawn uniformly; each other seat's kind drawn by the league's weights.

    A ``self`` seat plays a snapshot drawn uniformly among the state's snapshots,
    or is a second learner seat while there is none yet.
    """
    seat = int(rng.integers(num_players))
    learner, opponents = [seat], {}
    p = np.asarray(state.weights, dtype=float)
    p = p / p.sum()
    for other in range(num_players):
        if other == seat:
            continue
        kind = state.kinds[int(rng.choice(len(state.kinds), p=p))]
        if kind != SELF:
            opponents[other] = (kind, None)
        elif state.snapshots:
            opponents[other] = (kind, int(rng.integers(len(state.snapshots))))
        else:
            learner.append(other)
    return Seats(tuple(sorted(learner)), opponents)


def points_against(scores: list[float], winners: list[int], learner: int, other: int) -> float:
    """1 if the learner finished ahead of ``other``, 0 if behind, 1/2 if level: the winners list
    decides first (it applies each game's tie-breaks), then the scores."""
    if (learner in winners) != (other in winners):
        return 1.0 if learner in winners else 0.0
    if scores[learner] != scores[other]:
        return 1.0 if scores[learner] > scores[other] else 0.0
    return 0.5


class League:
    """The driver's league: results per kind (decayed), draw weights, the snapshot pool.

    Args:
        kinds: opponent kinds (``train.py --opponents``), each at most once.
        max_snapshots: how many of the most recent snapshots ``self`` draws from.
    """

    def __init__(self, kinds: list[str], max_snapshots: int = 5):
        if not kinds:
            raise ValueError("the league needs at least one opponent kind")
        self.kinds = tuple(dict.fromkeys(kinds))
        self.max_snapshots = max_snapshots
        self.games = dict.fromkeys(self.kinds, 0.0)
        self.points = dict.fromkeys(self.kinds, 0.0)
        self.snapshots: list[dict[str, np.ndarray]] = []
        self.version = 0

    def record(self, kind: str, points: float) -> None:
        """One game's result of the learner against one opponent seat of ``kind``."""
        if kind not in self.games:
            raise ValueError(f"unknown opponent kind {kind!r}; the league's kinds: {list(self.kinds)}")
        self.games[kind] = self.games[kind] * DECAY + 1.0
        self.points[kind] = self.points[kind] * DECAY + float(points)

    def win_rates(self) -> dict[str, float]:
        """The learner's recent score against each kind, starting from 1/2 (one win and one loss assumed)."""
        return {k: (self.points[k] + 1.0) / (self.games[k] + 2.0) for k in self.kinds}

    def weights(self) -> tuple[float, ...]:
        """Draw weights: the learner's recent loss rate against each kind, at least ``MIN_WEIGHT`` of the largest."""
        losses = [1.0 - rate for rate in self.win_rates().values()]
        top = max(losses)
        return tuple(max(loss, MIN_WEIGHT * top) for loss in losses)

    def add_snapshot(self, weights: dict[str, np.ndarray]) -> None:
        """A frozen copy of the learner's policy joins the pool (the oldest leaves beyond ``max_snapshots``)."""
        self.snapshots.append({k: np.array(v, copy=True) for k, v in weights.items()})
        del self.snapshots[: -self.max_snapshots]
        self.version += 1

    def state(self, with_snapshots: bool = True) -> LeagueState:
        """The state to hand the environments; ``with_snapshots=False`` leaves the snapshots out (megabytes for
        large networks) for environments that already hold this version's."""
        snapshots = (tuple(self.snapshots) if SELF in self.kinds else ()) if with_snapshots else None
        return LeagueState(self.kinds, self.weights(), snapshots, self.version)

    def summary(self) -> dict[str, Any]:
        """For logs and the results file: the recent score and draw share of each kind."""
        weights = self.weights()
        total = sum(weights)
        return {
            k: {"recent_score": round(rate, 3), "draw_share": round(w / total, 3)}
            for (k, rate), w in zip(self.win_rates().items(), weights)
        }
