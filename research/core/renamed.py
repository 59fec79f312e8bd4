"""A command a record keeps as typed, under the names its module and files have had since issue 66.

Until issue 66 the studies lived in ``benchmarks/``: their commands were ``python -m benchmarks.NAME`` (the
library ``benchmarks.research``), their records, reports and pre-registrations were under ``benchmarks/records``,
``benchmarks/results`` and ``benchmarks/preregistered``, and the web server's load benchmark was
``benchmarks.web_load``. A record keeps its command exactly as it was typed and is never changed, so a report
shows each recorded command through :func:`renamed`: the same command under today's names, the one that runs.
The pre-registrations (``research/preregistered/``) are left as they were committed, old names included.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.core.records import ROOT, Record

#: The studies' commands that were ``benchmarks.NAME`` and are ``research.NAME``.
COMMANDS = (
    "relative_skill|skill_curve|rating_fit|luck|ceiling|claims|levels|strength|replay_check|decision_gains"
    "|imitation_networks|training_strength"
)
#: The record folders and the reports (by the start of their names) that moved from benchmarks/ to research/.
RECORDS = "ceiling|claims|levels|luck_strong|luck|relative_skill|skill_curve"
REPORTS = (
    r"ceiling_|claims\.md|levels\.|luck|duplicate\.md|relative_skill|skill_curve|rating_fit|replay_check"
    "|decision_gains|imitation_networks"
)
#: (old, new) as regular expressions over a command line, applied in order.
RENAMES = (
    (r"\bbenchmarks\.research\b", "research.core"),
    (rf"\bbenchmarks\.({COMMANDS})\b", r"research.\1"),
    (rf"\bbenchmarks/records/({RECORDS})\b", r"research/records/\1"),
    (rf"\bbenchmarks/results/({REPORTS})", r"research/results/\1"),
    (r"\bbenchmarks/preregistered\b", "research/preregistered"),
    (r"\bbenchmarks\.web_(load|hostile)\b", r"web.\1"),
)


def renamed(command: str) -> str:
    """``command`` (as a record keeps it) with each module and file that moved named as it is now."""
    for old, new in RENAMES:
        command = re.sub(old, new, command)
    return command


def with_renamed_commands(record: Record) -> Record:
    """``record`` with each run's command :func:`renamed` (new run dicts; the record's lines are not touched)."""
    runs = [{**run, "command": renamed(run["command"])} for run in record.runs]
    return Record(runs, record.games, record.failures)


def former_path(path: Path) -> Path:
    """Where a study's record now under ``research/records`` was before issue 66 (``benchmarks/records``): a run
    that appended to it then names that path in its provenance (:func:`benchmarks.core.report.refuse_dirty`)."""
    resolved = Path(path).resolve()
    if not resolved.is_relative_to(ROOT):  # a record outside the checkout never moved
        return resolved
    return ROOT / re.sub(r"^research/records/", "benchmarks/records/", resolved.relative_to(ROOT).as_posix())
