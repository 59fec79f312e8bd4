"""benchmarks/batch.py: a tiny run writes its ratios per game, with the command and the engine."""

from __future__ import annotations

import pytest

from benchmarks import batch, batch_time
from benchmarks.core import speed_records


def test_a_short_run_records_each_measure_and_its_report_is_made_from_the_record(tmp_path):
    """The run writes a record (its command, provenance, rows and compile times) and the report; the report made
    again from the record alone is the same page but for the line naming the record it came from."""
    out, record = tmp_path / "batch.md", tmp_path / "batch.json"
    argv = ["--games", "wapi", "--rounds", "1", "--seconds", "0.02", "--no-sb3", "--out", str(out)]
    batch.main([*argv, "--record", str(record)])
    text = out.read_text()
    assert "Command: `python -m benchmarks.batch --games wapi --rounds 1 --seconds 0.02 --no-sb3 --out" in text
    table, where = text.split("## Where the time goes")
    rows = [line for line in table.splitlines() if line.startswith("| wapi 4p |")]
    assert [row.split(" | ")[1].split(";")[0] for row in rows] == [
        "random play",
        "vector env, random opponents",
        "one game: random play",
        "one game: vector env, random opponents",
        batch.HEURISTIC_ROW,
        "heuristic (batch_policy)",
    ]
    for row in rows:
        cells = row.split(" | ")
        assert cells[3] == "WapiBatch" and float(cells[6].strip("*")) > 0
    parts = [line for line in where.splitlines() if line.startswith("| wapi 4p |")][0].split(" | ")
    count = len(batch_time.ENGINE_PARTS) + 2  # the engine's parts, the opponents' policy and the rest
    shares = [float(cell.rstrip("%")) for cell in parts[1 : 1 + count]]  # the parts of the vector env's step
    assert all(share >= 0 for share in shares[:-1]) and abs(sum(shares) - 100) <= 4  # rounded to percents
    compiled = [line for line in where.split("## First-call compile time")[1].splitlines() if "| wapi 4p |" in line]
    cold, warm = (float(cell) for cell in compiled[0].split(" | ")[1:3])
    assert cold > 0 and warm > 0
    again = tmp_path / "again.md"
    batch.main(["--from-record", str(record), "--out", str(again), "--allow-dirty"])
    assert again.read_text().replace(str(record), "R") == text.replace(str(record), "R")


def test_a_record_from_a_dirty_checkout_is_refused_without_allow_dirty(tmp_path):
    record = tmp_path / "dirty.json"
    speed_records.write({"provenance": {"dirty": True, "commit": "0" * 40}, "rows": []}, record)
    with pytest.raises(SystemExit, match="dirty checkout"):
        speed_records.read(record)
    assert speed_records.read(record, allow_dirty=True)["rows"] == []


def test_the_sb3_row_compares_learning_on_the_sb3_vec_env_with_train_pys_games(monkeypatch):
    """The SB3 row (here with train.py's settings made tiny): MaskablePPO on the adapter against train.py's
    games, with the number of games train.py plays."""
    import training.settings

    small = {"n_envs": 4, "n_steps": 8, "batch_size": 16, "n_epochs": 1, "net_arch": [8], "gamma": 1.0}
    monkeypatch.setattr(training.settings, "game_training", lambda name: {"learning_rate": 1e-3, **small})
    rows = batch.sb3_rows("wakanda", 1, 0.01)
    assert [row["what"] for row in rows] == ["MaskablePPO, random opponents; against train.py's games"]
    assert all(row["size"] == 4 and row["batched"] > 0 and row["per_game"] > 0 for row in rows)
    for shares in rows[0]["shares"].values():  # MaskablePPO's run split: env, rollout, update, other
        assert set(shares) == {"env", "rollout", "update", "other"} and abs(sum(shares.values()) - 1) < 1e-9
        assert all(shares[part] > 0 for part in ("env", "rollout", "update"))
