"""Playing the protocol's games: one deal at one table in every rotation, refereed, as record lines.

A *table* is a hero against copies of one opponent (two players: a match;
more: the hero at a table of identical opponents). :func:`play_deal` plays a
deal in every rotation of the seats, times every move (CPU seconds of this
process for the agents we trust, of its process tree for a sealed one,
:mod:`benchmarks.core.sealed`), and stops a game at the first move that breaks the
protocol (an exception, an illegal action, a move over the agent's budget, a
sealed process dead or silent), naming the agent, its seat, the deal and the
move: that game and the deal's remaining rotations are lost by that agent
(``forfeit`` game lines), so that failing never costs less than losing. Every
game line holds its actions, so a record can be replayed (:mod:`benchmarks.core.verify`).
Games already in a record (the same
configuration, deal, seats and agents) are reused instead of played again: the
reference ladder's games are a pure function of the protocol, so a committed
leaderboard record saves ``rate`` from replaying them.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents import PlayerView, play_game
from benchmarks.core.matches import (
    AgentFailure,
    AgentSpec,
    Guarded,
    agent_seed,
    build_agent,
    configured_game,
    game_key,
    run_tasks,
)
from benchmarks.core.protocol import LADDERS, config_label, deal_seeds, move_limit, protocol_seatings, reference_tables
from benchmarks.core.records import Record, game_identity, write
from benchmarks.core.sealed.referee import HostProcess, Sealed
from envs.core.engine import is_int
from envs.games import make_game
from parallel.pool import Backend


class Refereed(Guarded):
    """:class:`~benchmarks.core.matches.Guarded` that also times each move (CPU seconds of this process) and
    stops a move over ``budget`` x ``BUDGET_MARGIN`` + ``BUDGET_SLACK`` (no limit when ``budget`` is None).
    For the agents we trust (the reference agents and built-in names), which run in the referee's process."""

    def __init__(self, agent, label: str, budget: float | None, log: list[int]):
        super().__init__(agent, label)
        self.budget, self.log = budget, log
        self.cpu: list[float] = []
        self.move = 0  # the agent's own move number in this game, 1 at its first

    def reset(self) -> None:
        super().reset()
        self.cpu = []

    def act(self, view: PlayerView) -> int:
        self.move = move = len(self.cpu) + 1
        start = time.process_time()
        try:
            action = super().act(view)
        except AgentFailure as error:
            raise AgentFailure(self.label, error.seat, f"its move {move}: {error.message}") from error
        spent = time.process_time() - start
        self.cpu.append(spent)
        if self.budget is not None and spent > (limit := move_limit(self.budget)):
            raise AgentFailure(
                self.label,
                view.player,
                f"its move {move}: {spent:.3f} CPU s, over its budget of {self.budget} s "
                f"(the protocol allows {limit:.3f} s a move)",
            )
        self.log.append(action)
        return action


@dataclass(frozen=True)
class DealTask:
    """One deal at one table, to be played in every rotation. ``budgets``: CPU seconds a move by label;
    ``sealed``: the labels played by a sealed agent (:mod:`benchmarks.core.sealed`), seeded from the run's secret
    ``key``, never from the deal."""

    game: str
    config: tuple  # matches.game_key's frozen config
    hero: AgentSpec
    opponent: AgentSpec
    deal_set: str
    deal: int
    seed: int
    budgets: tuple[tuple[str, float], ...] = ()
    sealed: tuple[str, ...] = ()
    key: int = 0

    @property
    def config_dict(self) -> dict:
        return json.loads(json.dumps(dict(configured_game(self.game, self.config).config())))

    def seats(self, seating: tuple[int, ...]) -> list[AgentSpec]:
        table = [self.hero] + [self.opponent] * (len(seating) - 1)
        return [table[i] for i in seating]


def ladder_tables(game: str, config: dict, ladder: str) -> dict[str, tuple[AgentSpec, AgentSpec]]:
    """A ladder's (hero, opponent) tables on one configuration (:func:`protocol.reference_tables`), by label
    (``best-1000 vs heuristic``)."""
    rungs = LADDERS[ladder].for_game(make_game(game, **config))
    specs = {rung.label: AgentSpec(rung.label, rung.name, rung.options) for rung in rungs}
    pairs = reference_tables(rungs)
    return {f"{hero.label} vs {opponent.label}": (specs[hero.label], specs[opponent.label]) for hero, opponent in pairs}


