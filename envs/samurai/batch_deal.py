"""Samurai's deals for many seeds at once: exactly what ``SamuraiGame.new_state`` draws from ``np_random(seed)``.

Why: dealing game by game (a generator, the piles and figures in Python, a state, its copy into the arrays)
cost about 130 µs a game, most of a batch's time at the ends of games. The per-game deal is each player's
pile shuffled (``rng.permutation(20)``, player 0 first), then for the random set-up two figure types drawn
for each city in settlement order (``rng.choice(3, size=2, replace=False)``: Floyd's algorithm with two
bounded draws, then a shuffle of the two, one more draw) and the rest of the supply shuffled over the
villages (``rng.permutation``). Here those draws run over arrays of seeds (``envs.core.seeding``'s
``Draws``, ``shuffled`` and ``bounded``); below ``FEW_DEALS`` seeds numpy's own generators run the per-game
code itself. ``tests/test_samurai_batch.py`` checks the deals of many seeds against ``new_state``'s.
"""

from __future__ import annotations

import numpy as np

from envs.core.seeding import FEW_DEALS, Draws, bounded, seeded, shuffled
from envs.samurai.board import CAPACITY, NUM_SETTLEMENTS, SETTLEMENTS
from envs.samurai.components import DRAFT_SETUP, PLAYER_TILES
from envs.samurai.game import SamuraiGame
from envs.samurai.setup import draft_figures, random_figures, random_piles

TILES = np.array(PLAYER_TILES, dtype=np.int64)


def dealt(game: SamuraiGame, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The deals of ``seeds``: ``(piles (M, P, 20) tile kinds, next draw first; figures (M, S, 3) bool per
    settlement index and type)``, as ``game.new_state(np_random(seed))`` deals them."""
    seeds = [int(seed) for seed in seeds]
    if len(seeds) < FEW_DEALS:
        return _one_by_one(game, seeds)
    draws = Draws(seeds, 40 * game.num_players + 60)
    flat = np.arange(len(seeds))  # each seed's next draw
    piles = np.stack([TILES[shuffled(draws, flat, len(TILES))] for _ in range(game.num_players)], axis=1)
    if game.figure_setup == DRAFT_SETUP:
        return piles, np.broadcast_to(_as_array([draft_figures(game.layout)]), (len(seeds), NUM_SETTLEMENTS, 3))
    return piles, _random_figures(game, draws, flat)


def _one_by_one(game: SamuraiGame, seeds: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The per-game deal's own code on numpy's generators (fewer seeds than the arrays pay for)."""
    piles, figures = [], []
    for rng in seeded(seeds):
        piles.append(random_piles(game.num_players, rng))
        draft = game.figure_setup == DRAFT_SETUP
        figures.append(draft_figures(game.layout) if draft else random_figures(game.layout, rng))
    return np.array(piles, dtype=np.int64).reshape(len(seeds), game.num_players, -1), _as_array(figures)


def _as_array(figures: list[list[list[int]]]) -> np.ndarray:
    """Per-game lists of types per settlement as ``(M, S, 3)`` bool."""
    out = np.zeros((len(figures), NUM_SETTLEMENTS, 3), dtype=bool)
    for m, per_settlement in enumerate(figures):
        for s, types in enumerate(per_settlement):
            out[m, s, types] = True
    return out


def _random_figures(game: SamuraiGame, draws: Draws, flat: np.ndarray) -> np.ndarray:
    """``setup.random_figures`` for every seed at once, reading each seed's draws from ``flat`` on."""
    count, rows = len(flat), np.arange(len(flat))
    figures = np.zeros((count, NUM_SETTLEMENTS, 3), dtype=bool)
    left = np.full((count, 3), game.layout.supply, dtype=np.int64)
    villages = []
    for s in game.layout.settlements:
        capacity = CAPACITY[SETTLEMENTS[s]]
        if capacity == 1:
            villages.append(s)
            continue
        if capacity == 3:
            figures[:, s] = True
            left -= 1
            continue
        first = bounded(draws, flat, 1)  # Floyd's algorithm: 0..1, then 0..2 (2 where it repeats the first)
        second = bounded(draws, flat, 2)
        second = np.where(second == first, 2, second)
        flat += count  # the shuffle of the two: one draw, and the order does not matter (the types are sorted)
        for types in (first, second):
            figures[rows, s, types] = True
            left[rows, types] -= 1
    order = shuffled(draws, flat, int(left[0].sum()))  # the pool, types ascending, shuffled over the villages
    bounds = np.cumsum(left, axis=1)
    pool_types = (order[:, :, None] >= bounds[:, None, :]).sum(axis=2)  # the type at each pool position
    for j, s in enumerate(villages):
        figures[rows, s, pool_types[:, j]] = True
    return figures


__all__ = ["dealt"]
