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
(the same choices to the last tie), and ``play_out`` plays many positions out with it at
once: ISMCTS's batch rollouts (``tests/test_wakanda_batch.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.wakanda.actions import FINISH, decode
from envs.wakanda.batch import WakandaBatch
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

#: Worth of a headdress still in hand, as a share of a future crown's expected value.
FUTURE_CROWN_SHARE = 1.3


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


# --- the same strategy over a batch of games (envs/wakanda/batch.py) ----------------------------
# Every float is computed in the order ``_Position.expected`` computes it (sums added one term at a
# time, never pairwise), so that the two forms choose alike to the last tie (tests/test_wakanda_batch.py).
#
# A move's value needs few positions, each valued once: the position as it is (my build leaves the
# value unchanged), the opponent finishing an open totem as it is or after my build on it, my finish,
# and my finish followed by the opponent's. Each is a *scenario* (game, my finish ``a``, their finish
# ``b``, a piece of kind ``k`` my build added to their totem; -1 for none).


def batch_policy(batch: WakandaBatch) -> np.ndarray:
    """:func:`policy` of every game of ``batch`` (``policy(batch.state(i))``; -1 where a game is over)."""
    mask = batch.legal_mask()
    moves = np.where(mask.any(axis=1), mask.argmax(axis=1), -1)  # a lone legal move needs no valuation
    rows = np.flatnonzero(mask.sum(axis=1) > 1)
    if rows.size:
        values = _action_values(_Root(batch, rows), mask[rows])
        moves[rows] = np.where(mask[rows], values, -np.inf).argmax(axis=1)  # the first best, as policy
    return moves