def plan(
    game: str,
    config: dict,
    tables: Sequence[tuple[AgentSpec, AgentSpec]],
    deal_set: str,
    deals: int,
    budgets=(),
    first: int = 0,
    sealed: Sequence[str] = (),
    key: int = 0,
) -> list[DealTask]:
    """Every table on ``deals`` deals of ``deal_set`` from position ``first``."""
    game_config = game_key(game, config)[1]
    seeds = deal_seeds(deal_set, deals, first)
    return [
        DealTask(game, game_config, hero, opponent, deal_set, first + d, seed, tuple(budgets), tuple(sealed), key)
        for hero, opponent in tables
        for d, seed in enumerate(seeds)
    ]


class _Deal:
    """One deal being played: its sealed agents' hosts (one per label and copy at the table, kept across the
    rotations: a host is started once a deal) and the agents of the game in progress."""

    def __init__(self, task: DealTask):
        self.task = task
        self.sealed: dict[tuple[str, int], Sealed] = {}
        self.agents: list = []
        self.log: list[int] = []

    def seat(self, spec: AgentSpec, rotation: int, seat: int):
        """The agent of ``seat`` for the next game, appended to :attr:`agents` before it is started."""
        task, budget = self.task, dict(self.task.budgets).get(spec.label)
        if spec.label not in task.sealed:
            agent = build_agent(spec, (task.game, task.config), agent_seed(0, task.seed, rotation, seat))
            self.agents.append(Refereed(agent, spec.label, budget, self.log))
            return
        copy = sum(1 for other in self.agents if other.label == spec.label)  # its copies seated before it
        agent = self.sealed.get((spec.label, copy))
        self.agents.append(agent or Sealed(HostProcess(), spec.label, budget, self.log))
        if agent is None:
            agent = self.sealed[(spec.label, copy)] = self.agents[-1]
            agent.start(task.game, task.config_dict, spec.name, dict(spec.options), seat)
        secret = np.random.SeedSequence([task.key, task.seed, rotation, seat]).generate_state(2)
        agent.begin(seat, int(secret[0]), np.random.default_rng(int(secret[1])), self.log)

    def close(self) -> None:
        for agent in self.sealed.values():
            agent.host.close()


def _unexplained(task: DealTask, line: dict, rotation: int, deal: _Deal, error: Exception) -> tuple[dict, list]:
    """The failure line and forfeits of an error no agent raised (an engine or referee bug). At a table of trusted
    agents the deal is not played on; at a sealed agent's table the sealed agent forfeits the rest of the deal,
    since a deal it could stop playing would let a losing agent drop it (v2 at first did)."""
    message = f"{type(error).__name__}: {error}"
    sealed = [label for label in line["seats"] if label in task.sealed]
    if not sealed:
        return line | {"kind": "failure", "agent": "engine", "seat": 0, "move": 0, "message": message}, []
    seat = line["seats"].index(sealed[0])
    message = f"an error in the referee while it played, charged to the sealed agent: {message}"
    failure = line | {"kind": "failure", "agent": sealed[0], "seat": seat, "move": 0, "message": message}
    return failure, _forfeits(task, line, rotation, deal, sealed[0])


def _forfeits(task: DealTask, line: dict, rotation: int, deal: _Deal, label: str) -> list[dict]:
    """The game lost by ``label`` at ``rotation`` and the deal's remaining rotations, as game lines: every seat
    it holds finishes last, the others share the win. Why: a failure must never be cheaper than a loss."""
    out = []
    for s, seating in enumerate(protocol_seatings(len(line["seats"]))):
        if s < rotation:
            continue
        seats = [spec.label for spec in task.seats(seating)]
        played = s == rotation
        cpu = _cpu_us(deal.agents) if played else []
        out.append(
            line
            | {"kind": "game", "seating": s, "seats": seats, "forfeit": label}
            | {"scores": [0.0 if seat == label else 1.0 for seat in seats]}
            | {"winners": [i for i, seat in enumerate(seats) if seat != label]}
            | {"moves": len(deal.log) if played else 0, "actions": list(deal.log) if played else []}
            | {"cpu_us": cpu if len(cpu) == len(seats) else [[] for _ in seats]}
        )
    return out


def _cpu_us(agents: list) -> list[list[int]]:
    """Each seat's move times in CPU microseconds, as a game line holds them (``cpu_us``)."""
    return [[round(t * 1e6) for t in agent.cpu] for agent in agents]


def _line(task: DealTask, rotation: int, labels: list[str]) -> dict:
    line = {"game": task.game, "config": task.config_dict, "deal_set": task.deal_set, "deal": task.deal}
    table = [task.hero.label, task.opponent.label]
    return line | {"seed": task.seed, "seating": rotation, "seats": labels, "table": table}


