"""benchmarks/batch.py: a tiny run writes its ratios per game, with the command and the engine."""

from __future__ import annotations

from benchmarks import batch


def test_a_short_run_reports_each_measure_with_its_engine_and_ratio(tmp_path):
    out = tmp_path / "batch.md"
    batch.main(["--games", "wapi", "--rounds", "1", "--seconds", "0.02", "--no-sb3", "--out", str(out)])
    text = out.read_text()
    assert "Command: `python -m benchmarks.batch --games wapi --rounds 1 --seconds 0.02 --no-sb3 --out" in text
    table, where = text.split("## Where the time goes")
    rows = [line for line in table.splitlines() if line.startswith("| wapi 4p |")]
    assert [row.split(" | ")[1].split(";")[0] for row in rows] == [
        "random play",
        "vector env, random opponents",
        "heuristic (batch_policy)",
    ]
    for row in rows:
        cells = row.split(" | ")
        assert cells[3] == "WapiBatch" and float(cells[6].strip("*")) > 0
    parts = [line for line in where.splitlines() if line.startswith("| wapi 4p |")][0].split(" | ")
    shares = [float(cell.rstrip("%")) for cell in parts[1:8]]  # the seven parts of the vector env's step
    assert all(share >= 0 for share in shares[:-1]) and abs(sum(shares) - 100) <= 4  # rounded to percents


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
