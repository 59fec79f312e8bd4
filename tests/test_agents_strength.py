"""Statistical strength checks (slow; the full figures come from ``benchmarks/strength.py``)."""

from __future__ import annotations

import pytest

from agents.games import available_games
from agents.stats import wilson_interval as wilson
from benchmarks.strength import MATCHUPS, run_matchup

pytestmark = pytest.mark.slow


def test_wilson_interval_matches_known_values():
    low, high = wilson(80, 100)
    assert low == pytest.approx(0.7112, abs=1e-3) and high == pytest.approx(0.8666, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


@pytest.mark.parametrize("matchup", [m for m in MATCHUPS if m.hero == "heuristic"], ids=lambda m: m.name)
def test_the_heuristic_beats_random_clearly(matchup):
    """Over 200 duplicate games the heuristic's whole 95% interval lies above its fair share."""
    if matchup.game not in available_games():
        pytest.skip(f"{matchup.game} is not in this checkout")
    row = run_matchup(matchup, games=200, seed=123, processes=1, hero_options={})
    fair = 1 / (len(row["others"]) + 1)
    assert row["ci"][0] > fair, row