def play_deal(task: DealTask) -> tuple[list[dict], list[dict]]:
    """The deal's games in every rotation, as record lines (without a run id). A failure (an error, an illegal
    move, an overrun, a dead sealed process) loses that game and the deal's remaining rotations (forfeit lines);
    the failure line says what happened."""
    game = configured_game(task.game, task.config)
    games, failures, deal = [], [], _Deal(task)
    try:
        for s, seating in enumerate(protocol_seatings(game.num_players)):
            specs = task.seats(seating)
            line = _line(task, s, [spec.label for spec in specs])
            deal.agents, deal.log = [], []
            try:
                for seat, spec in enumerate(specs):
                    deal.seat(spec, s, seat)
                outcome = play_game(game, deal.agents, seed=task.seed)
            except AgentFailure as error:
                move = deal.agents[error.seat].move if error.seat < len(deal.agents) else 0
                failures.append(line | {"kind": "failure", "agent": error.label, "seat": error.seat, "move": move,
                                        "message": error.message})  # fmt: skip
                games += _forfeits(task, line, s, deal, error.label)
                break
            except Exception as error:  # an error of ours, not an agent's: see _unexplained
                failure, forfeits = _unexplained(task, line, s, deal, error)
                failures.append(failure)
                games += forfeits
                break
            cpu = _cpu_us(deal.agents)
            result = {"scores": [float(x) for x in outcome.scores], "winners": list(outcome.winners)}
            result |= {"moves": outcome.moves, "actions": deal.log, "cpu_us": cpu}
            games.append(line | {"kind": "game"} | result)
    finally:
        deal.close()
    return games, failures


def _known_games(task: DealTask, known: dict[tuple, dict]) -> list[dict] | None:
    """The task's games from ``known`` (by identity) when every rotation is there, else None."""
    game = configured_game(task.game, task.config)
    found = []
    for seating in protocol_seatings(game.num_players):
        line = {"game": task.game, "config": task.config_dict, "seed": task.seed}
        line["seats"] = [spec.label for spec in task.seats(seating)]
        match = known.get(game_identity(line))
        if match is None or match["table"] != [task.hero.label, task.opponent.label]:
            return None
        found.append(match)
    return found


def play(
    tasks: Sequence[DealTask],
    run: dict,
    backend: Backend | None = None,
    progress: bool = True,
    reuse: Record | None = None,
) -> Record:
    """Play ``tasks`` into a record of ``run``, taking from ``reuse`` every deal it holds in full with agents
    that mean the same (and the headers of the runs that played them)."""
    known = {}
    if reuse is not None:
        same = {label for label, spec in reuse.agents().items() if run["agents"].get(label) == spec}
        known = {game_identity(g): g for g in reuse.games if set(g["seats"]) <= same}
    found = [_known_games(task, known) if known else None for task in tasks]
    to_play = [task for task, games in zip(tasks, found) if games is None]
    played = iter(
        run_tasks(to_play, progress=progress and bool(to_play), desc="deals", play=play_deal, backend=backend)
    )
    record = Record(runs=[run])
    for games in found:
        if games is None:
            games, failures = next(played)
            for line in games + failures:
                line["run"] = run["run"]
            record.failures += failures
        record.games += games
    reused = {game["run"] for game in record.games} - {run["run"]}
    record.runs += [r for r in reuse.runs if r["run"] in reused] if reuse is not None else []
    return record


def check_chunk(chunk: int) -> None:
    """``--chunk``: a positive number of deals a record holds; ValueError otherwise."""
    if not is_int(chunk) or chunk < 1:
        raise ValueError(f"--chunk must be a positive number of deals, got {chunk}")


def chunk_path(folder: Path, game: str, config: dict, table: tuple[AgentSpec, AgentSpec], chunk: int) -> Path:
    """The record of chunk number ``chunk`` of ``table``'s deals in ``folder``."""
    name = f"{config_label(game, config)}_{table[0].label}_vs_{table[1].label}_{chunk:03d}"
    return folder / (re.sub(r"[^A-Za-z0-9._-]+", "_", name) + ".jsonl.gz")


def play_chunk(
    folder: Path,
    chunk: int,
    game: str,
    config: dict,
    table: tuple[AgentSpec, AgentSpec],
    deals: range,
    run: dict,
    backend,
    budgets=(),
) -> None:
    """The test ``deals`` of ``table`` into the record of chunk ``chunk`` in ``folder``, unless it exists (a stopped
    run goes on where it stopped); a line on stderr says what was played. Why chunks: a long run's records survive
    its end."""
    path = chunk_path(folder, game, config, table, chunk)
    if not deals or path.exists():
        return
    tasks = plan(game, config, [table], "test", deals.stop, budgets)[deals.start :]
    start = time.perf_counter()
    record = play(tasks, run, backend, progress=False)
    write(record, path)
    print(
        f"{config_label(game, config)} {table[0].label} vs {table[1].label} deals {deals.start}..{deals.stop - 1}: "
        f"{len(record.games)} games, {len(record.failures)} failures, {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
        flush=True,
    )
