"""Duplicate-deal matches: seeds, guarded agents and the parallel runner (the seatings are the protocol's).

A *deal* is one game seed: since every engine draws all its randomness when
the state is created, the same seed gives the same bag, piles and villages
whatever the players do. A deal is played once per *seating* (a permutation
of the table's agents over the seats), so every agent meets the same luck
in every seat: duplicate bridge, for board games.

Everything here is a pure function of its inputs (deal seeds, agent seeds
and the order of the results), so a run is reproducible whatever the number
of processes and whichever backend plays it (:mod:`parallel.pool`:
local processes or a Ray cluster). The tournament, the strength table and
the luck study all build on it.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents import Agent, PlayerView, agent_kind, make_agent, play_game, split_epsilon
from benchmarks.core.rating import finishing_ranks
from envs.core.engine import shown
from envs.games import make_game
from parallel.pool import Backend, parallel_map


def deal_seed(seed: int, deal: int) -> int:
    """The game seed of deal number ``deal`` of a run seeded ``seed`` (shared by every table and seating)."""
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def agent_seed(seed: int, deal: int, seating: int, seat: int, replay: int = 0) -> int:
    """An agent's own seed for one game: different for every game, replay and seat, fixed by the run seed."""
    return int(np.random.SeedSequence([seed, deal, seating, seat, replay, 1]).generate_state(1)[0])


@dataclass(frozen=True)
class AgentSpec:
    """An agent in a run: its ``label`` in reports, its ``make_agent`` name and options (no seed)."""

    label: str
    name: str
    options: tuple[tuple[str, Any], ...] = ()


class AgentFailure(Exception):
    """An agent crashed or chose an illegal action; names the agent by its label."""

    def __init__(self, label: str, seat: int, message: str):
        super().__init__(f"{label} (seat {seat}): {message}")
        self.label, self.seat, self.message = label, seat, message


class Guarded(Agent):
    """Wraps an agent so that a crash or an illegal action is blamed on it by label, not lost in a traceback."""

    def __init__(self, agent: Agent, label: str):
        self.agent, self.label, self.name = agent, label, label

    def reset(self) -> None:
        self.agent.reset()

    def act(self, view: PlayerView) -> int:
        try:
            action = self.agent.act(view)
        except Exception as error:  # any bug in an agent must not end the tournament
            raise AgentFailure(self.label, view.player, f"crashed: {type(error).__name__}: {error}") from error
        if not isinstance(action, (int, np.integer)) or int(action) not in view.legal_actions:
            raise AgentFailure(self.label, view.player, f"illegal action {shown(action)}")
        return int(action)


@dataclass
class Task:
    """One deal at one table, played in every seating (and ``replays`` times with fresh agent seeds)."""

    game: tuple[str, tuple[tuple[str, Any], ...]]  # game name and constructor config
    table: tuple[AgentSpec, ...]
    deal: int
    seed: int  # the run seed
    seatings: tuple[tuple[int, ...], ...]
    replays: int = 1
    key: Any = None  # anything the caller wants back with the results

    def __post_init__(self):
        """Only our own agents play here, in this process, where a failure drops the deal (:func:`play_task`):
        a user's code (``module:Class``) is rated sealed, by :mod:`benchmarks.rate`, where a failure is a loss."""
        from benchmarks.core import user_agents

        users = [spec.name for spec in self.table if user_agents.is_user_agent(spec.name)]
        if users:
            raise ValueError(f"{users}: a user's agent is rated sealed, by python -m benchmarks.rate, not here")


@dataclass
class GameRecord:
    """One game played: the agents' labels by seat, the deal seed, scores, winners and ranks."""

    seats: tuple[str, ...]
    deal: int
    game_seed: int
    seating: int
    replay: int
    scores: list[float]
    winners: list[int]
    ranks: list[int]


@dataclass
class Failure:
    """A game that could not be finished: who failed (an agent's label, or "engine"), on which deal seed."""

    agent: str
    seats: tuple[str, ...]
    game_seed: int
    message: str


