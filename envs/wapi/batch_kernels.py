"""Wapi's batched turn, masks, scores and observations as compiled loops over the games (``envs.core.compiled``).

Why: a numpy pass of ``WapiBatch`` (a move, a mask, an observation) costs a few dozen numpy calls whatever
the number of games, and the vector env makes about eight passes per learner step; at 1,024 games those
fixed costs were most of its time. Each kernel here walks the games of a batch once, reading and writing
``WapiBatch``'s own arrays (a game a column: see its docstring), and does each game's branch only. Every
count is the per-game engine's, and every float the same operation on the same numbers as
``observation.py``'s (float64, rounded once to float32), so ``tests/test_wapi_batch.py`` finds each game,
mask and observation equal to the per-game engine's.
"""

from __future__ import annotations

import numpy as np

from envs.core.compiled import kernel
from envs.wapi import observation as layout
from envs.wapi.actions import DECLINE, NUM_ACTIONS, PLACE_TOTEM
from envs.wapi.components import (
    COIN_VALUES,
    COINS_TO_END,
    FIRST_MASK,
    MASK_FIELDS,
    MAX_MINE_VALUE,
    MAX_SCORE,
    NUM_MINES,
    NUM_TILE_KINDS,
    SILVER_FIELDS,
    TOTEMS_PER_PLAYER,
)
from envs.wapi.rules import SHARE_UNIT

#: A tile's coin value (masks: 0).
VALUES = np.array(COIN_VALUES + (0,) * (NUM_TILE_KINDS - FIRST_MASK), dtype=np.float64)
#: ``count / bound`` for every count a rule allows (a mine's coins, silver and masks, a player's poles in a
#: mine and totems, the coins placed): the observation's quotients, computed once in float64 as
#: ``observation.py`` computes them (a division costs several times a table read, and a kernel makes dozens
#: per game).
COIN_SHARE, SILVER_SHARE = np.arange(SILVER_FIELDS + 1) / SILVER_FIELDS, np.arange(MAX_MINE_VALUE + 1) / MAX_MINE_VALUE
MASK_SHARE, TOTEM_SHARE = np.arange(MASK_FIELDS + 1) / MASK_FIELDS, np.arange(TOTEMS_PER_PLAYER + 1) / TOTEMS_PER_PLAYER
PLACED_SHARE = np.arange(COINS_TO_END + 1) / COINS_TO_END
MINES, MINE_BLOCK, MINE_SILVER, MINE_MASKS = layout.MINES, layout.MINE_BLOCK, layout.MINE_SILVER, layout.MINE_MASKS
MINE_POLES, DRAWN, TOTEMS_LEFT, BAG = layout.MINE_POLES, layout.DRAWN, layout.TOTEMS_LEFT, layout.BAG
COINS_PLACED, SCORING, SCORES, PRESENT, TO_ACT = (
    layout.COINS_PLACED,
    layout.SCORING,
    layout.SCORES,
    layout.PRESENT,
    layout.TO_ACT,
)


# The masks, scores and observations read several counts of every game: their loops run over the games
# innermost, along the arrays' contiguous rows (a game a column), each loop reading and writing a few rows
# only (rows of 1,024 games are 4 or 8 KiB apart, and a loop over a dozen of them at once evicts its own
# cache lines: several times slower); the moves touch a few counts of each game, a game at a time.
@kernel
def legal_masks(player, drawn, coins, pole_count, totems_left, out, where, out_where):
    """``out`` (N, 8) bool: each game's legal actions (none once over); and unless ``out_where`` is empty, the
    same in the games ``where`` only, none in the others. A drawn coin goes to a mine with a pole and room if
    there is one, else to any mine with room; a drawn mask is declined, or taken with a totem left. Mine by
    mine over all the games, without branches (whose outcomes differ game by game: mispredicted, they cost
    more than the work)."""
    n = len(player)
    coin, poled = np.empty(n, np.bool_), np.zeros(n, np.bool_)  # holds a coin; a mine has a pole and room
    for g in range(n):
        coin[g] = (drawn[g] >= 0) & (drawn[g] < FIRST_MASK)
    for k in range(NUM_MINES):
        for g in range(n):
            poled[g] |= (coins[k, g] < SILVER_FIELDS) & (pole_count[k, g] > 0)
    for k in range(NUM_MINES):
        for g in range(n):
            out[g, k] = coin[g] & (coins[k, g] < SILVER_FIELDS) & ((pole_count[k, g] > 0) | ~poled[g])
    for g in range(n):  # a game over reads seat -1's totems: its mask is False anyway
        mask = drawn[g] >= FIRST_MASK
        out[g, DECLINE] = mask
        out[g, PLACE_TOTEM] = mask & (totems_left[player[g], g] > 0)
    for g in range(len(out_where)):
        for a in range(NUM_ACTIONS):
            out_where[g, a] = out[g, a] & where[g]


