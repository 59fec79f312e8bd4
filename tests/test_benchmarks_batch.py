"""benchmarks/batch.py: a tiny run writes its three ratios per game, with the command and the engine."""

from __future__ import annotations

from benchmarks import batch


def test_a_short_run_reports_each_measure_with_its_engine_and_ratio(tmp_path):
    out = tmp_path / "batch.md"
    batch.main(["--games", "wapi", "--rounds", "1", "--seconds", "0.02", "--out", str(out)])
    text = out.read_text()
    assert "Command: `python -m benchmarks.batch --games wapi --rounds 1 --seconds 0.02 --out" in text
    rows = [line for line in text.splitlines() if line.startswith("| wapi 4p |")]
    assert [row.split(" | ")[1].split(";")[0] for row in rows] == [
        "random play",
        "vector env, random opponents",
        "heuristic (batch_policy)",
    ]
    for row in rows:
        cells = row.split(" | ")
        assert cells[3] == "WapiBatch" and float(cells[6].strip("*")) > 0
