"""Rate any agent on the protocol's scale: ``python -m benchmarks.rate AGENT --game G [options]``.

    python -m benchmarks.rate heuristic --game wapi --num-players 2 --quick
    python -m benchmarks.rate examples/my_agent.py:MyAgent --game samurai --quick
    python -m benchmarks.rate mypackage.agents:Clever --game wakanda --option depth=3 --budget 0.5
    python -m benchmarks.rate ppo:runs/x/model.zip --game samurai

AGENT is a built-in name (random, heuristic, ismcts, trained, best), ``ppo:PATH``,
``rllib:PATH``, or a class implementing the agent protocol, ``module:Class`` or
``path/to/file.py:Class`` (built as ``Class(game=..., seed=..., **options)``),
which plays *sealed*: in a process of its own that sees only its player's view
(:mod:`benchmarks.core.sealed`), its code never run in this process. It plays the
reference ladder of ``drawluck-bench v2`` (``docs/benchmark.md``: random, the
heuristic, ISMCTS at two budgets, the shipped model and ``best`` where they
exist) on fresh test deals (from an offset drawn at random, ``--deal-offset``
to replay one), each deal in every rotation of the seats, and prints its
rating (random 0, heuristic 1,000) with a 95% interval clustered by deal
(small-sample corrected), and its win share against each rung. ``--rungs``
plays only the named rungs (the anchors, random and the heuristic, always
play): ``--rungs heuristic --deals 500`` measures an agent against the
heuristic alone on 500 test deals, still on the scale. ``--deal-set tuning``
plays the protocol's tuning deals instead, to choose an agent's settings
before it is rated once on the test deals (a pool never mixes them).

The ladder's own games are played on the same deals (v2 records of the same
agents and deals named by ``--reference`` are reused; v1's never are). Every
game goes into a record (``--record``, by default under ``runs/bench/``); the
printed report is made from that record, and ``python -m benchmarks.report``
makes it again. An agent that fails (any exception, an illegal action, a move
over its ``--budget``, a dead or silent process) loses that game and the rest
of its deal, and the report lists each failure (exit status 1). The first deal
is played alone first: an agent that fails there is stopped at once, unrated.

``--budget`` is in reference seconds: the run first measures this machine
(:mod:`benchmarks.core.calibration`, a second or two) and the agent gets
``budget / factor`` CPU seconds a move here (a class whose ``__init__`` takes
``budget`` is given that figure); the record and the report hold both, and the
calibration. ``--calibration-factor F`` gives the factor instead of measuring it,
to simulate another machine.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import re
import secrets
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents import make_agent, parse_agent_options
from benchmarks.core import arena, calibration, records, report, user_agents
from benchmarks.core import rating as rating_module
from benchmarks.core.matches import AgentFailure, AgentSpec
from benchmarks.core.protocol import (
    ANCHORS,
    DEAL_SETS,
    DEFAULT_BUDGET,
    LADDERS,
    PROTOCOL,
    Ladder,
    check_deals,
    config_label,
    deal_offset,
    reference_tables,
)
from benchmarks.core.sealed.referee import HostProcess, Sealed
from envs.games import GAME_NAMES, add_game_options, game_config, make_game
from parallel import pool

ROOT = Path(__file__).resolve().parent.parent
#: The committed leaderboard records, whose ladder games ``rate`` reuses by default.
LEADERBOARD_RECORDS = ROOT / "benchmarks" / "records" / "leaderboard"


def rated_spec(name: str, options: dict, label: str | None) -> AgentSpec:
    """The rated agent's spec; its default label is ``rated:`` and the agent's short name (never a rung's)."""
    if label is None:
        short = name.rpartition(":")[2] if user_agents.is_user_agent(name) else name
        short = Path(short).stem if name.startswith(("ppo:", "rllib:")) else short
        label = f"rated:{short}"
    return AgentSpec(label, name, tuple(sorted(options.items())))


def check_agent(spec: AgentSpec, game) -> None:
    """Build the agent once, so that a bad name, file or option fails before anything is played: a user's agent
    in a sealed process of its own (its code never runs in the referee's), a built-in one here."""
    options = dict(spec.options)
    if user_agents.is_user_agent(spec.name):
        sealed = Sealed(HostProcess(), spec.label, DEFAULT_BUDGET, [])
        try:
            sealed.start(game.name, json.loads(json.dumps(game.config())), spec.name, options, 0)
            sealed.begin(0, 0, np.random.default_rng(0), [])
        except AgentFailure as error:
            raise ValueError(f"{spec.name} cannot be built: {error.message.split('crashed: ', 1)[-1]}") from None
        finally:
            sealed.host.close()
    else:
        shared = spec.name == "trained" or spec.name.startswith(("ppo:", "rllib:"))  # built without a seed
        make_agent(spec.name, game, **({} if shared else {"seed": 0}), **options)


def agent_entry(spec: AgentSpec) -> dict:
    """An agent as a run header holds it; a user's code also by its SHA-256 (its file, or every Python file
    of its package), so a record says which code played."""
    entry = {"name": spec.name, "options": dict(spec.options)}
    if user_agents.is_user_agent(spec.name):
        entry["sha256"] = user_agents.code_hash(spec.name)
    return entry


def default_record(label: str, game_label: str) -> Path:
    return records.run_file(re.sub(r"[^A-Za-z0-9._-]+", "_", f"rate-{label}-{game_label}"), ".jsonl.gz")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.rate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("agent", metavar="AGENT", help=user_agents.describe_names())
    parser.add_argument("--game", required=True, choices=GAME_NAMES, help="the game")
    parser.add_argument("--option", nargs="+", default=[], metavar="KEY=VALUE", help="the agent's options")
    parser.add_argument("--label", help="the agent's name in the record and report (default rated:NAME)")
    parser.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET,
        help=f"reference seconds a move the agent may think (default {DEFAULT_BUDGET}): CPU seconds of the reference "
        "machine, scaled by this machine's calibration (docs/benchmark.md, Budgets)",
    )
    parser.add_argument(
        "--calibration-factor",
        type=float,
        metavar="F",
        help="this machine's speed relative to the reference machine, instead of measuring it (to simulate "
        f"another machine; verify refuses such a record); from {calibration.FACTOR_RANGE[0]} to "
        f"{calibration.FACTOR_RANGE[1]}",
    )
    parser.add_argument("--quick", action="store_true", help="the quick ladder: fewer deals, cheaper rungs")
    parser.add_argument("--deals", type=int, help="deals per table (default: the ladder's)")
    parser.add_argument(
        "--deal-set",
        choices=list(DEAL_SETS),
        default="test",
        help="test: the deals a result is reported on (default); tuning: the deals to choose settings on",
    )
    parser.add_argument(
        "--deal-offset",
        type=int,
        metavar="N",
        help="the position of the first deal in the set (default: drawn at random in the test set, 0 in the "
        "tuning set; a record names it, so a run can be replayed)",
    )
    parser.add_argument(
        "--rungs",
        nargs="+",
        metavar="LABEL",
        help="play only these rungs of the ladder (random and the heuristic, the scale's anchors, always play; "
        "default every rung)",
    )
    parser.add_argument(
        "--reference",
        nargs="*",
        metavar="RECORD",
        help=f"records whose ladder games to reuse (default the committed {LEADERBOARD_RECORDS.relative_to(ROOT)}/*; "
        "none given: play them all)",
    )
    parser.add_argument("--record", type=Path, help="the record to write (default runs/bench/rate-...jsonl.gz)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    pool.add_arguments(parser)
    add_game_options(parser)
    return parser


@dataclass
class Rating:
    """What one ``rate`` run plays: the checked command line, ready to play."""

    config: dict
    ladder: Ladder
    deals: int
    spec: AgentSpec
    rungs: list
    backend: pool.Backend
    reuse: records.Record | None
    offset: int
    calibration: calibration.Calibration


def prepare(args: argparse.Namespace) -> Rating:
    """Check the command line and build what the run needs; anything wrong raises before a game is played."""
    config = game_config(args.game, args)
    game = make_game(args.game, **config)
    ladder = LADDERS["quick" if args.quick else "full"]
    deals = check_deals(ladder.deals if args.deals is None else args.deals)
    if not (args.budget > 0 and math.isfinite(args.budget)):
        raise ValueError(f"--budget must be a positive number of reference seconds, got {args.budget}")
    given = args.calibration_factor
    factor = None if given is None else calibration.check_factor(given)
    spec = rated_spec(args.agent, parse_agent_options(args.option, "--option"), args.label)
    if spec.label in {rung.label for ladder_ in LADDERS.values() for rung in ladder_.rungs}:
        raise ValueError(f"--label {spec.label!r} is a rung's label; choose another")
    try:
        check_agent(spec, game)
    except ValueError:
        raise
    except Exception as error:  # a user's class whose construction fails: say so, without a traceback
        raise ValueError(f"{args.agent} cannot be built: {type(error).__name__}: {error}") from error
    if args.record is not None and args.record.exists():
        raise ValueError(f"--record {args.record} exists; records are not overwritten")
    offset = deal_offset(args.deal_set, deals, args.deal_offset)
    backend = pool.from_args(args)
    paths = sorted(glob.glob(str(LEADERBOARD_RECORDS / "*.jsonl*"))) if args.reference is None else args.reference
    reuse = records.read(paths).of_protocol(PROTOCOL) if paths else None
    machine = calibration.measure() if factor is None else calibration.Calibration(factor)
    rungs = chosen_rungs(ladder, game, args.rungs)
    return Rating(config, ladder, deals, spec, rungs, backend, reuse, offset, machine)


def chosen_rungs(ladder: Ladder, game, labels: list[str] | None) -> list:
    """The ladder's rungs for ``game`` named by ``--rungs`` (all when None), always with the two anchors: a
    rating against part of the ladder is still on the scale, with a wider interval."""
    rungs = ladder.for_game(game)
    if labels is None:
        return rungs
    known = [rung.label for rung in rungs]
    unknown = [label for label in labels if label not in known]
    if unknown:
        raise ValueError(f"--rungs must be among {known} for this configuration, got {unknown}")
    return [rung for rung in rungs if rung.label in ANCHORS or rung.label in labels]


def play(rating: Rating, args: argparse.Namespace, argv: list[str]) -> tuple[records.Record, dict, bool]:
    """Play the rated agent against every rung and the rungs' reference tables, the first deal alone first:
    the record, this run's header, and whether the agent was stopped after that first deal (it broke the
    protocol there: nothing else is played)."""
    spec, rungs = rating.spec, rating.rungs
    specs = {rung.label: AgentSpec(rung.label, rung.name, rung.options) for rung in rungs}
    tables = [(spec, specs[rung.label]) for rung in rungs]
    tables += [(specs[hero.label], specs[opponent.label]) for hero, opponent in reference_tables(rungs)]
    agents = {s.label: agent_entry(s) for s in [spec, *specs.values()]}
    run = records.new_run(["python", "-m", "benchmarks.rate", *argv], agents, args.game)
    run |= {"deal_offset": rating.offset, "deals": rating.deals}  # the sample, fixed before the first game
    budget = calibration.scaled(args.budget, rating.calibration.factor)
    run["calibration"] = calibration.entry(rating.calibration)
    run |= {"reference_budgets": {spec.label: args.budget}, "budgets": {spec.label: budget}}
    budgets = [(spec.label, budget)]
    sealed = [spec.label] if user_agents.is_user_agent(spec.name) else []
    key = secrets.randbits(63)  # the sealed agent's seeds: secret, never stored, never derived from the deal
    deals = (args.deal_set, rating.deals)
    tasks = arena.plan(args.game, rating.config, tables, *deals, budgets, rating.offset, sealed, key)
    where, deals = config_label(args.game, rating.config), f"{rating.deals} {args.deal_set} deals"
    with rating.backend:
        print(f"{PROTOCOL}: {spec.label} on {where}, {len(tables)} tables x {deals}{calibration.describe(run)}",
              file=sys.stderr)  # fmt: skip
        # the first deal against the first rung here first: an agent that breaks the protocol is stopped at once
        record = arena.play(tasks[:1], run, progress=False)
        if not record.failures:
            rest = arena.play(tasks[1:], run, rating.backend, progress=not args.no_progress, reuse=rating.reuse)
            record.games += rest.games
            record.failures += rest.failures
            record.runs += rest.runs[1:]
            return record, run, False
    return record, run, True


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        rating = prepare(args)
    except (ValueError, OSError, ImportError) as error:
        parser.error(str(error))
    start = time.perf_counter()
    record, run, stopped = play(rating, args, argv)
    label, where = rating.spec.label, config_label(args.game, rating.config)
    path = records.write(record, args.record or default_record(label, where))
    elapsed = time.perf_counter() - start
    if stopped:
        print(f"{label} was stopped: it broke the protocol ({len(record.failures)} game(s)):")
        print("\n".join(report.failure_lines(record.failures)))
        print(f"record: {path}", file=sys.stderr)
        return 1
    print(report.markdown(record, f"{label} on {where} ({PROTOCOL}, {rating.ladder.name} ladder)"))
    ratings = rating_module.anchored_ratings(record.games)
    rated = next(r for r in ratings if r.name == label)
    print(f"{label}: {rated.value:,.0f} [{rated.low:,.0f}, {rated.high:,.0f}] on {where} (random 0, heuristic 1,000)")
    if record.failures:
        print(f"{label} broke the protocol in {len(record.failures)} deal(s): each such game and the rest of its deal "
              "count as lost (listed above)")  # fmt: skip
    played = sum(1 for g in record.games if g["run"] == run["run"])
    print(
        f"{played} games played, {len(record.games) - played} reused, in {elapsed:.0f} s; record: {path}\n"
        f"the report again: python -m benchmarks.report {shlex.quote(str(path))} --out FILE",
        file=sys.stderr,
    )
    return 1 if record.failures else 0


if __name__ == "__main__":
    sys.exit(main())
