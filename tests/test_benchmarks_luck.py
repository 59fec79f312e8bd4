"""The luck study's statistics on data with known answers, its bad input, and a tiny end-to-end run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents import make_agent, split_epsilon
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
    luck_report.write(
        [stats],
        plan,
        plan.notes,
        "python -m benchmarks.luck --configs wapi3",
        str(tmp_path),
        1.0,
        "local backend, 1 process",
    )
    text = (tmp_path / "luck.md").read_text()
    assert "| wapi3 | heuristic > random | 18 |" in text and "python -m benchmarks.luck --configs wapi3" in text
    assert "| wapi3 | heuristic > random | 18 |" in (tmp_path / "duplicate.md").read_text()
    assert (tmp_path / "luck.png").stat().st_size > 1000


# --- ε-greedy agents (agents/epsilon_greedy.py) -----------------------------------------
def _moves(game_name: str, names: list[str], seed: int, **config) -> list[int]:
    """Every action of one game between ``names`` (agent seeds 10 + seat)."""
    from agents import play_game
    from envs.games import make_game

    game = make_game(game_name, **config)
    agents = [make_agent(name, game, seed=10 + seat) for seat, name in enumerate(names)]
    return play_game(game, agents, seed=seed, record=True).actions


def test_an_epsilon_greedy_agent_plays_only_legal_moves():
    # play_game raises IllegalActionError on an illegal move; ε = 1 is all random moves, 0.5 a mix.
    for names in (["heuristic~0.5", "heuristic~1"], ["random~0.3", "heuristic~0.5"]):
        assert _moves("samurai", names, seed=3, num_players=2)
    assert _moves("wapi", ["heuristic~0.5", "heuristic", "random"], seed=4, num_players=3)


def test_epsilon_zero_plays_exactly_as_the_wrapped_agent():
    assert _moves("samurai", ["heuristic~0", "heuristic~0"], seed=5, num_players=2) == _moves(
        "samurai", ["heuristic", "heuristic"], seed=5, num_players=2
    )


def test_an_epsilon_greedy_agent_is_reproducible_from_its_seed():
    names = ["heuristic~0.5", "heuristic~0.25"]
    first = _moves("samurai", names, seed=6, num_players=2)
    assert first == _moves("samurai", names, seed=6, num_players=2)
    assert first != _moves("samurai", ["heuristic", "heuristic"], seed=6, num_players=2)  # the noise does show


def test_every_agent_name_may_be_made_epsilon_greedy_by_make_agent():
    """make_agent parses NAME~EPS itself: a shipped model too, its options reaching NAME's agent."""
    from agents.epsilon_greedy import EpsilonGreedy
    from envs.games import make_game

    game = make_game("wakanda")
    trained = make_agent("trained~0.2", game, seed=1, deterministic=False)
    assert isinstance(trained, EpsilonGreedy) and trained.epsilon == 0.2 and trained.name == "trained~0.2"
    assert trained.agent.deterministic is False
    with pytest.raises(ValueError, match="unknown options \\['depth'\\] for agent 'heuristic'"):
        make_agent("heuristic~0.5", game, depth=2)


def test_a_file_agent_path_may_hold_a_tilde_of_its_own():
    assert split_epsilon("ppo:runs/old~1/model.zip") == ("ppo:runs/old~1/model.zip", None)
    assert split_epsilon("ppo:runs/model.zip~0.5") == ("ppo:runs/model.zip", 0.5)
    with pytest.raises(ValueError, match="EPS a number in \\[0, 1\\]"):
        split_epsilon("ppo:runs/model.zip~2")
    with pytest.raises(ValueError, match="agent name must be a str"):
        split_epsilon(0.5)


@pytest.mark.parametrize("name", ["heuristic~", "heuristic~1.5", "heuristic~x", "~0.5", "heuristic~nan", "random~-0.1"])
def test_bad_epsilon_names_are_refused(name):
    with pytest.raises(ValueError, match="NAME~EPS"):
        split_epsilon(name)
    with pytest.raises(ValueError, match="--pairs|NAME~EPS"):
        luck.plan_study(
            ["samurai2"], deals=2, ismcts_deals=0, replays=1, ismcts_iterations=1, pairs=[("heuristic", name)]
        )


@pytest.mark.slow
def test_per_game_pairs_and_a_tiny_merged_study(tmp_path):
    plan = luck.plan_study(["samurai2"], deals=2, ismcts_deals=0, replays=2, ismcts_iterations=1)
    played = {task.key[2:] for task in plan.tasks}
    assert ("heuristic", "heuristic~0.25") in played and ("heuristic", "random") in played
    plan = luck.plan_study(
        ["wapi3"], deals=2, ismcts_deals=0, replays=2, ismcts_iterations=1, pairs=[("heuristic", "heuristic~0.5")]
    )
    assert [s.label for s in plan.tasks[0].table] == ["heuristic", "heuristic~0.5", "filler0"]
    stats = [
        luck.pair_stats(d, bootstrap=20) for d in luck.collect(run_tasks(plan.tasks, processes=1, progress=False))[0]
    ]
    luck_report.write(stats, plan, [], "cmd wapi3", str(tmp_path), 1.0, "local backend, 1 process")
    plan4 = luck.plan_study(
        ["wapi4"], deals=2, ismcts_deals=0, replays=2, ismcts_iterations=1, pairs=[("heuristic~0.1", "random")]
    )
    stats4 = [
        luck.pair_stats(d, bootstrap=20) for d in luck.collect(run_tasks(plan4.tasks, processes=1, progress=False))[0]
    ]
    luck_report.write(stats4, plan4, [], "cmd wapi4", str(tmp_path), 1.0, "local backend, 1 process", merge=True)
    text = (tmp_path / "luck.md").read_text()
    assert "| wapi3 | heuristic > heuristic~0.5 | 12 |" in text and "| wapi4 | heuristic~0.1 > random | 16 |" in text
    assert "- `cmd wapi3`: configs wapi3;" in text and "- `cmd wapi4`: configs wapi4;" in text
    assert "| wapi4 | heuristic~0.1 > random | 16 |" in (tmp_path / "duplicate.md").read_text()
