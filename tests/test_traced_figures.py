"""Pages that quote measurements quote generated reports.

Every number of ``docs/research.md`` is found in a report it links (a results file made from committed
records by the command it names). On every other hand-written page of ``docs/`` and on
``agents/README.md``, every number written as a measurement (a decimal, a percentage, a ratio) is found in
a generated source the page names (a report under ``benchmarks/results/``, an experiment note, the
leaderboard), unless it is one of the page's settings or versions listed below. The README is checked by
``tests/test_summary.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.number_tokens import numbers

ROOT = Path(__file__).resolve().parent.parent
#: Pages whose every number is a quoted measurement, a sample size or a setting of the reports they link.
TRACED = ["docs/research.md"]
#: Pages made by a command from records (tests/test_regenerate.py checks them), not written by hand.
GENERATED = ["docs/leaderboard.md"]
#: What a page writes like a measurement but is a setting, a target or a version (by page; every page: the
#: intervals' level).
NOT_FIGURES = {
    "*": {"95%"},
    "docs/benchmark.md": {"1.0", "1.5 ×", "2.5%", "1.96"},  # the budget slack, a share, the normal quantile
    "docs/integrations.md": {"1.25", "1.26", "1.27", "2.9", "0.14", "2.0", "3.11", "2.58"},  # library versions
    "docs/ray.md": {"2.60", "0.95", "0.2", "0.5"},  # Ray's version, PPO's settings
    "docs/training.md": {"64 ×"},  # n-steps x n-envs
}
LINK = re.compile(r"\]\(([^)#]+\.md)\)")
NAMED = re.compile(r"`((?:benchmarks/results|docs)/[\w./-]+\.md)`")
#: A number written as a measurement: a decimal, or a number with a percent sign or a times sign.
MEASUREMENT = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+(?:\s?(?:%|x\b|×))?|\s?(?:%|x\b|×))(?![.\d])")


def linked_reports(page: Path) -> list[Path]:
    """The markdown files ``page`` links, each a generated report under ``benchmarks/results/``."""
    paths = [(page.parent / link).resolve() for link in LINK.findall(page.read_text(encoding="utf-8"))]
    return sorted(set(paths))


def named_sources(page: Path) -> list[Path]:
    """The generated sources ``page`` links or names by their path: reports, experiment notes, the leaderboard."""
    text = page.read_text(encoding="utf-8")
    paths = {(page.parent / link).resolve() for link in LINK.findall(text)} | {ROOT / p for p in NAMED.findall(text)}
    folders = [ROOT / "benchmarks" / "results", ROOT / "docs" / "experiments"]
    generated = [ROOT / name for name in GENERATED]
    return sorted(p for p in paths if p.exists() and (any(p.is_relative_to(f) for f in folders) or p in generated))


def quoted(text: str) -> str:
    """The page without what is no measurement: code, link targets, and headings' section numbers."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def measurements(text: str) -> set[str]:
    """The numbers of ``text`` written as measurements, as written (``0.83x``, ``12.5%``)."""
    return set(MEASUREMENT.findall(quoted(text)))


def found_in(token: str, found: set[str]) -> bool:
    """Whether the measurement ``token`` is among the number tokens ``found`` (a percentage also as a share)."""
    number = re.sub(r"\s?(?:%|x|×)$", "", token).replace(",", "")
    share = f"{float(number) / 100:.3f}".rstrip("0") if token.endswith("%") else None
    return number in found or (share is not None and any(t.rstrip("0") == share for t in found if "." in t))


def test_every_number_of_a_traced_page_is_in_a_report_it_links():
    for name in TRACED:
        page = ROOT / name
        reports = linked_reports(page)
        assert reports and all(p.is_relative_to(ROOT / "benchmarks" / "results") for p in reports), name
        found = set().union(*(numbers(p.read_text(encoding="utf-8")) for p in reports))
        missing = sorted(numbers(quoted(page.read_text(encoding="utf-8"))) - found)
        assert not missing, f"{name}: numbers found in none of its reports {[p.name for p in reports]}: {missing}"


HAND_WRITTEN = sorted(
    p.relative_to(ROOT).as_posix()
    for p in [*ROOT.glob("docs/*.md"), ROOT / "agents" / "README.md"]
    if p.relative_to(ROOT).as_posix() not in TRACED + GENERATED
)


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_every_measurement_of_a_page_is_in_a_source_it_names(name):
    page = ROOT / name
    sources = named_sources(page)
    found = set().union(set(), *(numbers(p.read_text(encoding="utf-8")) for p in sources))
    allowed = NOT_FIGURES["*"] | NOT_FIGURES.get(name, set())
    missing = sorted(t for t in measurements(page.read_text(encoding="utf-8")) - allowed if not found_in(t, found))
    assert not missing, f"{name}: measurements in none of {[p.name for p in sources]}: {missing}"


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


def test_a_measurement_is_found_as_written_or_as_a_share():
    text = "At 127.0.0.1, 2 workers ran 1.79x as fast (83.5% of 2 cores, 12% idle); 3 tables of 4; 0.4 load."
    assert measurements(text) == {"1.79x", "83.5%", "12%", "0.4"}
    found = numbers("| speed-up | 1.79 | share 0.835 | idle 0.120 |")
    assert [t for t in sorted(measurements(text)) if not found_in(t, found)] == ["0.4"]
