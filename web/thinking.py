"""Opponents think here, off the request path: a pool of worker processes, one turn a task.

A task is what a worker needs to play one opponent's whole turn (every sub-action until
another player is to act): the game, its configuration and seed, the moves so far, and the
opponent. The worker plays the moves again from the seed (the engine is fast; nothing but
this small task crosses the process boundary) and answers with the turn's actions only, so
no search tree ever outlives its turn. A searching opponent's ``time_limit`` is one budget
for the whole turn, counted in the worker's own CPU time (``time.process_time`` counts this
process only, so searches in other workers do not shorten it): each sub-action gets the
budget left divided by the sub-actions this seat played in its previous turn, and at least
:data:`MIN_SLICE`. A level is the exception (``per_move``): its thinking time is each move's, as
its strength was measured, so a Samurai turn of six moves at level 5 thinks about 3 s.

The budget counts everything the worker does for the turn, building the agent included
(issue 48: ten ``best`` turns with ten thinking times used 9.2 CPU-s for 1.05 s of budget).
Each worker keeps the searching and model agents it has built (a network loads in about a
second) in a small cache keyed by agent, game and options *without* the thinking time, which
is set on the kept search each turn; an agent is reset before and after each turn (a kept
tree is dropped). Random and heuristic opponents are built for each turn from the game's
seed, so that they play the same game the same way.

Turns wait for a worker in :class:`web.fair.FairQueue`, one queue per client address, so one
address's many searches do not hold every other visitor's turn.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import numpy as np

import envs
from agents import Agent, PlayerView, plays_model
from agents.ismcts import ISMCTSAgent
from envs.core.engine import GameState, IllegalActionError
from web.fair import FairQueue
from web.opponents import build_agent

T = TypeVar("T")

#: CPU seconds a sub-action still gets once its turn's budget is spent (a search decides on something).
MIN_SLICE = 0.01
#: How much lower a worker's scheduling priority is than the server's (``os.nice``).
WORKER_NICENESS = 10
#: Agents a worker keeps built (by agent, game configuration and options).
CACHED_AGENTS = 8


@dataclass(frozen=True)
class TurnTask:
    """One opponent's turn to play: the game so far and who plays it."""

    game: str
    config: dict[str, Any]  # the game's constructor options, parsed
    seed: int
    actions: tuple[int, ...]  # every move so far, in order
    agent: str  # an OpponentChoice.agent, for agents.make_agent
    options: dict[str, Any]  # checked; time_limit is the whole turn's CPU budget, unless per_move
    #: a level's time_limit is each move's, as its strength was measured (levels.md), not the turn's
    per_move: bool = False
    #: CPU seconds the turn may take (its address's queued thinking, ``--think-per-client``)
    cost: float = 0.0


@dataclass(frozen=True)
class TurnResult:
    player: int
    actions: list[int]
    cpu: float  # the worker's CPU seconds for the turn


def new_state(game, seed: int) -> tuple[GameState, np.random.Generator]:
    """The deal and the generator of the agents' views, from one seed, as ``play_game`` draws them."""
    game_seq, view_seq = np.random.SeedSequence(seed).spawn(2)
    return game.new_state(np.random.default_rng(game_seq)), np.random.default_rng(view_seq)


def previous_turn_length(players: list[int], player: int) -> int:
    """How many sub-actions ``player`` played in its last turn (1 before its first)."""
    end = len(players)
    while end and players[end - 1] != player:
        end -= 1
    start = end
    while start and players[start - 1] == player:
        start -= 1
    return max(1, end - start)


def _search(agent: Agent) -> ISMCTSAgent | None:
    """The search whose ``time_limit`` gives each sub-action its share (``best`` wraps one)."""
    inner = getattr(agent, "agent", agent)
    return inner if isinstance(inner, ISMCTSAgent) and inner.time_limit is not None else None


def _agent(task: TurnTask, game, player: int, cache: OrderedDict) -> Agent:
    """The agent of the turn. One that neither searches nor loads a model (random, heuristic) is
    built afresh, seeded by the game's seed, its seat and the move number: the same game gets
    the same answers, also after a restart. The others are kept built in ``cache``, by their
    options without ``time_limit``: a kept search is given the turn's thinking time instead
    (an agent without such a search is kept only for the options it was built with)."""
    if "time_limit" not in task.options and not plays_model(task.agent):
        seed = int(np.random.SeedSequence([task.seed, player, len(task.actions)]).generate_state(1)[0])
        return build_agent(task.agent, game, {**task.options, "seed": seed})
    spec = sorted((key, value) for key, value in task.options.items() if key != "time_limit")
    key = (task.agent, game.name, repr(sorted(game.config().items())), repr(spec))
    agent, built_with = cache.pop(key, (None, None))
    if agent is None or (_search(agent) is None and built_with != task.options):
        agent, built_with = build_agent(task.agent, game, task.options), task.options
    cache[key] = (agent, built_with)
    while len(cache) > CACHED_AGENTS:
        cache.popitem(last=False)
    return agent


