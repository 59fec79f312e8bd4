"""The leaderboard: the reference agents at their budgets, rated on every configuration.

    python -m benchmarks.leaderboard --quick --configs "wapi 4p" wakanda "samurai 2p"
    python -m benchmarks.leaderboard --backend ray --ray-address HEAD:6379
    python -m benchmarks.leaderboard --quick --records benchmarks/records/leaderboard --out docs/leaderboard.md
    python -m benchmarks.leaderboard --configs wakanda --tables "best-1000 vs heuristic" --processes 1
    python -m benchmarks.leaderboard verify RECORD...

For each configuration (``--configs``, by label; default every player count
and variant of every game) the ladder's tables of ``drawluck-bench v2``
(``benchmarks.core.protocol.reference_tables``) are played on fresh test deals (from an
offset drawn at random, named in the record), each
deal in every rotation, into one record per configuration in ``--records``
(default a new folder under ``runs/bench/``; an existing record is never
replaced). ``--tables`` plays only the named tables of the ladder, into a record named by them: a
configuration whose ladder takes longer than one sitting is played a few tables at a time, each part
kept as it ends, and the page pools the parts as it pools any records. The page is then made from
every record in that folder, exactly as ``python -m benchmarks.report --leaderboard`` makes it, and
written to
``--out`` (default ``leaderboard.md`` in the records folder: the committed
``docs/leaderboard.md`` is written only when ``--out`` names it). Records from a checkout with uncommitted
changes are refused (a published figure names its commit); ``--allow-dirty`` plays and shows them, marked.

``verify RECORD...`` checks records submitted for the leaderboard (:mod:`benchmarks.core.verify`: schema,
provenance, hashes, budgets, and a replay of every game from its stored moves); exit status 1 listing
every problem.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from benchmarks.core import arena, calibration, provenance, records, report, verify
from benchmarks.core.protocol import (
    LADDERS,
    PROTOCOL,
    check_deals,
    config_label,
    configurations,
    deal_offset,
    parse_config_label,
)
from parallel import pool


def record_name(game: str, config: dict, ladder: str, tables: list[str] | None = None) -> str:
    """``wakanda_full.jsonl.gz`` for the whole ladder; a part (``--tables``) adds its tables' labels."""
    name = "_".join([config_label(game, config), ladder, *(tables or [])])
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name) + ".jsonl.gz"


def chosen_tables(game: str, config: dict, ladder_name: str, labels: list[str] | None) -> list:
    """The tables ``--tables`` names (default all); ValueError naming the ladder's tables for any other label."""
    tables = arena.ladder_tables(game, config, ladder_name)
    unknown = [label for label in labels or [] if label not in tables]
    if unknown:
        raise ValueError(f"--tables {unknown} are not tables of the {ladder_name} ladder on "
                         f"{config_label(game, config)}: choose from {list(tables)}")  # fmt: skip
    return [tables[label] for label in labels] if labels else list(tables.values())


def play_configuration(game: str, config: dict, tables: list, deals: int, run: dict, backend, progress: bool):
    """``tables`` on one configuration, on ``deals`` test deals from the run's ``deal_offset``, as a record of
    ``run``."""
    tasks = arena.plan(game, config, tables, "test", deals, first=run["deal_offset"])
    return arena.play(tasks, run, backend, progress)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.leaderboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="the quick ladder: fewer deals, cheaper rungs")
    parser.add_argument("--configs", nargs="+", metavar="LABEL", help="configurations by label (default all)")
    parser.add_argument(
        "--tables", nargs="+", metavar="TABLE", help="only these tables of the ladder ('HERO vs OPPONENT'; default all)"
    )
    parser.add_argument("--deals", type=int, help="test deals per table (default: the ladder's)")
    parser.add_argument(
        "--deal-offset", type=int, metavar="N", help="the first test deal (default: drawn at random; in the record)"
    )
    parser.add_argument("--records", type=Path, help="folder of the records (default runs/bench/leaderboard-TIME)")
    parser.add_argument("--out", type=Path, help="the page to write (default leaderboard.md in --records)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--allow-dirty", action="store_true", help="make the page even from runs of a dirty checkout (marked so)"
    )
    pool.add_arguments(parser)
    return parser


