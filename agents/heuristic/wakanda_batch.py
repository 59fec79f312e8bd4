"""The Wakanda heuristic (``wakanda.py``) over a batch of games (``envs/wakanda/batch.py``): the same choice in
every game, to the last tie, as a compiled kernel (``envs.core.compiled``) that runs ``policy(state)`` game by game.

Why compiled: the strategy looks one reply ahead, so a move's value needs a few positions valued afresh, a
different few in every game; numba runs each game's own loop over its moves as ``wakanda.policy`` does. Every float
is computed with the operations, in the order, of ``_Position.expected`` (sums added one term at a time from the
first; a held piece added to its kind's count one at a time), so the two forms choose alike to the last tie
(``tests/test_wakanda_batch.py`` and ``tests/test_wakanda_heuristic.py`` compare them on many games).

A move's value needs few positions, each a *scenario* of the game as it is: my finish of a slot ``mine``, their
finish of a slot ``theirs`` with a piece of kind ``extra`` my build put on it (-1 for none): as it is (my build
leaves the value unchanged), they finish an open totem as it is, or after my build on it, I finish, or both.
"""

from __future__ import annotations

import numpy as np

from envs.core.batch import NO_PLAYER
from envs.core.compiled import kernel
from envs.wakanda.actions import FINISH
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
from envs.wakanda.rules import WakandaState

#: Worth of a headdress still in hand, as a share of a future crown's expected value (``wakanda.py`` reads it).
FUTURE_CROWN_SHARE = 1.3
POINTS = np.array(POINTS_PER_PIECE, dtype=np.int64)
NONE = -1


def batch_policy(batch: WakandaBatch, where: np.ndarray | None = None) -> np.ndarray:
    """``policy(state)`` of every game of ``batch`` (or of the games ``where``, a ``(N,)`` bool: an opponents'
    pass moves only those): ``(N,)`` int64, -1 where a game is over or not asked for."""
    moves = np.full(batch.num_games, NONE, dtype=np.int64)
    asked = np.ones(batch.num_games, dtype=np.bool_) if where is None else np.asarray(where, dtype=np.bool_)
    scratch = np.zeros((2, NUM_PIECE_KINDS))
    policy_moves(batch.games, asked, moves, scratch)
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


@kernel
def _village_points(village, counts, tallest):
    """What owning ``village`` pays over totems holding ``counts`` pieces per kind (``wakanda.village_points``)."""
    if village == VARIETY:
        kinds = 0
        for kind in range(NUM_PIECE_KINDS):
            if counts[kind] >= 0.5:
                kinds += 1
        return float(VARIETY_POINTS * kinds)
    if village == HEIGHT:
        return HEIGHT_POINTS * tallest
    return POINTS[village] * counts[village]


@kernel
def _expected(table, i, player, finish, extra, unclaimed, open_, per_totem, counts):
    """``_Position.expected`` of ``player`` once they have also finished slot ``finish`` (with a piece of kind
    ``extra`` added on it; -1: none), with ``unclaimed`` villages left and the slots of the set ``open_`` open:
    owned villages over owned totems plus average future totems (one per headdress that can still crown), and
    future crowns at their average worth. ``counts`` is scratch for the pieces per kind."""
    villages, owner, heights, headdresses, held_pieces, held_tallest, totem_counts = table
    future = min(headdresses[i, player] - (finish >= 0), unclaimed)
    tallest = 0.0
    for kind in range(NUM_PIECE_KINDS):
        counts[kind] = per_totem[kind] * future
        if future:
            tallest += per_totem[kind]  # sum(per_totem), from the first term
    tallest = max(tallest, held_tallest[i, player])
    if finish >= 0:
        tallest = max(tallest, heights[i, finish] + (extra >= 0))
    for kind in range(NUM_PIECE_KINDS):
        held = held_pieces[i, player, kind] + (extra == kind)
        if finish >= 0:
            held += totem_counts[i, finish, kind]
        for _ in range(held):  # one piece at a time, as the per-game loop adds them
            counts[kind] += 1
    total, owned, sun_owned = 0.0, 0, False
    for slot in range(NUM_SLOTS + 1):  # the villages held in slot order, then the one just finished
        mine = slot == NUM_SLOTS and finish >= 0
        at = finish if mine else slot
        if mine or (slot < NUM_SLOTS and owner[i, slot] == player):
            total += _village_points(villages[i, at], counts, tallest)
            owned += 1
            sun_owned |= villages[i, at] == SUN
    if future:
        crowns, candidates = 0.0, 0
        for slot in range(NUM_SLOTS):
            if open_ >> slot & 1:
                crowns += _village_points(villages[i, slot], counts, tallest)
                candidates += 1
        if not candidates:  # never while a crown is possible (a village is then open): as the per-game fallback
            for slot in range(NUM_SLOTS + 1):
                mine = slot == NUM_SLOTS and finish >= 0
                if mine or (slot < NUM_SLOTS and owner[i, slot] == player):
                    crowns += _village_points(villages[i, finish if mine else slot], counts, tallest)
                    candidates += 1
        if not candidates:
            crowns, candidates = _village_points(SUN, counts, tallest), 1
        total += FUTURE_CROWN_SHARE * future * crowns / candidates
    if not sun_owned:
        total -= SUN_PENALTY * counts[SUN]
    return total


