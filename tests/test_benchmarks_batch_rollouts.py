"""The batch-rollout benchmark: its arguments, and a tiny run's table (one row per budget)."""

from __future__ import annotations

import pytest

from benchmarks import batch_rollouts


def test_arguments_are_checked(capsys):
    for argv in (["--rounds", "0"], ["--budgets", "0"]):
        with pytest.raises(SystemExit):
            batch_rollouts.main(argv)
        assert "--rounds must be at least 1 and every budget positive" in capsys.readouterr().err


@pytest.mark.parametrize("game", ["wapi", "wakanda"])
def test_a_tiny_run_writes_one_row_per_budget(tmp_path, monkeypatch, game):
    monkeypatch.setattr(batch_rollouts, "positions", lambda game, real=batch_rollouts.positions: real(game)[:2])
    out = tmp_path / "batch.md"
    batch_rollouts.main(["--game", game, "--rounds", "1", "--budgets", "0.01", "0.02", "--out", str(out)])
    text = out.read_text()
    assert f"python -m benchmarks.batch_rollouts --game {game} --rounds 1 --budgets 0.01 0.02" in text
    assert text.startswith(f"# {game.capitalize()}'s flat search")
    rows = [line for line in text.splitlines() if line.startswith("| 0.0")]
    assert [row.split(" | ")[0] for row in rows] == ["| 0.01", "| 0.02"]
    assert all(float(row.split(" | ")[3].strip("*")) > 0 for row in rows)
