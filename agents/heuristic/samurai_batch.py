"""The Samurai heuristic (``samurai.py``) over a batch of games (``envs/samurai/batch.py``): the same
choice in every game, to the last tie.

The per-game strategy has no randomness of its own (``choose`` draws only the determinization it
reads), so its batch form is a pure function of each game's position. Here it is the per-game
``_Planner`` itself, compiled (``envs.core.compiled.kernel``) and run game by game over the batch's
arrays: the same loops in the same order (hexes and settlements ascending, a hex's settlements in the
board's order, types ascending), the same float operations (``chance`` is the heuristic's own function,
compiled; no fastmath), so every value and every "first of the best" is the per-game one
(``tests/test_samurai_batch.py`` checks the two forms against each other on many games and positions).
"""

from __future__ import annotations

import threading
from collections import namedtuple

import numpy as np

from agents.heuristic.samurai_values import QUICK_MIN_GAIN, STRENGTH, SWAP_MIN_GAIN, TILE_COST, chance
from envs.core.compiled import kernel
from envs.samurai.actions import END_TURN, FIGURE, HEX
from envs.samurai.batch import SamuraiBatch
from envs.samurai.batch_arrays import games_of
from envs.samurai.batch_tables import CHOOSE_HAND, DRAFT, DUMMY, INFLUENCE_OF, IS_LAND, MOVABLE_OF, QUICK_OF
from envs.samurai.components import FIGURE_SWAP, NUM_KINDS, SHIPS, TILE_SWAP
from envs.samurai.rules import SamuraiState

STRENGTH_OF = np.array(STRENGTH, dtype=np.int64)
SHIP1, SHIP2 = SHIPS
#: Per kind: what ``place_gain`` subtracts for spending the tile (TILE_COST times its total influence).
COST_OF = np.array([TILE_COST * sum(INFLUENCE_OF[k].tolist()) for k in range(NUM_KINDS)])
chance_of = kernel(chance.__wrapped__)  # the function itself, not its memo


def batch_policy(batch: SamuraiBatch, where: np.ndarray | None = None) -> np.ndarray:
    """``policy(state)`` of every game of ``batch`` (or of the games ``where``, a ``(N,)`` bool: an opponents'
    pass moves only those): ``(N,)`` int64, -1 where a game is over or not asked for."""
    going = batch.player >= 0
    mask = batch.legal_mask() if where is None else batch.legal_mask_where(going & where)
    if where is not None:
        going = going & where
    moves = np.full(len(batch), -1, dtype=np.int64)
    policy_moves(games_of(batch), batch.board, mask, going, moves)
    return moves


def compiled_policy(state: SamuraiState) -> int:
    """``samurai.policy(state)`` in compiled code (the same move): the search tree's first move at a new node.
    The position is copied into this thread's one-game batch (``load_one``), about half the per-game policy's time."""
    batch = getattr(_kept, "batch", None)
    if batch is None or batch.game is not state.game:
        batch = _kept.batch = SamuraiBatch.from_states([state])
    else:
        batch.load_one(state)
    return int(batch_policy(batch)[0])


_kept = threading.local()  # each thread's one-game batch


