"""The skill ceiling as a fitted curve: ``best``'s rating against log(budget), up to a clairvoyant reference.

    python -m research.skill_curve play --config wakanda --deals 50 --first 700000 --budgets 25 50 100 200 400 800
    python -m research.skill_curve report research/records/skill_curve/* --out research/results/skill_curve.md
    python -m research.skill_curve cost --config wakanda --deal 699999 --budgets 50 200   # CPU a game, extrapolated

Each budget's ``best`` (iterations a move) plays two tables: against the heuristic field, and against ``best`` at
the budget below it (adjacent rungs, as in Jones's scaling study), so that a rating keeps its resolution where
``best`` already beats the heuristic nearly always. The reference (the clairvoyant or the seer at the top budget,
:mod:`research.core.clairvoyant`, research only) plays ``best`` at the top budget, and the anchors (the heuristic
against random) set the scale. A table is a hero in each seat in turn against copies of one opponent, every deal
in every rotation, the agents' seeds derived as in the relative-skill study (common random numbers), played and
recorded by :func:`research.relative_skill.play_record` (resumable a deal at a time). The report
(:mod:`research.skill_curve.report`) fits the curve and tests whether it bends.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from benchmarks.core import records
from benchmarks.core.protocol import check_deals, check_offset, deal_seeds
from cli import HelpFormatter
from envs.core.engine import is_int, shown
from research.core.clairvoyant import LABEL as CLAIRVOYANT
from research.core.clairvoyant import SEER
from research.luck.stats import CONFIGS
from research.relative_skill.run import add_play, agent_entries, play_record, play_tables

#: The command, as its help and its records name it.
PROG = "python -m research.skill_curve"

#: The folder of the study's records, one file per configuration.
RECORDS = records.ROOT / "research" / "records" / "skill_curve"
#: The upper references a study may name (built by :func:`research.relative_skill.build_hero`, never make_agent).
REFERENCES = (CLAIRVOYANT, SEER)
#: The budgets the pre-registration costs by default (iterations a move), and its deals a point.
STUDY_BUDGETS, STUDY_DEALS = [25, 50, 100, 200, 400, 800], 50


def check_budgets(budgets: object) -> list[int]:
    """At least three strictly increasing positive ints (a quadratic needs three points); a ValueError naming
    ``--budgets`` otherwise."""
    ok = isinstance(budgets, list) and len(budgets) >= 3 and all(is_int(b) and b >= 1 for b in budgets)
    if not ok or any(low >= high for low, high in zip(budgets, budgets[1:])):
        raise ValueError(f"--budgets must be at least 3 strictly increasing positive ints, got {shown(budgets)}")
    return budgets


def tables(budgets: list[int], references: list[str]) -> list[tuple[str, str]]:
    """The study's tables ``(hero, opponent)``: the anchors, each ``best-B`` against the heuristic and against the
    budget below it, and each reference at the top budget against ``best`` there."""
    best = [f"best-{b}" for b in budgets]
    return [
        ("heuristic", "random"),
        *((label, "heuristic") for label in best),
        *zip(best[1:], best[:-1]),
        *((f"{reference}-{budgets[-1]}", best[-1]) for reference in references),
    ]


def play(args: argparse.Namespace, argv: list[str]) -> int:
    """Play every table of ``--deals`` deals from ``--first`` on into the record (resuming one that holds some)."""
    chosen = tables(args.budgets, args.reference)
    labels = list(dict.fromkeys(label for table in chosen for label in table))
    game_name = CONFIGS[args.config][0]
    path = args.record or RECORDS / f"{args.config}.jsonl"
    command = [*PROG.split(), *argv]
    header = records.new_run(command, agent_entries(labels), game_name, own=path)
    header |= {"study": "skill_curve", "config": args.config, "iterations": args.budgets}
    header |= {"references": args.reference, "tables": [list(t) for t in chosen], "replays": 1}
    play_record(path, args.config, range(args.first, args.first + args.deals), chosen, header)
    return 0


def study_hours(cpu: dict[str, float], low: int, high: int, seats: int) -> dict[str, float]:
    """CPU hours of the study at ``STUDY_BUDGETS`` and ``STUDY_DEALS`` from ``cpu`` (seconds a game at a table of
    a hero against the heuristic field: ``best-LOW``, ``best-HIGH``, each reference at both, and the anchors'
    ``heuristic``), linear in the iterations: ``best``'s tables and each reference's table apart. A seat's cost is
    its table's game less the field's (the anchors'); a table costs its hero's seat and ``seats - 1`` opponent
    seats; every table is played in every rotation."""
    field = cpu["heuristic"]

    def seat(kind: str, budget: int) -> float:
        at_low, at_high = cpu[f"{kind}-{low}"], cpu[f"{kind}-{high}"]
        return max(0.0, at_low + (at_high - at_low) * (budget - low) / (high - low) - field)

    total = field
    for k, budget in enumerate(STUDY_BUDGETS):
        total += field + seat("best", budget)
        if k:
            total += seat("best", budget) + (seats - 1) * seat("best", STUDY_BUDGETS[k - 1])
    top, games = STUDY_BUDGETS[-1], seats * STUDY_DEALS / 3600
    references = {ref: (seat(ref, top) + (seats - 1) * seat("best", top)) * games for ref in REFERENCES}
    return {"best's tables": total * games} | references


def cost(args: argparse.Namespace) -> int:
    """Time ``best``, the clairvoyant and the seer at two budgets against the heuristic field on one deal, and print
    the CPU seconds a game and the study's CPU hours: best's tables, and each reference's table (JSON)."""
    low, high = args.budgets
    heroes = [f"{kind}-{b}" for kind in ("best", *REFERENCES) for b in (low, high)]
    chosen = [("heuristic", "random"), *((hero, "heuristic") for hero in heroes)]
    seed = deal_seeds("test", 1, args.deal)[0]
    games = play_tables(args.config, args.deal, seed, chosen, 1)
    cpu = {hero: statistics.mean(g["cpu_s"] for g in games if g["hero"] == hero) for hero, _ in chosen}
    seats = len(games[0]["seats"])
    hours = {part: round(h, 2) for part, h in study_hours(cpu, low, high, seats).items()}
    print(json.dumps({"config": args.config, "deal": args.deal, "cpu_s_a_game": cpu, "study_cpu_hours": hours}))
    return 0


def report(args: argparse.Namespace) -> int:
    from research.skill_curve import report as skill_curve_report

    skill_curve_report.write(args.records, args.out, args.allow_dirty)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = add_play(sub, RECORDS)
    run.add_argument("--budgets", type=int, nargs="+", required=True, help="iterations a move of best, increasing")
    run.add_argument("--reference", choices=REFERENCES, nargs="+", default=[CLAIRVOYANT], help="upper references")
    report = sub.add_parser("report", help="write the report from records")
    report.add_argument("records", type=Path, nargs="+", help="the study's records")
    report.add_argument("--out", type=Path, required=True, help="the report (its plots beside it)")
    report.add_argument(
        "--allow-dirty", action="store_true", help="accept runs from a dirty checkout (marked so; never to publish)"
    )
    timing = sub.add_parser("cost", help="CPU a game of each agent at two budgets, and the study's CPU hours")
    timing.add_argument("--config", required=True, choices=list(CONFIGS))
    timing.add_argument("--deal", type=int, required=True, help="a test deal outside the study's")
    timing.add_argument("--budgets", type=int, nargs=2, required=True, help="two budgets, low then high")
    return parser


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit through ``parser.error`` naming the first bad argument of ``play`` or ``cost`` and what it allows."""
    try:
        if args.command == "cost":
            if not 1 <= args.budgets[0] < args.budgets[1]:
                raise ValueError(f"--budgets must be two increasing positive ints, got {args.budgets}")
            check_offset("test", 1, args.deal, "--deal")
            return
        check_deals(args.deals)
        check_budgets(args.budgets)
        check_offset("test", args.deals, args.first, "--first")
    except ValueError as error:
        parser.error(str(error))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "report":
        return report(args)
    check_arguments(parser, args)
    return cost(args) if args.command == "cost" else play(args, argv)
