"""Pages that quote measurements quote generated reports, with their context.

Every figure of the README, ``agents/README.md`` and ``docs/*.md`` (:data:`benchmarks.summary.PAGES`) is
written as ``<!-- figure: KEY -->VALUE<!-- /figure -->``: KEY names an entry of ``benchmarks/figures.toml``
that locates the figure in a generated report by its table's row label and column (and section), and
VALUE must be what SUMMARY.md, generated from those reports, gives for KEY. So a figure fails the check
when its number changes, when it is swapped with another figure, when its report's row or column label
changes (the entry no longer finds it), and when it has no generated report behind it (a hand-written
note is refused as a source). A number written like a measurement (a decimal, a percentage, a ratio)
outside a marker fails too, unless it is one of the page's settings or versions listed below. A page may
instead quote a whole table under ``<!-- table: SOURCE[#SECTION] labels=N -->``: each row is found in the
report by its first N cells (its labels) and each other cell must be that row's cell under the same column.
``test_the_check_catches_every_edit_and_swap`` mutates the pages to show the check has teeth.
"""

from __future__ import annotations

import random
import re
import tomllib

import pytest

from benchmarks import summary
from research import regenerate

ROOT = summary.ROOT
#: What a page writes like a measurement but is a setting, a target or a version (by page; every page: the
#: intervals' level).
NOT_FIGURES = {
    "*": {"95%"},
    "README.md": {"0.01", "0.5", "1.5×", "1.7x", "3×", "25%", "30%", "55%", "65%", "80%"}  # budgets, targets
    | {"1.25", "1.27", "2.60", "3.11", "3.12"},  # versions
    "agents/README.md": {"0.01", "0.05", "0.1", "0.5"},  # thinking times
    "docs/batch.md": {"1.5"},  # the default run's 1.5M learner steps
    "docs/benchmark.md": {"1.0", "1.5 ×", "3 ×", "0.05", "2.5%", "1.96", "1000 ×"},  # budget slack, watchdog, share
    "docs/deployment.md": {"0.05", "0.1", "0.25", "0.5", "3 x"},  # limits and their advice
    "docs/integrations.md": {"1.25", "1.26", "1.27", "2.0", "2.58", "2.9", "3.11", "0.14"},  # library versions
    "docs/ray.md": {"2.60", "0.95", "0.2", "0.5", "1.7x"},  # Ray's version, PPO's settings, a target
    "docs/research_exploratory.md": {"0.01", "0.03", "0.1", "0.3", "0.5"}  # thinking times
    | {"0.95", "0.84", "1.645"}  # N*'s probability, Phi(1), its z
    | {"0.05", "60%"}  # the target (d to +-0.05), a level step
    | {"0.20", "0.200", "0.250", "0.33", "0.333"},  # fair shares at five, four and three players
    "docs/research.md": {"0.95"}  # N*'s probability
    | {"0.05", "0.2"}  # the claims' level, the issue's target of an RS interval 0.2 wide
    | {"0.6"},  # the synthetic mixture's known weight
    "docs/training.md": {"64 ×"},  # n-steps x n-envs
}
#: A number written as a measurement: a decimal, or a number with a percent sign or a times sign.
MEASUREMENT = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+(?:\s?(?:%|x\b|×))?|\s?(?:%|x\b|×))(?![.\d])")


def quoted(text: str) -> str:
    """The page without what is no measurement: code, link targets, marked figures and quoted tables."""
    text = summary.QUOTED.sub(" ", summary.MARK.sub(" ", text))
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def measurements(text: str) -> set[str]:
    """The numbers of ``text`` written as measurements outside markers and code, as written (``12.5%``)."""
    return set(MEASUREMENT.findall(quoted(text)))


def problems(pages: dict[str, str], values: dict[str, str]) -> list[str]:
    """What is wrong with the figures of ``pages`` (name -> text) against SUMMARY's ``values``."""
    found = []
    for name, text in pages.items():
        found += [f"{name}: {problem}" for problem in summary.quoted_table_problems(text)]
        for key, value in summary.MARK.findall(text):
            if values.get(key) != value:
                found.append(f"{name}: figure {key} is {value!r}, its report gives {values.get(key)!r}")
        allowed = NOT_FIGURES["*"] | NOT_FIGURES.get(name, set())
        found += [f"{name}: {token} is no marked figure" for token in sorted(measurements(text) - allowed)]
    return found


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in summary.PAGES}


@pytest.fixture(scope="module")
def values() -> dict[str, str]:
    return summary.summary_values(summary.SUMMARY.read_text(encoding="utf-8"))


def test_every_figure_of_a_page_is_its_report_figure(pages, values):
    assert not problems(pages, values)
    assert sum(len(summary.MARK.findall(text)) for text in pages.values()) >= 50


def test_every_exception_is_still_on_its_page(pages):
    """A setting listed as no figure that its page no longer writes is dropped, so the lists cannot hide one."""
    stale = {
        name: sorted(allowed - measurements(pages[name]))
        for name, allowed in NOT_FIGURES.items()
        if name != "*" and allowed - measurements(pages[name])
    }
    assert not stale, f"listed as no figure but not on the page: {stale}"


def test_every_figure_is_read_from_a_generated_report():
    specs = tomllib.loads(summary.FIGURES.read_text(encoding="utf-8"))["figure"]
    notes = [s["key"] for s in specs if not s["source"].startswith(summary.SOURCES)]
    assert not notes, f"figures read from no generated report: {notes}"
    assert all("row" in s or "pick" in s for s in specs)


