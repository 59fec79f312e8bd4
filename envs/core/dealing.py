"""Each game's next deal, made ahead for many games at once.

Why: a deal over arrays of seeds (``envs.core.seeding``'s compiled draws, then an engine's arrays made
from them) has a fixed cost per call, tens of µs of Python and numpy around a fraction of a µs a game,
while ``reset_done`` deals the few games that ended this step. But a batch knows its games' next seeds
in advance (seed + N), so :class:`DealsAhead` makes the next deal of every game that lacks one in one
call, when some game ends without one ready, and hands them out as games end: a call every few dozen
steps, each for most of the batch. The deals are pure functions of the seeds, so which call made one
never shows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: ``deal(seeds)``: the deals of those seeds as arrays whose first axis is the seed.
Dealer = Callable[[np.ndarray], tuple[np.ndarray, ...]]


class DealsAhead:
    """The deals made ahead for ``num_games`` games: one per game at most, with the seed it is for."""

    def __init__(self, deal: Dealer, num_games: int):
        self.deal = deal
        self.seeds = np.full(num_games, -1, dtype=np.int64)  # the seed of each game's deal made ahead
        self.deals: tuple[np.ndarray, ...] | None = None

    def take(self, rows: np.ndarray, seeds: np.ndarray, following: np.ndarray) -> tuple[np.ndarray, ...]:
        """The deals of ``seeds`` for games ``rows``. Where one was not made ahead, it is made now with
        the next deal (seed ``following[g]``) of every game ``g`` that lacks one."""
        if (self.seeds[rows] != seeds).any():
            wanted = following.copy()
            wanted[rows] = seeds
            lacking = np.flatnonzero(self.seeds != wanted)
            made = self.deal(wanted[lacking])
            if self.deals is None:
                self.deals = tuple(np.empty((len(self.seeds), *part.shape[1:]), part.dtype) for part in made)
            for mine, part in zip(self.deals, made):
                mine[lacking] = part
            self.seeds[lacking] = wanted[lacking]
        self.seeds[rows] = -1  # handed out
        return tuple(part[rows] for part in self.deals)


__all__ = ["DealsAhead", "Dealer"]
