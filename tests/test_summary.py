"""The headline figures: SUMMARY.md is what benchmarks.summary generates from the reports, the README's
marked figures are SUMMARY.md's, and every other number in the README's figure-bearing passages is
found in a generated source (a results file or the leaderboard). That no page writes a measurement
outside a marker is ``tests/test_traced_figures.py``'s check."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import summary
from tests.number_tokens import NUMBER, numbers

ROOT = summary.ROOT

# The README's passages that quote measured figures: (first words, words that end it, the files their
# numbers come from).
RESULTS = "benchmarks/results/"
PASSAGES = [
    (
        "each). On the benchmark's test deals",
        "**What is safe to load.**",
        [f"{RESULTS}models.md"],
    ),
    ("Measured on this 2-core machine (`benchmarks/results/ray.md`)", "Everything about it", [f"{RESULTS}ray.md"]),
    (
        "Throughput (`benchmarks/results/throughput.md`",
        "## Layout",
        [
            *(f"{RESULTS}{name}.md" for name in ("throughput", "batch", "batch_rollouts")),
            *(f"research/results/{name}.md" for name in ("luck", "duplicate", "claims", "levels", "luck_strong/luck")),
            "docs/leaderboard.md",
        ],
    ),
]
# A number in those passages that is no measurement and in none of their files: a target or a note's number.
TARGETS = {"100,000", "30,000", "80", "55", "25", "8", "005", "009"}  # targets, a setting, notes 005-009


def _numbers(paths: list[str]) -> set[str]:
    """Every number token of ``paths`` (without thousands separators), also as a percentage where it
    is a share (0.26 -> 26)."""
    tokens: set[str] = set()
    for path in paths:
        found = numbers((ROOT / path).read_text(encoding="utf-8"))
        tokens |= found | {str(int(token[2:])) for token in found if re.fullmatch(r"0\.\d\d", token)}
    return tokens


def test_summary_is_generated_from_the_reports():
    text = summary.SUMMARY.read_text(encoding="utf-8")
    assert text == summary.render(summary.figures()), "run python -m benchmarks.summary --readme"


def test_readme_figures_are_the_summary_figures():
    values = summary.summary_values(summary.SUMMARY.read_text(encoding="utf-8"))
    readme = summary.README.read_text(encoding="utf-8")
    marked = summary.MARK.findall(readme)
    assert len(marked) >= 40
    for key, value in marked:
        assert values[key] == value, f"README's figure {key} is {value!r}, SUMMARY.md's {values[key]!r}"


def _passages(readme: str):
    """Each figure-bearing passage of the README without its marked figures and `code`, and its files."""
    for start, end, paths in PASSAGES:
        i = readme.index(start)
        passage = summary.MARK.sub(" ", readme[i : readme.index(end, i)])
        yield re.sub(r"`[^`]*`", " ", passage), paths  # commands, paths and option values


def test_readme_numbers_are_found_in_a_generated_source():
    readme = summary.README.read_text(encoding="utf-8")
    missing = []
    for passage, paths in _passages(readme):
        sources = _numbers(paths)
        missing += [n for n in NUMBER.findall(passage) if n.replace(",", "") not in sources and n not in TARGETS]
    assert not missing, f"numbers in the README found in no results file, note or leaderboard: {missing}"


def _root(tmp_path: Path, report: str) -> Path:
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "benchmarks" / "results" / "r.md").write_text(report, encoding="utf-8")
    return tmp_path


REPORT = """# A report

Command: `python -m benchmarks.example --rounds 3`

| backend | best | every run (s) |
|---|---:|---|
| one | 9.0 | 12.0, 9.5, 9.0 |
| two | **4.0** | 4.0, 5.0, 6.0 |
"""


def _spec(**changes) -> dict:
    spec = {"key": "k", "group": "g", "what": "w", "source": "benchmarks/results/r.md", "row": "two", "column": "best"}
    return {**spec, "command": "python -m benchmarks.example --rounds 3", **changes}


def test_a_figure_is_read_from_its_cell_or_from_the_prose_by_its_pattern(tmp_path):
    root = _root(tmp_path, REPORT + "\n**Two against one: 1.90x**, the median of 3 runs.\n")
    (figure,) = summary.figures([_spec()], root)
    assert (figure.value, figure.source) == ("4.0", "benchmarks/results/r.md")
    prose = {k: v for k, v in _spec(pick=r"\*\*Two against one: ([\d.]+x)\*\*").items() if k != "row"}
    assert summary.figures([prose], root)[0].value == "1.90x"
    with pytest.raises(ValueError, match="not in benchmarks/results/r.md"):
        summary.figures([{**prose, "pick": r"Three against one: ([\d.]+x)"}], root)


SHARES = """# Generated

Command: `python -m benchmarks.rate trained --game wakanda`

## wakanda

| hero | opponents | win share | 95% interval | games | deals |
|---|---|---:|---|---:|---:|
| model | heuristic | 0.835 | [0.812, 0.858] | 1000 | 500 |
| model | random | 0.971 | [0.960, 0.982] | 1000 | 500 |
"""


def test_a_share_is_shown_as_a_percentage_with_its_interval_from_its_own_row(tmp_path):
    root = _root(tmp_path, SHARES)
    spec = _spec(
        row=["model", "heuristic"], column="win share", command="python -m benchmarks.rate trained --game wakanda"
    )
    interval = {"interval": "95% interval", "interval_kind": "clustered by deal", "percent": True}
    (figure,) = summary.figures([{**spec, **interval, "section": "wakanda"}], root)
    assert figure.value == "83.5% [81.2, 85.8]"
    assert summary.figures([{**spec, "row": ["model", "random"]}], root)[0].value == "0.971"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"row": "three"}, "0 rows"),
        ({"column": "worst"}, "0 rows"),
        ({"command": "python -m benchmarks.example --rounds 4"}, "is not in benchmarks/results/r.md"),
        ({"pick": r"(\d+) ms"}, "not in '4.0'"),
    ],
)
def test_a_figure_not_found_in_its_source_is_refused_naming_it(tmp_path, change, message):
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        summary.figures([_spec(**change)], _root(tmp_path, REPORT))
    assert str(error.value).startswith("k")


def test_a_key_twice_is_refused(tmp_path):
    with pytest.raises(ValueError, match="appears twice"):
        summary.figures([_spec(), _spec()], _root(tmp_path, REPORT))


def test_filling_a_page_replaces_only_marked_values_and_refuses_unknown_keys():
    readme = "a <!-- figure: x -->1.0%<!-- /figure --> b 1.0%"
    assert summary.fill_page(readme, {"x": "2.0%"}) == "a <!-- figure: x -->2.0%<!-- /figure --> b 1.0%"
    with pytest.raises(KeyError, match="'y'"):
        summary.fill_page("<!-- figure: y -->1<!-- /figure -->", {"x": "2"})


def test_the_check_command_finds_summary_and_readme_up_to_date():
    assert summary.main(["--check"]) == 0