@kernel
def first_illegal(actions, where, player, legal) -> int:
    """The first game of ``where`` still going whose action is not legal there (``legal``: the (N, 8) masks);
    -1 where there is none."""
    for g in range(len(player)):
        if where[g] and player[g] >= 0 and not (0 <= actions[g] < NUM_ACTIONS and legal[g, actions[g]]):
            return g
    return -1


@kernel
def play(actions, where, num_players, state, placements):
    """Play ``actions[g]`` (legal: checked before) in the games ``where`` still going: a coin to its mine, a
    mask to its mine (with a pole of the player's if taken); the game ends with the 30th coin, else the next
    player clockwise draws the top tile. ``state``, ``placements``: ``WapiBatch._state()``, ``_placements()``."""
    player, taken, bag, drawn, bag_counts, coins, silver, masks, pole_count, poles, totems_left, coins_placed = state
    coin_values, pole_owners = placements
    recorded = coin_values.shape[2] > 0
    for g in range(len(player)):
        p = player[g]
        if not where[g] or p < 0:
            continue
        action, tile = actions[g], drawn[g]
        if action < NUM_MINES:
            value = VALUES[tile]
            if recorded:
                coin_values[action, int(coins[action, g]), g] = int(value)
            coins[action, g] += 1.0
            silver[action, g] += value
            coins_placed[g] += 1.0
        else:
            mine = tile - FIRST_MASK
            masks[mine, g] += 1.0
            if action == PLACE_TOTEM:
                if recorded:
                    pole_owners[mine, int(pole_count[mine, g]), g] = p
                poles[p, mine, g] += 1.0
                pole_count[mine, g] += 1.0
                totems_left[p, g] -= 1.0
        if coins_placed[g] == COINS_TO_END:
            player[g], drawn[g] = -1, -1
        else:
            player[g] = (p + 1) % num_players
            top = bag[g, taken[g]]
            drawn[g] = top
            taken[g] += 1
            bag_counts[top, g] -= 1.0


@kernel
def score_units(shared, poles, silver, pole_count, out):
    """``out`` (players, N) int64: every player's score in whole units (twelfths under shared scoring, where a
    mine's silver is split evenly between its poles, rounded down per pole as ``WapiState.score_units``).
    Sums of products of small whole numbers in float64: exact."""
    per_pole = silver.copy()
    if shared:
        for k in range(NUM_MINES):
            for g in range(out.shape[1]):
                per_pole[k, g] = np.floor(silver[k, g] * SHARE_UNIT / max(pole_count[k, g], 1.0))
    total = np.zeros(out.shape[1])
    for p in range(out.shape[0]):
        total[:] = 0.0
        for k in range(NUM_MINES):
            for g in range(out.shape[1]):
                total[g] += poles[p, k, g] * per_pole[k, g]
        for g in range(out.shape[1]):
            out[p, g] = np.int64(total[g])


@kernel
def winners(units, player, out):
    """``out`` (N, players) bool: the players with the top score (``units``: :func:`score_units`) of each game
    over, none in the others."""
    for g in range(len(player)):
        best = units[0, g]
        for p in range(1, units.shape[0]):
            best = max(best, units[p, g])
        for p in range(units.shape[0]):
            out[g, p] = (units[p, g] == best) & (player[g] < 0)


