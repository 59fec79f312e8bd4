"""How much of each game is luck: the deal's share of the outcome, upsets, and games until skill shows.

    python -m research.luck                       # every game at once (long: the report's parts are faster)
    python -m research.luck --configs wapi3 wakanda --deals 40 --replays 2
    python -m research.luck --configs samurai2 --pairs heuristic,heuristic~0.25 --records runs/luck
    python -m research.luck --configs wapi4 --deals 5000 --backend ray      # on a cluster (docs/ray.md)

For each game configuration, pairs of agents of known strength gap (strong
first; ``GAME_PAIRS`` per game, or ``--pairs``) meet at one table: the
two of them plus ``--filler`` agents in the other seats. Every deal is
played in every rotation of that table (duplicate deals) and replayed
``--replays`` times with fresh agent seeds. The per-game result is
the pair's win-rate difference d (+1 if the strong agent finished ahead of
the weak one, -1 behind, 0 tie). From it:

(a) the deal's share of the variance of d (a measure of the pair, not of the game:
    :mod:`research.relative_skill` measures the game): a random-effects ANOVA of the
    replays of each deal (spread within a deal = the agents' own chance,
    spread across deals = the deal);
(b) the upset rate: how often the weak agent finished ahead;
(c) the games after which the strong agent leads with probability 0.95,
    N* = z^2 var(d) / mean(d)^2 with z = 1.645 (:func:`research.core.measures.games_to_lead`),
    with independent deals and with duplicate deals;
and what duplicate deals buy (the variance-reduction factor), written to
``duplicate.md``. Intervals are bootstrap intervals over deals.

Pairs may seat ε-greedy agents, ``NAME~EPS`` (:mod:`agents.epsilon_greedy`): the
agent's move with probability 1 - ε, a random legal move otherwise. Where the
stock agents are too far apart for upsets (Samurai: the heuristic wins every
game against random) or too slow (ISMCTS on Samurai), they give rungs of
known order and moderate gaps.

Every run writes its games as a record into ``--records`` (default a new
folder under ``runs/bench/``), and the reports are made from every record in
that folder by :mod:`research.luck.report` (the latest run of each
configuration), so the study can be regenerated one game at a time (the
reports list one command per part). They go to ``--out`` (default the records
folder: the committed reports are written only when ``--out`` names them).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from agents import agent_kind, make_agent, split_epsilon
from benchmarks.core import batch_matches, records
from benchmarks.core.matches import AgentSpec, Task, TaskResult, game_key
from benchmarks.core.protocol import seatings
from cli import HelpFormatter
from envs.core.engine import shown
from envs.games import make_game
from parallel import pool
from research.luck import records as luck_records
from research.luck.stats import (
    CONFIGS,
    GAME_PAIRS,
    ISMCTS_GAMES,
    PAIRS,
    PairData,
)

#: The command, as its help and its records name it.
PROG = "python -m research.luck"


@dataclass
class StudyPlan:
    tasks: list[Task]
    notes: list[str]
    settings: dict


def check_study(
    configs: list[str], deals: int, ismcts_deals: int, replays: int, ismcts_iterations: int, filler: str, pairs
) -> None:
    """ValueError naming the option on any bad setting of the study, before anything is planned or run."""
    for name, value in (
        ("--deals", deals),
        ("--ismcts-deals", ismcts_deals),
        ("--replays", replays),
        ("--ismcts-iterations", ismcts_iterations),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "--ismcts-deals" else 1):
            raise ValueError(f"{name} must be a positive int, got {shown(value)}")
    if deals < 2 or ismcts_deals == 1:
        raise ValueError(
            f"--deals and --ismcts-deals must be at least 2 (variances need two deals; "
            f"--ismcts-deals 0 skips ISMCTS), got {deals} and {ismcts_deals}"
        )
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown or not configs:
        raise ValueError(f"--configs must be among {list(CONFIGS)}, got {shown(configs)}")
    if filler not in ("random", "heuristic", "ismcts"):
        raise ValueError(f"--filler must be one of ['random', 'heuristic', 'ismcts'], got {shown(filler)}")
    if pairs is not None:
        if not pairs:
            raise ValueError("--pairs needs at least one STRONG,WEAK pair")
        for pair in pairs:
            if len(pair) != 2 or pair[0] == pair[1]:
                raise ValueError(f"--pairs are STRONG,WEAK with two different agents, got {shown(','.join(pair))}")
            for name in pair:
                split_epsilon(name)  # a malformed NAME~EPS fails here, before anything runs


def table_specs(game, table: list[str], ismcts_iterations: int) -> list[AgentSpec]:
    """The specs of one table (strong, weak, fillers), each agent built once here so that a bad one raises
    ValueError; the pair keeps its names as labels, the fillers are labelled ``filler0``, ``filler1``, ..."""
    specs = []
    for name in table:
        options = (("iterations", ismcts_iterations),) if agent_kind(name) == "ismcts" else ()
        make_agent(name, game, seed=0, **dict(options))
        specs.append(AgentSpec(name, name, options))
    return specs[:2] + [AgentSpec(f"filler{k}", s.name, s.options) for k, s in enumerate(specs[2:])]


def plan_study(
    configs: list[str],
    deals: int,
    replays: int,
    *,
    ismcts_deals: int,
    ismcts_iterations: int,
    ismcts_games: tuple[str, ...] = ISMCTS_GAMES,
    filler: str = "heuristic",
    seed: int = 0,
    pairs: list[tuple[str, str]] | None = None,
) -> StudyPlan:
    """Validate the options and lay out one task per (configuration, pair, deal); expensive tasks first.

    ``pairs`` (strong, weak) replaces every game's ``GAME_PAIRS`` for this run.
    """
    check_study(configs, deals, ismcts_deals, replays, ismcts_iterations, filler, pairs)
    notes, expensive, cheap = [], [], []
    for config in configs:
        game_name, game_config = CONFIGS[config]
        game = make_game(game_name, **game_config)
        key_of_game = game_key(game_name, game_config)
        for p, (strong, weak) in enumerate(GAME_PAIRS.get(game_name, PAIRS) if pairs is None else pairs):
            table = [strong, weak] + [filler] * (game.num_players - 2)
            uses_ismcts = "ismcts" in map(agent_kind, table)  # NAME~EPS -> NAME
            if uses_ismcts and (game_name not in ismcts_games or ismcts_deals == 0):
                notes.append(
                    f"{config}: {strong} vs {weak} skipped (ISMCTS not run on {game_name}; see --ismcts-games)"
                )
                continue
            try:
                specs = table_specs(game, table, ismcts_iterations)
            except ValueError as error:
                notes.append(f"{config}: {strong} vs {weak} skipped ({error})")
                continue
            rows = tuple(seatings(game.num_players, "rotations"))
            key = (config, p, strong, weak)
            (expensive if uses_ismcts else cheap).extend(
                Task(key_of_game, tuple(specs), deal, seed, rows, replays, key=key)
                for deal in range(ismcts_deals if uses_ismcts else deals)
            )
    settings = dict(
        configs=configs,
        deals=deals,
        ismcts_deals=ismcts_deals,
        replays=replays,
        ismcts_iterations=ismcts_iterations,
        filler=filler,
        seed=seed,
        ismcts_games=list(ismcts_games),
        pairs=None if pairs is None else [list(pair) for pair in pairs],
    )
    return StudyPlan(expensive + cheap, notes, settings)


def collect(results: list[TaskResult]) -> tuple[list[PairData], list[str]]:
    """Arrange the games by (configuration, pair) into d[deal, replay, seating]; failed deals are noted and left out
    (through the record lines the report is made from, so the two cannot differ)."""
    return luck_records.pair_data(*luck_records.game_lines(results))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), metavar="CONFIG", help=f"from {list(CONFIGS)}")
    parser.add_argument("--deals", type=int, default=60, help="deals per pair without ISMCTS (default 60)")
    parser.add_argument(
        "--ismcts-deals", type=int, default=16, help="deals per pair with ISMCTS (default 16; 0 = none)"
    )
    parser.add_argument(
        "--replays", type=int, default=2, help="plays of each deal and seating, fresh agent seeds (default 2)"
    )
    parser.add_argument("--ismcts-iterations", type=int, default=30, help="ISMCTS iterations per move (default 30)")
    parser.add_argument(
        "--ismcts-games",
        nargs="*",
        default=list(ISMCTS_GAMES),
        metavar="GAME",
        help=f"games whose ISMCTS pairs are played (default {' '.join(ISMCTS_GAMES)})",
    )
    parser.add_argument(
        "--pairs",
        nargs="+",
        metavar="STRONG,WEAK",
        help="the pairs to play in every configuration of this run, strong first; NAME~EPS is "
        "NAME with a random move with probability EPS "
        "(default: each game's pairs, see GAME_PAIRS)",
    )
    parser.add_argument(
        "--records",
        type=Path,
        help="folder of the study's records: this run's is added, the reports are made from all of them "
        "(default a new folder runs/bench/luck-TIME)",
    )
    parser.add_argument("--filler", default="heuristic", help="agent in the seats beyond the pair (default heuristic)")
    parser.add_argument("--seed", type=int, default=0, help="fixes every deal and agent seed (default 0)")
    pool.add_arguments(parser)
    parser.add_argument("--out", type=Path, help="folder for luck.md, duplicate.md and luck.png (default --records)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        backend = pool.from_args(args)
        pairs = None if args.pairs is None else [tuple(p.split(",")) for p in args.pairs]
        plan = plan_study(
            args.configs,
            args.deals,
            args.replays,
            ismcts_deals=args.ismcts_deals,
            ismcts_iterations=args.ismcts_iterations,
            ismcts_games=tuple(args.ismcts_games),
            filler=args.filler,
            seed=args.seed,
            pairs=pairs,
        )
    except ValueError as error:
        parser.error(str(error))
    for note in plan.notes:
        print(note, file=sys.stderr)
    games = sum(len(t.seatings) * t.replays for t in plan.tasks)
    run = luck_records.luck_run(plan, [*PROG.split(), *argv])
    start = time.perf_counter()
    try:
        with backend:
            print(f"{len(plan.tasks)} deals, {games} games on the {backend.describe()}", file=sys.stderr)
            results = batch_matches.run_tasks(plan.tasks, progress=not args.no_progress, desc="luck", backend=backend)
            ran_on = backend.describe()
    except ValueError as error:  # the cluster could not be joined or cannot run this project
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    record = luck_records.record_of(results, plan, run, elapsed, ran_on)
    folder = args.records or records.run_file("luck", "")
    path = records.write(record, folder / luck_records.record_name(record))
    out = args.out or folder
    from research.luck import report as luck_report  # not at the top: the package imports this module, and
    # ``python -m research.luck.report`` must be what first imports the report

    luck_report.write(sorted(folder.glob("*.jsonl*")), out)
    print(f"wrote {path}, and {out}/luck.md, duplicate.md and luck.png; {elapsed:.0f} s", file=sys.stderr)
    return 0
