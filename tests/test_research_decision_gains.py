"""The decision-gain benchmark: gains computed right, choosers blind to the judge's samples, bad input refused."""

from __future__ import annotations

import numpy as np
import pytest

from research import decision_gains

MODEL = "agents/models/wapi4.zip"


def test_gains_are_the_judged_value_of_the_pick_minus_the_heuristics_clustered_by_game():
    values = np.array([[0.1, 0.4, 0.0], [0.3, -0.2, 0.5], [0.0, 0.2, 0.6], [0.2, 0.0, 0.0]], np.float32)
    heuristic = np.array([0, 0, 1, 1])
    picks = np.array([[1, 0], [1, 0], [2, 1], [0, 1]])  # two choosers
    games = np.array([7, 7, 8, 9])  # the first two decisions share a game: one unit, not two
    (first, second) = decision_gains.gains(values, heuristic, picks, games)
    per_game = np.array([(0.3 - 0.5) / 2, 0.4, 0.2])
    half = 4.303 * per_game.std(ddof=1) / np.sqrt(3)  # t, 2 degrees of freedom
    assert first[:3] == pytest.approx((per_game.mean(), per_game.mean() - half, per_game.mean() + half), abs=1e-6)
    assert first[3] == 0.0  # never the heuristic's move
    assert second == (0.0, 0.0, 0.0, 1.0)  # always the heuristic's move: no gain, no spread


def test_the_choosers_never_see_the_judges_samples_and_runs_repeat_from_their_seeds():
    """With one sample each, a search that shared the judge's samples would pick the judge's best
    move and never lose against the heuristic's move; an independent one sometimes does."""
    task = ("wapi", {"num_players": 4}, [4_000_000, 4_000_001], 1, [1], [MODEL], None)
    judged = decision_gains.judge_games(task)
    rows = np.arange(len(judged["heuristic"]))
    search_gain = judged["values"][rows, judged["picks"][:, 0]] - judged["values"][rows, judged["heuristic"]]
    assert len(rows) > 40 and (search_gain < 0).any() and (search_gain > 0).any()
    again = decision_gains.judge_games(task)
    for key in judged:
        np.testing.assert_array_equal(judged[key], again[key])


def test_with_positions_only_the_models_own_decisions_in_its_own_games_are_judged():
    """``--positions``: the model plays seat ``deal % 4`` against heuristics, and exactly its decisions
    with a choice are judged: a replay of those games with the ppo agent finds the same decisions, in
    order, the model's pick as a chooser at each being the move it played there."""
    from agents import make_agent
    from agents.protocol import PlayerView
    from envs.games import make_game

    deals = [4_000_000, 4_000_001, 4_000_002]
    judged = decision_gains.judge_games(("wapi", {"num_players": 4}, deals, 1, [], [MODEL], MODEL))
    game = make_game("wapi", num_players=4)
    model, heuristic = make_agent(f"ppo:{MODEL}", game), make_agent("heuristic", game)
    played = []  # the model's moves where it had a choice
    for deal in deals:
        rng = np.random.default_rng(deal)
        state = game.new_state(rng)
        while state.current_player is not None:
            view = PlayerView(state, rng)
            mine = state.current_player == deal % 4
            action = int((model if mine else heuristic).act(view))
            if mine and len(view.legal_actions) > 1:
                played.append(action)
            state.apply(action)
    assert len(played) > 10 and judged["picks"][:, 0].tolist() == played
    everyone = decision_gains.judge_games(("wapi", {"num_players": 4}, deals, 1, [], [MODEL], None))
    assert len(everyone["heuristic"]) > 3 * len(played)


def test_a_small_run_writes_its_table_with_its_command(tmp_path):
    out = tmp_path / "gains.md"
    argv = ["--games", "2", "--judge-samples", "2", "--search-samples", "1", "4", "--models", MODEL]
    decision_gains.main([*argv, "--processes", "1", "--out", str(out)])
    text = out.read_text()
    assert "Command: `python -m research.decision_gains --games 2 --judge-samples 2" in text
    rows = [line for line in text.splitlines() if line.startswith("| search:") or line.startswith("| `")]
    assert [row.split(" | ")[0] for row in rows] == ["| search:1", "| search:4", f"| `{MODEL}`"]


@pytest.mark.parametrize("option", ["--models", "--positions"])
def test_a_model_of_another_game_is_refused_before_any_game(option):
    with pytest.raises(ValueError, match="wapi"):
        decision_gains.main(["--game", "wakanda", "--games", "1", option, MODEL, "--processes", "1"])


@pytest.mark.parametrize(
    "argv", [["--search-samples", "0"], ["--judge-samples", "0"], ["--games", "0"], ["--processes", "0"]]
)
def test_counts_below_one_are_refused_by_name(argv, capsys):
    with pytest.raises(SystemExit):
        decision_gains.main(argv)
    assert argv[0] in capsys.readouterr().err