@kernel
def _value(table, i, me, mine, theirs, extra, unclaimed, open_, per_totem, scratch):
    """My value (``_Position.value``: my expected score less theirs) in the scenario: my finish ``mine``, their
    finish ``theirs`` with a piece ``extra`` on it (``unclaimed`` villages and the set ``open_`` before them)."""
    unclaimed -= (mine >= 0) + (theirs >= 0)
    for slot in (mine, theirs):
        if slot >= 0:
            open_ &= ~(1 << slot)
    mine_value = _expected(table, i, me, mine, NONE, unclaimed, open_, per_totem, scratch[0])
    return mine_value - _expected(table, i, 1 - me, theirs, extra, unclaimed, open_, per_totem, scratch[1])


@kernel
def _choose(g, table, i, me, per_totem, scratch):
    """``policy``: the move with the best value after the opponent's best reply, the first of equals."""
    opponent, open_, nonempty, unclaimed = 1 - me, g.open_bits[i], g.nonempty_bits[i], NUM_SLOTS - g.finished[i]
    their_supply, their_crowns = g.supply_bits[i, opponent] != 0, g.headdresses[i, opponent] > 0
    my_supply, my_crowns = g.supply_bits[i, me], g.headdresses[i, me] > 0
    legal = 0
    for slot in range(NUM_SLOTS):
        if open_ >> slot & 1:
            for kind in range(NUM_PIECE_KINDS):
                legal += my_supply >> kind & 1
            if my_crowns and nonempty >> slot & 1:
                legal += 1
    unchanged = _value(table, i, me, NONE, NONE, NONE, unclaimed, open_, per_totem, scratch)
    best, best_value = NONE, -np.inf
    for action in range(FINISH + NUM_SLOTS):
        slot = action % NUM_SLOTS
        if not open_ >> slot & 1:
            continue
        if action < FINISH:
            kind = action // NUM_SLOTS
            if not my_supply >> kind & 1:
                continue
            if legal == 1:
                return action
            value = np.inf  # their replies after my build: finish an open totem (s now has my piece), or build
            if their_crowns:
                for other in range(NUM_SLOTS):
                    if other == slot:
                        value = min(value, _value(table, i, me, NONE, slot, kind, unclaimed, open_, per_totem, scratch))
                    elif open_ >> other & 1 and nonempty >> other & 1:
                        value = min(
                            value, _value(table, i, me, NONE, other, NONE, unclaimed, open_, per_totem, scratch)
                        )
            if their_supply or not their_crowns:  # a build among their replies, or no reply at all
                value = min(value, unchanged)
        else:
            if not (my_crowns and nonempty >> slot & 1):
                continue
            if legal == 1:
                return action
            after = _value(table, i, me, slot, NONE, NONE, unclaimed, open_, per_totem, scratch)
            value, replies, finishes = np.inf, 0, 0
            left = open_ & ~(1 << slot)
            if their_supply and left:
                replies += 1
            for other in range(NUM_SLOTS):
                if their_crowns and left >> other & 1 and nonempty >> other & 1:
                    value = min(value, _value(table, i, me, slot, other, NONE, unclaimed, open_, per_totem, scratch))
                    finishes += 1
            if replies or not finishes:  # a build among their replies, or no reply at all
                value = min(value, after)
        if value > best_value:
            best, best_value = action, value
    return best


@kernel
def policy_moves(g, asked, moves, scratch):
    """``moves[i]``: the heuristic's move in every game ``asked`` and still going (``policy(batch.state(i))``)."""
    per_totem = np.zeros(NUM_PIECE_KINDS)
    table = (
        g.villages,
        g.owner,
        g.heights,
        g.headdresses,
        g.held,
        g.held_tallest,
        g.totem_counts,
    )  # what _expected reads
    for i in range(len(moves)):
        me = g.player[i]
        if me == NO_PLAYER or not asked[i]:
            continue
        unclaimed = NUM_SLOTS - g.finished[i]
        for kind in range(NUM_PIECE_KINDS):  # pieces not yet on a claimed totem: bag, supplies, open totems
            remaining = g.bag_counts[i, kind] + g.supplies[i, 0, kind] + g.supplies[i, 1, kind]
            for slot in range(NUM_SLOTS):
                if g.open_bits[i] >> slot & 1:
                    remaining += g.totem_counts[i, slot, kind]
            per_totem[kind] = remaining / max(1, unclaimed)  # an average future totem
        moves[i] = _choose(g, table, i, me, per_totem, scratch)


__all__ = ["FUTURE_CROWN_SHARE", "batch_policy", "play_out"]
