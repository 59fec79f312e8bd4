"""The RLlib path's side of the league: who sits in the seats the learner does not hold.

The league itself is the SB3 path's (:class:`training.league.League`, one
prioritised fictitious self-play for both paths): the trainer (the driver)
keeps one, named by agent names (:func:`new_league`), records the learner's
result against each opponent seat in it, and adds a frozen snapshot of the
learner every ``snapshot_freq`` steps (the first as training starts), keeping
the snapshots' weights beside it by member id (:func:`add_snapshot`). After
each training iteration it updates the draw probabilities and hands every
environment a :class:`LeagueState` (plain data: members, kinds,
probabilities, snapshot weights). The environments only draw from that state
(:func:`draw_seats`), so what they do depends on nothing but the state and
their own seeded generator.

Kinds are agent names (``random``, ``heuristic``, ``trained``, ``ismcts``, ``ppo:PATH``,
``rllib:PATH``) played through the agent protocol, and ``self`` for a
snapshot of the learner. A league of ``self`` alone has no member before its
first snapshot: every seat is then a learner seat (pure self-play).

Nothing here imports Ray or torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from training.league import League

#: The kind that stands for the learner's own frozen snapshots.
SELF = "self"

Weights = dict[str, np.ndarray]


@dataclass(frozen=True)
class LeagueState:
    """What an environment needs to seat opponents: the league's members (ids), each one's kind and draw
    probability, and the snapshots' weights by member id (None: unchanged, keep the ones you hold)."""

    members: tuple[int, ...] = ()
    kinds: tuple[str, ...] = ()
    probabilities: tuple[float, ...] = ()
    snapshots: dict[int, Weights] | None = field(default_factory=dict)


@dataclass
class Seats:
    """One game's seating: the learner's seats and each other seat's opponent (kind, league member id)."""

    learner: tuple[int, ...]
    opponents: dict[int, tuple[str, int]] = field(default_factory=dict)


def new_league(kinds: list[str], max_snapshots: int = 5) -> League:
    """The driver's league over the opponent ``kinds`` (``train.py --opponents``, each at most once)."""
    if not kinds:
        raise ValueError("the league needs at least one opponent kind")
    return League(kinds, max_snapshots, member_spec=agent_member)


def agent_member(kind: str) -> tuple[str, str]:
    """A baseline member's spec: the agent name the environments play it by (any of ``make_agent``'s)."""
    return ("agent", kind)


def add_snapshot(league: League, kept: dict[int, Weights], path: str, weights: dict[str, Any]) -> None:
    """A frozen copy of the learner (exported to ``path``) joins ``league``; ``kept`` holds the weights of
    the snapshots still in it, by member id."""
    member = league.add_snapshot(path)
    kept[member.id] = {k: np.array(v, copy=True) for k, v in weights.items()}
    for gone in set(kept) - set(league.members):
        del kept[gone]


def league_state(league: League, kept: dict[int, Weights], with_snapshots: bool = True) -> LeagueState:
    """The state to hand the environments; ``with_snapshots=False`` leaves the snapshots out (megabytes for
    large networks) for environments that already hold them."""
    ids = tuple(league.probabilities)
    kinds = tuple(SELF if league.members[i].snapshot else league.members[i].spec[1] for i in ids)
    probabilities = tuple(league.probabilities[i] for i in ids)
    return LeagueState(ids, kinds, probabilities, dict(kept) if with_snapshots else None)


def draw_seats(state: LeagueState, num_players: int, rng: np.random.Generator) -> Seats:
    """The learner in one seat drawn uniformly; each other seat's member drawn by the league's probabilities.

    With no member to draw (a ``self`` league before its first snapshot), or a snapshot whose weights this
    environment lacks, the seat is one more learner seat.
    """
    seat = int(rng.integers(num_players))
    learner, opponents = [seat], {}
    p = np.asarray(state.probabilities, dtype=float)
    for other in range(num_players):
        if other == seat:
            continue
        if not state.members:
            learner.append(other)
            continue
        k = int(rng.choice(len(state.members), p=p / p.sum()))
        kind, member = state.kinds[k], state.members[k]
        if kind != SELF or member in (state.snapshots or {}):
            opponents[other] = (kind, member)
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