def verify_main(argv: list[str]) -> int:
    """``verify RECORD...``: every problem of the records, or one line saying they are accepted."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.leaderboard verify", description=verify.__doc__)
    parser.add_argument("records", nargs="+", metavar="RECORD", help="record files (.jsonl or .jsonl.gz)")
    parser.add_argument(
        "--replay-agents", type=int, default=3, metavar="N",
        help="games drawn at random whose reference agents are played again (default 3; each costs its game's time)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        record = records.read(args.records)
    except (OSError, ValueError) as error:
        print(f"refused: {error}")
        return 1
    if args.replay_agents < 0:
        parser.error(f"--replay-agents must be 0 or more, got {args.replay_agents}")
    problems = verify.verify(record, args.replay_agents)
    for problem in problems[:50]:
        print(f"- {problem}")
    if problems:
        print(f"refused: {len(problems)} problem(s) in {len(record.games)} games")
        return 1
    print(f"accepted: {len(record.runs)} run(s), {len(record.games)} games replayed, {len(record.failures)} failures")
    return 0


def check_one_protocol(folder: Path) -> None:
    """ValueError when ``folder`` holds records of another protocol: the page is made from every record in the
    folder, and runs of two protocols never pool, so this is said before any game is played, not after."""
    found = {run["protocol"] for path in folder.glob("*.jsonl*") for run in records.read([path]).runs}
    others = sorted(found - {PROTOCOL})
    if others:
        raise ValueError(f"--records {folder} holds records of {', '.join(others)}, which never pool with {PROTOCOL}'s "
                         "records on one page: choose a folder of its own")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["verify"]:
        return verify_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    ladder = "quick" if args.quick else "full"
    try:
        chosen = [parse_config_label(text) for text in args.configs] if args.configs else configurations()
        deals = check_deals(LADDERS[ladder].deals if args.deals is None else args.deals)
        offset = deal_offset("test", deals, args.deal_offset)
        folder = args.records or records.run_file("leaderboard", "")
        tables = [chosen_tables(game, config, ladder, args.tables) for game, config in chosen]
        paths = [folder / record_name(game, config, ladder, args.tables) for game, config in chosen]
        existing = [str(p) for p in paths if p.exists()]
        if existing:
            raise ValueError(f"records exist and are never replaced: {existing}; choose another --records")
        check_one_protocol(folder)
        if not args.allow_dirty and provenance.checkout()["dirty"]:
            raise ValueError("the checkout has uncommitted changes: commit them first (a published record names a "
                             "commit), or pass --allow-dirty for records that no page will accept")  # fmt: skip
        backend = pool.from_args(args)
    except ValueError as error:
        parser.error(str(error))
    start = time.perf_counter()
    agents = {rung.label: {"name": rung.name, "options": dict(rung.options)} for rung in LADDERS[ladder].rungs}
    run = records.new_run(["python", "-m", "benchmarks.leaderboard", *argv], agents)  # one run, every record
    run |= {"deal_offset": offset, "deals": deals}  # the sample, fixed before the first game
    run["calibration"] = calibration.entry(calibration.measure())  # the machine, though the rungs count iterations
    with backend:
        for (game, config), played, path in zip(chosen, tables, paths):
            print(f"{config_label(game, config)}: {ladder} ladder, {len(played)} tables, {deals} test deals",
                  file=sys.stderr)  # fmt: skip
            record = play_configuration(game, config, played, deals, run, backend, not args.no_progress)
            records.write(record, path)
    every = sorted(folder.glob("*.jsonl*"))
    out = args.out or folder / "leaderboard.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    pooled = records.read(every)
    if not args.allow_dirty:
        report.refuse_dirty(pooled)  # the records stay: play again from a clean checkout to publish
    out.write_text(report.markdown(pooled, "Leaderboard", report.leaderboard_intro(pooled, out.name), every))
    print(f"played {len(chosen)} configuration(s) in {time.perf_counter() - start:.0f} s; wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