_CACHE: OrderedDict = OrderedDict()  # a worker process's agents


def opponent_turn(task: TurnTask, cache: OrderedDict | None = None) -> TurnResult:
    """Play the turn of the opponent to act after ``task.actions``; only its actions come back.
    Its CPU time, the budget's, counts from here: the deal, the moves so far and the agent's building."""
    start = time.process_time()
    cache = _CACHE if cache is None else cache
    game = envs.describe(task.game).make(**task.config)
    state, _ = new_state(game, task.seed)
    players = []
    for action in task.actions:
        players.append(state.current_player)
        state.apply(action)
    player = state.current_player
    if player is None:
        raise ValueError("the game is over: no turn to play")
    rng = np.random.default_rng(np.random.SeedSequence([task.seed, len(task.actions)]))
    agent = _agent(task, game, player, cache)
    search = _search(agent)
    budget = None if task.per_move else task.options.get("time_limit")
    if search is not None and task.per_move:
        search.time_limit = task.options["time_limit"]  # each move's, for every move of the turn
    expected = previous_turn_length(players, player)
    agent.reset()
    actions: list[int] = []
    try:
        while state.current_player == player:
            if search is not None and budget is not None:
                left = budget - (time.process_time() - start)
                search.time_limit = max(MIN_SLICE, left / max(1, expected - len(actions)))
            view = PlayerView(state, rng)
            action = agent.act(view)
            if action not in view.legal_actions:
                raise IllegalActionError(f"{task.agent} in seat {player} chose the illegal action {action!r}")
            state.apply(int(action))
            actions.append(int(action))
    finally:
        agent.reset()  # the search tree goes with the turn
    return TurnResult(player, actions, time.process_time() - start)


def _worker_start(server: int) -> None:
    """A worker yields the CPU to the server's own process, so that requests answer at once
    while every worker searches (its budget is CPU time: a lower priority does not shorten it),
    and ends when the server is gone, even killed outright (its pool could not tell it)."""
    os.nice(WORKER_NICENESS)
    threading.Thread(target=_end_with, args=(server,), daemon=True, name="drawluck-watch").start()


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(1.0)
    os._exit(0)


class Thinkers:
    """The pool: ``workers`` processes for the opponents that search (spawned: no state of the
    server is copied into them), and one more for those that answer at once (random, heuristic,
    trained models) and for the server's own heavier work (replays, reading model cards), so
    that none of it waits behind searches or runs on the server's event loop. Each lane is
    entered through a :class:`FairQueue` (an address holds at most ``per_client`` search
    workers at once). With ``workers=0`` both lanes are one thread of the server's own process
    (for tests and debugging)."""

    def __init__(self, workers: int, per_client: int | None = None):
        if not isinstance(workers, int) or workers < 0:
            raise ValueError(f"workers must be a non-negative int, got {workers!r}")
        self.workers = workers
        self._cache: OrderedDict = OrderedDict()  # the agents of the thread, with workers=0
        search = self._start(workers)
        self._executors = {"search": search, "quick": search if workers == 0 else self._start(1)}
        slots = max(1, workers)
        share = slots if per_client is None else max(1, min(per_client, slots))
        self._queues = {"search": FairQueue(slots, share), "quick": FairQueue(1, 1)}

    def _start(self, workers: int) -> Executor:
        if workers == 0:
            return ThreadPoolExecutor(1, thread_name_prefix="drawluck-thinker")
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_start, initargs=(os.getpid(),))

    async def turn(self, task: TurnTask, client: str = "") -> TurnResult:
        """The turn, played by a worker of its lane once it is ``client``'s turn at one."""
        run = partial(opponent_turn, cache=self._cache) if self.workers == 0 else opponent_turn
        lane = "search" if "time_limit" in task.options else "quick"
        return await self._queues[lane].run(client, partial(self._submit, lane, run, task))

    async def call(self, client: str, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the quick lane's worker, in ``client``'s turn (a module-level function)."""
        return await self._queues["quick"].run(client, partial(self._submit, "quick", function, *args))

    async def _submit(self, lane: str, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the lane's executor. If a worker dies (killed, out of memory), the
        lane starts again and the call is tried once more."""
        for attempt in range(2):
            executor = self._executors[lane]
            try:
                return await asyncio.wrap_future(executor.submit(function, *args))
            except BrokenProcessPool:
                if self._executors[lane] is executor:
                    self._executors[lane] = self._start(self.workers if lane == "search" else 1)
                executor.shutdown(wait=False, cancel_futures=True)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        for executor in set(self._executors.values()):
            executor.shutdown(wait=False, cancel_futures=True)
