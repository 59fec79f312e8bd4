"""The tournaments' and the luck study's games of random and heuristic agents, on the batch engines.

Why: those games are most of a luck study's and many a tournament's, and played one by one (the
per-game engine, an agent object a seat) they cost a Python call per move and the per-game heuristic;
on a batch engine (``envs.core.batch``) a move of hundreds of games is a few numpy calls and the
heuristic is its ``batch_policy``. Every game is the one :func:`benchmarks.core.matches.play_task` plays:

- the deal is ``play_game``'s deal of the deal seed (:func:`agents.protocol.start_game`),
  loaded with ``from_states``;
- a heuristic seat plays ``batch_policy``, the per-game heuristic's choice (it reads public facts only,
  so the view's determinization never changes it);
- a random seat draws ``integers(len(legal))`` from its own generator seeded as ``RandomAgent``, and an
  ε-greedy seat (``NAME~EPS``) its coin and random moves from ``EpsilonGreedy``'s stream, in the same
  order, the legal actions in ascending order as ``view.legal_actions`` lists them.

So the records, and every figure made from them, are the same either way: ``tests/test_batch_matches.py``
plays tasks both ways and compares the records. Tasks with any other agent, or of a game without a
``batch_policy``, are played game by game as before. A chunk of tasks is one backend task (a process or
a Ray task), so the batched games spread over the backend's workers too.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

import envs
from agents import split_epsilon
from agents.heuristic import heuristic_module
from agents.protocol import start_game
from benchmarks.core import matches
from benchmarks.core.matches import GameRecord, Task, TaskResult, agent_seed, configured_game, deal_seed
from benchmarks.core.rating import finishing_ranks
from envs.core.batch import batch_class
from parallel.pool import Backend, chunks

#: The agents played batched (and their ε-greedy forms).
BATCHED_AGENTS = ("random", "heuristic")
#: Tasks per batch (a task is a deal in every seating: a batch of a few hundred games).
CHUNK = 128


@functools.cache
def _batch_policy(name: str):
    """The heuristic's ``batch_policy`` of game ``name``, or None where it has none."""
    return getattr(heuristic_module(envs.describe(name).make()), "batch_policy", None)


def batchable(task: Task) -> bool:
    """Whether every agent of the task's table plays batched: random, heuristic or an ε-greedy one of
    them, built without options, in a game whose heuristic has a ``batch_policy`` (when one plays)."""
    bases = [split_epsilon(spec.name)[0] for spec in task.table]
    if any(base not in BATCHED_AGENTS for base in bases) or any(spec.options for spec in task.table):
        return False
    return "heuristic" not in bases or _batch_policy(task.game[0]) is not None


class Seat:
    """One agent in one game: its generators, seeded as ``make_agent(name, seed=seed)`` seeds them."""

    def __init__(self, name: str, seed: int):
        base, epsilon = split_epsilon(name)
        self.heuristic, self.epsilon = base == "heuristic", epsilon or 0.0
        self.rng = None if self.heuristic else np.random.default_rng(seed)  # RandomAgent's
        # EpsilonGreedy's own stream (spawn key 1), apart from the wrapped agent's
        self.coin = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,))) if epsilon else None

    def choose(self, legal: int) -> int:
        """The index into the ascending legal actions of a random move, or -1 for the heuristic's move."""
        if self.epsilon > 0 and self.coin.random() < self.epsilon:
            return int(self.coin.integers(legal))
        return -1 if self.heuristic else int(self.rng.integers(legal))


def play_chunk(tasks: Sequence[Task]) -> list[TaskResult]:
    """Every game of ``tasks`` (each deal in every seating and replay), a batch per game configuration;
    the results of :func:`benchmarks.core.matches.play_task`, in task order."""
    results = [TaskResult(task) for task in tasks]
    groups: dict[tuple, list[int]] = {}
    for k, task in enumerate(tasks):
        groups.setdefault(task.game, []).append(k)
    for key, members in groups.items():
        try:
            _play_group(key, [results[k] for k in members])
        except Exception:  # an engine bug: game by game, which records it as a failure of the deal
            for k in members:
                results[k] = matches.play_task(tasks[k])
    return results


