"""The tournament's logic: seatings, duplicate seeds, ratings with known answers, failures, bad input."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from agents import Agent
from benchmarks.core import batch_matches, matches, records
from benchmarks.core.matches import AgentSpec, Failure, Task, TaskResult, agent_seed, deal_seed, play_task
from benchmarks.core.protocol import seatings
from benchmarks.core.rating import ELO, Z95, bradley_terry, centred_ratings, finishing_ranks, pairwise_counts
from benchmarks.tournament import record as tournament_record
from benchmarks.tournament import run as tournament
from benchmarks.tournament.run import agent_labels, plan_tournament, play, summarize


# --- seatings and seeds ------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_rotations_put_every_agent_once_in_every_seat(n):
    rows = seatings(n, "rotations")
    assert len(rows) == n
    for seat in range(n):
        assert sorted(row[seat] for row in rows) == list(range(n))
    assert all(sorted(row) == list(range(n)) for row in rows)


def test_permutations_are_all_orders_and_also_balance_seats():
    rows = seatings(3, "permutations")
    assert len(set(rows)) == 6
    for seat in range(3):
        assert Counter(row[seat] for row in rows) == {0: 2, 1: 2, 2: 2}


def test_seatings_reject_unknown_mode():
    with pytest.raises(ValueError, match="seating must be one of"):
        seatings(3, "shuffle")


def test_deal_seeds_depend_on_seed_and_deal_only():
    """Pinned values: a change of the derivation would change every published deal."""
    assert (deal_seed(0, 3), deal_seed(7, 0)) == (2613022947, 2083679832)
    assert len({deal_seed(s, d) for s in range(3) for d in range(50)}) == 150
    assert agent_seed(0, 1, 0, 0) != agent_seed(0, 1, 1, 0) != agent_seed(0, 1, 1, 1)


def test_every_table_plays_the_same_deals_in_every_seating():
    plan = plan_tournament("wapi", ["random", "heuristic", "random"], games=4, config={"num_players": 2})
    tasks = plan.tasks()
    assert len(plan.tables) == 3 and plan.deals == 2 and len(tasks) == 6
    by_deal = {}
    for task in tasks:
        by_deal.setdefault(task.deal, set()).add(tuple(spec.label for spec in task.table))
    assert all(len(tables) == 3 for tables in by_deal.values())
    result = play_task(tasks[0])
    assert [g.seats for g in result.games] == [("random", "heuristic"), ("heuristic", "random")]
    assert {g.game_seed for g in result.games} == {deal_seed(0, tasks[0].deal)}


def test_same_deal_seed_same_draws_whatever_the_seating_and_the_play():
    """The property duplicate deals rest on: the deal seed alone fixes the draws. Played two different
    ways (random and heuristic agents), a deal draws from the same bag: at every move the bag left is
    the end of the deal's first bag, whatever was played; another deal seed deals another bag."""
    from agents import make_agent, play_game
    from envs.games import make_game

    for name, config in [("wapi", {"num_players": 3}), ("wakanda", {})]:
        game = make_game(name, **config)
        bags, plays = [], []
        for agent_name in ("random", "heuristic"):
            agents = [make_agent(agent_name, game, seed=seat) for seat in range(game.num_players)]
            bag_left = []
            result = play_game(
                game,
                agents,
                seed=deal_seed(0, 5),
                on_start=lambda s, seen=bag_left: seen.append(s.to_dict()["bag"]),
                on_move=lambda s, *_, seen=bag_left: seen.append(s.to_dict()["bag"]),
                record=True,
            )
            bags.append(bag_left)
            plays.append(result.actions)
        assert plays[0] != plays[1], "the two plays differ, so the check below can fail"
        first_bag = bags[0][0]
        for left in bags[0] + bags[1]:
            assert left == first_bag[len(first_bag) - len(left) :], f"{name}: the draws depend on the play"
        assert len(bags[0][-1]) < len(first_bag) and len(bags[1][-1]) < len(first_bag)
        other = []
        play_game(game, agents, seed=deal_seed(0, 6), on_start=lambda s, seen=other: seen.append(s.to_dict()["bag"]))
        assert other[0] != first_bag, f"{name}: another deal seed deals another bag"


def test_labels_number_repeated_agents_and_shorten_models():
    assert agent_labels(["random", "heuristic", "random", "ppo:models/wapi_v3.zip"]) == [
        "random",
        "heuristic",
        "random#2",
        "ppo:wapi_v3",
    ]
    assert agent_labels(["ppo:models/wapi_v3.zip~0.1", "heuristic~0.25", "ppo:a~b/c.zip"]) == [
        "ppo:wapi_v3~0.1",
        "heuristic~0.25",
        "ppo:c",
    ]


