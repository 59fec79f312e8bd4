"""A Wakanda strategy a decent player would recognise: look one reply ahead.

Scores change only when a totem is finished, and a finish changes only the
finisher's score: owning a village adds its points over *all* the owner's
totems, and the totem joins those totems. So the strategy values a position
by the score difference plus part of the best finish still open to me, and
picks the move whose worst reply (the opponent's best finish or build) leaves
the most. In words:

- **Crown** a totem when it gains me more than the opponent could gain from
  what I would leave them, above all a village that pays over the totems I
  already own (chief or eagle with their pieces, the sun with many suns).
- **Build** where it does not hand the opponent a better totem: suns on
  totems they want (they lose a point per sun without the sun village), my
  village's pieces where only I profit, nothing shiny on a totem they will
  take next turn.
- **Keep headdresses** for better totems while crowning the rest would gain
  little (a small value per headdress, larger while many villages are left).

Only public facts are read: the visible villages, totems, supplies and
headdresses. The bag's order (and, in the advanced game, face-down villages)
are never looked at: the next draw is ignored.

``batch_policy`` is the same strategy over a :class:`~envs.wakanda.batch.WakandaBatch`
(the same choices to the last tie, compiled: ``wakanda_batch.py``), and ``play_out`` plays many
positions out with it at once: ISMCTS's batch rollouts (``tests/test_wakanda_batch.py``); ``roll_out`` plays one
position out in compiled code, as ISMCTS's rollouts do (``wakanda_rollout.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

# The same strategy over a batch of games (the batch protocol's heuristic: ``batch_policy``, ``play_out``).
from agents.heuristic.wakanda_batch import FUTURE_CROWN_SHARE
from agents.heuristic.wakanda_batch import batch_policy as batch_policy
from agents.heuristic.wakanda_batch import play_out as play_out
from agents.heuristic.wakanda_rollout import compiled_policy as compiled_policy
from agents.heuristic.wakanda_rollout import roll_out as roll_out
from envs.wakanda.actions import decode
from envs.wakanda.components import (
    HEIGHT,
    HEIGHT_POINTS,
    NUM_PIECE_KINDS,
    NUM_SLOTS,
    POINTS_PER_PIECE,
    SUN,
    SUN_PENALTY,
    VARIETY,
    VARIETY_POINTS,
)

if TYPE_CHECKING:
    from agents.protocol import PlayerView
    from envs.wakanda.rules import WakandaState


def choose(view: PlayerView, rng: np.random.Generator) -> int:
    """The agent's move: the policy on one determinized copy (only public facts are read)."""
    return policy(view.sample_determinization(rng))


def village_points(village: int, counts: list[float], tallest: float) -> float:
    """What owning ``village`` pays over totems holding ``counts`` pieces per kind."""
    if village == VARIETY:
        return VARIETY_POINTS * sum(1 for c in counts if c >= 0.5)
    if village == HEIGHT:
        return HEIGHT_POINTS * tallest
    return POINTS_PER_PIECE[village] * counts[village]