@dataclass
class TaskResult:
    task: Task
    games: list[GameRecord] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


def game_key(name: str, config: dict) -> tuple:
    """A task's hashable name of a configured game: ``(name, ((option, value), ...))``, a dict value
    (Wapi's coins) as its sorted items."""
    frozen = ((k, ("dict", tuple(sorted(v.items()))) if isinstance(v, dict) else v) for k, v in config.items())
    return name, tuple(sorted(frozen))


@functools.cache
def configured_game(name: str, config: tuple) -> Any:
    """The game of a task's ``game_key``, built once per process."""
    thawed = {k: dict(v[1]) if isinstance(v, tuple) and v[:1] == ("dict",) else v for k, v in config}
    return make_game(name, **thawed)


@functools.cache
def _shared_agent(spec: AgentSpec, game_key: tuple) -> Agent:
    """Agents that are slow to build and keep no random state (trained models) are built once per process."""
    return make_agent(spec.name, configured_game(*game_key), **dict(spec.options))


def build_agent(spec: AgentSpec, game_key: tuple, seed: int) -> Agent:
    """A fresh agent seeded for one game (a cached one for ``ppo:``, ``rllib:`` and ``trained`` models, which
    play deterministically; made ε-greedy, ``NAME~EPS``, they draw random moves and are built afresh; a user's
    ``module:Class``, see :mod:`benchmarks.core.user_agents`)."""
    from benchmarks.core import user_agents

    if user_agents.is_user_agent(spec.name):
        return user_agents.build(spec.name, configured_game(*game_key), seed, dict(spec.options))
    if agent_kind(spec.name) in ("ppo", "rllib", "trained") and split_epsilon(spec.name)[1] is None:
        return _shared_agent(spec, game_key)
    return make_agent(spec.name, configured_game(*game_key), seed=seed, **dict(spec.options))


def play_task(task: Task) -> TaskResult:
    """Play one deal in every seating and replay. A failed game is recorded, and the deal's other
    games are dropped too, so that what remains stays balanced over the seats."""
    seed = deal_seed(task.seed, task.deal)
    result = TaskResult(task)
    try:
        game = configured_game(*task.game)
    except Exception as error:  # a game that cannot be built here must not end the run either
        labels = tuple(spec.label for spec in task.table)
        message = f"cannot build the game: {type(error).__name__}: {error}"
        result.failures.append(Failure("engine", labels, seed, message))
        return result
    for replay in range(task.replays):
        for s, seating in enumerate(task.seatings):
            specs = [task.table[i] for i in seating]
            labels = tuple(spec.label for spec in specs)
            try:
                agents = [
                    Guarded(build_agent(spec, task.game, agent_seed(task.seed, task.deal, s, seat, replay)), spec.label)
                    for seat, spec in enumerate(specs)
                ]
                outcome = play_game(game, agents, seed=seed)
            except AgentFailure as error:
                result.failures.append(Failure(error.label, labels, seed, error.message))
            except Exception as error:  # an engine bug, or an agent that fails to build
                where = traceback.extract_tb(error.__traceback__)[-1]
                message = f"{type(error).__name__}: {error} (at {where.filename}:{where.lineno})"
                result.failures.append(Failure("engine", labels, seed, message))
            else:
                ranks = finishing_ranks(outcome.scores, outcome.winners)
                result.games.append(
                    GameRecord(labels, task.deal, seed, s, replay, outcome.scores, outcome.winners, ranks)
                )
    if result.failures:
        result.games = []
    return result


def run_tasks(
    tasks: Sequence[Task],
    processes: int = 2,
    progress: bool = True,
    desc: str = "games",
    play: Callable[[Task], TaskResult] = play_task,
    backend: Backend | None = None,
) -> list[TaskResult]:
    """Play every task on ``backend`` (default: ``processes`` local processes), with a progress bar;
    results in the order of ``tasks``, whichever backend played them."""
    return parallel_map(play, tasks, processes, backend, progress, desc, unit="deal")