def test_epsilon_greedy_agents_play_a_tournament_with_the_search_budget():
    """NAME~EPS seats NAME made ε-greedy; ismcts~EPS gets --ismcts-iterations as plain ismcts does."""
    plan = plan_tournament("wakanda", ["heuristic~0.5", "ismcts~0.1"], games=2, ismcts_iterations=3)
    assert [(a.label, a.name, a.options) for a in plan.agents] == [
        ("heuristic~0.5", "heuristic~0.5", ()),
        ("ismcts~0.1", "ismcts~0.1", (("iterations", 3),)),
    ]
    summary = summarize(plan, play(plan, processes=1, progress=False))
    assert len(summary.games) == 2 and not summary.failures


# --- ratings -----------------------------------------------------------------
def test_bradley_terry_recovers_consistent_odds_exactly():
    # A beats B 2:1, B beats C 2:1, A beats C 4:1: strengths 4 : 2 : 1 exactly.
    wins = np.array([[0, 200, 400], [100, 0, 200], [100, 100, 0]], dtype=float)
    ratings = bradley_terry(["A", "B", "C"], wins, prior_draws=0)
    values = [r.value for r in ratings]
    assert values[0] - values[1] == pytest.approx(ELO * math.log(2), abs=1e-6)
    assert values[1] - values[2] == pytest.approx(ELO * math.log(2), abs=1e-6)
    assert sum(values) == pytest.approx(0, abs=1e-9)
    assert [r.games for r in ratings] == [800, 600, 800]


def test_bradley_terry_interval_is_the_fisher_interval():
    # Two agents, 75 wins to 25: the log-odds is ln 3 with variance 1 / (n p (1 - p)), split over both.
    ratings = bradley_terry(["A", "B"], np.array([[0, 75], [25, 0]], dtype=float), prior_draws=0)
    a, b = ratings
    assert a.value - b.value == pytest.approx(ELO * math.log(3))
    half = Z95 * ELO * math.sqrt(1 / (100 * 0.75 * 0.25)) / 2
    assert a.high - a.value == pytest.approx(half)
    assert a.value - a.low == pytest.approx(half)


def test_bradley_terry_stays_finite_for_a_clean_sweep():
    ratings = bradley_terry(["A", "B"], np.array([[0, 50], [0, 0]], dtype=float))
    assert all(math.isfinite(r.value) and math.isfinite(r.low) for r in ratings)
    assert ratings[0].value > ratings[1].value


def test_finishing_ranks_put_winners_first_then_scores():
    assert finishing_ranks([10, 30, 20], winners=[1]) == [2, 0, 1]
    assert finishing_ranks([30, 30, 5], winners=[0]) == [0, 1, 2]  # a tie-break decided the win
    assert finishing_ranks([30, 30, 5], winners=[0, 1]) == [0, 0, 1]