def play_out(states: list[SamuraiState], first_moves: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every state after each of ``first_moves`` (legal in all of them), then played to the end with the
    heuristic in every seat, all at once: ISMCTS's paired rollouts. Returns the final scores and the winners
    (bool), both ``games x players``; game ``i * len(first_moves) + j`` is ``states[i]`` after ``first_moves[j]``."""
    batch = SamuraiBatch.from_states(states).take(np.repeat(np.arange(len(states)), len(first_moves)))
    batch.step(np.tile(np.asarray(first_moves, dtype=np.int64), len(states)))
    while not batch.terminated.all():
        batch.step(batch_policy(batch))
    return batch.scores(), batch.winners()


#: One game's position as the planner reads it: the leads per settlement and type, the type weights, the
#: empty land around each settlement, the figures, tiles and owners, and the player to act.
Position = namedtuple("Position", ("leads", "weights", "need", "figures", "tile", "owner", "me"))


@kernel
def policy_moves(games, board, mask, going, moves):
    """``policy(state)`` of each game of ``going`` into ``moves``."""
    for i in range(going.size):
        if not going[i]:
            continue
        legal = mask[i]
        first, count = -1, 0
        for a in range(legal.size):
            if legal[a]:
                count += 1
                if first < 0:
                    first = a
        if count == 1 or games.phase[i] == DRAFT:
            moves[i] = first
        elif games.phase[i] == CHOOSE_HAND:
            moves[i] = strongest(legal, first)
        else:
            me = games.player[i]
            weights = type_weights(games.captured[i], games.on_board[i], me)
            leads = lead_table(games.influence[i], me)
            here = Position(leads, weights, games.need[i], games.figures[i], games.tile[i], games.owner[i], me)
            moves[i] = planned_move(here, board, games.pending[i], games.first_s[i], games.swap_from[i], legal, first)


@kernel
def strongest(legal, first):
    """choose_hand: the strongest tile, the lowest kind among equals."""
    best = first
    for a in range(first, NUM_KINDS):
        if legal[a] and STRENGTH_OF[a] > STRENGTH_OF[best]:
            best = a
    return best


@kernel
def type_weights(captured, on_board, me):
    """A type's figures count most while its majority is still open between me and the best rival."""
    weights = np.empty(3)
    for t in range(3):
        rival = -1
        for p in range(captured.shape[0]):
            if p != me and captured[p, t] > rival:
                rival = captured[p, t]
        weights[t] = 1.5 if abs(captured[me, t] - rival) <= on_board[t] else 0.6
    return weights


@kernel
def lead_table(influence, me):
    """``(S+1, 3)``: my influence for each settlement and type less the strongest rival's (``_Planner.lead``)."""
    leads = np.empty((influence.shape[0], 3), dtype=np.int64)
    for s in range(influence.shape[0]):
        for t in range(3):
            rival = np.iinfo(np.int64).min
            for p in range(influence.shape[1]):
                if p != me and influence[s, p, t] > rival:
                    rival = influence[s, p, t]
            leads[s, t] = influence[s, me, t] - rival
    return leads


@kernel
def figure_value(leads, weights, s, t, extra, open_land):
    """``_Planner.figure_value``: resolved now (captured 1, set aside 0, lost -0.5) or the chance of taking it."""
    lead = leads[s, t] + extra
    if open_land <= 0:
        return weights[t] * (1.0 if lead > 0 else (0.0 if lead == 0 else -0.5))
    return weights[t] * chance_of(lead, open_land)


@kernel
def best_target(here, near, hexes, kind):
    """(gain, hex): the empty hex of ``hexes`` next to a settlement where ``kind`` gains most (the first of
    equals; ``place_gain`` summed settlement by settlement in the board's order, type by type); else the first
    empty hex at the tile's cost; (-inf, -1) without one."""
    leads, weights, need, figures = here.leads, here.weights, here.need, here.figures
    best, where, first = -np.inf, -1, -1
    for h in hexes:
        if here.tile[h] >= 0:
            continue
        if first < 0:
            first = h
        if near[h, 0] == DUMMY:
            continue
        gain = 0.0
        for j in range(2):
            s = near[h, j]
            if s == DUMMY:
                break
            after = need[s] - 1 if IS_LAND[h] else need[s]
            for t in range(3):
                if figures[s, t]:
                    gain += figure_value(leads, weights, s, t, INFLUENCE_OF[kind, t], after) - figure_value(
                        leads, weights, s, t, 0, need[s]
                    )
        value = gain - COST_OF[kind]
        if value > best:
            best, where = value, h
    if best == -np.inf and first >= 0:
        return -COST_OF[kind], first
    return best, where


@kernel
def kind_target(here, board, kind):
    """:func:`best_target` of ``kind`` on its part of the board (sea for ships, else land)."""
    hexes = board.sea_hexes if kind == SHIP1 or kind == SHIP2 else board.land_hexes
    return best_target(here, board.near, hexes, kind)


@kernel
def best_swap(here, settlements):
    """(gain, s1, t1, s2, t2): the figure exchange that gains most, (0.0, -1, -1, -1, -1) if none gains."""
    leads, weights, need, figures = here.leads, here.weights, here.need, here.figures
    size = 3 * settlements.size
    at, types, value = np.empty(size, np.int64), np.empty(size, np.int64), np.empty(size)
    count = 0
    for s in settlements:
        for t in range(3):
            if figures[s, t]:
                at[count], types[count] = s, t
                value[count] = figure_value(leads, weights, s, t, 0, need[s]) / weights[t]
                count += 1
    best, swap = 0.0, (-1, -1, -1, -1)
    for a in range(count):
        s1, t1 = at[a], types[a]
        for b in range(count):
            s2, t2 = at[b], types[b]
            if s1 >= s2 or t1 == t2 or figures[s1, t2] or figures[s2, t1]:
                continue
            before = value[a] * weights[t1] + value[b] * weights[t2]
            after = figure_value(leads, weights, s2, t1, 0, need[s2]) + figure_value(
                leads, weights, s1, t2, 0, need[s1]
            )
            if after - before > best:
                best, swap = after - before, (s1, t1, s2, t2)
    return best, swap


@kernel
def best_tile_swap(here, board):
    """(gain, from hex, to hex): move one of my tiles away from settlements that no longer need it."""
    best, source, target = -np.inf, -1, -1
    figures = here.figures
    for h in range(here.tile.size):
        kind = here.tile[h]
        if here.owner[h] != here.me or not MOVABLE_OF[kind] or kind == TILE_SWAP:
            continue
        working = False
        for j in range(2):
            s = board.near[h, j]
            if s != DUMMY and (figures[s, 0] or figures[s, 1] or figures[s, 2]):
                working = True
        if working:
            continue  # still working there
        value, to = kind_target(here, board, kind)
        if value > best:
            best, source, target = value, h, to
    return best, source, target


@kernel
def planned_move(here, board, pending, first_s, swap_from, legal, first):
    """``_Planner.move``: the sub-step's best action where it is legal, else the first legal one."""
    if pending < 0:
        return choose_tile(here, board, legal)
    if pending == FIGURE_SWAP:
        _, (s1, t1, s2, t2) = best_swap(here, board.settlements)
        if s1 >= 0:
            action = FIGURE + 3 * s1 + t1 if first_s < 0 else FIGURE + 3 * s2 + t2
            if legal[action]:
                return action
        return first
    if pending == TILE_SWAP:
        to = kind_target(here, board, here.tile[swap_from])[1] if swap_from >= 0 else best_tile_swap(here, board)[1]
        return HEX + to if legal[HEX + to] else first
    h = kind_target(here, board, pending)[1]
    return HEX + h if legal[HEX + h] else first


@kernel
def choose_tile(here, board, legal):
    """The tile worth most (ties: the lowest kind); the end of the turn when nothing gains."""
    best, kind = -np.inf, -1
    for k in range(NUM_KINDS):
        if not legal[k]:
            continue
        if k == FIGURE_SWAP:
            gain = best_swap(here, board.settlements)[0]
            value = gain if gain >= SWAP_MIN_GAIN else -1.0
        elif k == TILE_SWAP:
            value = best_tile_swap(here, board)[0]
        else:
            value = kind_target(here, board, k)[0]
        if QUICK_OF[k] and value < QUICK_MIN_GAIN:
            value = min(value, -1.0)  # not worth playing now
        if kind < 0 or value > best:
            best, kind = value, k
    if legal[END_TURN] and best <= 0:
        return END_TURN
    return kind
