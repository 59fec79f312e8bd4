"""Pages that quote measurements quote generated reports: every number of ``docs/research.md`` is found in
a report it links (a results file made from committed records by the command it names)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.number_tokens import numbers

ROOT = Path(__file__).resolve().parent.parent
#: Pages whose every number is a quoted measurement, a sample size or a setting of the reports they link.
TRACED = ["docs/research.md"]
LINK = re.compile(r"\]\(([^)#]+\.md)\)")


def linked_reports(page: Path) -> list[Path]:
    """The markdown files ``page`` links, each a generated report under ``benchmarks/results/``."""
    paths = [(page.parent / link).resolve() for link in LINK.findall(page.read_text(encoding="utf-8"))]
    return sorted(set(paths))


def quoted(text: str) -> str:
    """The page without what is no measurement: code, link targets, and headings' section numbers."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def test_every_number_of_a_traced_page_is_in_a_report_it_links():
    for name in TRACED:
        page = ROOT / name
        reports = linked_reports(page)
        assert reports and all(p.is_relative_to(ROOT / "benchmarks" / "results") for p in reports), name
        found = set().union(*(numbers(p.read_text(encoding="utf-8")) for p in reports))
        missing = sorted(numbers(quoted(page.read_text(encoding="utf-8"))) - found)
        assert not missing, f"{name}: numbers found in none of its reports {[p.name for p in reports]}: {missing}"


def test_the_check_finds_a_number_that_no_report_holds(tmp_path):
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    (results / "r.md").write_text("| pair | d |\n|---|---|\n| a > b | +0.72 [0.66, 0.79] |\n")
    page = tmp_path / "docs" / "p.md"
    page.parent.mkdir()
    page.write_text("From [r](../benchmarks/results/r.md): d is +0.72 [0.66, 0.79], and `--deals 40`; not 0.73.")
    found = numbers((results / "r.md").read_text())
    assert linked_reports(page) == [results / "r.md"]
    assert numbers(quoted(page.read_text())) - found == {"0.73"}