def _lines(games, deal_of=lambda k: k // 3):
    """``(seats, ranks)`` per game as record lines (a winner the first place; games ``3k..3k+2`` one deal)."""
    out = []
    for k, (seats, ranks) in enumerate(games):
        scores = [float(-r) for r in ranks]
        out.append({"game": "wapi", "config": {}, "seed": deal_of(k), "seats": list(seats), "scores": scores})
        out[-1]["winners"] = [i for i, r in enumerate(ranks) if r == 0]
    return out


def test_pairwise_counts_and_the_centred_ratings_on_synthetic_tables():
    """Three-player tables rated by the pairwise fit with the deal bootstrap (openskill's online updates, which
    depended on the order of the games, are gone): a clear order is found, a fair field is level."""
    names = ["A", "B", "C"]
    games = [(("A", "B", "C"), [0, 1, 2]), (("B", "C", "A"), [1, 2, 0]), (("C", "A", "B"), [2, 0, 1])] * 20
    wins, played = pairwise_counts(names, games)
    assert wins[0, 1] == 60 and wins[1, 0] == 0 and played[0, 2] == 60
    ratings = centred_ratings(_lines(games))
    assert [r.name for r in ratings] == names and ratings[0].value > ratings[1].value > ratings[2].value
    assert all(r.low <= r.value <= r.high and r.games == 60 for r in ratings)
    # Every agent first, second and third equally often on every deal: equal ratings.
    fair = [(("A", "B", "C"), [0, 1, 2]), (("A", "B", "C"), [1, 2, 0]), (("A", "B", "C"), [2, 0, 1])] * 10
    fair_ratings = centred_ratings(_lines(fair))
    assert max(abs(r.value) for r in fair_ratings) < 1e-6
    assert centred_ratings(_lines(fair)[::-1]) == fair_ratings  # the order the games come in does not matter


# --- failures: a crash or an illegal action is named, the rest is kept --------
class Crashing(Agent):
    def act(self, view):
        raise RuntimeError("boom")


class Illegal(Agent):
    def act(self, view):
        return -1


def test_failing_agents_are_reported_with_the_seed_and_the_rest_is_kept(monkeypatch):
    real = matches.build_agent

    def build(spec, game_key, seed):
        if spec.label == "random#2":
            return Crashing()
        if spec.label == "random#3":
            return Illegal()
        return real(spec, game_key, seed)

    monkeypatch.setattr(matches, "build_agent", build)
    # the failing agents come in through play_task's agents: every table game by game, none batched
    monkeypatch.setattr(batch_matches, "batchable", lambda task: False)
    plan = plan_tournament("wapi", ["random", "heuristic", "random", "random"], games=4, config={"num_players": 2})
    summary = summarize(plan, play(plan, processes=1, progress=False))
    # random#2 and random#3 fail in every game they play: 3 pairings each, but their game together
    # fails on whichever moves first.
    assert {f.agent for f in summary.failures} == {"random#2", "random#3"}
    crash = next(f for f in summary.failures if f.agent == "random#2")
    assert "crashed: RuntimeError: boom" in crash.message
    assert crash.game_seed in {deal_seed(0, d) for d in range(plan.deals)}
    assert any("illegal action -1" in f.message for f in summary.failures if f.agent == "random#3")
    # random vs heuristic still played every game and is rated.
    index = {s.label: i for i, s in enumerate(plan.agents)}
    assert summary.played[index["random"], index["heuristic"]] == 4
    assert len(summary.games) == 4


def test_an_engine_error_is_blamed_on_the_engine(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("tile 99")

    spec = AgentSpec("random", "random")
    task = Task(("wapi", (("num_players", 2),)), (spec, spec), 0, 0, ((0, 1), (1, 0)))
    assert len(play_task(task).games) == 2
    monkeypatch.setattr(matches, "play_game", broken)
    result = play_task(task)
    assert result.games == [] and len(result.failures) == 2
    assert result.failures[0].agent == "engine" and "KeyError" in result.failures[0].message
    assert result.failures[0].game_seed == deal_seed(0, 0)


# --- bad input -----------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(game="chess", agents=["random", "random"], games=2), "--game must be one of"),
        (dict(game="wapi", agents=["random", "bogus"], games=2), "unknown agent 'bogus'"),
        (dict(game="wapi", agents=["random", "heuristic~1.5"], games=2), "EPS a number in"),
        (dict(game="wapi", agents=["random", "bogus~0.5"], games=2), "unknown agent 'bogus'"),
        (dict(game="wapi", agents=["random", "ppo:no/such/model"], games=2), "model file not found"),
        (dict(game="wapi", agents=["random", "heuristic"], games=2, config={"num_players": 3}), "at least 3 agents"),
        (dict(game="wapi", agents=[], games=2), "--agents"),
        (dict(game="wapi", agents=["random", "random"], games=0), "--games must be a positive int"),
        (dict(game="wapi", agents=["random", "random"], games=-3), "--games must be a positive int"),
        (
            dict(game="wakanda", agents=["random", "random"], games=2, config={"num_players": 2}),
            "not an option of wakanda",
        ),
        (
            dict(game="wapi", agents=["random", "random"], games=2, config={"num_players": 7}),
            "num_players must be one of",
        ),
        (dict(game="wapi", agents=["random", "random"], games=2, seating="all"), "seating must be one of"),
    ],
)
def test_bad_input_is_refused_before_anything_runs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        plan_tournament(**kwargs)


def test_command_line_errors_exit_cleanly(capsys):
    with pytest.raises(SystemExit) as exit_:
        tournament.main(["--game", "wapi", "--agents", "random", "--games", "2"])
    assert exit_.value.code == 2
    assert "needs at least 4 agents" in capsys.readouterr().err


# --- end to end: same command and seed, same report ----------------------------
def test_same_seed_same_results_on_one_or_two_processes():
    plan = plan_tournament("wapi", ["random", "heuristic"], games=4, seed=3, config={"num_players": 2})
    one, two = (summarize(plan, play(plan, processes=p, progress=False)) for p in (1, 2))
    played = [[(g.seats, g.game_seed, g.scores) for g in run.games] for run in (one, two)]
    assert played[0] == played[1]
    assert one.ratings == two.ratings and len(one.games) == 4


def test_the_command_writes_the_same_report_twice(tmp_path):
    argv = [
        "--game",
        "wapi",
        "--num-players",
        "2",
        "--agents",
        "random",
        "heuristic",
        "--games",
        "4",
        "--processes",
        "1",
        "--no-progress",
        "--out",
        str(tmp_path),
        "--name",
        "t",
    ]
    assert tournament.main(argv) == 0
    first = (tmp_path / "t.md").read_text()
    assert tournament.main(argv) == 0
    assert (tmp_path / "t.md").read_text() == first
    assert "| random vs heuristic |" in first and "Command: `python -m benchmarks.tournament --game wapi" in first
    assert (tmp_path / "t.png").stat().st_size > 1000


