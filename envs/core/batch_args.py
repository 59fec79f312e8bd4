"""The checks of a batch's arguments, shared by the protocol (``envs/core/batch.py``), the engines and the vector
env: bad input is refused by name, before any game changes."""

from __future__ import annotations

import numpy as np

from envs.core.engine import is_int, shown


def check_batch_args(num_games, seed) -> None:
    """A batch's size is a positive int and its seed a non-negative int (numpy ints are not ints)."""
    if not is_int(num_games) or num_games < 1:
        raise ValueError(f"num_games must be a positive int, got {shown(num_games)}")
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {shown(seed)}")


def check_where(where, num_games: int) -> np.ndarray:
    """``where`` as a ``(num_games,)`` bool vector (numpy bools only: ints and floats are refused)."""
    where = np.asarray(where)
    if where.shape != (num_games,) or where.dtype != bool:
        raise ValueError(f"where must be {num_games} bools, got {where.dtype} of shape {where.shape}")
    return where


def check_draws(draws, num_games: int) -> np.ndarray:
    """``draws`` as a ``(num_games,)`` float64 vector of uniform draws in [0, 1) (a compiled loop reads one a game)."""
    draws = np.asarray(draws)
    if draws.shape != (num_games,) or draws.dtype != np.float64:
        raise ValueError(f"draws must be {num_games} float64s, got {draws.dtype} of shape {draws.shape}")
    return draws
