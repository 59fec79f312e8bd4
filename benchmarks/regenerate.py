"""Every benchmark report made from committed records, made again from them: the check that the published figures
are what the records give.

    python -m benchmarks.regenerate            # check: write nothing, exit 1 naming each report that differs
    python -m benchmarks.regenerate --write    # write every report, then SUMMARY.md and the README's figures

Each entry of :data:`REPORTS` is one command of a report module (``benchmarks.report``, ``calibration_check``,
``tournament``, the speed reports) run in this process into a scratch folder, with the committed files it makes.
The check compares the text files (markdown, JSON) byte for byte; plots are made again but not compared, since a
plot's bytes change with the plotting library's version. Then ``benchmarks.summary`` checks (or, with ``--write``,
fills) SUMMARY.md and the README from the reports. The studies' reports are :mod:`research`'s (a package imports
only the layers below it): ``python -m research.regenerate`` makes those and these, every report, with this
module's functions.

Speed reports with a committed record (``benchmarks/records/speed/NAME.json``, :mod:`benchmarks.core.speed_records`:
``batch.md``, ``search_speed.md``, ``ismcts_speed.md``) are made again from it like the others. The other
measurements that play no games (throughput, server load: ``throughput.md``, ``training_speed.md``, ...) have no
records yet: each of those reports is the output of the command it names, run again to measure again.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks import summary
from benchmarks.core.records import ROOT

#: The plots' suffixes: made again, not compared (their bytes depend on the plotting library's version).
PLOTS = (".png",)


@dataclass(frozen=True)
class Report:
    """One report command: the module whose ``main`` makes it, its arguments (``{out}`` is the scratch folder,
    ``{records:FOLDER}`` every record there, sorted) and the committed files it makes, by their names there."""

    module: str
    args: tuple[str, ...]
    outputs: tuple[str, ...]

    def argv(self, out: Path) -> list[str]:
        """The arguments with the scratch folder and the record lists filled in (paths relative to the root, as
        the committed reports name them)."""
        argv = []
        for arg in self.args:
            folder = arg.removeprefix("{records:")
            if folder != arg:
                argv += sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / folder.rstrip("}")).glob("*.jsonl*"))
            else:
                argv.append(arg.format(out=out))
        return argv


def record_names(folder: str) -> list[str]:
    """The names of the records in ``folder`` (one report each), sorted."""
    return sorted(p.name.split(".")[0] for p in (ROOT / folder).glob("*.jsonl*"))


def _tournament(name: str) -> Report:
    record, stem = f"benchmarks/records/tournament/{name}.jsonl.gz", f"tournament_{name}"
    outputs = (f"benchmarks/results/{stem}.md", f"benchmarks/results/{stem}.png")
    return Report("benchmarks.tournament", ("--from-record", record, "--out", "{out}", "--name", stem), outputs)


def _speed() -> tuple[Report, ...]:
    """Each speed report made from its committed record: ``records/speed/NAME.json`` by ``benchmarks.NAME``."""
    names = sorted(p.stem for p in (ROOT / "benchmarks" / "records" / "speed").glob("*.json"))
    return tuple(
        Report(
            f"benchmarks.{name}",
            ("--from-record", f"benchmarks/records/speed/{name}.json", "--out", f"{{out}}/{name}.md"),
            (f"benchmarks/results/{name}.md",),
        )
        for name in names
    )


MODELS = tuple(f"benchmarks/records/models/{m}.jsonl.gz" for m in ("wakanda", "samurai_2p", "wapi_4p"))  # in order
#: ``python -m benchmarks.example_run``'s record: examples/ppo_batch.py's default run against the heuristic.
EXAMPLE_RUN = "benchmarks/records/example/wakanda.jsonl.gz"
#: ``python -m benchmarks.make_run``'s record: make run's default run against the heuristic.
MAKE_RUN = "benchmarks/records/make_run/wakanda.jsonl.gz"
REPORTS = (
    Report(
        "benchmarks.report",
        (*MODELS, "--title", "The shipped models on the test deals", "--out", "{out}/models.md"),
        ("benchmarks/results/models.md",),
    ),
    Report(
        "benchmarks.report",
        ("--leaderboard", "{records:benchmarks/records/leaderboard}", "--out", "{out}/leaderboard.md"),
        ("docs/leaderboard.md",),
    ),
    Report(
        "benchmarks.report",
        ("--leaderboard", "{records:benchmarks/records/leaderboard_v2}", "--out", "{out}/leaderboard_v2.md"),
        ("docs/leaderboard_v2.md",),
    ),
    Report(
        "benchmarks.calibration_check",
        (
            "report",
            *(f"benchmarks/records/calibration/{run}.jsonl.gz" for run in ("normal", "slowed")),
            "--out",
            "{out}/calibration.md",
        ),
        ("benchmarks/results/calibration.md",),
    ),
    Report(
        "benchmarks.report",
        (
            EXAMPLE_RUN,
            "--title",
            "examples/ppo_batch.py, its default run (benchmarks.example_run, seed 1) on the test deals",
            "--out",
            "{out}/example_run.md",
        ),
        ("benchmarks/results/example_run.md",),
    ),
    Report(
        "benchmarks.report",
        (
            "{records:benchmarks/records/networks}",
            "--title",
            "The distilled networks alone against the heuristic(s) on fresh test deals",
            "--out",
            "{out}/networks.md",
        ),
        ("benchmarks/results/networks.md",),
    ),
    Report(
        "benchmarks.report",
        (
            MAKE_RUN,
            "--title",
            "The default run of make run (benchmarks.make_run, seed 1) on the test deals",
            "--out",
            "{out}/make_run.md",
        ),
        ("benchmarks/results/make_run.md",),
    ),  # fmt: skip
    *(_tournament(name) for name in record_names("benchmarks/records/tournament")),
    *_speed(),
)


def make(report: Report, out: Path) -> None:
    """Run ``report``'s command into ``out`` (from the root, quietly); RuntimeError naming it when it fails."""
    main = importlib.import_module(report.module).main
    argv = report.argv(out)
    errors = io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(errors):
        try:
            code = main(argv)
        except SystemExit as exit:  # argparse refusing an input: say which report and why, not a bare exit 2
            code = f"{exit.code}: {errors.getvalue().strip().splitlines()[-1:]}"
    if code:
        raise RuntimeError(f"python -m {report.module} {' '.join(argv)} exited {code}")


