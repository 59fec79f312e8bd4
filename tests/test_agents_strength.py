"""Statistical strength checks (slow; the full figures come from ``research/strength.py``)."""

from __future__ import annotations

import pytest

from research.strength import MATCHUPS, main, run_matchup

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("matchup", [m for m in MATCHUPS if m.hero == "heuristic"], ids=lambda m: m.name)
def test_the_heuristic_beats_random_clearly(matchup):
    """Over 200 duplicate games the heuristic's whole 95% interval lies above its fair share."""
    row = run_matchup(matchup, games=200, seed=123, processes=1, options={})
    fair = 1 / (len(row["others"]) + 1)
    assert row["ci"][0] > fair, row


def test_ismcts_options_are_parsed_and_checked_before_any_game(capsys):
    """--ismcts-option KEY=VALUE reaches the agent as Python values; a bad one stops the run
    at once with the agent's own message (not inside a worker process)."""
    with pytest.raises(SystemExit):
        main(["--only", "wapi4-ismcts-vs-3-heuristic", "--ismcts-option", "tree_depth=0"])
    assert "tree_depth must be 'auto', a positive int or None, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--only", "wapi4-ismcts-vs-3-heuristic", "--ismcts-option", "depth"])
    assert "--ismcts-option takes KEY=VALUE, got 'depth'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--only", "wakanda-guided-vs-ismcts", "--guided-option", "c_puct"])
    assert "--guided-option takes KEY=VALUE, got 'c_puct'" in capsys.readouterr().err  # its own flag named
    with pytest.raises(SystemExit):
        main(["--only", "wakanda-guided-vs-ismcts", "--guided-iter", "50", "--guided-time", "0.1"])
    assert "--guided-iterations and --guided-time contradict each other" in capsys.readouterr().err


def test_ismcts_options_reach_the_games(tmp_path):
    out = tmp_path / "strength.md"
    main(
        [
            "--only",
            "wakanda-ismcts-heuristic",
            "--ismcts-games",
            "2",
            "--ismcts-iterations",
            "5",
            "--ismcts-option",
            "rollout=random",
            "paired_root=True",
            "--processes",
            "1",
            "--out",
            str(out),
        ]
    )
    text = out.read_text()
    assert "'rollout': 'random'" in text and "'paired_root': True" in text
    assert "| wakanda-ismcts-heuristic | 2 |" in text
