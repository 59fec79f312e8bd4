"""The opponent league of both training paths: baselines and self-play snapshots, drawn by how often the
learner loses to them.

Prioritised fictitious self-play (PFSP, as in AlphaStar): each new training
game draws its opponent with weight ``(1 - w) ** power + floor``, where ``w``
is the learner's recent win rate against that member (an exponential moving
average of its win points, a k-way shared win counting 1/k). So the learner
keeps meeting what it cannot yet beat, while every member, even one it
always beats, keeps a little weight (``floor``): nothing is forgotten.

The snapshots count together as **one** member of the league (their group
weighs what the mean of their weights would for one member, shared out
among them by their own weights): otherwise five snapshots near a 50% win
rate, as self-play keeps them, would crowd out the baselines the learner is
measured against.

Members are the baselines named by ``--opponents`` (``random``,
``heuristic``, ``trained``, ``ismcts``, ``ppo:PATH``) and, with ``self``, the latest
``max_snapshots`` frozen copies of the learner. A new snapshot enters with
the win rate of the snapshot before it (a fair guess: it is a little
stronger), or 0.5 for the first.

The SB3 path deals one member per game (:mod:`training.league_games`); the RLlib
path draws one per opponent seat (:mod:`training.rllib.league`), its members
named by the agent names the environments play (``member_spec``).

``weighting="uniform"`` gives every baseline and the snapshot group the same
weight (the fixed mix of earlier versions), for comparison. Probabilities change only in
:meth:`League.update` (once per rollout), so a rollout sees one
distribution; members and probabilities carry a ``version`` the training
environments compare to know when to pass them on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

WEIGHTINGS = ("pfsp", "uniform")

# --- the members' specs: plain data naming an opponent (:func:`training.members.build_member` builds one) ---
#: The opponent kinds ``train.py --opponents`` accepts besides ``ppo:PATH``; "self" stands for the snapshots.
OPPONENT_KINDS = ("random", "heuristic", "trained", "ismcts", "self")
#: ``trained``: the model shipped for the game's configuration (``agents/models/``), most probable legal move.
BASELINE_AGENTS = ("random", "heuristic", "trained", "ismcts")

MemberSpec = tuple


def baseline_spec(name: str) -> MemberSpec:
    """The spec of an opponent named on the command line: an agent name or ``ppo:PATH``."""
    if name in BASELINE_AGENTS:
        return ("agent", name)
    if isinstance(name, str) and name.startswith("ppo:") and len(name) > 4:
        return ("network", name[4:], True)
    raise ValueError(f"opponent must be one of {list(BASELINE_AGENTS)} or 'ppo:PATH', got {name!r}")


def snapshot_spec(path: str) -> MemberSpec:
    """A self-play snapshot: sampled from its policy, so that it is a varied opponent."""
    return ("network", path, False)


def spec_label(spec: MemberSpec) -> str:
    """A short name for logs and tables: ``heuristic``, ``ppo:PATH``, ``snapshot_40960``."""
    if spec[0] == "agent":
        return spec[1]
    from pathlib import Path

    return Path(spec[1]).stem if not spec[2] else f"ppo:{spec[1]}"


@dataclass
class Member:
    id: int
    spec: MemberSpec
    label: str
    win_rate: float
    games: int = 0
    snapshot: bool = False


class League:
    """Baselines and snapshots with the learner's win rate against each (see the module docstring).

    Args:
        opponents: ``--opponents`` names; ``self`` turns snapshots on.
        max_snapshots: how many of the latest snapshots stay members.
        weighting: ``pfsp`` or ``uniform``.
        power, floor: the PFSP weight ``(1 - w) ** power + floor``.
        memory: the moving average's step (about the last ``1 / memory`` games count).
        member_spec: a baseline's spec from its ``--opponents`` name (the SB3 path's members by
            default; the RLlib path names its members by their agent names).
    """

    def __init__(
        self,
        opponents: list[str],
        max_snapshots: int = 5,
        weighting: str = "pfsp",
        power: float = 2.0,
        floor: float = 0.05,
        memory: float = 0.02,
        member_spec: Callable[[str], MemberSpec] = baseline_spec,
    ):
        if weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {list(WEIGHTINGS)}, got {weighting!r}")
        if not opponents:
            raise ValueError("opponents must name at least one of random, heuristic, trained, ismcts, self or ppo:PATH")
        self.weighting, self.power, self.floor, self.memory = weighting, power, floor, memory
        self.max_snapshots = max_snapshots
        self.uses_snapshots = "self" in opponents
        self.members: dict[int, Member] = {}
        self._next_id = 0
        for name in dict.fromkeys(opponents):
            if name != "self":
                self._add(member_spec(name), win_rate=0.5)
        self.version = 0
        self.probabilities: dict[int, float] = {}
        self.update()

    def _add(self, spec: MemberSpec, win_rate: float, snapshot: bool = False) -> Member:
        member = Member(self._next_id, spec, spec_label(spec), win_rate, snapshot=snapshot)
        self.members[member.id] = member
        self._next_id += 1
        return member

    def add_snapshot(self, path: str) -> Member:
        """A frozen copy of the learner (saved at ``path``) joins; the oldest beyond ``max_snapshots`` leaves."""
        snapshots = [m for m in self.members.values() if m.snapshot]
        member = self._add(snapshot_spec(path), snapshots[-1].win_rate if snapshots else 0.5, snapshot=True)
        for old in snapshots[: max(0, len(snapshots) + 1 - self.max_snapshots)]:
            del self.members[old.id]
        self.update()
        return member

    def record(self, member_id: int, win_points: float) -> None:
        """The learner finished a game against ``member_id`` with ``win_points`` (1, 1/k, 0)."""
        member = self.members.get(member_id)
        if member is None:  # a snapshot that left while its last games were being played
            return
        member.games += 1
        member.win_rate += self.memory * (win_points - member.win_rate)

    def weight(self, member: Member) -> float:
        if self.weighting == "uniform":
            return 1.0
        return (1.0 - member.win_rate) ** self.power + self.floor

    def update(self) -> None:
        """Recompute the draw probabilities from the win rates (once per rollout)."""
        weights = {i: self.weight(m) for i, m in self.members.items()}
        snapshots = [i for i, m in self.members.items() if m.snapshot]
        for i in snapshots:  # the group weighs as one member of their mean weight
            weights[i] /= len(snapshots)
        total = sum(weights.values())
        self.probabilities = {i: w / total for i, w in weights.items()}  # empty until a "self" league's first snapshot
        self.version += 1

    def specs(self) -> dict[int, MemberSpec]:
        return {i: m.spec for i, m in self.members.items()}

    def table(self) -> list[dict[str, Any]]:
        """Each member's label, games, the learner's win rate and the draw probability (for logs)."""
        return [
            {
                "member": m.label,
                "games": m.games,
                "win_rate": round(m.win_rate, 3),
                "probability": round(self.probabilities.get(i, 0.0), 3),
            }
            for i, m in self.members.items()
        ]

    def state(self) -> dict[str, Any]:
        """JSON-safe statistics, saved in a model's card so that ``--resume`` continues the league."""
        return {
            "members": [
                {"spec": list(m.spec), "win_rate": m.win_rate, "games": m.games, "snapshot": m.snapshot}
                for m in self.members.values()
            ]
        }

    def draw(self, rng: np.random.Generator) -> int:
        ids = list(self.probabilities)
        return ids[int(rng.choice(len(ids), p=np.array([self.probabilities[i] for i in ids])))]