@kernel
def observe(rows, observers, shared, tile_scale, units, state, out):
    """``out[:, i]`` (float32, an entry a row): game ``rows[i]`` as seat ``observers[i]`` sees it
    (``observation.py``'s layout: everything public, seat slots counted from the observer); ``units``:
    :func:`score_units`."""
    player, _, _, drawn, bag_counts, coins, silver, masks, _, poles, totems_left, coins_placed = state
    count, n = poles.shape[0], len(rows)
    unit = SHARE_UNIT if shared else 1
    out[:] = 0.0
    for k in range(NUM_MINES):
        start = MINES + k * MINE_BLOCK
        for i in range(n):
            out[start, i] = COIN_SHARE[int(coins[k, rows[i]])]
            out[start + MINE_SILVER, i] = SILVER_SHARE[int(silver[k, rows[i]])]
            out[start + MINE_MASKS, i] = MASK_SHARE[int(masks[k, rows[i]])]
    for t in range(NUM_TILE_KINDS):
        for i in range(n):
            out[BAG + t, i] = bag_counts[t, rows[i]] * tile_scale[t]
    for i in range(n):
        out[COINS_PLACED, i] = PLACED_SHARE[int(coins_placed[rows[i]])]
        out[SCORING, i] = 1.0 if shared else 0.0
    seats = np.empty(n, np.int64)
    for slot in range(count):
        for i in range(n):
            seats[i] = observers[i] + slot - (count if observers[i] + slot >= count else 0)
        for k in range(NUM_MINES):
            for i in range(n):
                out[MINES + k * MINE_BLOCK + MINE_POLES + slot, i] = TOTEM_SHARE[int(poles[seats[i], k, rows[i]])]
        for i in range(n):
            out[TOTEMS_LEFT + slot, i] = TOTEM_SHARE[int(totems_left[seats[i], rows[i]])]
        for i in range(n):
            out[SCORES + slot, i] = units[seats[i], rows[i]] / unit / MAX_SCORE
        for i in range(n):
            out[PRESENT + slot, i] = 1.0
    for i in range(n):
        g = rows[i]
        if player[g] >= 0:
            out[DRAWN + drawn[g], i] = 1.0
            out[TO_ACT + (player[g] - observers[i]) % count, i] = 1.0


@kernel
def start(rows, orders, tile_counts, state, placements):
    """New games in the columns ``rows``, game ``rows[i]`` with the bag ``orders[i]`` in draw order: its first
    tile drawn by player 0, nothing placed, every totem in hand. A field at a time over the games."""
    player, taken, bag, drawn, bag_counts, coins, silver, masks, pole_count, poles, totems_left, coins_placed = state
    for i in range(len(rows)):
        g = rows[i]
        for j in range(bag.shape[1]):
            bag[g, j] = orders[i, j + 1] if j + 1 < orders.shape[1] else -1
        player[g], taken[g], drawn[g], coins_placed[g] = 0, 0, orders[i, 0], 0.0
    for t in range(NUM_TILE_KINDS):
        for i in range(len(rows)):
            bag_counts[t, rows[i]] = tile_counts[t] - (1.0 if orders[i, 0] == t else 0.0)
    for field in (coins, silver, masks, pole_count):
        for k in range(NUM_MINES):
            for i in range(len(rows)):
                field[k, rows[i]] = 0.0
    for p in range(poles.shape[0]):
        for i in range(len(rows)):
            totems_left[p, rows[i]] = TOTEMS_PER_PLAYER
        for k in range(NUM_MINES):
            for i in range(len(rows)):
                poles[p, k, rows[i]] = 0.0
    for placed in placements:
        for k in range(NUM_MINES):
            for s in range(placed.shape[1]):
                for i in range(len(rows) if placed.shape[2] else 0):
                    placed[k, s, rows[i]] = -1


__all__ = ["first_illegal", "legal_masks", "observe", "play", "score_units", "start", "winners"]
