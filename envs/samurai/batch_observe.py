"""Observations of the Samurai batch: ``observation.compose`` over arrays, the same float32 vector
(layout in ``observation.py``) for every game at once.

Only public facts and the observer's own hand are read: the board, figures, captures, every
player's hand and pile *sizes* and unplayed tiles (hand + pile, public), never another hand's
tiles nor any pile's order.
"""

from __future__ import annotations

import numpy as np

from envs.core.compiled import kernel
from envs.core.engine import shown
from envs.samurai.batch_arrays import games_of
from envs.samurai.batch_tables import PLAY, SETTLEMENT_HEX
from envs.samurai.components import HAND_SIZE, NUM_KINDS, TILES_PER_PLAYER
from envs.samurai.observation import (
    F_FIGURES,
    F_OWNER,
    F_SELECTED,
    FIRST_FIGURE,
    HAND,
    HEX_FEATURES,
    MAX_PLAYED,
    MAX_SUPPLY,
    MAX_TURNS,
    NON_QUICK_USED,
    NUM_PLAYERS,
    OBSERVATION_SIZE,
    ON_BOARD,
    PENDING,
    PHASE,
    PLAYED,
    PLAYER_BLOCK,
    PLAYERS,
    S_CAPTURED,
    S_HAND,
    S_IN_GAME,
    S_PILE,
    S_TO_ACT,
    S_UNPLAYED,
    SET_ASIDE,
    SUPPLY,
    SWAP_PICKED,
    TEMPLATES,
    TILE_ROWS,
    TURN,
    UNPLAYED_SCALE,
)  # fmt: skip


def check_players(players, num_games: int, num_players: int) -> np.ndarray:
    """``players`` as an int64 vector of a seat per game; ValueError naming the argument otherwise."""
    players = np.asarray(players)
    if players.shape != (num_games,) or not np.issubdtype(players.dtype, np.integer):
        raise ValueError(f"players must be {num_games} ints, got {shown(players)}")
    if ((players < 0) | (players >= num_players)).any():
        raise ValueError(f"players must be seats in 0..{num_players - 1}, got {shown(players.tolist())}")
    return players.astype(np.int64, copy=False)


def observe(batch, players: np.ndarray | None) -> np.ndarray:
    """``(N, 3807)`` float32: game i as ``players[i]`` sees it (default: the player to act, else seat 0)."""
    count, n = batch.num_games, batch.game.num_players
    if players is None:
        players = np.maximum(batch.player, 0)
    else:
        players = check_players(players, count, n)
    return observe_rows(batch, np.arange(count), players)


