"""Speed records: what a speed command measured, kept as a committed file its report is made from.

Why: a speed figure (a ratio of two rates taken in the same run) is a claim like a win rate, and the same
rules hold: it comes from a committed record made from a clean checkout, with the command that made it,
and the report is generated from the record, never edited. A speed record is one JSON file (a run plays no
games, so there is nothing to append): the measuring command, the provenance of the checkout and machine
(:func:`benchmarks.core.provenance.provenance`), the load average before and after, and the command's rows.
``python -m benchmarks.regenerate`` makes every speed report again from its record.

    python -m benchmarks.batch --record benchmarks/records/speed/batch.json      # measure, write the record
    python -m benchmarks.batch --from-record benchmarks/records/speed/batch.json --out benchmarks/results/batch.md
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.core.provenance import provenance

#: The folder of the committed speed records.
FOLDER = Path("benchmarks") / "records" / "speed"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as the reports print them."""
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def add_record_options(parser: argparse.ArgumentParser) -> None:
    """A speed command's ``--record`` (measure and write the record there) and ``--from-record`` (make the report
    from a record, measuring nothing), with ``--allow-dirty`` (report a record from a dirty checkout, never to
    publish)."""
    parser.add_argument("--record", type=Path, help=f"write the measurements there (e.g. {FOLDER}/NAME.json)")
    parser.add_argument("--from-record", type=Path, help="make the report from this record; measure nothing")
    parser.add_argument("--allow-dirty", action="store_true", help="report a record made from a dirty checkout")


class SpeedRun:
    """One measuring run: its provenance and the load are taken when it starts, the load again at :meth:`finish`."""

    def __init__(self, module: str, argv: list[str]):
        self.header = {
            "command": f"python -m {module} {shlex.join(argv)}".strip(),
            "provenance": provenance(),
            "cpus": os.cpu_count(),
            "load_start": load_average(),
        }

    def finish(self, rows: list[dict[str, Any]], **about: Any) -> dict[str, Any]:
        """The record: the header, the load at the end, ``about`` (the run's settings) and ``rows``."""
        return {**self.header, "load_end": load_average(), **about, "rows": rows}


def write(record: dict[str, Any], path: Path) -> None:
    """The record as JSON, its keys in the order measured (a report's columns follow the order of its rows' keys)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n")


def recorded(args: argparse.Namespace, measure: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], Path]:
    """A speed command's record and where it is kept: ``--from-record``'s (measuring nothing), else ``measure()``'s,
    written to ``--record`` where given (the options of :func:`add_record_options`)."""
    if args.from_record is not None:
        return read(args.from_record, args.allow_dirty), args.from_record
    record = measure()
    if args.record is not None:
        write(record, args.record)
    return record, args.record or Path("(not recorded)")


def read(path: Path, allow_dirty: bool = False) -> dict[str, Any]:
    """A speed record; one made from a dirty checkout (or outside git) is refused unless ``allow_dirty``."""
    record = json.loads(Path(path).read_text())
    origin = record["provenance"]
    if (origin["dirty"] or not origin["commit"]) and not allow_dirty:
        raise SystemExit(f"{path} was measured on a dirty checkout (or outside git): not citable (--allow-dirty)")
    return record


def machine_line(record: dict[str, Any]) -> str:
    """Where and how it was measured: the commit, the CPU, the cores and the load before and after."""
    origin = record["provenance"]
    state = "dirty checkout of" if origin["dirty"] else "clean checkout of"
    return (
        f"Measured on a {state} {(origin['commit'] or 'no commit')[:12]}: {origin['cpu']}, {record['cpus']} cores, "
        f"Python {origin['python']}, numpy {origin['numpy']}; load average {record['load_start']} at the start "
        f"and {record['load_end']} at the end."
    )


def report_lines(record: dict[str, Any], source: Path, title: str, about: str, body: list[str]) -> list[str]:
    """A speed report: the title, the measuring command, the record it is made from, the machine, ``about`` and
    the tables."""
    return [
        f"# {title}",
        "",
        f"Command: `{record['command']}`; this page: made from the record `{Path(source).as_posix()}`.",
        "",
        f"{machine_line(record)} {about}",
        "",
        *body,
    ]
