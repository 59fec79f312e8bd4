"""A machine's speed, so that a rated agent's time budget means the same on every machine.

Why: a rated agent is timed in CPU seconds, and a CPU second buys more search on a fast machine than on a
slow one, so the same agent at the same budget rates higher on the faster machine. A rating therefore
measures this machine first (:func:`measure`): plain ISMCTS, the search the reference ladder is made of,
runs a fixed number of simulations from a fixed seed on fixed positions of every game (:func:`positions`),
and its simulations per CPU second, divided by :data:`REFERENCE_SPEED` (the same workload on the reference
machine), is the machine's *factor*. A budget is given in *reference seconds* and the agent gets
``reference seconds / factor`` CPU seconds a move (:func:`scaled`): twice as many on a machine half as fast.

The workload is single-threaded pure Python (the engines, the search's tree, the heuristic's rollouts), as
most agents are; it does not equalise a network's arithmetic on another BLAS or an accelerator, nor a
machine that is busy while it plays (``docs/benchmark.md``). It is measured in ``ROUNDS`` rounds and the
fastest is kept (the least disturbed by the rest of the machine); the record keeps every round.

A record holds the calibration in its run header (``calibration``: :func:`entry`); ``verify`` refuses a
rating whose calibration is missing, given rather than measured, implausible, or not what its budgets
were scaled by (:func:`problems`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents import PlayerView, make_agent
from envs.core.engine import Game, shown
from envs.games import make_game

#: The workload's name in records: a different workload (or a change to it) is a different name, and its
#: factors are not comparable.
WORKLOAD = "ismcts-plain-v1"
#: The workload's games (each game's default search settings), positions a game and simulations a position.
CONFIGS = (("wapi", {"num_players": 2}), ("samurai", {"num_players": 2}), ("wakanda", {}))
POSITIONS, MOVES_APART, SIMULATIONS = 3, 5, 100
ROUNDS = 3
#: Simulations per CPU second of the workload on the reference machine: ``python -m benchmarks.calibration``
#: run 8 times on an AMD EPYC (2 cores, Python 3.11, nearly idle) on 2026-12-04 gave 1,689 to 1,720 (median
#: 1,704); rounded. So the reference machine is the one this project's committed figures were measured on.
REFERENCE_SPEED = 1700.0
REFERENCE_MACHINE = "AMD EPYC (2 cores), Python 3.11"
#: A factor outside this range is implausible (a machine 20 times slower or faster than the reference, or
#: a calibration disturbed past use): refused by ``--calibration-factor`` and by ``verify``.
FACTOR_RANGE = (0.05, 20.0)


@dataclass(frozen=True)
class Calibration:
    """A machine's speed on the workload: simulations per CPU second of each round (empty when the factor was
    given, not measured) and its factor, that speed over :data:`REFERENCE_SPEED`."""

    factor: float
    rounds: tuple[float, ...] = ()

    @property
    def measured(self) -> bool:
        return bool(self.rounds)


def positions() -> list[tuple[Game, PlayerView]]:
    """The workload's positions: for each game, ``POSITIONS`` views every ``MOVES_APART`` choices into a game
    played by uniform random moves from seed 0 (the same positions on every machine)."""
    found = []
    for name, config in CONFIGS:
        game = make_game(name, **config)
        rng = np.random.default_rng(0)
        state, choices = game.new_state(rng), 0
        while len([f for f in found if f[0] is game]) < POSITIONS and state.current_player is not None:
            legal = state.legal_actions()
            if len(legal) > 1:
                choices += 1
                if choices % MOVES_APART == 0:
                    found.append((game, PlayerView(state.clone(), np.random.default_rng(choices))))
            state.apply(int(legal[rng.integers(len(legal))]))
    return found


def speed(views: list[tuple[Game, PlayerView]]) -> float:
    """Simulations per CPU second of fresh plain searches (seed 0, ``SIMULATIONS`` each) over ``views``."""
    simulations, seconds = 0, 0.0
    for game, view in views:
        agent = make_agent("ismcts", game, seed=0, iterations=SIMULATIONS)
        start = time.process_time()
        agent.act(view)
        seconds += time.process_time() - start
        simulations += agent.last_iterations
    return simulations / seconds


def measure(rounds: int = ROUNDS) -> Calibration:
    """This machine's calibration: ``rounds`` rounds of the workload (a second or two each), the fastest kept."""
    views = positions()
    speeds = tuple(round(speed(views), 1) for _ in range(rounds))
    return Calibration(max(speeds) / REFERENCE_SPEED, speeds)


