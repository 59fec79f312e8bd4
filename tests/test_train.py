"""train.py: bad input fails before training; a short run saves a model that the agents can
load and play; ``--resume`` continues from it; the outputs a user is promised are there."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import train
from agents import make_agent, play_game
from agents.games import make_game
from agents.network import load_network, read_card
from agents.selfplay import OpponentPool, check_model_file, evaluate, wilson_interval

#: A tiny but complete run: self-play snapshots, two evaluations, a final table.
SMOKE = ["--game", "wapi", "--num-players", "3", "--timesteps", "1024", "--n-envs", "2", "--n-steps", "256",
         "--batch-size", "128", "--n-epochs", "2", "--net-arch", "32", "32", "--opponents", "random", "self",
         "--eval-opponents", "random", "--eval-freq", "512", "--snapshot-freq", "512", "--eval-freq-games", "6",
         "--eval-games", "12", "--progress-bar", "false", "--seed", "3"]


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("run"))
    results = train.main(SMOKE + ["--out", out])
    return out, results


def run_error(argv: list[str], capsys=None) -> str:
    with pytest.raises(SystemExit) as exit_info:
        train.main(argv)
    message = str(exit_info.value.code)
    if capsys is not None:
        message += capsys.readouterr().err
    return message


# --- bad input: a clear error before any training -----------------------------------
def test_unknown_game_is_refused(capsys):
    message = run_error(["--game", "chess"], capsys)
    assert "--game" in message and "wakanda" in message


def test_an_option_of_another_game_is_refused(tmp_path):
    message = run_error(["--game", "wakanda", "--scoring", "shared", "--out", str(tmp_path)])
    assert "--scoring is not an option of wakanda" in message and "--advanced" in message
    assert not os.listdir(tmp_path)  # nothing was written: validation came first


def test_a_bad_option_value_is_refused_by_the_engine():
    assert "num_players" in run_error(["--game", "wapi", "--num-players", "9"])


def test_unknown_opponent_is_refused():
    message = run_error(["--game", "wapi", "--opponents", "random", "grandmaster"])
    assert "grandmaster" in message and "heuristic" in message


def test_missing_resume_file_is_refused(tmp_path):
    message = run_error(["--game", "wapi", "--resume", str(tmp_path / "nope.zip")])
    assert "model file not found" in message


def test_nonpositive_settings_are_refused():
    assert "--timesteps must be positive" in run_error(["--game", "wapi", "--timesteps", "0"])
    assert "--n-envs must be positive" in run_error(["--game", "wapi", "--n-envs", "0"])


def test_resume_with_a_model_of_another_game_or_configuration_is_refused(smoke_run):
    out, _ = smoke_run
    model = os.path.join(out, "model.zip")
    assert "trained for game 'wapi'" in run_error(["--game", "wakanda", "--resume", model])
    assert "num_players" in run_error(["--game", "wapi", "--num-players", "4", "--resume", model])


# --- a short run: outputs, model loadable as an agent, resume --------------------------
def test_smoke_run_writes_everything_promised(smoke_run):
    out, results = smoke_run
    for name in ("model.zip", "last_model.zip", "learning_curve.png", "results.json",
                 "results.md", "args.json"):
        assert os.path.isfile(os.path.join(out, name)), name
    assert os.listdir(os.path.join(out, "tb"))
    assert [f for f in os.listdir(os.path.join(out, "snapshots")) if f.endswith(".zip")]
    card = read_card(os.path.join(out, "model.zip"))
    game = make_game("wapi", num_players=3)
    assert {k: card[k] for k in ("game", "config", "observation_size", "num_actions")} == {
        "game": "wapi", "config": json.loads(json.dumps(game.config())), "observation_size": game.observation_size,
        "num_actions": game.num_actions}
    assert card["command"].startswith("python train.py --game wapi --num-players 3")
    assert card["training"]["num_timesteps"] == results["best_at_timesteps"]
    assert results["timesteps"] >= 1024
    assert [p["timesteps"] for p in results["curve"]][0] == 0 and len(results["curve"]) >= 3
    (row,) = results["final"]
    assert row["opponent"] == "random" and row["games"] == 12
    assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]


def test_saved_model_plays_legal_moves_as_a_ppo_agent(smoke_run):
    out, _ = smoke_run
    game = make_game("wapi", num_players=3)
    agents = [make_agent(f"ppo:{out}/model.zip", game=game), make_agent("random", game=game, seed=1),
              make_agent("heuristic", game=game, seed=2)]
    for seed in range(3):
        result = play_game(game, agents, seed=seed)  # raises on an illegal action
        assert result.winners


def test_resume_continues_from_the_checkpoint(smoke_run, tmp_path):
    out, first = smoke_run
    resumed = train.main(SMOKE + ["--timesteps", "512", "--resume", os.path.join(out, "last_model.zip"),
                                  "--out", str(tmp_path)])
    assert resumed["timesteps"] >= first["timesteps"] + 512
    assert resumed["curve"][0]["timesteps"] == first["timesteps"]  # evaluation starts where training left off
    check_model_file(str(tmp_path / "model.zip"), make_game("wapi", num_players=3))


# --- helpers -----------------------------------------------------------------------------
def test_evaluation_swaps_seats_and_is_reproducible(smoke_run):
    out, _ = smoke_run
    game = make_game("wapi", num_players=3)
    model = load_network(os.path.join(out, "model.zip"), game)
    assert evaluate(model, game, "random", 9, seed=5) == evaluate(model, game, "random", 9, seed=5)


@pytest.mark.parametrize("wins,low,high", [(90, 0.8256, 0.9448), (80, 0.7112, 0.8666)])
def test_wilson_interval(wins, low, high):
    """The 95% Wilson score interval of agents.stats (re-exported here), at known values and the edges."""
    assert wilson_interval(wins, 100) == (pytest.approx(low, abs=1e-3), pytest.approx(high, abs=1e-3))
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_pool_draws_every_kind_and_keeps_the_latest_snapshots(smoke_run):
    out, _ = smoke_run
    game = make_game("wapi", num_players=3)
    pool = OpponentPool(["random", "heuristic", "self"], game, seed=0, max_snapshots=2)
    assert pool.sample(np.random.default_rng(0)) is not None  # "self" falls back to random before a snapshot
    for _ in range(3):
        pool.add_snapshot(os.path.join(out, "model.zip"))
    assert len(pool.snapshots) == 2
    rng = np.random.default_rng(1)
    drawn = {id(pool.sample(rng)) for _ in range(200)}
    assert {id(pool.baselines["random"]), id(pool.baselines["heuristic"])} | {id(s) for s in pool.snapshots} == drawn
    state = game.new_state(np.random.default_rng(0))
    assert pool.snapshots[0](state, state.current_player) in state.legal_actions()


def test_time_limit_stops_training_early(tmp_path):
    argv = [a for a in SMOKE]
    argv[argv.index("--timesteps") + 1] = "200000"
    results = train.main(argv + ["--max-minutes", "0.002", "--out", str(tmp_path)])
    assert results["stopped_by_time_limit"] and results["timesteps"] < 200_000
    assert os.path.isfile(tmp_path / "model.zip")
