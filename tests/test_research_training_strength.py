"""research.training_strength: the shipped models' table (game i: deal seed + i // n, the model in
seat i % n), its command and the models' commands in the report; bad input stops it before a game."""

from __future__ import annotations

import pytest

from agents.models.files import SHIPPED_DIR
from research.training_strength import main

WAKANDA = str(SHIPPED_DIR / "wakanda.zip")


def test_the_report_has_a_row_per_opponent_with_its_interval_and_the_models_command(tmp_path, capsys):
    out = tmp_path / "table.md"
    main(["--models", WAKANDA, "--opponents", "random", "heuristic", "--games", "4", "--seed", "5", "--out", str(out)])
    text = out.read_text()
    assert text.startswith(f"Command: `python -m research.training_strength --models {WAKANDA} --opponents")
    rows = [line for line in text.splitlines() if line.startswith(f"| `{WAKANDA}`")]
    assert [row.split(" | ")[2] for row in rows] == ["random", "heuristic"]
    assert all(row.split(" | ")[3] == "4" for row in rows)
    assert "| 80% |" in rows[1] and "python train.py" in text  # Wakanda's target; how the model was made


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--opponents", "random", "grandmaster"], "opponent must be one of"),
        (["--games", "0"], "--games must be at least 1, got 0"),
        (["--models", "nowhere.zip"], "model file not found"),
    ],
)
def test_bad_input_is_refused_before_any_game(argv, message, capsys):
    with pytest.raises(SystemExit):
        main(["--models", WAKANDA, *argv] if "--models" not in argv else argv)
    assert message in capsys.readouterr().err