def check_factor(factor: Any, flag: str = "--calibration-factor") -> float:
    """``factor`` as a machine's speed relative to the reference: a finite number in :data:`FACTOR_RANGE`;
    a ValueError naming ``flag`` and the range otherwise."""
    low, high = FACTOR_RANGE
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not low <= factor <= high:
        raise ValueError(f"{flag} must be a number from {low} to {high} (this machine's speed relative to the "
                         f"reference machine), got {shown(factor)}")  # fmt: skip
    return float(factor)


def scaled(reference_seconds: float, factor: float) -> float:
    """The CPU seconds a move on a machine of ``factor`` that buy what ``reference_seconds`` buy on the
    reference machine: ``reference_seconds / factor`` (rounded to the microsecond, as records time moves)."""
    return round(reference_seconds / factor, 6)


def entry(calibration: Calibration) -> dict:
    """The calibration as a run header holds it (``calibration``)."""
    return {
        "workload": WORKLOAD,
        "reference_speed": REFERENCE_SPEED,
        "rounds": list(calibration.rounds),
        "factor": round(calibration.factor, 6),
        "source": "measured" if calibration.measured else "given",
    }


def problems(run: dict) -> list[str]:
    """What is wrong with a rating run's calibration and the budgets scaled by it (empty when nothing): it is
    missing, given (``--calibration-factor``: a simulated machine, never a submitted rating), of another
    workload or reference, implausible, not the fastest of its rounds, or not what the budgets were scaled by."""
    found = run.get("calibration")
    if found is None:
        return ["it holds no calibration of its machine"]
    out = []
    if found["source"] != "measured" or not found["rounds"]:
        out.append("its calibration was given (--calibration-factor), not measured")
    if (found["workload"], found["reference_speed"]) != (WORKLOAD, REFERENCE_SPEED):
        out.append(f"its calibration is of {found['workload']} at {found['reference_speed']}, not this checkout's "
                   f"{WORKLOAD} at {REFERENCE_SPEED}")  # fmt: skip
    factor = found["factor"]
    if not FACTOR_RANGE[0] <= factor <= FACTOR_RANGE[1]:
        out.append(f"its calibration factor {factor} is implausible (outside {FACTOR_RANGE})")
    if found["rounds"] and not math.isclose(factor, max(found["rounds"]) / REFERENCE_SPEED, rel_tol=1e-5):
        out.append(f"its calibration factor {factor} is not its fastest round over the reference speed")
    reference = run.get("reference_budgets", {})
    for label, budget in run.get("budgets", {}).items():
        if label not in reference:
            out.append(f"{label}'s budget has no reference budget")
        elif not math.isclose(budget, scaled(reference[label], factor), rel_tol=1e-5):
            out.append(f"{label}'s budget {budget} s is not its reference budget {reference[label]} s scaled by "
                       f"the calibration factor {factor}")  # fmt: skip
    return out


def describe(run: dict) -> str:
    """A run's calibration and budgets in words, for its line in a report ('' for a run without one)."""
    found = run.get("calibration")
    if found is None:
        return ""
    rounds = found["rounds"]
    how = f"measured {max(rounds):,.0f} simulations/CPU s" if rounds else "given, not measured"
    text = f"; calibration: speed factor {found['factor']:.3f} ({how}; {found['workload']})"
    reference = run.get("reference_budgets", {})
    for label, budget in run.get("budgets", {}).items():
        text += f"; {label}'s budget {reference.get(label)} reference s = {budget:g} CPU s a move here"
    return text
