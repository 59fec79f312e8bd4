"""Does a rating at a time budget mean the same on a machine half as fast? The calibration check.

    python -m benchmarks.calibration_check play --deals 12 --budget 0.03 --records FOLDER --out FILE
    python -m benchmarks.calibration_check report RECORD RECORD --out FILE

``play`` rates one time-budgeted agent twice with ``benchmarks.rate`` on the same test deals of Wakanda (against
the anchors and the quick ladder's two ISMCTS rungs, ``RUNGS``): once as it is, on this machine's measured calibration
(``normal``), and once on a simulated machine ``SLOWDOWN`` times slower (``slowed``): every step of its search
costs ``SLOWDOWN`` times its CPU (:mod:`benchmarks.slowed_search`) and the calibration factor is the first
run's divided by ``SLOWDOWN`` (``--calibration-factor``), so its budget in CPU seconds is ``SLOWDOWN`` times
larger. Calibration works if the two ratings agree within their intervals. The agent is a user's agent, so
it plays sealed and learns its scaled budget as every user's agent does. The slowed run reuses the normal
run's games of the rungs among themselves (they are the same games). ``report`` makes the page again
from the two records (``benchmarks.regenerate`` does); ``--out`` has no default.

What it does not show: a real slower machine is slower at everything (the referee, the engine, memory),
not only at the search's steps; the calibration's own spread is measured by ``python -m
benchmarks.calibration --repeats N``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from benchmarks import rate
from benchmarks.core import rating as rating_module
from benchmarks.core import records, report
from benchmarks.core.protocol import check_deals, fresh_offset
from benchmarks.core.records import Record

GAME = "wakanda"
AGENT = "benchmarks.slowed_search:SlowedSearch"
SLOWDOWN = 2
#: The rungs it meets beside random (the searches at 20 and 50 iterations place a search better than the anchors).
RUNGS = ("heuristic", "ismcts-20", "ismcts-50")
RUNS = ("normal", "slowed")


def rate_argv(name: str, path: Path, deals: int, budget: float, offset: int, extra: list[str]) -> list[str]:
    """``benchmarks.rate``'s arguments for one of the two runs."""
    slowdown = SLOWDOWN if name == "slowed" else 1
    return [AGENT, "--game", GAME, "--quick", "--rungs", *RUNGS, "--deals", str(deals), "--budget", str(budget),
            "--deal-offset", str(offset), "--label", f"rated:{name}", "--option", f"slowdown={slowdown}",
            "--no-progress", "--record", str(path), *extra]  # fmt: skip


def play(folder: Path, deals: int, budget: float) -> list[Path]:
    """The two runs into ``folder`` (``normal.jsonl.gz``, ``slowed.jsonl.gz``) on the same fresh test deals."""
    paths = [folder / f"{name}.jsonl.gz" for name in RUNS]
    offset = fresh_offset("test", deals)
    if rate.main(rate_argv("normal", paths[0], deals, budget, offset, ["--reference"])):
        raise RuntimeError(f"the normal run broke the protocol (its record: {paths[0]})")
    factor = records.read([paths[0]]).runs[0]["calibration"]["factor"] / SLOWDOWN
    extra = ["--calibration-factor", repr(factor), "--reference", str(paths[0])]
    if rate.main(rate_argv("slowed", paths[1], deals, budget, offset, extra)):
        raise RuntimeError(f"the slowed run broke the protocol (its record: {paths[1]})")
    return paths


def summary(record: Record, name: str) -> dict:
    """One run's calibration, budgets, CPU a move and rating."""
    label = f"rated:{name}"
    run = next(run for run in record.runs if label in run.get("budgets", {}))
    _, mean_ms, _ = report.cpu_per_move(record.games)[label]
    rated = rating_module.anchored_ratings(record.games)
    value = next(r for r in rated if r.name == label)
    return {"run": run, "cpu": mean_ms / 1000, "rating": value}


