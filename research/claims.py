"""The search claims made before the protocol, measured again on its test deals (issue 38).

    python -m research.claims play --deals 20 --chunk 5 --processes 2
    python -m research.claims report --out research/results/claims.md

Three figures of ``docs/experiments/011-agent-strength-before-the-protocol.md`` pooled games that
cannot be cited as they are: two-player Samurai's guided search against plain ISMCTS pooled the
run that chose ``prior_temperature``; two-player Samurai's ISMCTS against the heuristic played
19 deals twice; Wakanda's guided search against plain ISMCTS mixed runs. :data:`CLAIMS` holds
their tables, every agent at 0.5 CPU s a move as they were. ``play`` plays each table on the
protocol's test deals, each deal in every rotation, refereed against the protocol's margin on
that budget, in records of ``--chunk`` deals under ``--records`` (the committed
``research/records/claims``), every table's first chunk before any table's second, so a run
stopped early still holds every table; a record that exists is skipped. ``report`` writes the
report from the records alone (``benchmarks.core.report``), to ``--out`` only when it is named.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.core import arena, records, report
from benchmarks.core.matches import AgentSpec
from benchmarks.core.protocol import check_deals
from benchmarks.core.records import ROOT
from parallel import pool
from research.core.renamed import with_renamed_commands

RECORDS = ROOT / "research" / "records" / "claims"
TITLE = "The search claims of note 011, on the test deals"
#: CPU seconds a move of every agent at the claims' tables (the budget the claims were made at).
BUDGET = 0.5

_ISMCTS = AgentSpec("ismcts-0.5", "ismcts", (("time_limit", BUDGET),))
_GUIDED = AgentSpec("guided-0.5", "ismcts", (("network", "trained"), ("time_limit", BUDGET)))
#: (game, config, hero, opponent): the tables of the claims (see the module docstring).
CLAIMS = [
    ("samurai", {"num_players": 2}, _GUIDED, _ISMCTS),
    ("samurai", {"num_players": 2}, _ISMCTS, AgentSpec("heuristic", "heuristic")),
    ("wakanda", {}, _GUIDED, _ISMCTS),
]


def play(args: argparse.Namespace, argv: list[str]) -> None:
    """Every claim's missing chunks, round by round."""
    specs = {spec.label: spec for _, _, hero, opponent in CLAIMS for spec in (hero, opponent)}
    agents = {label: {"name": s.name, "options": dict(s.options)} for label, s in specs.items()}
    run = records.new_run(["python", "-m", "research.claims", *argv], agents)
    budgets = [(label, BUDGET) for label, spec in specs.items() if dict(spec.options).get("time_limit")]
    with pool.from_args(args) as backend:
        for chunk in range(-(-args.deals // args.chunk)):
            deals = range(chunk * args.chunk, min(args.deals, (chunk + 1) * args.chunk))
            for game, config, hero, opponent in CLAIMS:
                arena.play_chunk(args.records, chunk, game, config, (hero, opponent), deals, run, backend, budgets)


def write_report(folder: Path, out: Path) -> None:
    paths = sorted(folder.glob("*.jsonl.gz"))
    if not paths:
        raise ValueError(f"no records in {folder}: run `python -m research.claims play` first")
    shown = [report.shown_path(path) for path in paths]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.markdown(with_renamed_commands(records.read(paths)), TITLE, sources=shown))
    print(f"wrote {out} from {len(paths)} records", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m research.claims", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    played = sub.add_parser("play", help="play the missing records, then write the report")
    played.add_argument("--deals", type=int, default=20, help="test deals of each claim (default 20)")
    played.add_argument("--chunk", type=int, default=5, help="deals a record holds (default 5)")
    pool.add_arguments(played)
    for command in (played, sub.add_parser("report", help="write the report from the records")):
        command.add_argument("--records", type=Path, default=RECORDS, help="the records' folder")
        command.add_argument("--out", type=Path, help="the report (default a new runs/bench file)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "play":
            check_deals(args.deals)
            arena.check_chunk(args.chunk)
            play(args, sys.argv[1:] if argv is None else argv)  # the command line its records name
        write_report(args.records, args.out or records.run_file("claims", ".md"))
    except ValueError as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
