"""A fair tournament between agents on duplicate deals, with ratings, a cross-table and a report.

    python -m benchmarks.tournament --game wapi --num-players 2 --agents random heuristic ismcts --games 40
    python -m benchmarks.tournament --game wapi --num-players 3 --agents random heuristic ismcts --games 30
    python -m benchmarks.tournament --game wakanda --agents random ismcts ppo:agents/models/wakanda.zip --games 100
    python -m benchmarks.tournament --game wapi --agents random heuristic ismcts --games 600 --backend ray

Two-player games: every pairing of the agents plays. Three to five players:
every table (every choice of ``num_players`` agents; list an agent twice to
seat two copies). Each table plays ``--games`` games as deals played in
every seating (``--seating rotations``: each agent once in each seat per
deal; ``permutations``: all orders, which also balance who sits after whom;
the default ``auto`` takes permutations up to three players), so that every
agent meets the same luck in every seat; all tables share the same deals. Ratings: the protocol's
pairwise Bradley–Terry fit (at three to five players the pairwise decomposition of Plackett–Luce) on the
Elo scale centred on 0, with the protocol's 95% bootstrap interval over deals
(:func:`benchmarks.core.rating.centred_ratings`). Every game goes into a record (``benchmarks.core.records``;
``--record``, by default ``tournament_<game>.jsonl.gz`` beside the report), and the report is made from that record:
``tournament_<game>.md`` and ``.png`` in ``--out`` (default a new folder under ``runs/bench/``: the
committed reports in ``benchmarks/results`` only when ``--out`` names it); ``--from-record RECORD``
makes them again from the record alone. The same command and seed give the same games and report
(ISMCTS runs on a fixed number of iterations, never on a clock, for that reason).

    python -m benchmarks.tournament --from-record benchmarks/records/tournament/wakanda.jsonl.gz --out FOLDER
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import envs
from agents import AGENT_NAMES, EPSILON_SPELLING, SEARCH_AGENTS, agent_kind, make_agent, split_epsilon
from benchmarks.core import batch_matches, records
from benchmarks.core.matches import AgentSpec, GameRecord, Task, TaskResult, game_key
from benchmarks.core.protocol import seatings
from benchmarks.core.rating import ahead, centred_ratings, pairwise_counts, win_share
from benchmarks.core.variance import DuplicateEffect, duplicate_effect
from benchmarks.tournament import record as tournament_record
from benchmarks.tournament import report as tournament_report
from cli import HelpFormatter, parse_command
from envs.core.engine import shown
from envs.games import GAME_NAMES, add_game_options, game_config, make_game
from parallel import pool
from parallel.pool import Backend

#: The command, as its help and its records name it.
PROG = "python -m benchmarks.tournament"


@dataclass
class Plan:
    """A validated tournament: everything needed to play it and to name it."""

    game_name: str
    config: dict
    num_players: int
    agents: list[AgentSpec]
    tables: list[tuple[AgentSpec, ...]]
    seatings: list[tuple[int, ...]]
    deals: int
    seed: int

    def tasks(self) -> list[Task]:
        key = game_key(self.game_name, self.config)
        return [
            Task(key, table, deal, self.seed, tuple(self.seatings), key=t)
            for t, table in enumerate(self.tables)
            for deal in range(self.deals)
        ]


def agent_labels(names: list[str]) -> list[str]:
    """Report labels: ``ppo:PATH`` shortened to the file stem (``ppo:wakanda~0.1`` made ε-greedy); a repeated
    agent numbered (``heuristic#2``)."""
    labels, seen = [], defaultdict(int)
    for name in names:
        plain, epsilon = split_epsilon(name)
        base = "ppo:" + Path(plain[4:]).stem if plain.startswith("ppo:") else plain
        base += "" if epsilon is None else name[len(plain) :]
        seen[base] += 1
        labels.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return labels


def plan_tournament(
    game: str,
    agents: list[str],
    games: int,
    seed: int = 0,
    seating: str = "auto",
    config: dict | None = None,
    ismcts_iterations: int = 100,
) -> Plan:
    """Check everything before anything runs; ValueError naming the argument otherwise."""
    if game not in GAME_NAMES:
        raise ValueError(f"--game must be one of {list(GAME_NAMES)}, got {shown(game)}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"--games must be a positive int (games per table), got {shown(games)}")
    if isinstance(ismcts_iterations, bool) or not isinstance(ismcts_iterations, int) or ismcts_iterations < 1:
        raise ValueError(f"--ismcts-iterations must be a positive int, got {shown(ismcts_iterations)}")
    if seating != "auto":
        seatings(2, seating)  # checks the name before anything is built
    config = dict(config or {})
    allowed = list(envs.describe(game).defaults())
    for option in config:
        if option not in allowed:
            raise ValueError(f"game option {shown(option)} is not an option of {game}; {game} takes {allowed}")
    the_game = make_game(game, **config)  # ValueError on a bad config or a game not in this checkout
    n = the_game.num_players
    if not agents:
        raise ValueError(f"--agents must name at least {n} agents from {', '.join(AGENT_NAMES)}")
    specs = []
    for name, label in zip(agents, agent_labels(agents)):
        try:
            options = (("iterations", ismcts_iterations),) if agent_kind(name) in SEARCH_AGENTS else ()
            make_agent(name, the_game, seed=0, **dict(options))
        except ValueError as error:
            raise ValueError(f"--agents: {shown(name)} cannot play {game}: {error}") from error
        specs.append(AgentSpec(label, name, options))
    if len(specs) < n:
        raise ValueError(
            f"--agents: {game} with {n} players needs at least {n} agents for a table, got {len(specs)} "
            f"(list an agent twice to seat two copies)"
        )
    # auto: all orders up to three players (at most 6 seatings), so who sits after whom is balanced too
    seats = seatings(n, ("permutations" if n <= 3 else "rotations") if seating == "auto" else seating)
    deals = math.ceil(games / len(seats))
    tables = list(itertools.combinations(specs, n))
    return Plan(game, config, n, specs, tables, seats, deals, seed)


@dataclass
class Summary:
    """What the report shows, computed from the games in their fixed order."""

    plan: Plan
    games: list[GameRecord]
    failures: list
    ratings: list
    rating_kind: str
    wins: np.ndarray  # wins[i, j]: games i finished ahead of j (ties half)
    played: np.ndarray
    win_share: dict[str, float]
    mean_score: dict[str, float]
    duplicate: dict[tuple[str, str], DuplicateEffect]


def summarize(plan: Plan, results: list[TaskResult]) -> Summary:
    labels = [spec.label for spec in plan.agents]
    games = [g for r in results for g in r.games]
    failures = [f for r in results for f in r.failures]
    pairs = [(g.seats, g.ranks) for g in games]
    wins, played = pairwise_counts(labels, pairs)
    lines = [{"game": plan.game_name, "config": plan.config, "seed": g.game_seed} for g in games]
    lines = [line | {"seats": list(g.seats), "scores": g.scores, "winners": g.winners} for line, g in zip(lines, games)]
    ratings = centred_ratings(lines) if games else []
    kind = (
        "pairwise Bradley–Terry (Plackett–Luce's pairs at more than two players), Elo scale (400 = odds of 10:1), "
        "centred on 0; intervals: bootstrap over deals, expanded for n deals"
    )
    share, score, count = defaultdict(float), defaultdict(float), defaultdict(int)
    for g in games:
        for seat, label in enumerate(g.seats):
            count[label] += 1
            score[label] += g.scores[seat]
            share[label] += win_share(g.winners, seat)
    shares = {label: share[label] / count[label] for label in labels if count[label]}
    mean_score = {label: score[label] / count[label] for label in labels if count[label]}
    effects = duplicate_effects(plan, results)
    return Summary(plan, games, failures, ratings, kind, wins, played, shares, mean_score, effects)


def _average(values: list[float], weights: np.ndarray) -> float:
    return float(np.average(values, weights=weights))


def duplicate_effects(plan: Plan, results: list[TaskResult]) -> dict[tuple[str, str], DuplicateEffect]:
    """Per pair of agents: the variance of their win-rate difference with and without duplicate deals,
    pooled over the tables where both sit (weighted by the number of deals)."""
    sets: dict[tuple[str, str], dict[int, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        if not r.games or len(r.games) != len(plan.seatings):
            continue
        labels = [spec.label for spec in r.task.table]
        for a, b in itertools.combinations(labels, 2):
            x = [ahead(g.ranks, g.seats.index(a), g.seats.index(b)) * 2 - 1 for g in r.games]
            sets[(a, b)][r.task.key].append(np.array(x))
    out = {}
    for pair, by_table in sets.items():
        parts = [duplicate_effect(np.array(rows)) for rows in by_table.values() if len(rows) >= 2]
        if not parts:
            continue
        weights = np.array([p.games for p in parts], dtype=float)
        out[pair] = DuplicateEffect(
            _average([p.mean for p in parts], weights),
            int(weights.sum()),
            _average([p.var_independent for p in parts], weights),
            _average([p.var_duplicate for p in parts], weights),
        )
    return out


def play(plan: Plan, processes: int = 2, progress: bool = True, backend: Backend | None = None) -> list[TaskResult]:
    """Play the plan on ``backend`` (default: ``processes`` local processes): the same games on any backend.
    Tables of random and heuristic agents play on the batch engines (``benchmarks.core.batch_matches``: the
    same games)."""
    tasks = plan.tasks()
    return batch_matches.run_tasks(tasks, processes=processes, progress=progress, desc="tournament", backend=backend)


def plan_of(settings: dict, agents: list[AgentSpec]) -> Plan:
    """The plan a record's tournament header describes (``tournament_record.tournament_of``)."""
    by_label = {spec.label: spec for spec in agents}
    tables = [tuple(by_label[label] for label in table) for table in settings["tables"]]
    seats = [tuple(s) for s in settings["seatings"]]
    game, config = settings["game"], settings["config"]
    return Plan(game, config, len(tables[0]), agents, tables, seats, settings["deals"], settings["seed"])


def write_report(record_path: Path, stem: Path) -> str:
    """The report ``stem``.md and plot ``stem``.png made from the record at ``record_path`` alone: its text."""
    settings, agents, results = tournament_record.tournament_of(records.read([record_path]))
    summary = summarize(plan_of(settings, agents), results)
    stem.parent.mkdir(parents=True, exist_ok=True)
    text = tournament_report.markdown(summary, settings["command"], stem.with_suffix(".png").name, settings["ran_on"])
    stem.with_suffix(".md").write_text(text)
    tournament_report.plot(summary, stem.with_suffix(".png"))
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--game", help=f"one of {', '.join(list(GAME_NAMES))} (required unless --from-record)")
    parser.add_argument(
        "--agents",
        nargs="+",
        metavar="AGENT",
        help=f"from {', '.join(AGENT_NAMES)}, or any as {EPSILON_SPELLING} (heuristic~0.25: ε-greedy)",
    )
    parser.add_argument("--games", type=int, help="games per table (rounded up to whole deals; required to play)")
    parser.add_argument("--seed", type=int, default=0, help="fixes every deal and every agent's seed")
    pool.add_arguments(parser)
    parser.add_argument(
        "--seating",
        choices=["auto", "rotations", "permutations"],
        default="auto",
        help="seatings per deal: n rotations, or all n! permutations; auto: permutations up to 3 players, "
        "rotations beyond",
    )
    parser.add_argument(
        "--ismcts-iterations",
        type=int,
        default=100,
        help="ISMCTS (and best) iterations per move: a fixed budget, never a clock, so that a seed fixes the report",
    )
    add_game_options(parser)
    parser.add_argument("--out", help="folder for the report (default runs/bench/tournament-TIME)")
    parser.add_argument("--name", help="report file stem (default: tournament_<game>[_<n>p][_<options>])")
    parser.add_argument("--record", type=Path, help="the games' record (default: beside the report, STEM.jsonl.gz)")
    parser.add_argument(
        "--from-record",
        type=Path,
        metavar="RECORD",
        help="play nothing: make the report again from a tournament's record (--out and --name say where)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def default_name(plan: Plan) -> str:
    """``tournament_<game>[_<n>p][_<option>...]``: the player count when given, then each other option
    given, in the game's order (a word for a True flag, the value for a choice, the name otherwise)."""
    parts = ["tournament", plan.game_name]
    for option in envs.describe(plan.game_name).options:
        if option.name not in plan.config:
            continue
        value = plan.config[option.name]
        if option.name == "num_players":
            parts.append(f"{plan.num_players}p")
        elif isinstance(value, str):
            parts.append(value)
        elif value is True or (value is not False and option.kind != "bool"):
            parts.append(option.name)
    return "_".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, argv = parse_command(parser, argv)
    if args.from_record:
        return from_record(parser, args)
    try:
        if args.game is None or args.agents is None or args.games is None:
            raise ValueError("--game, --agents and --games are required (unless --from-record)")
        config = game_config(args.game, args)
        backend = pool.from_args(args)
        plan = plan_tournament(
            args.game, args.agents, args.games, args.seed, args.seating, config, args.ismcts_iterations
        )
        if args.record is not None and args.record.exists():
            raise ValueError(f"--record {args.record} exists; records are not overwritten")
    except ValueError as error:
        parser.error(str(error))
    tables, per_table = len(plan.tables), plan.deals * len(plan.seatings)
    run = tournament_record.tournament_run(plan, [*PROG.split(), *argv])
    start = time.perf_counter()
    try:
        with backend:
            print(
                f"{args.game} {config or ''}: {tables} table(s) x {plan.deals} deals x {len(plan.seatings)} seatings "
                f"= {tables * per_table} games on the {backend.describe()}",
                file=sys.stderr,
            )
            results = play(plan, progress=not args.no_progress, backend=backend)
            ran_on = backend.describe()
    except ValueError as error:  # the cluster could not be joined or cannot run this project
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    stem = Path(args.out or records.run_file("tournament", "")) / (args.name or default_name(plan))
    record = tournament_record.record_of(plan, results, run, ran_on)
    # the record beside the report is the report's own (--out named the place of both); --record is never replaced
    path = records.write(record, args.record or stem.with_suffix(".jsonl.gz"), overwrite=args.record is None)
    print(write_report(path, stem))
    print(f"wrote {path}, {stem}.md and {stem}.png in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 1 if record.failures else 0


def from_record(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--from-record``: the report and plot made again from a record, into ``--out`` (``--name``)."""
    try:
        settings, agents, _ = tournament_record.tournament_of(records.read([args.from_record]))
        name = args.name or default_name(plan_of(settings, agents))
        stem = Path(args.out or records.run_file("tournament", "")) / name
        write_report(args.from_record, stem)
    except (OSError, ValueError, KeyError) as error:
        parser.error(f"--from-record {args.from_record}: {error}")
    print(f"wrote {stem}.md and {stem}.png from {args.from_record}", file=sys.stderr)
    return 0