def _play_group(key: tuple, results: list[TaskResult]) -> None:
    """The games of the tasks of ``results`` (one game configuration ``key``), played in one batch."""
    game = configured_game(*key)
    games = [
        (result, replay, s, seating)
        for result in results
        for replay in range(result.task.replays)
        for s, seating in enumerate(result.task.seatings)
    ]
    states, seats = [], []
    for result, replay, s, seating in games:
        task = result.task
        seed = deal_seed(task.seed, task.deal)
        states.append(start_game(game, seed)[0])
        names = [task.table[i].name for i in seating]
        seats.append([Seat(name, agent_seed(task.seed, task.deal, s, p, replay)) for p, name in enumerate(names)])
    batch = batch_class(game).from_states(states)
    _play_out(batch, seats, _batch_policy(key[0]))
    scores, won = batch.scores(), batch.winners()
    for i, (result, replay, s, seating) in enumerate(games):
        task = result.task
        labels = tuple(task.table[j].label for j in seating)
        final, winners = scores[i].tolist(), np.flatnonzero(won[i]).tolist()
        ranks = finishing_ranks(final, winners)
        result.games.append(
            GameRecord(labels, task.deal, deal_seed(task.seed, task.deal), s, replay, final, winners, ranks)
        )


def _play_out(batch, seats: list[list[Seat]], policy) -> None:
    """Play every game of ``batch`` to its end, each seat ``seats[game][player]`` choosing its moves."""
    while not batch.terminated.all():
        players, mask = batch.current_player, batch.legal_mask()
        legal = mask.sum(axis=1)
        going = np.flatnonzero(players >= 0).tolist()
        counts = legal[going].tolist()
        picks = np.array([seats[i][p].choose(n) for i, p, n in zip(going, players[going].tolist(), counts)], np.int64)
        actions = np.zeros(len(batch), dtype=np.int64)
        listed = np.flatnonzero(mask) % mask.shape[1]  # every game's legal actions, ascending, game after game
        offsets = np.cumsum(legal) - legal
        rows = np.array(going, dtype=np.int64)
        drawn = picks >= 0
        actions[rows[drawn]] = listed[offsets[rows[drawn]] + picks[drawn]]
        if not drawn.all():
            actions[rows[~drawn]] = np.asarray(policy(batch))[rows[~drawn]]
        batch.step(actions)


def run_tasks(
    tasks: Sequence[Task],
    processes: int = 2,
    progress: bool = True,
    desc: str = "games",
    backend: Backend | None = None,
) -> list[TaskResult]:
    """:func:`benchmarks.core.matches.run_tasks`, the batchable tasks played on the batch engines in chunks of
    at most :data:`CHUNK` (each chunk one backend task, a few for every worker), the others game by game: the same
    results, in task order."""
    fast = [k for k, task in enumerate(tasks) if batchable(task)]
    slow = [k for k, task in enumerate(tasks) if not batchable(task)]
    results: list[TaskResult | None] = [None] * len(tasks)
    if slow:
        played = matches.run_tasks([tasks[k] for k in slow], processes, progress, desc, backend=backend)
        for k, result in zip(slow, played):
            results[k] = result
    if fast:
        workers = backend.workers if backend is not None else processes
        where = chunks(fast, workers, max_size=CHUNK)  # at least a few chunks a worker, so that every worker plays
        batches = [[tasks[k] for k in chunk] for chunk in where]
        played = matches.run_tasks(batches, processes, progress, f"{desc} (batched)", play=play_chunk, backend=backend)
        for chunk, chunk_results in zip(where, played):
            for k, result in zip(chunk, chunk_results):
                results[k] = result
    return results


__all__ = ["BATCHED_AGENTS", "CHUNK", "Seat", "batchable", "play_chunk", "run_tasks"]
