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
chance_of = kernel(chance)


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


def play_out(states: list[SamuraiState], first_moves: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every state after each of ``first_moves`` (legal in all of them), then played to the end with the
    heuristic in every seat, all at once: ISMCTS's paired rollouts. Returns the final scores and the winners
    (bool), both ``games x players``; game ``i * len(first_moves) + j`` is ``states[i]`` after ``first_moves[j]``."""
    batch = SamuraiBatch.from_states(states).take(np.repeat(np.arange(len(states)), len(first_moves)))
    batch.step(np.tile(np.asarray(first_moves, dtype=np.int64), len(states)))
    while not batch.terminated.all():
        batch.step(batch_policy(batch))
    return batch.scores(), batch.winners()


@kernel
def policy_moves(games, board, mask, going, moves):
    """``policy(state)`` of each game of ``going`` into ``moves``."""
    for i in range(going.size):
        if going[i]:
            moves[i] = policy_one(games, board, i, mask[i])


@kernel
def policy_one(games, board, i, legal):
    """``samurai.policy``: the only legal move, the strongest tile for the hand (the lowest kind among equals),
    the first draft placement, else the planner's move."""
    first, count = -1, 0
    for a in range(legal.size):
        if legal[a]:
            count += 1
            if first < 0:
                first = a
    if count == 1 or games.phase[i] == DRAFT:
        return first
    if games.phase[i] == CHOOSE_HAND:
        best = first
        for a in range(first, NUM_KINDS):
            if legal[a] and STRENGTH_OF[a] > STRENGTH_OF[best]:
                best = a
        return best
    weights = type_weights(games, i, games.player[i])
    return planned_move(games, board, i, weights, legal, first)


@kernel
def type_weights(games, i, me):
    """A type's figures count most while its majority is still open between me and the best rival."""
    weights = np.empty(3)
    captured = games.captured[i]
    for t in range(3):
        rival = -1
        for p in range(captured.shape[0]):
            if p != me and captured[p, t] > rival:
                rival = captured[p, t]
        weights[t] = 1.5 if abs(captured[me, t] - rival) <= games.on_board[i, t] else 0.6
    return weights


@kernel
def lead(games, i, me, s, t):
    """My influence for type ``t`` at ``s`` less the strongest rival's."""
    influence = games.influence[i, s]
    rival = np.iinfo(np.int64).min
    for p in range(influence.shape[0]):
        if p != me and influence[p, t] > rival:
            rival = influence[p, t]
    return influence[me, t] - rival


@kernel
def figure_value(games, i, weights, s, t, extra, open_land):
    """``_Planner.figure_value``: resolved now (captured 1, set aside 0, lost -0.5) or the chance of taking it."""
    value = lead(games, i, games.player[i], s, t) + extra
    if open_land <= 0:
        return weights[t] * (1.0 if value > 0 else (0.0 if value == 0 else -0.5))
    return weights[t] * chance_of(value, open_land)


@kernel
def place_gain(games, board, i, weights, kind, h):
    """What putting ``kind`` on hex ``h`` adds over leaving it, over the settlements around ``h``."""
    gain = 0.0
    for j in range(2):
        s = board.near[h, j]
        if s == DUMMY:
            break
        need = games.need[i, s]
        after = need - 1 if IS_LAND[h] else need
        for t in range(3):
            if games.figures[i, s, t]:
                gain += figure_value(games, i, weights, s, t, INFLUENCE_OF[kind, t], after) - figure_value(
                    games, i, weights, s, t, 0, need
                )
    return gain - COST_OF[kind]


@kernel
def best_target(games, board, i, weights, kind):
    """(gain, hex): the empty hex next to a settlement where ``kind`` gains most (the first of equals); else the
    first empty hex at the tile's cost; (-inf, -1) without one."""
    hexes = board.sea_hexes if kind == SHIP1 or kind == SHIP2 else board.land_hexes
    best, where, first = -np.inf, -1, -1
    for h in hexes:
        if games.tile[i, h] >= 0:
            continue
        if first < 0:
            first = h
        if board.near[h, 0] == DUMMY:
            continue
        value = place_gain(games, board, i, weights, kind, h)
        if value > best:
            best, where = value, h
    if best == -np.inf and first >= 0:
        return -COST_OF[kind], first
    return best, where


@kernel
def best_swap(games, board, i, weights):
    """(gain, s1, t1, s2, t2): the figure exchange that gains most, (0.0, -1, -1, -1, -1) if none gains."""
    size = 3 * board.settlements.size
    at, types, value = np.empty(size, np.int64), np.empty(size, np.int64), np.empty(size)
    count = 0
    for s in board.settlements:
        for t in range(3):
            if games.figures[i, s, t]:
                at[count], types[count] = s, t
                value[count] = figure_value(games, i, weights, s, t, 0, games.need[i, s]) / weights[t]
                count += 1
    best, swap = 0.0, (-1, -1, -1, -1)
    for a in range(count):
        s1, t1 = at[a], types[a]
        for b in range(count):
            s2, t2 = at[b], types[b]
            if s1 >= s2 or t1 == t2 or games.figures[i, s1, t2] or games.figures[i, s2, t1]:
                continue
            before = value[a] * weights[t1] + value[b] * weights[t2]
            after = figure_value(games, i, weights, s2, t1, 0, games.need[i, s2]) + figure_value(
                games, i, weights, s1, t2, 0, games.need[i, s1]
            )
            if after - before > best:
                best, swap = after - before, (s1, t1, s2, t2)
    return best, swap


@kernel
def best_tile_swap(games, board, i, weights):
    """(gain, from hex, to hex): move one of my tiles away from settlements that no longer need it."""
    best, source, target = -np.inf, -1, -1
    me = games.player[i]
    for h in range(games.tile.shape[1]):
        kind = games.tile[i, h]
        if games.owner[i, h] != me or not MOVABLE_OF[kind] or kind == TILE_SWAP:
            continue
        working = False
        for j in range(2):
            s = board.near[h, j]
            if s != DUMMY and (games.figures[i, s, 0] or games.figures[i, s, 1] or games.figures[i, s, 2]):
                working = True
        if working:
            continue  # still working there
        value, to = best_target(games, board, i, weights, kind)
        if value > best:
            best, source, target = value, h, to
    return best, source, target


@kernel
def planned_move(games, board, i, weights, legal, first):
    """``_Planner.move``: the sub-step's best action where it is legal, else the first legal one."""
    pending = games.pending[i]
    if pending < 0:
        return choose_tile(games, board, i, weights, legal)
    if pending == FIGURE_SWAP:
        _, (s1, t1, s2, t2) = best_swap(games, board, i, weights)
        if s1 >= 0:
            action = FIGURE + 3 * s1 + t1 if games.first_s[i] < 0 else FIGURE + 3 * s2 + t2
            if legal[action]:
                return action
        return first
    if pending == TILE_SWAP:
        source = games.swap_from[i]
        if source >= 0:
            to = best_target(games, board, i, weights, games.tile[i, source])[1]
        else:
            to = best_tile_swap(games, board, i, weights)[1]
        return HEX + to if legal[HEX + to] else first
    h = best_target(games, board, i, weights, pending)[1]
    return HEX + h if legal[HEX + h] else first


@kernel
def choose_tile(games, board, i, weights, legal):
    """The tile worth most (ties: the lowest kind); the end of the turn when nothing gains."""
    best, kind = -np.inf, -1
    for k in range(NUM_KINDS):
        if not legal[k]:
            continue
        if k == FIGURE_SWAP:
            gain = best_swap(games, board, i, weights)[0]
            value = gain if gain >= SWAP_MIN_GAIN else -1.0
        elif k == TILE_SWAP:
            value = best_tile_swap(games, board, i, weights)[0]
        else:
            value = best_target(games, board, i, weights, k)[0]
        if QUICK_OF[k] and value < QUICK_MIN_GAIN:
            value = min(value, -1.0)  # not worth playing now
        if kind < 0 or value > best:
            best, kind = value, k
    if legal[END_TURN] and best <= 0:
        return END_TURN
    return kind