def markdown(paths: list[Path]) -> str:
    """The page: each run's machine, budgets and rating, and whether the ratings agree."""
    rows = [summary(records.read([path]), name) for path, name in zip(paths, RUNS)]
    normal, slowed = (row["rating"] for row in rows)
    agree = normal.low <= slowed.value <= normal.high and slowed.low <= normal.value <= slowed.high
    deals = len({g["deal"] for g in records.read([paths[0]]).games})
    budget = rows[0]["run"]["reference_budgets"]["rated:normal"]
    lines = [
        "# Budgets across machines: the calibration check",
        "",
        f"Command: `python -m benchmarks.calibration_check play --deals {deals} --budget {budget:g} --records FOLDER "
        f"--out FILE` (the records: `{report.shown_path(paths[0].parent)}`); its two runs:",
        "",
        *(
            f"- {name}: `{row['run']['command']}`{report.provenance_note(row['run']['provenance'])}"
            for name, row in zip(RUNS, rows)
        ),  # fmt: skip
        "",
        f"One time-budgeted search (`{AGENT}`, plain ISMCTS on 0.8 of its budget a move) rated twice on the "
        f"same {deals} test deals of {GAME}, against random, {', '.join(RUNGS)}: on this machine, and on a "
        f"simulated machine {SLOWDOWN} times slower (each step of the search costs {SLOWDOWN} times its CPU, and "
        f"the calibration factor is the first run's divided by {SLOWDOWN}). Its budget is in reference seconds; "
        "the CPU seconds a move it gets are that over the factor (`docs/benchmark.md`, Budgets).",
        "",
        "| run | calibration factor | reference budget (s a move) | CPU budget (s a move) | CPU a move (mean, s) "
        "| rating [95% interval] |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in zip(RUNS, rows):
        run, rated = row["run"], row["rating"]
        label, found = f"rated:{name}", run["calibration"]
        lines.append(
            f"| {name} | {found['factor']:.3f} ({found['source']}) | {run['reference_budgets'][label]:g} | "
            f"{run['budgets'][label]:g} | {row['cpu']:.4f} | {rated.value:,.0f} [{rated.low:,.0f}, {rated.high:,.0f}] |"
        )
    verdict = "agree: each lies within the other's interval" if agree else "do NOT agree within their intervals"
    lines += ["", f"**The two ratings differ by {abs(normal.value - slowed.value):,.0f}; they {verdict}.**", ""]
    lines.append(
        "The CPU a move doubles with the budget, as it should. What this does not show: that the check would "
        "catch a machine left uncalibrated (the same slowed search at the normal budget makes about half the "
        "simulations a move, a difference these intervals, from few deals, may not resolve), or anything of a "
        "real slower machine beyond the search's own steps (the referee, the engine's memory, the sealed "
        "process's start)."
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.calibration_check", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True)
    played = sub.add_parser("play", help="play the two runs into --records, then write --out")
    played.add_argument("--deals", type=int, default=12, help="test deals a table (default 12)")
    played.add_argument("--budget", type=float, default=0.03, help="reference seconds a move (default 0.03)")
    played.add_argument("--records", type=Path, required=True, help="the folder of the two records (new)")
    remade = sub.add_parser("report", help="the page again from the two records (normal, then slowed)")
    remade.add_argument("records", nargs=2, type=Path, metavar="RECORD")
    for each in (played, remade):
        each.add_argument("--out", type=Path, required=True, help="the page to write")
    args = parser.parse_args(argv)
    if args.command == "play":
        try:
            check_deals(args.deals)
            if not 0 < args.budget <= 10:
                raise ValueError(f"--budget must be from 0 to 10 reference seconds, got {args.budget}")
            if any((args.records / f"{name}.jsonl.gz").exists() for name in RUNS):
                raise ValueError(f"--records {args.records} already holds the records; choose another folder")
        except ValueError as error:
            parser.error(str(error))
        paths = play(args.records, args.deals, args.budget)
    else:
        paths = list(args.records)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(paths))
    print(f"wrote {args.out}; the page again: python -m benchmarks.calibration_check report "
          f"{' '.join(shlex.quote(str(p)) for p in paths)} --out FILE", file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
