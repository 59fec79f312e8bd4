"""research/claims.py: the claims' tables played on test deals in chunks of records, every table's first
chunk before any second, a record that exists skipped, and the report made from the records alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.core import records
from benchmarks.core.matches import AgentSpec
from research import claims

ROOT = Path(__file__).resolve().parents[1]


def test_claims_play_in_chunks_skip_what_exists_and_report_from_the_records(tmp_path, monkeypatch):
    heuristic, random = AgentSpec("heuristic", "heuristic"), AgentSpec("random", "random")
    tables = [("wapi", {"num_players": 2}, heuristic, random), ("wakanda", {}, random, heuristic)]
    monkeypatch.setattr(claims, "CLAIMS", tables)
    out = tmp_path / "claims.md"
    args = ["play", "--deals", "3", "--chunk", "2", "--processes", "1", "--records", str(tmp_path), "--out", str(out)]
    assert claims.main(args) == 0
    names = sorted(p.name for p in tmp_path.glob("*.jsonl.gz"))
    assert names == [
        "wakanda_random_vs_heuristic_000.jsonl.gz",
        "wakanda_random_vs_heuristic_001.jsonl.gz",
        "wapi_2p_heuristic_vs_random_000.jsonl.gz",
        "wapi_2p_heuristic_vs_random_001.jsonl.gz",
    ]
    pooled = records.read(sorted(tmp_path.glob("wapi*")))
    assert sorted({g["deal"] for g in pooled.games}) == [0, 1, 2] and {g["deal_set"] for g in pooled.games} == {"test"}
    text = out.read_text()
    assert text.startswith(f"# {claims.TITLE}") and "## wapi 2p" in text and "## wakanda" in text
    before = {p: p.read_bytes() for p in tmp_path.glob("*.jsonl.gz")}
    assert claims.main(args) == 0  # nothing left to play: the records stay as they were
    assert {p: p.read_bytes() for p in tmp_path.glob("*.jsonl.gz")} == before
    again = tmp_path / "again.md"
    assert claims.main(["report", "--records", str(tmp_path), "--out", str(again)]) == 0
    assert again.read_text() == text


@pytest.mark.parametrize("option,value", [("--deals", "1"), ("--chunk", "0")])
def test_claims_options_are_checked(tmp_path, option, value, capsys):
    with pytest.raises(SystemExit):
        claims.main(["play", option, value, "--records", str(tmp_path)])
    assert option in capsys.readouterr().err and not list(tmp_path.iterdir())
