"""The luck study's statistics on data with known answers, its bad input, and a tiny end-to-end run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks import luck, luck_report
from benchmarks.matches import run_tasks
from benchmarks.variance import deal_share, duplicate_effect, games_to_skill


# --- duplicate deals: the variance-reduction factor ------------------------------
def test_seat_luck_is_cancelled_by_duplicate_deals():
    # Whoever sits in the lucky seat of each deal wins: every duplicate set is a draw.
    x = np.array([[1, -1], [1, -1], [-1, 1], [1, -1], [-1, 1]], dtype=float)
    effect = duplicate_effect(x)
    assert effect.var_duplicate == 0 and effect.var_independent > 0
    assert math.isinf(effect.factor) and effect.half_width(100, duplicate=True) == 0


def test_deals_that_favour_one_agent_whatever_the_seat_make_duplicates_worse():
    # Both seatings of a deal end the same way (correlation +1 within a set): factor 1 / (1 + rho) = 1/2.
    x = np.array([[1, 1], [-1, -1], [1, 1], [-1, -1]], dtype=float)
    effect = duplicate_effect(x)
    assert effect.var_independent == pytest.approx(4 / 3)
    assert effect.var_duplicate == pytest.approx(8 / 3)
    assert effect.factor == pytest.approx(0.5)
    assert effect.half_width(100, False) == pytest.approx(1.959964 * math.sqrt(4 / 3 / 100))


def test_independent_results_give_a_factor_near_one():
    x = np.random.default_rng(0).choice([-1.0, 1.0], size=(4000, 2))
    assert duplicate_effect(x).factor == pytest.approx(1.0, abs=0.08)


# --- the deal's share of the variance -------------------------------------------
def test_deal_share_is_one_when_replays_agree_and_zero_when_deals_do_not_matter():
    across, within, share = deal_share(np.array([[1, 1], [0, 0], [1, 1], [0, 0]]))
    assert within == 0 and share == 1 and across == pytest.approx(1 / 3)
    across, within, share = deal_share(np.array([[1, 0], [1, 0], [0, 1], [0, 1]]))
    assert across == 0 and share == 0 and within == pytest.approx(0.5)


def test_deal_share_recovers_a_simulated_split():
    rng = np.random.default_rng(1)
    deal = rng.normal(0, 1.0, size=(3000, 1))  # variance 1 from the deal
    y = deal + rng.normal(0, math.sqrt(3.0), size=(3000, 4))  # variance 3 from the agents' own chance
    assert deal_share(y)[2] == pytest.approx(0.25, abs=0.03)


def test_games_to_skill():
    assert games_to_skill(0.5, 0.75) == pytest.approx(3.0)
    assert games_to_skill(-0.5, 0.75) == pytest.approx(3.0)
    assert math.isinf(games_to_skill(0.0, 0.75))


# --- the plan --------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(configs=["chess"]), "--configs must be among"),
        (dict(configs=[]), "--configs must be among"),
        (dict(deals=1), "at least 2"),
        (dict(ismcts_deals=1), "at least 2"),
        (dict(replays=0), "--replays must be a positive int"),
        (dict(ismcts_iterations=0), "--ismcts-iterations must be a positive int"),
        (dict(filler="human"), "--filler must be one of"),
    ],
)
def test_bad_study_options_are_refused(kwargs, message):
    options = dict(configs=["wapi3"], deals=4, ismcts_deals=0, replays=2, ismcts_iterations=10) | kwargs
    with pytest.raises(ValueError, match=message):
        luck.plan_study(**options)


def test_the_plan_seats_the_pair_with_fillers_in_every_rotation():
    plan = luck.plan_study(["wapi3"], deals=3, ismcts_deals=0, replays=2, ismcts_iterations=10)
    assert len(plan.tasks) == 3 and any("ismcts vs random skipped" in n for n in plan.notes)
    task = plan.tasks[0]
    assert [s.label for s in task.table] == ["heuristic", "random", "filler0"]
    assert task.seatings == ((0, 1, 2), (1, 2, 0), (2, 0, 1)) and task.replays == 2


def test_a_tiny_study_end_to_end(tmp_path):
    plan = luck.plan_study(["wapi3"], deals=3, ismcts_deals=0, replays=2, ismcts_iterations=10)
    data, notes = luck.collect(run_tasks(plan.tasks, processes=1, progress=False))
    assert notes == [] and len(data) == 1
    (pair,) = data
    assert pair.d.shape == (3, 2, 3) and set(np.unique(pair.d)) <= {-1.0, 0.0, 1.0}
    stats = luck.pair_stats(pair, bootstrap=50)
    assert stats.upset == pytest.approx(((1 - pair.d) / 2).mean())
    assert 0 <= stats.share <= 1 or math.isnan(stats.share)
    luck_report.write([stats], plan, plan.notes, "python -m benchmarks.luck --configs wapi3", str(tmp_path), 1.0, 1)
    text = (tmp_path / "luck.md").read_text()
    assert "| wapi3 | heuristic > random | 18 |" in text and "python -m benchmarks.luck --configs wapi3" in text
    assert "| wapi3 | heuristic > random | 18 |" in (tmp_path / "duplicate.md").read_text()
    assert (tmp_path / "luck.png").stat().st_size > 1000
