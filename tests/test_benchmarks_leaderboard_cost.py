"""``python -m benchmarks.leaderboard_cost`` (benchmarks/leaderboard_cost.py): the page's arithmetic, and bad
arguments refused before anything is timed."""

import pytest

from benchmarks import leaderboard_cost


def test_a_table_costs_its_cpu_a_deal_times_the_ladders_deals():
    costs = {"wakanda": [("heuristic vs random", 2, 0.036), ("ismcts-100 vs heuristic", 2, 3.6)]}
    page = leaderboard_cost.page(costs, 1, 0.95, "python -m benchmarks.leaderboard_cost --out x")
    assert "| ismcts-100 vs heuristic | 2 | 3.6 | 0.10 |" in page  # 3.6 s x 100 deals = 0.1 hours
    assert "Total for wakanda: 0.1 CPU hours." in page
    assert page.splitlines()[2] == "Command: `python -m benchmarks.leaderboard_cost --out x`"


@pytest.mark.parametrize(
    "argv, message", [(["--deals", "0", "--out", "x.md"], "--deals must be a positive"), ([], "--out")]
)
def test_bad_arguments_are_refused_naming_them(argv, message, capsys):
    with pytest.raises(SystemExit):
        leaderboard_cost.main(argv)
    assert message in capsys.readouterr().err
