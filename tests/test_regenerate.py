"""Issue 38: every report made from records is what its committed records give, made again by one command
(``python -m research.regenerate``: the studies' reports and the benchmarks', ``benchmarks.regenerate``'s)."""

from __future__ import annotations

import importlib.util
import re

from benchmarks import regenerate, summary
from benchmarks.core.records import ROOT
from research import regenerate as every_report

#: The folders of generated reports: the benchmarks' and the studies'.
RESULTS = ("benchmarks/results", "research/results")


def test_every_committed_report_is_what_its_records_give():
    # its time is a benchmark's figure, not a test's bound (a busy CI)
    assert regenerate.regenerate(every_report.EVERY) == []


#: Pages that name records but are not made from them alone, each with why.
PLAYED_AGAIN = {
    "research/results/replay_check.md": "plays the records' deals again (minutes): a measurement of the code",
}


def test_every_report_that_names_a_record_is_made_again():
    made = {name for report in every_report.EVERY for name in report.outputs} | set(PLAYED_AGAIN)
    made.add(summary.SUMMARY.relative_to(ROOT).as_posix())  # made from the reports, checked after them
    pages = [*(p for folder in RESULTS for p in ROOT.glob(f"{folder}/**/*.md"))]
    pages += [ROOT / "docs" / name for name in summary.GENERATED_DOCS]
    records = re.compile(r"(benchmarks|research)/records/")
    naming = {p.relative_to(ROOT).as_posix() for p in pages if records.search(p.read_text(encoding="utf-8"))}
    assert naming and naming <= made, sorted(naming - made)


def test_a_report_that_differs_from_its_records_is_named_and_a_plot_is_not_compared(tmp_path):
    report = regenerate.Report("research.ceiling", (), ("research/results/ceiling_wakanda.md",))
    plot = regenerate.Report("research.ceiling", (), ("research/results/ceiling_wakanda.png",))
    committed = (ROOT / report.outputs[0]).read_text(encoding="utf-8")
    (tmp_path / "ceiling_wakanda.md").write_text(committed, encoding="utf-8")
    (tmp_path / "ceiling_wakanda.png").write_bytes(b"another plot")
    assert regenerate.stale(report, tmp_path) == [] and regenerate.stale(plot, tmp_path) == []
    (tmp_path / "ceiling_wakanda.md").write_text(committed + "A line its records do not give.\n", encoding="utf-8")
    assert regenerate.stale(report, tmp_path) == ["research/results/ceiling_wakanda.md"]


def test_a_record_folder_stands_for_its_records_sorted(tmp_path):
    report = regenerate.Report("benchmarks.report", ("{records:research/records/ceiling}", "--out", "{out}/x.md"), ())
    argv = report.argv(tmp_path)
    assert argv[:-2] == sorted(argv[:-2]) and "research/records/ceiling/wakanda.jsonl.gz" in argv
    assert argv[-2:] == ["--out", f"{tmp_path}/x.md"]


def test_every_results_file_names_the_command_that_wrote_it():
    """benchmarks/results/ and research/results/ hold generated reports only (history lives in docs/experiments/):
    each names, at its top, the ``python -m benchmarks.X`` (``research.X``, ``web.load``) command that wrote it, and
    that module exists."""
    pages = sorted(p for folder in RESULTS for p in ROOT.glob(f"{folder}/**/*.md"))
    assert pages
    for page in pages:
        header = "\n".join(page.read_text(encoding="utf-8").splitlines()[:8])
        command = re.search(r"`python -m ((?:benchmarks|research|web)\.\w+)", header)
        assert command and importlib.util.find_spec(command.group(1)), page.relative_to(ROOT)