def template_entries(num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """The non-zero entries of the empty board's hex block (``observation.TEMPLATES``): where, and their values.
    Why: the block is 3,654 floats of which a few hundred are not zero, and each row is zeroed first (:func:`fill`)."""
    flat = TEMPLATES[num_players].reshape(-1)
    at = np.flatnonzero(flat)
    return at, flat[at]


#: :func:`template_entries` of each player count.
TEMPLATE_ENTRIES = {n: template_entries(n) for n in TEMPLATES}


def observe_rows(batch, rows: np.ndarray, players: np.ndarray) -> np.ndarray:
    """``observe(players)[rows]`` (``players``: checked seats, one per game of the batch), computed for those
    games alone."""
    out = np.empty((len(rows), OBSERVATION_SIZE), dtype=np.float32)
    rows, players = np.asarray(rows, dtype=np.int64), np.asarray(players, dtype=np.int64)
    fill(games_of(batch), batch.board, rows, players, *TEMPLATE_ENTRIES[batch.game.num_players], out)
    return out


@kernel
def fill(games, board, rows, players, template_at, template_values, out):
    """Row k of ``out``: game ``rows[k]`` as ``players[rows[k]]`` sees it (``observation.compose``). Each row is
    zeroed just before it is written (a 15 KB memset, in cache): zeroing the whole output first (``np.zeros``,
    16 MB for 1,024 games) sends it to memory and back, a third slower in the vector env. The helpers read the
    fields they need in place (a call with the whole named tuple, or a view per game, costs a reference count per
    array)."""
    n = board.players
    for k in range(rows.size):
        i, row = rows[k], out[k]
        observer = players[i]
        row[:] = 0.0
        for j in range(template_at.size):  # the empty board: its non-zero entries only
            row[template_at[j]] = template_values[j]
        board_block(games.tile, games.owner, games.figures, i, board.settlements, observer, n, row)
        if games.swap_from[i] >= 0:
            row[games.swap_from[i] * HEX_FEATURES + F_SELECTED] = 1.0
            row[SWAP_PICKED] = 1.0
        if games.first_s[i] >= 0:
            row[SETTLEMENT_HEX[games.first_s[i]] * HEX_FEATURES + F_SELECTED] = 1.0
            row[FIRST_FIGURE + games.first_t[i]] = 1.0
        seat_blocks(games.captured, games.hand_len, games.pile_len, games.unplayed, i, observer, row)
        if games.player[i] >= 0:
            row[PLAYERS + (games.player[i] - observer) % n * PLAYER_BLOCK + S_TO_ACT] = 1.0
            row[PHASE + games.phase[i]] = 1.0
        counts(games.set_aside, games.on_board, games.captured, i, board.supply, games.phase[i], row)
        own_hand(games.hand, i, observer, row)
        if games.pending[i] >= 0:
            row[PENDING + games.pending[i]] = 1.0
        row[NON_QUICK_USED] = games.non_quick[i]
        row[PLAYED] = games.played_len[i] / MAX_PLAYED
        row[TURN] = min(1.0, games.turn[i] / MAX_TURNS)
        row[NUM_PLAYERS + n - 2] = 1.0


@kernel
def board_block(tile, owner, figures, i, settlements, observer, n, row):
    """The tiles (owners relative to the observer) and the figures of game ``i``, read in the batch's arrays (a
    view per game would cost a reference count)."""
    for h in range(tile.shape[1]):
        kind = tile[i, h]
        if kind >= 0:
            seat = (owner[i, h] - observer) % n
            at = h * HEX_FEATURES + F_OWNER
            for c in range(TILE_ROWS.shape[2]):
                row[at + c] = TILE_ROWS[kind, seat, c]
    for s in settlements:
        at = SETTLEMENT_HEX[s] * HEX_FEATURES + F_FIGURES
        for t in range(3):
            row[at + t] = figures[i, s, t]


@kernel
def seat_blocks(captured, hand_len, pile_len, unplayed, i, observer, row):
    """The seat blocks of game ``i``, rotated so that the observer comes first (``to act`` is set apart)."""
    n = captured.shape[1]
    for r in range(n):
        p = (observer + r) % n
        at = PLAYERS + r * PLAYER_BLOCK
        row[at + S_IN_GAME] = 1.0
        for t in range(3):
            row[at + S_CAPTURED + t] = captured[i, p, t] / MAX_SUPPLY
        row[at + S_HAND] = hand_len[i, p] / HAND_SIZE
        row[at + S_PILE] = pile_len[i, p] / TILES_PER_PLAYER
        for kind in range(NUM_KINDS):
            row[at + S_UNPLAYED + kind] = unplayed[i, p, kind] * UNPLAYED_SCALE[kind]


@kernel
def counts(aside, on_board, captured, i, supply, phase, row):
    """Set-aside and board counts of game ``i``, and the supply while it is being set up."""
    total = 0
    for t in range(3):
        row[SET_ASIDE + t] = aside[i, t] / MAX_SUPPLY
        row[ON_BOARD + t] = on_board[i, t] / MAX_SUPPLY
        total += aside[i, t]
    row[SET_ASIDE + 3] = min(1.0, total / 4)
    if phase != PLAY:
        for t in range(3):
            left = supply - on_board[i, t] - aside[i, t]
            for p in range(captured.shape[1]):
                left -= captured[i, p, t]
            row[SUPPLY + t] = left / MAX_SUPPLY


@kernel
def own_hand(hand, i, observer, row):
    """The observer's own hand per kind (its slots, -1 where empty): counted kind by kind, as an array of counts
    would be allocated per game."""
    for kind in range(NUM_KINDS):
        held = 0
        for slot in range(hand.shape[2]):
            held += hand[i, observer, slot] == kind
        row[HAND + kind] = held * UNPLAYED_SCALE[kind]