class _Position:
    """The public facts the strategy needs, as small lists (never the bag's order, never face-down villages)."""

    def __init__(self, state: WakandaState):
        self.open = state.open_slots()
        self.kind = {v: state.villages[v] for v in range(state.revealed)}  # visible villages only
        self.totems = {v: list(state.totems[v]) for v in self.open}
        self.holding = [
            [(state.villages[v], state.totems[v]) for v in range(NUM_SLOTS) if state.owner[v] == p] for p in (0, 1)
        ]
        self.supplies = [list(s) for s in state.supplies]
        self.headdresses = list(state.headdresses)
        self.unclaimed = NUM_SLOTS - state.finished
        remaining = [0] * NUM_PIECE_KINDS  # pieces not yet on a claimed totem: bag contents, supplies, open totems
        for piece in state.bag:
            remaining[piece] += 1
        for supply in self.supplies:
            for k, c in enumerate(supply):
                remaining[k] += c
        for totem in self.totems.values():
            for piece in totem:
                remaining[piece] += 1
        self.per_totem = [r / max(1, self.unclaimed) for r in remaining]  # an average future totem
        self.per_totem_sum = sum(self.per_totem)  # its height

    def expected(self, player: int) -> float:
        """``player``'s expected final score: owned villages over owned totems plus average future
        totems (one per headdress that can still crown), and future crowns at their average worth."""
        future = min(self.headdresses[player], self.unclaimed)
        counts = [f * future for f in self.per_totem]
        tallest = self.per_totem_sum if future else 0.0
        for _, totem in self.holding[player]:
            tallest = max(tallest, len(totem))
            for piece in totem:
                counts[piece] += 1
        owned = [village for village, _ in self.holding[player]]
        total = sum(village_points(u, counts, tallest) for u in owned)
        if future:
            candidates = [self.kind[v] for v in self.open] or owned or [SUN]
            crowns = sum(village_points(u, counts, tallest) for u in candidates)
            total += FUTURE_CROWN_SHARE * future * crowns / len(candidates)
        if SUN not in owned:
            total -= SUN_PENALTY * counts[SUN]
        return total

    def value(self, me: int) -> float:
        return self.expected(me) - self.expected(1 - me)

    def moves(self, player: int) -> list[tuple[int | None, int]]:
        """(piece kind or None for a finish, slot) for every move ``player`` could make."""
        out = [(k, v) for k in range(NUM_PIECE_KINDS) if self.supplies[player][k] for v in self.open]
        if self.headdresses[player]:
            out += [(None, v) for v in self.open if self.totems[v]]
        return out

    def after(self, player: int, move: tuple[int | None, int]) -> _Position:
        other = object.__new__(_Position)
        other.__dict__.update(self.__dict__)
        kind, slot = move
        other.totems = dict(self.totems)
        if kind is None:
            other.holding = list(self.holding)
            other.holding[player] = self.holding[player] + [(self.kind[slot], self.totems[slot])]
            other.open = [v for v in self.open if v != slot]
            del other.totems[slot]
            other.headdresses = list(self.headdresses)
            other.headdresses[player] -= 1
            other.unclaimed = self.unclaimed - 1
        else:
            other.totems[slot] = self.totems[slot] + [kind]
            other.supplies = [list(s) for s in self.supplies]
            other.supplies[player][kind] -= 1
        return other


def policy(state: WakandaState) -> int:
    """The move of the player to act in ``state``: best value after the opponent's best reply.

    A build moves a piece from a supply onto an open totem, and the valuation counts both alike
    (pieces not on a claimed totem), so a build leaves the value as it was: only finishes are
    valued afresh, and a finish reply after one of my builds is valued once per totem it takes."""
    me = state.current_player
    legal = state.legal_tuple()
    if len(legal) == 1:
        return legal[0]
    position = _Position(state)
    unchanged = position.value(me)
    after_my_build: dict[tuple, float] = {}  # (slot, its totem) -> my value after the opponent finishes it
    best, best_value = legal[0], -float("inf")
    for action in legal:
        move = decode(action)
        after = position.after(me, move)
        if move[0] is None:
            value = _worst_reply(after, me, after.value(me), {})
        else:
            value = _worst_reply(after, me, unchanged, after_my_build)
        if value > best_value:
            best, best_value = action, value
    return best


def _worst_reply(position: _Position, me: int, unchanged: float, finished: dict[tuple, float]) -> float:
    """My value after the opponent's best reply: ``unchanged`` after a build (or no move at all),
    else the value after finishing a totem (looked up in, or added to, ``finished``). The replies are
    :meth:`_Position.moves`: finishes valued one by one, the builds all alike."""
    opponent = 1 - me
    values = []
    if position.headdresses[opponent]:
        for slot in position.open:
            totem = position.totems[slot]
            if totem:
                key = (slot, tuple(totem))
                if key not in finished:
                    finished[key] = position.after(opponent, (None, slot)).value(me)
                values.append(finished[key])
    builds = position.open and any(position.supplies[opponent])
    if builds or not values:  # a build among the replies, or no reply at all
        values.append(unchanged)
    return min(values)
