"""The Wapi heuristic (``wapi.py``) playing a batch of games to the end in one compiled kernel: ISMCTS's rollouts.

Why: the flat paired search plays a few hundred determinizations out at every move, and the numpy form of the
heuristic (``wapi.batch_policy``) paid a few dozen numpy calls a ply, most of a search's time. Here one kernel
plays every game of a :class:`~envs.wapi.batch.WapiBatch` to its end, a ply at a time: the legal moves and the move
itself by the batch's own kernels (``envs/wapi/batch_kernels.py``), the heuristic's choice game by game. Every float
is computed with the operations, in the order, of ``wapi.policy`` (sums added a term at a time from the first, the
first of equals kept), so the games, scores and winners are the per-game strategy's (``tests/test_wapi_batch.py``).
"""

from __future__ import annotations

import numpy as np

from envs.core.compiled import kernel
from envs.wapi.actions import DECLINE, NUM_ACTIONS, PLACE_TOTEM
from envs.wapi.batch import WapiBatch
from envs.wapi.batch_kernels import legal_masks, play
from envs.wapi.components import COIN_VALUES, COINS_TO_END, FIRST_MASK, MASK_FIELDS, NUM_MINES, SILVER_FIELDS

#: Extra expected value per free silver field of a mine I hold a pole in (I can feed it).
CONTROL_BONUS = 0.4
#: How much the leading opponent counts, against the average opponent, when placing coins.
LEADER_WEIGHT = 0.5
VALUES = np.array(COIN_VALUES, dtype=np.float64)


def play_to_end(batch: WapiBatch) -> None:
    """Play every game of ``batch`` (made without placements) to its end, the heuristic in every seat."""
    legal = np.empty((batch.num_games, NUM_ACTIONS), dtype=np.bool_)
    _play_to_end(batch._state(), batch.game.num_players, batch.game.scoring == "shared", legal)
    batch._mask = None


@kernel
def _play_to_end(state, num_players, shared, legal):
    """A ply at a time in every game still going: the legal moves, the heuristic's choice, the move."""
    player = state[0]
    n = len(player)
    actions, going = np.zeros(n, np.int64), np.zeros(n, np.bool_)
    nowhere, no_masks = np.zeros(0, np.bool_), np.zeros((0, NUM_ACTIONS), np.bool_)
    placements = (np.zeros((NUM_MINES, SILVER_FIELDS, 0), np.int8), np.zeros((NUM_MINES, MASK_FIELDS, 0), np.int8))
    values, weights = np.zeros(NUM_MINES), np.zeros((num_players, NUM_MINES))
    while True:
        left = 0
        for g in range(n):
            going[g] = player[g] >= 0
            left += going[g]
        if not left:
            return
        legal_masks(player, state[3], state[5], state[8], state[10], legal, nowhere, no_masks)
        for g in range(n):
            if going[g]:
                actions[g] = _choose(state, legal, g, num_players, shared, values, weights)
        play(actions, going, num_players, state, placements)


@kernel
def _choose(state, legal, g, num_players, shared, values, weights):
    """``wapi.policy`` in game ``g``: place the coin (``_place_coin``), or take the mask (``_take_totem``).
    ``values`` and ``weights`` are scratch for each mine's expected value and each player's weight in it."""
    player, drawn, bag_counts, coins, silver, pole_count, poles = (
        state[0], state[3], state[4], state[5], state[6], state[8], state[9]
    )  # fmt: skip
    me, tile = player[g], drawn[g]
    coins_left, worth = 0.0, 0.0
    for kind in range(FIRST_MASK):  # bag_facts: whole numbers, exact
        coins_left += bag_counts[kind, g]
        worth += VALUES[kind] * bag_counts[kind, g]
    mean = worth / coins_left if coins_left else 0.0
    for k in range(NUM_MINES):  # expected_values
        values[k] = silver[k, g] + (SILVER_FIELDS - coins[k, g]) * mean
    if tile < FIRST_MASK:
        if _count(legal, g, NUM_MINES) == 1:
            for k in range(NUM_MINES):
                if legal[g, k]:
                    return k
        return _place_coin(poles, pole_count, legal, g, me, num_players, shared, VALUES[tile] - mean, values, weights)
    if not legal[g, PLACE_TOTEM]:
        return DECLINE
    return PLACE_TOTEM if _take_totem(state, g, me, num_players, shared, coins_left, values) else DECLINE


@kernel
def _count(legal, g, actions):
    """How many of the first ``actions`` actions are legal in game ``g``."""
    count = 0
    for a in range(actions):
        count += legal[g, a]
    return count


@kernel
def _place_coin(poles, pole_count, legal, g, me, num_players, shared, delta, values, weights):
    """``wapi._place_coin``: the legal mine where my weight most exceeds the opponents' (half the average one's,
    half the leader's), times the coin's worth above the mean (``delta``); the lowest of equals."""
    for p in range(num_players):  # _weights
        for k in range(NUM_MINES):
            count = pole_count[k, g]
            weights[p, k] = (poles[p, k, g] / count if count else 0.0) if shared else poles[p, k, g]
    leader, best = -1, -np.inf
    for p in range(num_players):  # the first of the others with the highest expected score
        if p != me:
            expected = 0.0
            for k in range(NUM_MINES):
                expected += weights[p, k] * values[k]
            if leader < 0 or expected > best:
                leader, best = p, expected
    choice, best = -1, -np.inf
    for k in range(NUM_MINES):
        if legal[g, k]:
            total = 0.0
            for p in range(num_players):
                if p != me:
                    total += weights[p, k]
            opp = (1 - LEADER_WEIGHT) * total / (num_players - 1) + LEADER_WEIGHT * weights[leader, k]
            gain = delta * (weights[me, k] - opp)
            if choice < 0 or gain > best:
                choice, best = k, gain
    return choice


@kernel
def _take_totem(state, g, me, num_players, shared, coins_left, values):
    """``wapi._take_totem``: take the mask unless I expect, among the masks still to come, at least as many
    better mines as I have totems left."""
    drawn, bag_counts, coins, pole_count, totems_left, coins_placed = (
        state[3], state[4], state[5], state[8], state[10], state[11]
    )  # fmt: skip
    now = _pole_value(values, pole_count, coins, g, drawn[g] - FIRST_MASK, shared)
    masks_left = 0.0
    for k in range(NUM_MINES):
        masks_left += bag_counts[FIRST_MASK + k, g]
    to_come = (COINS_TO_END - coins_placed[g]) * masks_left / (coins_left + 1) if masks_left else 0.0
    mine_share = to_come / num_players
    if masks_left == 0 or mine_share <= 0:
        return True
    better = 0.0
    for k in range(NUM_MINES):
        if _pole_value(values, pole_count, coins, g, k, shared) > now:
            better += bag_counts[FIRST_MASK + k, g]
    return mine_share * better / masks_left < totems_left[me, g]


@kernel
def _pole_value(values, pole_count, coins, g, k, shared):
    """``wapi._pole_value``: one more pole in mine ``k`` (its share under shared scoring), and what its free
    silver fields may still bring."""
    worth = values[k] / (pole_count[k, g] + 1) if shared else values[k]
    return worth + CONTROL_BONUS * (SILVER_FIELDS - coins[k, g])
