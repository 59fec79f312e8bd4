"""Observations of the Samurai batch: ``observation.compose`` over arrays, the same float32 vector
(layout in ``observation.py``) for every game at once.

Only public facts and the observer's own hand are read: the board, figures, captures, every
player's hand and pile *sizes* and unplayed tiles (hand + pile, public), never another hand's
tiles nor any pile's order.
"""

from __future__ import annotations

import numpy as np

from envs.core.engine import shown
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
    out = np.empty((count, OBSERVATION_SIZE), dtype=np.float32)
    out[:, PLAYERS:] = 0.0
    board = out[:, :PLAYERS].reshape(count, -1, HEX_FEATURES)
    board[:] = TEMPLATES[n]
    _tiles_and_figures(batch, board, players)
    _seats(batch, out, players)
    _facts(batch, out, players)
    return out


def _tiles_and_figures(batch, board: np.ndarray, players: np.ndarray) -> None:
    n = batch.game.num_players
    rows, hexes = np.nonzero(batch.tile >= 0)
    relative = (batch.owner[rows, hexes] - players[rows]) % n
    board[rows, hexes, F_OWNER:F_SELECTED] = TILE_ROWS[batch.tile[rows, hexes], relative]
    settlements = batch.tables.settlements
    board[:, SETTLEMENT_HEX[settlements], F_FIGURES : F_FIGURES + 3] = batch.figures[:, settlements]
    rows = np.flatnonzero(batch.swap_from >= 0)
    board[rows, batch.swap_from[rows], F_SELECTED] = 1.0
    rows = np.flatnonzero(batch.first_s >= 0)
    board[rows, SETTLEMENT_HEX[batch.first_s[rows]], F_SELECTED] = 1.0


def _seats(batch, out: np.ndarray, players: np.ndarray) -> None:
    """The seat blocks, rotated so that the observer comes first."""
    count, n = batch.num_games, batch.game.num_players
    seats = np.zeros((count, n, PLAYER_BLOCK))
    seats[:, :, S_IN_GAME] = 1.0
    seats[:, :, S_CAPTURED : S_CAPTURED + 3] = batch.captured / MAX_SUPPLY
    seats[:, :, S_HAND] = batch.hand_len / HAND_SIZE
    seats[:, :, S_PILE] = batch.pile_len / TILES_PER_PLAYER
    seats[:, :, S_UNPLAYED:] = batch.unplayed * UNPLAYED_SCALE
    games = np.arange(count)
    order = (players[:, None] + np.arange(n)) % n
    rotated = seats[games[:, None], order]
    going = np.flatnonzero(batch.player >= 0)
    rotated[going, (batch.player[going] - players[going]) % n, S_TO_ACT] = 1.0
    out[:, PLAYERS : PLAYERS + n * PLAYER_BLOCK] = rotated.reshape(count, -1)


def _facts(batch, out: np.ndarray, players: np.ndarray) -> None:
    """Set-aside and board counts, the supply, the own hand, phase and the turn in progress."""
    count, n = batch.num_games, batch.game.num_players
    aside = batch.set_aside
    out[:, SET_ASIDE : SET_ASIDE + 3] = aside / MAX_SUPPLY
    out[:, SET_ASIDE + 3] = np.minimum(1.0, aside.sum(axis=1) / 4)
    out[:, ON_BOARD : ON_BOARD + 3] = batch.on_board / MAX_SUPPLY
    setup = np.flatnonzero(batch.phase != PLAY)
    if setup.size:
        supply = batch.tables.supply - batch.on_board[setup] - aside[setup] - batch.captured[setup].sum(axis=1)
        out[setup, SUPPLY : SUPPLY + 3] = supply / MAX_SUPPLY
    games = np.arange(count)
    hand = batch.hand[games, players]  # (N, 5), -1 padded
    counts = np.zeros((count, NUM_KINDS + 1))
    np.add.at(counts, (games[:, None], hand), 1.0)
    out[:, HAND : HAND + NUM_KINDS] = counts[:, :NUM_KINDS] * UNPLAYED_SCALE
    going = np.flatnonzero(batch.player >= 0)
    out[going, PHASE + batch.phase[going]] = 1.0
    rows = np.flatnonzero(batch.pending >= 0)
    out[rows, PENDING + batch.pending[rows]] = 1.0
    rows = np.flatnonzero(batch.first_s >= 0)
    out[rows, FIRST_FIGURE + batch.first_t[rows]] = 1.0
    rows = np.flatnonzero(batch.swap_from >= 0)
    out[rows, SWAP_PICKED] = 1.0
    out[:, NON_QUICK_USED] = batch.non_quick
    out[:, PLAYED] = batch.played_len / MAX_PLAYED
    out[:, TURN] = np.minimum(1.0, batch.turn / MAX_TURNS)
    out[:, NUM_PLAYERS + n - 2] = 1.0
