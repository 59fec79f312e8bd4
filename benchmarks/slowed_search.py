"""A time-budgeted search that can pretend to run on a slower machine: the rated agent of the calibration check.

``benchmarks.rate benchmarks.slowed_search:SlowedSearch --option slowdown=2`` rates plain ISMCTS that thinks
``share`` of its budget a move, each step of its search followed by ``slowdown - 1`` times that step's CPU time
spent doing nothing useful: every simulation costs ``slowdown`` times its CPU, as on a machine ``slowdown``
times slower. With the calibration factor divided by the same ``slowdown`` (``--calibration-factor``), its
budget in CPU seconds is multiplied by it, so it should run as many simulations a move as without either, and
rate the same (:mod:`benchmarks.calibration_check`). It is a user's agent (``module:Class``), so it plays
sealed and learns its budget as any user's agent does: ``budget``, CPU seconds a move on this machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from agents.ismcts import ISMCTSAgent
from envs.core.engine import Game, shown


def burn(seconds: float) -> None:
    """Spend ``seconds`` of this process's CPU time in a busy loop."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


class SlowedSearch(ISMCTSAgent):
    """Plain ISMCTS (one simulation at a time, no batches: every one slowed alike) on ``share`` x ``budget``
    CPU seconds a move, every step of it ``slowdown`` times as costly."""

    name = "slowed-search"

    def __init__(self, game: Game | None = None, seed: int | None = None, budget: float | None = None,
                 slowdown: float = 1.0, share: float = 0.8):  # fmt: skip
        if not isinstance(budget, (int, float)) or not budget > 0:
            raise ValueError(
                f"budget must be a positive number of CPU seconds (given by the protocol), got {shown(budget)}"
            )
        if not isinstance(slowdown, (int, float)) or not 1 <= slowdown <= 100:
            raise ValueError(f"slowdown must be a number from 1 to 100, got {shown(slowdown)}")
        if not isinstance(share, (int, float)) or not 0 < share <= 1:
            raise ValueError(f"share must be a number in (0, 1], got {shown(share)}")
        super().__init__(game, seed, time_limit=share * budget, batch_rollouts=False)
        self.slowdown = float(slowdown)

    def spend_budget(self, run: Callable[[int | None], int]) -> int:
        """The search's own budget loop, each of its steps followed by its cost again ``slowdown - 1`` times."""

        def slowed(left: int | None) -> int:
            start = time.process_time()
            done = run(left)
            burn((self.slowdown - 1) * (time.process_time() - start))
            return done

        return super().spend_budget(slowed)
