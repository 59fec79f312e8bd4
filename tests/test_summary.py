"""The headline figures: SUMMARY.md is what benchmarks.summary generates from the reports, the README's
marked figures are SUMMARY.md's, and every other number in the README's figure-bearing passages is
found in a generated source (a results file, an experiment note, the leaderboard)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import summary
from tests.number_tokens import NUMBER, numbers

ROOT = summary.ROOT

# The README's passages that quote measured figures: (first words, words that end it, the files their
# numbers come from).
RESULTS, NOTES = "benchmarks/results/", "docs/experiments/"
PASSAGES = [
    (
        "each). On the benchmark's test deals",
        "**What is safe to load.**",
        [f"{RESULTS}models.md", f"{NOTES}012-shipped-models-before-the-protocol.md"]
        + [f"{NOTES}005-samurai-model-training.md", f"{NOTES}006-wapi-model-training.md"],
    ),
    ("Measured on this 2-core machine (`benchmarks/results/ray.md`)", "Everything about it", [f"{RESULTS}ray.md"]),
    (
        "Throughput (`benchmarks/results/throughput.md`",
        "## Layout",
        [
            *(f"{RESULTS}{name}.md" for name in ("throughput", "batch", "batch_rollouts", "luck")),
            f"{NOTES}011-agent-strength-before-the-protocol.md",
            f"{RESULTS}duplicate.md",
            "docs/leaderboard.md",
            *(f"{NOTES}{name}" for name in ("001-wapi-four-player-search.md", "004-guided-search-strength.md")),
        ],
    ),
]
# A number in those passages that is no measurement and in none of their files: a target.
TARGETS = {"100,000"}
# What looks like a measurement (a decimal, a percentage, a ratio) outside a figure marker in those
# passages: targets, settings and versions, and the luck study's range of deal shares (26-74%, 1-10%:
# the extremes of luck.md's column, found there as 0.26, 0.74, 0.01 and 0.10 by the test below).
NOT_FIGURES = {"55%", "25%", "30%", "1.7x", "3×", "1.5×", "95%", "60%", "65%", "17.06", "3.12", "3.11", "0.5", "0.05"}
NOT_FIGURES |= {"74%", "10%", "80%"}
MEASURE = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?(?:\s?%|x|×)?")


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


def test_every_measured_figure_in_the_readme_is_marked():
    unmarked = []
    for passage, _ in _passages(summary.README.read_text(encoding="utf-8")):
        for token in MEASURE.findall(passage):
            if ("." in token or token[-1] in "%x×") and token not in NOT_FIGURES:
                unmarked.append(token)
    assert not unmarked, f"figures in the README not filled from SUMMARY.md: {unmarked}"


def test_readme_numbers_are_found_in_a_generated_source():
    readme = summary.README.read_text(encoding="utf-8")
    missing = []
    for passage, paths in _passages(readme):
        sources = _numbers(paths)
        missing += [n for n in NUMBER.findall(passage) if n.replace(",", "") not in sources and n not in TARGETS]
    assert not missing, f"numbers in the README found in no results file, note or leaderboard: {missing}"


def _root(tmp_path: Path, report: str) -> Path:
    (tmp_path / "r.md").write_text(report, encoding="utf-8")
    return tmp_path


REPORT = """# A report

Command: `python -m benchmarks.example --rounds 3`

| backend | best | every run (s) |
|---|---:|---|
| one | 9.0 | 12.0, 9.5, 9.0 |
| two | **4.0** | 4.0, 5.0, 6.0 |
"""


def _spec(**changes) -> dict:
    spec = {"key": "k", "group": "g", "what": "w", "source": "r.md", "row": "two", "column": "best"}
    return {**spec, "command": "python -m benchmarks.example --rounds 3", **changes}


def test_a_figure_is_read_from_its_cell_or_from_the_prose_by_its_pattern(tmp_path):
    root = _root(tmp_path, REPORT + "\n**Two against one: 1.90x**, the median of 3 runs.\n")
    (figure,) = summary.figures([_spec()], root)
    assert (figure.value, figure.source) == ("4.0", "r.md")
    prose = {k: v for k, v in _spec(pick=r"\*\*Two against one: ([\d.]+x)\*\*").items() if k != "row"}
    assert summary.figures([prose], root)[0].value == "1.90x"
    with pytest.raises(ValueError, match="not in r.md"):
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
    (figure,) = summary.figures([{**spec, "interval": "95% interval", "percent": True, "section": "wakanda"}], root)
    assert figure.value == "83.5% [81.2, 85.8]"
    assert summary.figures([{**spec, "row": ["model", "random"]}], root)[0].value == "0.971"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"row": "three"}, "0 rows"),
        ({"column": "worst"}, "0 rows"),
        ({"command": "python -m benchmarks.example --rounds 4"}, "is not in r.md"),
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


def test_filling_the_readme_replaces_only_marked_values_and_refuses_unknown_keys():
    readme = "a <!-- figure: x -->1.0%<!-- /figure --> b 1.0%"
    assert summary.fill_readme(readme, {"x": "2.0%"}) == "a <!-- figure: x -->2.0%<!-- /figure --> b 1.0%"
    with pytest.raises(KeyError, match="'y'"):
        summary.fill_readme("<!-- figure: y -->1<!-- /figure -->", {"x": "2"})


def test_the_check_command_finds_summary_and_readme_up_to_date():
    assert summary.main(["--check"]) == 0
