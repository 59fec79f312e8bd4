"""Every report made from committed records, made again from them: the studies' and the benchmarks', the one
command that remakes them all.

    python -m research.regenerate            # check: write nothing, exit 1 naming each report that differs
    python -m research.regenerate --write    # write every report, then SUMMARY.md and the pages' figures

:data:`REPORTS` is the studies' reports, in the form and with the functions of :mod:`benchmarks.regenerate`, whose
own list is the benchmarks' (it cannot name a study: a package imports only the layers below it); :data:`EVERY`
is both, which this command checks or writes, then SUMMARY.md (``benchmarks.summary``) from the reports.
"""

from __future__ import annotations

import sys

from benchmarks import regenerate
from benchmarks.regenerate import Report, record_names


def _ceiling(config: str) -> Report:
    record = f"research/records/ceiling/{config}.jsonl.gz"
    outputs = (f"research/results/ceiling_{config}.md", f"research/results/ceiling_{config}.png")
    return Report("research.ceiling", ("--from-record", record, "--out", f"{{out}}/ceiling_{config}.md"), outputs)


def _skill_curve() -> tuple[Report, ...]:
    """The skill-curve report and a plot per record, once the study has a record."""
    names = record_names("research/records/skill_curve")
    if not names:
        return ()
    outputs = ("research/results/skill_curve.md", *(f"research/results/skill_curve_{name}.png" for name in names))
    args = ("report", "{records:research/records/skill_curve}", "--out", "{out}/skill_curve.md")
    return (Report("research.skill_curve", args, outputs),)


def _luck(folder: str, results: str) -> Report:
    outputs = tuple(f"{results}/{name}" for name in ("luck.md", "duplicate.md", "luck.png"))
    return Report("research.luck.report", (f"{{records:{folder}}}", "--out", "{out}"), outputs)


REPORTS = (
    Report(
        "research.levels",
        ("report", "--out", "{out}/levels.md", "--ratings", "{out}/levels.json"),
        ("research/results/levels.md", "research/results/levels.json"),
    ),
    Report("research.claims", ("report", "--out", "{out}/claims.md"), ("research/results/claims.md",)),
    Report(
        "research.relative_skill",
        ("report", "--out", "{out}/relative_skill.md"),
        ("research/results/relative_skill.md", "research/results/relative_skill.png"),
    ),
    Report("research.rating_fit.report", ("--out", "{out}/rating_fit.md"), ("research/results/rating_fit.md",)),
    *_skill_curve(),
    *(_ceiling(config) for config in record_names("research/records/ceiling")),
    _luck("research/records/luck", "research/results"),
    _luck("research/records/luck_strong", "research/results/luck_strong"),
)
#: Every report: the benchmarks' and the studies'.
EVERY = (*regenerate.REPORTS, *REPORTS)


def main(argv: list[str] | None = None) -> int:
    return regenerate.main(argv, reports=EVERY, prog="python -m research.regenerate", about=__doc__)


if __name__ == "__main__":
    sys.exit(main())