def test_every_figure_with_an_interval_has_records_behind_it():
    """A measured share, rating or factor (a figure with an interval) is read from a report that
    ``research.regenerate`` makes again from committed records; the figures without (speeds, the server's
    load) come from measurement reports that play no games and name the command that measures again."""
    specs = tomllib.loads(summary.FIGURES.read_text(encoding="utf-8"))["figure"]
    from_records = {output for report in regenerate.EVERY for output in report.outputs}
    orphans = [s["key"] for s in specs if "interval_kind" in s and s["source"] not in from_records]
    assert not orphans, f"figures with an interval from no report made from records: {orphans}"


def test_a_figure_from_a_note_or_an_interval_without_its_kind_is_refused(tmp_path):
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    report = "Command: `python -m x`\n\n| pair | share |\n|---|---|\n| a | 0.5 [0.4, 0.6] |\n"
    (tmp_path / "benchmarks" / "results" / "r.md").write_text(report)
    spec = {"key": "k", "group": "g", "what": "w", "row": "a", "column": "share", "command": "python -m x"}
    with pytest.raises(ValueError, match="no generated report"):
        summary.figures([{**spec, "source": "docs/experiments/r.md"}], tmp_path)
    with pytest.raises(ValueError, match="without its kind"):
        summary.figures([{**spec, "source": "benchmarks/results/r.md"}], tmp_path)
    kind = {**spec, "source": "benchmarks/results/r.md", "interval_kind": "clustered by deal"}
    assert summary.figures([kind], tmp_path)[0].note == "95% interval clustered by deal"


def _edit(value: str, rng: random.Random) -> str:
    """``value`` with one digit of one of its numbers changed."""
    spans = [m.span() for m in re.finditer(r"\d", value)]
    start, _ = rng.choice(spans)
    digit = rng.choice([d for d in "0123456789" if d != value[start]])
    return value[:start] + digit + value[start + 1 :]


def _marks(pages: dict[str, str]) -> list[tuple[str, re.Match]]:
    return [(name, m) for name, text in pages.items() for m in summary.MARK.finditer(text)]


def _replace(pages: dict[str, str], name: str, match: re.Match, value: str) -> dict[str, str]:
    text = pages[name]
    start, end = match.span(2)
    return {**pages, name: text[:start] + value + text[end:]}


def test_the_check_catches_every_edit_and_swap(pages, values):
    """20 random single-number edits and 20 swaps of two different figures across the pages each fail."""
    rng, marks = random.Random(49), _marks(pages)
    for _ in range(20):
        name, match = rng.choice(marks)
        assert problems(_replace(pages, name, match, _edit(match.group(2), rng)), values), (name, match.group(0))
    for _ in range(20):
        (a, ma), (b, mb) = rng.sample([m for m in marks], 2)
        while ma.group(2) == mb.group(2):
            (a, ma), (b, mb) = rng.sample(marks, 2)
        swapped = _replace(pages, a, ma, mb.group(2))
        if a == b:  # the second span moved by the first replacement's change of length
            shift = len(mb.group(2)) - len(ma.group(2)) if mb.start() > ma.start() else 0
            text = swapped[a]
            start, end = mb.start(2) + shift, mb.end(2) + shift
            swapped = {**swapped, a: text[:start] + ma.group(2) + text[end:]}
        else:
            swapped = _replace(swapped, b, mb, ma.group(2))
        assert problems(swapped, values), (ma.group(0), mb.group(0))
    unmarked = {"README.md": pages["README.md"] + "\nIt wins 61.5% of its games.\n"}
    assert problems(unmarked, values) == ["README.md: 61.5% is no marked figure"]


LUCK = """# Luck

## Results

| game | pair | games | d | deal share |
|---|---|---:|---|---|
| wapi4 | heuristic > random | 320 | +0.72 [0.66, 0.79] | 0.45 [0.27, 0.64] |
| wapi4 | ismcts > heuristic | 64 | +0.17 [-0.05, 0.39] | 0.61 [0.35, 0.82] |
"""


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ("| wapi4 | heuristic > random | +0.72 | 0.45 [0.27, 0.64] |", None),
        ("| wapi4 | heuristic > random | +0.17 | 0.45 [0.27, 0.64] |", "d: '+0.17'"),  # a figure of another row
        ("| wapi4 | heuristic > random | 0.45 [0.27, 0.64] | +0.72 |", "d: '0.45"),  # two columns swapped
        ("| wapi4 | random > heuristic | +0.72 | 0.45 [0.27, 0.64] |", "0 rows"),  # a label changed
    ],
)
def test_a_quoted_table_is_checked_cell_by_cell_against_its_report(tmp_path, table, problem):
    (tmp_path / "research" / "results").mkdir(parents=True)
    (tmp_path / "research" / "results" / "luck.md").write_text(LUCK)
    marker = "<!-- table: research/results/luck.md#Results labels=2 -->"
    page = f"{marker}\n| game | pair | d | deal share |\n|---|---|---|---|\n{table}\n"
    found = summary.quoted_table_problems(page, tmp_path)
    assert (found == []) if problem is None else (len(found) == 1 and problem in found[0]), found
    assert measurements(page) == set()