def play_out(states: list[WakandaState], first_moves: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every state after each of ``first_moves`` (legal in all of them), then played to the end by this
    strategy in every seat, all at once: the paired rollouts of ISMCTS. Returns the final scores and the
    winners (bool), both ``games x players``; game ``i * len(first_moves) + j`` is ``states[i]`` after
    ``first_moves[j]``."""
    batch = WakandaBatch.from_states(states).repeat(len(first_moves))
    batch.step(np.tile(np.asarray(first_moves, dtype=np.int64), len(states)))
    while not batch.terminated.all():
        batch.step(batch_policy(batch))
    return batch.scores(), batch.winners()


class _Root:
    """:class:`_Position`'s public facts for the games ``rows`` of a batch, as arrays (row r: game rows[r])."""

    def __init__(self, batch: WakandaBatch, rows: np.ndarray):
        self.me = batch.player[rows]
        self.villages, self.open = batch.villages[rows], batch.open[rows]
        self.heights, self.totem_counts = batch.heights[rows], batch.totem_counts[rows]
        self.headdresses, self.supplies = batch.headdresses[rows], batch.supplies[rows]
        self.unclaimed = NUM_SLOTS - batch.finished[rows]
        owns = batch.owner[rows][:, None, :] == np.arange(2)[:, None]  # (rows, player, slot)
        self.owns = owns
        self.held, self.held_tallest = batch.held[rows], batch.held_tallest[rows]
        self.sun_owned = (owns & (self.villages[:, None, :] == SUN)).any(axis=2)
        on_open = (self.totem_counts * self.open[:, :, None]).sum(axis=1)
        remaining = batch.bag_counts[rows] + self.supplies.sum(axis=1) + on_open  # exact ints
        self.per_totem = remaining / np.maximum(1, self.unclaimed)[:, None]
        self.per_totem_sum = _added(self.per_totem)


def _added(terms: np.ndarray) -> np.ndarray:
    """``sum()`` of the last axis, one term at a time from the first (numpy's own sum is pairwise)."""
    total = terms[..., 0]
    for i in range(1, terms.shape[-1]):
        total = total + terms[..., i]
    return total


def _expected(root: _Root, r, player, finish, extra, unclaimed, open_) -> np.ndarray:
    """:meth:`_Position.expected` of ``player`` in each scenario: game ``r`` once ``player`` has also
    finished slot ``finish`` (-1: none; a piece of kind ``extra`` added on it, -1: none), with
    ``unclaimed`` villages left and ``open_`` open. While a crown is still possible some village is open
    (``revealed = min(6, 3 + finished)`` and a scenario finishes at most two), so the candidates are always
    the open villages."""
    has = finish >= 0
    slot = np.maximum(finish, 0)
    future = np.minimum(root.headdresses[r, player] - has, unclaimed)
    held = root.held[r, player] + np.where(has[:, None], root.totem_counts[r, slot], 0)
    held += (extra[:, None] == np.arange(NUM_PIECE_KINDS)) & has[:, None]
    counts = root.per_totem[r] * future[:, None]
    for i in range(held.max(initial=0)):  # one piece at a time, as the per-game loop adds them
        counts = counts + (held > i)
    tallest = np.maximum(np.where(future > 0, root.per_totem_sum[r], 0.0), root.held_tallest[r, player])
    tallest = np.maximum(tallest, np.where(has, root.heights[r, slot] + (extra >= 0), 0))
    points = np.empty((len(r), NUM_SLOTS + 2))
    points[:, :NUM_PIECE_KINDS] = np.array(POINTS_PER_PIECE) * counts
    points[:, VARIETY] = VARIETY_POINTS * (counts >= 0.5).sum(axis=1)
    points[:, HEIGHT] = HEIGHT_POINTS * tallest
    by_slot = np.take_along_axis(points, root.villages[r], axis=1)
    owned = root.owns[r, player]
    total = _added(np.where(owned, by_slot, 0.0))  # the villages held, in slot order
    total = total + np.where(has, by_slot[np.arange(len(r)), slot], 0.0)  # then the one just finished
    crowns = _added(np.where(open_, by_slot, 0.0))
    crown = FUTURE_CROWN_SHARE * future * crowns / np.maximum(open_.sum(axis=1), 1)
    total = np.where(future > 0, total + crown, total)
    sun_owned = root.sun_owned[r, player] | (has & (root.villages[r, slot] == SUN))
    return np.where(sun_owned, total, total - SUN_PENALTY * counts[:, SUN])


def _scenario_values(root: _Root, r, mine, theirs, extra) -> np.ndarray:
    """My value (:meth:`_Position.value`) in each scenario (game ``r``, my finish ``mine``, their
    finish ``theirs`` with a piece ``extra`` on it)."""
    me = root.me[r]
    unclaimed = root.unclaimed[r] - (mine >= 0) - (theirs >= 0)
    slots = np.arange(NUM_SLOTS)
    open_ = root.open[r] & (slots != mine[:, None]) & (slots != theirs[:, None])
    none = np.full(len(r), -1)
    mine_value = _expected(root, r, me, mine, none, unclaimed, open_)
    return mine_value - _expected(root, r, 1 - me, theirs, extra, unclaimed, open_)


def _action_values(root: _Root, mask: np.ndarray) -> np.ndarray:
    """``(rows, 42)``: each legal move's value after the opponent's best reply (as :func:`policy`)."""
    n, slots = len(root.me), NUM_SLOTS
    opp = 1 - root.me
    rows = np.arange(n)
    crowns_left = root.headdresses[rows, opp] > 0
    takeable = root.open & (root.heights > 0) & crowns_left[:, None]  # (rows, v): they may finish v now
    builds = mask[:, :FINISH].reshape(n, NUM_PIECE_KINDS, slots) & crowns_left[:, None, None]
    finishes = mask[:, FINISH:]
    pairs = finishes[:, :, None] & takeable[:, None, :] & ~np.eye(slots, dtype=bool)  # my finish s, theirs v
    # The scenarios: as it is; they finish v; they finish s after my build of k there; I finish s; both.
    r0 = rows
    r1, v1 = np.nonzero(takeable)
    r2, k2, s2 = np.nonzero(builds)
    r3, s3 = np.nonzero(finishes)
    r4, s4, v4 = np.nonzero(pairs)
    none = [np.full(len(x), -1) for x in (r0, r1, r2, r3, r4)]
    values = _scenario_values(
        root,
        np.concatenate([r0, r1, r2, r3, r4]),
        np.concatenate([none[0], none[1], none[2], s3, s4]),
        np.concatenate([none[0], v1, s2, none[3], v4]),
        np.concatenate([none[0], none[1], k2, none[3], none[4]]),
    )
    parts = np.split(values, np.cumsum([len(r0), len(r1), len(r2), len(r3)]))
    unchanged = parts[0]
    taken, taken_after_build = np.full((n, slots), np.inf), np.full((n, NUM_PIECE_KINDS, slots), np.inf)
    taken[r1, v1], taken_after_build[r2, k2, s2] = parts[1], parts[2]
    mine, both = np.full((n, slots), np.inf), np.full((n, slots, slots), np.inf)
    mine[r3, s3], both[r4, s4, v4] = parts[3], parts[4]
    their_supply = root.supplies[rows, opp].sum(axis=1) > 0
    # My build of k on s: they finish another open totem, or s with my piece on it, or build (unchanged).
    elsewhere = np.where(np.eye(slots, dtype=bool), np.inf, taken[:, None, :]).min(axis=2)  # (rows, s)
    after_build = np.minimum(elsewhere[:, None, :], taken_after_build)
    keeps = their_supply | ~crowns_left  # a build among their replies, or no reply at all
    after_build = np.where(keeps[:, None, None], np.minimum(after_build, unchanged[:, None, None]), after_build)
    # My finish on s: they finish another open totem, or build while a village is open (my value after s).
    after_finish = both.min(axis=2)
    builds_left = their_supply & (root.open.sum(axis=1) > 1)
    keeps = builds_left[:, None] | ~pairs.any(axis=2)
    after_finish = np.where(keeps, np.minimum(after_finish, mine), after_finish)
    return np.concatenate([after_build.reshape(n, -1), after_finish], axis=1)