def test_a_game_that_cannot_be_built_is_a_reported_failure():
    spec = AgentSpec("random", "random")
    (failure,) = play_task(Task(("wapi", (("num_players", 9),)), (spec, spec), 0, 0, ((0, 1),))).failures
    assert failure.agent == "engine" and "cannot build the game" in failure.message and "num_players" in failure.message


def test_auto_seating_takes_all_orders_up_to_three_players_and_rotations_beyond():
    three = plan_tournament("wapi", ["random", "heuristic", "random"], games=6, config={"num_players": 3})
    four = plan_tournament("wapi", ["random", "heuristic", "random", "random"], games=8, config={"num_players": 4})
    assert len(three.seatings) == 6 and three.deals == 1
    assert four.seatings == seatings(4, "rotations") and four.deals == 2


def test_every_game_option_reaches_a_tournament_and_names_its_report():
    """The tournament's game flags come from the descriptions: Samurai's draft and hand choice, Wapi's
    coins (a dict, frozen into the task's game key and thawed for the game)."""
    from envs.games import game_config

    parser = tournament.build_parser()
    args = parser.parse_args(
        [
            "--game",
            "samurai",
            "--agents",
            "random",
            "random",
            "--games",
            "2",
            "--figure-setup",
            "draft",
            "--choose-hand",
        ]
    )
    config = game_config(args.game, args)
    assert config == {"figure_setup": "draft", "choose_hand": True}
    plan = plan_tournament("samurai", ["random", "random"], games=2, config=config)
    assert tournament.default_name(plan) == "tournament_samurai_choose_hand_draft"
    coins = {0: 6, 1: 6, 2: 6, 3: 6, 5: 6}
    plan = plan_tournament("wapi", ["random", "random"], games=2, config={"num_players": 2, "coins": coins})
    assert tournament.default_name(plan) == "tournament_wapi_2p_coins"
    (result,) = [matches.play_task(task) for task in plan.tasks()[:1]]
    assert not result.failures and result.games
    assert matches.configured_game(*plan.tasks()[0].game).config()["coins"] == coins


def test_a_tournament_record_gives_the_same_report_and_keeps_the_game_options(tmp_path):
    """Records, then reports: the report made from the record alone (``--from-record``) is the one the run
    wrote, Wapi's coins (a dict with int keys) come back as they were given, and --record is never replaced."""
    argv = [
        "--game",
        "wapi",
        "--num-players",
        "3",
        "--coins",
        '{"0": 6, "1": 12, "2": 12, "3": 8, "5": 8}',
        "--agents",
        "random",
    ]
    argv += ["heuristic", "random", "--games", "6", "--processes", "1", "--no-progress", "--out", str(tmp_path)]
    record = tmp_path / "t.jsonl.gz"
    assert tournament.main([*argv, "--name", "t", "--record", str(record)]) == 0
    settings, agents, results = tournament_record.tournament_of(records.read([record]))
    assert settings["config"] == {"num_players": 3, "coins": {0: 6, 1: 12, 2: 12, 3: 8, 5: 8}}
    assert [a.label for a in agents] == ["random", "heuristic", "random#2"] and len(results) == 1
    assert sum(len(r.games) for r in results) == 6 and len(records.read([record]).games) == 6
    again = tmp_path / "again"
    assert tournament.main(["--from-record", str(record), "--out", str(again), "--name", "t"]) == 0
    assert (again / "t.md").read_text() == (tmp_path / "t.md").read_text()
    assert (again / "t.png").read_bytes() == (tmp_path / "t.png").read_bytes()
    before = record.read_bytes()
    with pytest.raises(SystemExit):
        tournament.main([*argv, "--name", "u", "--record", str(record)])
    assert record.read_bytes() == before and not (tmp_path / "u.md").exists()


def test_a_failed_game_is_kept_in_the_record_and_reported_again(tmp_path):
    spec = AgentSpec("random", "random")
    plan = plan_tournament("wakanda", ["random", "heuristic"], games=2)
    broken = TaskResult(plan.tasks()[0], failures=[Failure("random", ("random", "heuristic"), 7, "illegal action 99")])
    run = tournament_record.tournament_run(plan, ["python", "-m", "benchmarks.tournament"])
    record = tournament_record.record_of(plan, [broken], run, "local backend")
    path = records.write(record, tmp_path / "f.jsonl")
    _, agents, (result,) = tournament_record.tournament_of(records.read([path]))
    assert result.failures == broken.failures and result.task.table == plan.tables[0] and spec in agents