def stale(report: Report, out: Path) -> list[str]:
    """The committed text files of ``report`` that differ from what its command just made in ``out``."""
    return [
        name
        for name in report.outputs
        if not name.endswith(PLOTS) and (out / Path(name).name).read_bytes() != (ROOT / name).read_bytes()
    ]


def regenerate(reports=REPORTS, write: bool = False) -> list[str]:
    """Make every report again; with ``write``, over the committed files. The committed files that differ."""
    differ = []
    with tempfile.TemporaryDirectory() as scratch:
        for i, report in enumerate(reports):
            out = Path(scratch) / str(i)
            out.mkdir()
            make(report, out)
            differ += stale(report, out)
            if write:
                for name in report.outputs:
                    shutil.copyfile(out / Path(name).name, ROOT / name)
    return differ


def main(argv: list[str] | None = None, reports=REPORTS, prog: str = "python -m benchmarks.regenerate", about=__doc__):
    """The command; ``reports``, ``prog`` and ``about``: another list's (``python -m research.regenerate``: all)."""
    parser = argparse.ArgumentParser(prog=prog, description=about.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the reports, SUMMARY.md and the README figures")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    differ = regenerate(reports, write=args.write)
    seconds = time.perf_counter() - start
    if args.write:
        summary.main(["--readme"])
        print(f"made {len(reports)} reports again from their records in {seconds:.0f} s; {len(differ)} changed")
        return 0
    if differ:
        print(f"not what the records give: {', '.join(differ)} ({prog} --write)")
        return 1
    print(f"every report is what its records give ({len(reports)} reports, {seconds:.0f} s)")
    return summary.main(["--check"])


if __name__ == "__main__":
    sys.exit(main())
