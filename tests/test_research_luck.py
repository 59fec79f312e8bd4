"""The luck study's statistics on data with known answers, its bad input, and a tiny end-to-end run."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent, split_epsilon
from benchmarks.core import records
from benchmarks.core.matches import run_tasks
from benchmarks.core.variance import deal_share, duplicate_effect
from research.core.measures import games_to_lead
from research.luck import records as luck_records
from research.luck import report as luck_report
from research.luck import run as luck
from research.luck import stats as luck_stats

ROOT = Path(__file__).resolve().parent.parent


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


def test_games_to_lead():
    """z^2 var / mean^2 with z = 1.645: var / mean^2 alone (3 here) is only where the lead is 84% likely."""
    assert games_to_lead(0.5, 0.75) == pytest.approx(3.0 * 1.6449**2, rel=1e-4)
    assert games_to_lead(-0.5, 0.75) == pytest.approx(3.0 * 1.6449**2, rel=1e-4)
    assert math.isinf(games_to_lead(0.0, 0.75))


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


def _tiny_record(plan, command: str = "python -m research.luck --configs wapi3", started: str | None = None):
    """The plan played in this process, as the luck command's record (with ``started`` set when given)."""
    results = run_tasks(plan.tasks, processes=1, progress=False)
    record = luck_records.record_of(
        results, plan, luck_records.luck_run(plan, command.split()), 1.0, "local backend, 1 process"
    )
    if started:
        record.runs[0]["started"] = started
    return results, record


def test_a_tiny_study_end_to_end(tmp_path):
    plan = luck.plan_study(["wapi3"], deals=3, ismcts_deals=0, replays=2, ismcts_iterations=10)
    results, record = _tiny_record(plan)
    data, notes = luck.collect(results)
    assert notes == [] and len(data) == 1
    (pair,) = data
    assert pair.d.shape == (3, 2, 3) and set(np.unique(pair.d)) <= {-1.0, 0.0, 1.0}
    stats = luck_stats.pair_stats(pair, bootstrap=50)
    assert stats.upset == pytest.approx(((1 - pair.d) / 2).mean())
    assert 0 <= stats.share <= 1 or math.isnan(stats.share)
    # the report is made from the record alone, read back from its file: replays of a deal pool as distinct games
    path = records.write(record, tmp_path / "records" / luck_records.record_name(record))
    assert len(records.read([path]).games) == 18 and all(g["deal_set"] == "tuning" for g in record.games)
    (back,), _ = luck_records.pair_data(records.read([path]).games)
    assert np.array_equal(back.d, pair.d) and (back.strong_wins, back.weak_wins) == (pair.strong_wins, pair.weak_wins)
    luck_report.write([path], tmp_path)
    text = (tmp_path / "luck.md").read_text()
    assert "| wapi3 | heuristic > random | 18 |" in text and "python -m research.luck --configs wapi3" in text
    assert luck_report.luck_row(luck_stats.pair_stats(pair)) in text and str(luck_records.record_name(record)) in text
    assert "| wapi3 | heuristic > random | 18 |" in (tmp_path / "duplicate.md").read_text()
    assert (tmp_path / "luck.png").stat().st_size > 1000
    first = (tmp_path / "luck.md").read_bytes(), (tmp_path / "duplicate.md").read_bytes()
    luck_report.write([path], tmp_path)  # a pure function of the records
    assert ((tmp_path / "luck.md").read_bytes(), (tmp_path / "duplicate.md").read_bytes()) == first


def test_the_committed_luck_records_hold_every_configuration_of_the_study():
    """Every configuration the luck reports show has a committed record (two-player Wapi was never part of the
    study); that the reports are what the records give: tests/test_regenerate.py."""
    paths = sorted((ROOT / "research" / "records" / "luck").glob("*.jsonl.gz"))
    report = luck_report.report_of([records.read([path]) for path in paths])
    assert {st.data.config for st in report.stats} == set(luck_stats.CONFIGS) - {"wapi2"}


def test_a_record_that_is_not_a_luck_record_is_refused(tmp_path):
    run = records.new_run(["python", "-m", "test"], {})
    path = records.write(records.Record([run]), tmp_path / "other.jsonl")
    with pytest.raises(ValueError, match="not a luck record"):
        luck_report.write([path], tmp_path)
    with pytest.raises(ValueError, match="no luck records"):
        luck_report.write([], tmp_path)


def test_a_luck_runs_header_is_made_before_its_games():
    """Its commit, checkout and start are those the games are played from (v1 made it when they were over, so a
    record named a commit made while it ran): ``record_of`` only adds the study to the header made first."""
    plan = luck.plan_study(["wapi3"], deals=2, ismcts_deals=0, replays=1, ismcts_iterations=1)
    header = luck_records.luck_run(plan, ["cmd"])
    made = {k: header[k] for k in ("run", "started", "provenance", "version")}
    (run,) = luck_records.record_of([], plan, header, 3600.0, "here").runs
    assert {k: run[k] for k in made} == made
    assert run["study"]["settings"] == plan.settings and run["study"]["notes"] == plan.notes


def test_the_command_writes_its_record_and_reports_into_its_records_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing may land in the working directory either
    folder = tmp_path / "luck"
    argv = ["--configs", "wapi3", "--deals", "2", "--ismcts-deals", "0", "--replays", "1", "--processes", "1"]
    assert luck.main(argv + ["--records", str(folder), "--no-progress"]) == 0
    (record,) = folder.glob("*.jsonl.gz")
    assert sorted(p.name for p in folder.iterdir()) == sorted(["duplicate.md", "luck.md", "luck.png", record.name])
    assert len(records.read([record]).games) == 6 and list(tmp_path.iterdir()) == [folder]


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
def test_per_game_pairs_and_a_report_of_several_parts(tmp_path):
    plan = luck.plan_study(["samurai2"], deals=2, ismcts_deals=0, replays=2, ismcts_iterations=1)
    played = {task.key[2:] for task in plan.tasks}
    assert ("heuristic", "heuristic~0.25") in played and ("heuristic", "random") in played
    plan = luck.plan_study(
        ["wapi3"], deals=2, ismcts_deals=0, replays=2, ismcts_iterations=1, pairs=[("heuristic", "heuristic~0.5")]
    )
    assert [s.label for s in plan.tasks[0].table] == ["heuristic", "heuristic~0.5", "filler0"]
    plan4 = luck.plan_study(
        ["wapi4"], deals=2, ismcts_deals=0, replays=2, ismcts_iterations=1, pairs=[("heuristic~0.1", "random")]
    )
    plan3 = luck.plan_study(["wapi3"], deals=2, ismcts_deals=0, replays=1, ismcts_iterations=1)
    # three parts; the last run of wapi3 replaces the first one's rows, wapi4's stay
    parts = [
        _tiny_record(plan, "cmd wapi3", "2026-01-01T00:00:00Z")[1],
        _tiny_record(plan4, "cmd wapi4", "2026-01-01T00:00:01Z")[1],
        _tiny_record(plan3, "cmd wapi3 again", "2026-01-01T00:00:02Z")[1],
    ]
    paths = [records.write(r, tmp_path / luck_records.record_name(r)) for r in parts]
    luck_report.write(paths[::-1], tmp_path)  # the order given does not matter: the runs' starts do
    text = (tmp_path / "luck.md").read_text()
    assert "| wapi3 | heuristic > random | 6 |" in text and "| wapi4 | heuristic~0.1 > random | 16 |" in text
    assert "heuristic > heuristic~0.5" not in text and "cmd wapi3`" not in text
    assert "- `cmd wapi4`: configs wapi4;" in text and "- `cmd wapi3 again`: configs wapi3;" in text
    assert text.index("| wapi3 |") < text.index("| wapi4 |")
    assert "| wapi4 | heuristic~0.1 > random | 16 |" in (tmp_path / "duplicate.md").read_text()
