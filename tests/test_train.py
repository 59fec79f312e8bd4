"""train.py: settings come from the games' descriptions; bad input fails before anything is trained or
written; a short run saves a model the agents can load; --resume continues it (also after an
interruption, from the checkpoint); --init-model starts a new run from a model's weights; the outputs
a user is promised are there."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

import envs
import train
from agents import make_agent, play_game
from agents.models.card import OPTIMIZER_NAME
from agents.models.files import read_card, read_tensors
from agents.models.network import load_network
from envs.games import make_game
from training.sb3_run import whole_rollouts
from training.settings import DEFAULT_GAME, Args, game_training
from training.train_command import build_parser, parse_args, validate

#: A tiny but complete run: warm start, self-play snapshots, the league, evaluations, a final table.
SMOKE = [
    "--game",
    "wapi",
    "--num-players",
    "3",
    "--timesteps",
    "1024",
    "--n-envs",
    "8",
    "--n-steps",
    "64",
    "--batch-size",
    "128",
    "--n-epochs",
    "2",
    "--net-arch",
    "32",
    "32",
    "--shared-layers",
    "0",
    "--opponents",
    "random",
    "self",
    "--warm-start",
    "heuristic",
    "--warm-start-games",
    "6",
    "--warm-start-epochs",
    "2",
    "--eval-opponents",
    "random",
    "--eval-freq",
    "512",
    "--snapshot-freq",
    "512",
    "--eval-freq-games",
    "6",
    "--eval-games",
    "12",
    "--progress-bar",
    "false",
    "--seed",
    "3",
]
NO_WARM_START = [a if a != "heuristic" else "none" for a in SMOKE]


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("run"))
    results = train.main(SMOKE + ["--out", out])
    return out, results


def run_error(argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        train.main(argv)
    return str(exit_info.value.code)


# --- settings from the descriptions -----------------------------------------------------------
@pytest.mark.parametrize("name", envs.GAMES)
def test_per_game_defaults_are_the_games_training_settings(name):
    args = parse_args(["--game", name])
    for key, value in game_training(name).items():
        assert getattr(args, key) == value, key
    assert args.game_options == {}


def test_args_defaults_are_the_default_games_real_values():
    defaults = Args()
    for key, value in game_training(DEFAULT_GAME).items():
        assert getattr(defaults, key) == value, key
    assert not [f.name for f in dataclasses.fields(Args) if getattr(defaults, f.name) is None]


def test_every_option_of_every_game_has_a_flag():
    parser = build_parser("wapi")
    flags = {flag for action in parser._actions for flag in action.option_strings}
    for name in envs.GAMES:
        for option in envs.describe(name).options:
            assert "--" + option.flag in flags


def test_wapi_coins_can_be_set_and_land_in_the_game(tmp_path):
    args = parse_args(["--game", "wapi", "--coins", '{"0": 6, "1": 6, "2": 6, "3": 6, "5": 6}'])
    game = validate(args).game
    assert game.config()["coins"] == {0: 6, 1: 6, 2: 6, 3: 6, 5: 6}


# --- bad input: a clear error before any training -----------------------------------
def test_unknown_game_is_refused(capsys):
    with pytest.raises(SystemExit):
        train.main(["--game", "chess"])
    assert "--game" in capsys.readouterr().err


def test_an_option_of_another_game_is_refused(tmp_path):
    message = run_error(["--game", "wakanda", "--scoring", "shared", "--out", str(tmp_path)])
    assert "--scoring is not an option of wakanda" in message and "--advanced" in message
    assert not os.listdir(tmp_path)  # nothing was written: validation came first


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["--game", "wapi", "--num-players", "9"], "--num-players must be one of [2, 3, 4, 5] for wapi"),
        (["--game", "wapi", "--coins", "{nope"], "--coins must be JSON"),
        (["--game", "wakanda", "--advanced", "maybe"], "--advanced must be true or false"),
        (["--game", "wapi", "--opponents", "random", "grandmaster"], "unknown opponent 'grandmaster'"),
        (["--game", "wapi", "--timesteps", "0"], "--timesteps must be positive"),
        (["--game", "wapi", "--warm-start", "oracle"], "--warm-start must be one of"),
        (
            ["--game", "wapi", "--warm-start-samples", "32"],
            "--warm-start-samples measures the moves of --warm-start rollouts",
        ),
        (
            ["--game", "wapi", "--warm-start", "rollouts", "--warm-start-samples", "0"],
            "--warm-start-samples must be positive",
        ),
        (["--game", "wapi", "--net-arch", "0"], "network['pi'] must be at most 8 layer sizes"),
        (["--game", "wapi", "--network", "samurai_graph"], "--network samurai_graph reads Samurai boards only"),
        (["--game", "wakanda", "--network", "wapi_mines"], "--network wapi_mines reads Wapi observations only"),
        (["--game", "samurai", "--net-arch", "64"], "--net-arch size the mlp network, not --network samurai_graph"),
        (
            ["--game", "samurai", "--backend", "rllib"],
            "MLPs only (--net-arch): pass --network mlp (--network samurai_graph (samurai's default) needs",
        ),
        (
            ["--game", "wapi", "--backend", "rllib", "--network", "wapi_mines"],
            "pass --network mlp (--network wapi_mines needs --backend sb3)",
        ),
    ],
)
def test_bad_settings_are_refused(argv, expected):
    assert expected in run_error(argv)


def test_missing_resume_file_is_refused(tmp_path):
    assert "model file not found" in run_error(["--game", "wapi", "--resume", str(tmp_path / "nope.zip")])


def test_resume_with_a_model_of_another_game_or_configuration_is_refused(smoke_run):
    out, _ = smoke_run
    model = os.path.join(out, "model.zip")
    assert "trained for game 'wapi'" in run_error(["--game", "wakanda", "--resume", model])
    assert "num_players" in run_error(["--game", "wapi", "--resume", model])
    assert "--warm-start and --resume contradict" in run_error(SMOKE + ["--resume", model])
    assert "was trained with --reward win" in run_error(NO_WARM_START + ["--reward", "score", "--resume", model])


def test_a_corrupt_resume_file_is_refused_before_training(smoke_run, tmp_path):
    out, _ = smoke_run
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(open(os.path.join(out, "model.zip"), "rb").read()[:2000])
    assert "is not a model zip" in run_error(NO_WARM_START + ["--resume", str(corrupt), "--out", str(tmp_path / "o")])
    assert not os.path.exists(tmp_path / "o")


# --- a short run: outputs, model loadable as an agent, resume --------------------------
def test_smoke_run_writes_everything_promised(smoke_run):
    out, results = smoke_run
    for name in (
        "model.zip",
        "last_model.zip",
        "checkpoint.zip",
        "learning_curve.png",
        "results.json",
        "results.md",
        "args.json",
    ):
        assert os.path.isfile(os.path.join(out, name)), name
    assert os.listdir(os.path.join(out, "tb"))
    assert [f for f in os.listdir(os.path.join(out, "snapshots")) if f.endswith(".zip")]
    card = read_card(os.path.join(out, "model.zip"))
    game = make_game("wapi", num_players=3)
    assert {k: card[k] for k in ("game", "config", "observation_size", "num_actions")} == {
        "game": "wapi",
        "config": json.loads(json.dumps(game.config())),
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
    }
    assert card["command"] == "python train.py " + " ".join(SMOKE + ["--out", out])
    assert card["training"]["num_timesteps"] == results["best_at_timesteps"]
    assert card["network"] == {
        "kind": "mlp_actor_critic",
        "shared": [],
        "pi": [32, 32],
        "vf": [32, 32],
        "activation": "tanh",
    }
    assert results["timesteps"] >= 1024
    assert results["warm_start"]["train_moves"] > 0 and 0 <= results["warm_start"]["held_out_accuracy"] <= 1
    assert [p["timesteps"] for p in results["curve"]][0] == 0 and len(results["curve"]) >= 3
    (row,) = results["final"]
    assert row["opponent"] == "random" and row["games"] == 12
    assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
    assert {m["member"] for m in results["league"]} >= {"random"}
    seconds = results["seconds"]  # where the training time went: phases within the training's wall time
    assert 0 < seconds["games"] < seconds["rollouts"] and seconds["updates"] > 0
    assert seconds["rollouts"] + seconds["updates"] <= results["train_seconds"] + 0.15  # (rounded to 0.1 s)
    assert "stepping the games" in open(os.path.join(out, "results.md")).read()


def test_timesteps_are_rounded_up_to_whole_rollouts_and_the_progress_bar_says_so(monkeypatch, tmp_path, capsys):
    """SB3 trains whole rollouts (n_steps x n_envs = 512 here): --timesteps 100 trains 512 steps, and the
    total SB3's progress bar shows (what learn is given) is 512, not 100."""
    from sb3_contrib import MaskablePPO

    given, learn = [], MaskablePPO.learn
    monkeypatch.setattr(MaskablePPO, "learn", lambda self, total, **kw: given.append(total) or learn(self, total, **kw))
    argv = [a if a != "1024" else "100" for a in NO_WARM_START] + ["--eval-games", "2", "--out", str(tmp_path)]
    assert train.main(argv)["timesteps"] == 512
    assert given == [512] and "training 512 learner steps: --timesteps 100 rounded up to whole rollouts" in (
        capsys.readouterr().out
    )
    assert whole_rollouts(1024, 512) == 1024 and whole_rollouts(1025, 512) == 1536


def test_saved_model_plays_legal_moves_as_a_ppo_agent(smoke_run):
    out, _ = smoke_run
    game = make_game("wapi", num_players=3)
    agents = [
        make_agent(f"ppo:{out}/model.zip", game=game),
        make_agent("random", game=game, seed=1),
        make_agent("heuristic", game=game, seed=2),
    ]
    for seed in range(3):
        assert play_game(game, agents, seed=seed).winners  # raises on an illegal action


def test_resume_continues_from_the_checkpoint_with_the_files_settings(smoke_run, tmp_path):
    out, first = smoke_run
    checkpoint = os.path.join(out, "checkpoint.zip")  # what an interrupted run leaves behind
    steps = read_card(checkpoint)["training"]["num_timesteps"]
    argv = ["--game", "wapi", "--num-players", "3", "--opponents", "random", "--eval-opponents", "random"]
    argv += ["--eval-freq-games", "6", "--eval-games", "12", "--progress-bar", "false"]
    resumed = train.main(argv + ["--n-envs", "8", "--timesteps", "512", "--resume", checkpoint, "--out", str(tmp_path)])
    assert resumed["timesteps"] >= steps + 512
    assert resumed["curve"][0]["timesteps"] == steps  # evaluation starts where training left off
    assert resumed["learner"] == first["learner"]  # the file's settings, not the game's defaults
    assert resumed["learner"]["batch_size"] == 128 != game_training("wapi")["batch_size"]
    load_network(str(tmp_path / "model.zip"), make_game("wapi", num_players=3))
    assert read_card(str(tmp_path / "model.zip"))["training"]["history"] == [read_card(checkpoint)["command"]]


def test_learner_settings_given_with_resume_replace_the_files(smoke_run, tmp_path):
    """Fine-tuning: a lower --learning-rate (abbreviated, as argparse allows) and another
    --ent-coef reach the learner's optimizer and the saved card; the rest stays the file's."""
    out, first = smoke_run
    argv = NO_WARM_START + ["--timesteps", "256", "--learn", "3.3e-4", "--ent-coef=0.02"]
    resumed = train.main(argv + ["--resume", os.path.join(out, "checkpoint.zip"), "--out", str(tmp_path)])
    assert resumed["learner"] == {**first["learner"], "learning_rate": 3.3e-4, "ent_coef": 0.02}
    saved = str(tmp_path / "last_model.zip")
    assert read_card(saved)["training"]["hyperparameters"]["learning_rate"] == 3.3e-4
    assert read_tensors(saved, OPTIMIZER_NAME)["param_groups"][0]["lr"] == 3.3e-4
    assert json.load(open(tmp_path / "args.json"))["learning_rate"] == 3.3e-4


def test_parse_args_tells_given_settings_from_defaults():
    args = parse_args(["--game", "wapi", "--learn", "1e-4", "--net-arch=64", "--num-players", "3"])
    assert args.given == ["game", "learning_rate", "net_arch", "num_players"]
    assert parse_args(["--game", "wakanda", "--advanced"]).given == ["advanced", "game"]  # a bare flag
    assert parse_args([]).given == []


def test_resume_refuses_a_network_option_that_contradicts_the_files_network(smoke_run, tmp_path):
    out, _ = smoke_run
    message = run_error(NO_WARM_START + ["--net-arch", "64", "--resume", os.path.join(out, "checkpoint.zip")])
    assert "--net-arch, --shared-layers ask for the network" in message and "contradicts --resume" in message
    assert "'pi': [64]" in message and "'pi': [32, 32]" in message


def test_time_limit_stops_training_early(tmp_path):
    argv = list(NO_WARM_START)
    argv[argv.index("--timesteps") + 1] = "200000"
    results = train.main(argv + ["--max-minutes", "0.002", "--out", str(tmp_path)])
    assert results["stopped_by_time_limit"] and results["timesteps"] < 200_000
    assert os.path.isfile(tmp_path / "model.zip")


# --- --init-model: a new run from a model file's weights --------------------------------------
def test_init_model_starts_a_new_run_from_the_files_weights(smoke_run, tmp_path):
    """With a learning rate of 0 PPO cannot move the weights, so the saved model is the start itself:
    the file's policy, in a run whose step count starts at 0 and whose card names the file's command."""
    out, _ = smoke_run
    model = os.path.join(out, "model.zip")
    argv = NO_WARM_START + ["--timesteps", "256", "--learning-rate", "0", "--init-model", model]
    results = train.main(argv + ["--out", str(tmp_path)])
    assert results["curve"][0]["timesteps"] == 0 and results["warm_start"] is None
    saved, start = read_tensors(str(tmp_path / "last_model.zip")), read_tensors(model)
    assert saved.keys() == start.keys() and all((saved[k] == start[k]).all() for k in start)
    assert read_card(str(tmp_path / "model.zip"))["training"]["history"] == [read_card(model)["command"]]


def test_init_model_with_rollouts_only_fits_the_measured_moves(smoke_run, tmp_path):
    """Cloning the heuristic would pull a trained start back towards it: only the fit runs."""
    out, _ = smoke_run
    argv = [a if a != "heuristic" else "rollouts" for a in SMOKE] + ["--warm-start-samples", "2", "--timesteps", "64"]
    results = train.main(argv + ["--init-model", os.path.join(out, "model.zip"), "--out", str(tmp_path)])
    warm = results["warm_start"]
    assert "train_moves" not in warm and warm["rollouts"]["measured_positions"] > 0
    assert warm["rollouts"]["samples"] == 2


def test_init_model_refuses_what_contradicts_it(smoke_run):
    out, _ = smoke_run
    model = os.path.join(out, "model.zip")
    both = ["--init-model", model, "--resume", model]
    assert "--init-model and --resume contradict" in run_error(NO_WARM_START + both)
    assert "--warm-start heuristic would clone" in run_error(SMOKE + ["--init-model", model])
    assert "trained for game 'wapi'" in run_error(["--game", "wakanda", "--init-model", model])
    assert "num_players" in run_error(["--game", "wapi", "--init-model", model])
    message = run_error(NO_WARM_START + ["--reward", "score", "--init-model", model])
    assert "--init-model" in message and "was trained with --reward win, not score" in message
    message = run_error(NO_WARM_START + ["--net-arch", "64", "--init-model", model])
    assert "--net-arch, --shared-layers ask for the network" in message and "contradicts --init-model" in message


def test_wakandas_default_run_starts_from_the_shipped_model_and_resuming_does_not():
    """``make run`` (no options) fine-tunes the shipped Wakanda model, with no warm start; ``--init-model none``
    trains a new network; a resumed run continues its own file; RLlib starts from scratch."""
    from agents.models.files import shipped_model_path

    run = validate(parse_args([]))
    shipped = read_card(shipped_model_path(make_game("wakanda")))
    assert run.args.init_model == "trained" and run.start.card == shipped and run.ppo.network == shipped["network"]
    assert run.args.warm_start == "none"
    new = validate(parse_args(["--init-model", "none", "--warm-start", "heuristic", "--net-arch", "64"]))
    assert new.start is None and new.args.init_model == "" and new.args.warm_start == "heuristic"
    assert "(wakanda's default; --init-model none: a new network)" in run_error(["--net-arch", "64"])
    resumed = parse_args(["--resume", "runs/x/checkpoint.zip"])
    assert resumed.init_model == "" and resumed.warm_start == "none"
    assert validate(parse_args(["--backend", "rllib"])).start is None
    assert validate(parse_args(["--game", "wapi"])).start is None


def test_a_missing_shipped_model_fails_the_default_run_clearly(monkeypatch, tmp_path):
    import shutil

    import agents.models.files

    basic_only = tmp_path / "basic_only"  # a package without the advanced game's model
    basic_only.mkdir()
    shutil.copy(agents.models.files.SHIPPED_DIR / "wakanda.zip", basic_only)
    monkeypatch.setattr(agents.models.files, "SHIPPED_DIR", basic_only)
    message = run_error(["--advanced", "true", "--out", str(tmp_path / "advanced")])
    assert "--init-model trained (wakanda's default): no trained model is shipped for wakanda" in message
    assert "pass --init-model none" in message
    monkeypatch.setattr(agents.models.files, "SHIPPED_DIR", tmp_path)  # the shipped file is gone
    message = run_error(["--out", str(tmp_path / "run")])
    assert "--init-model trained (wakanda's default): no trained model is shipped for wakanda" in message
    assert "--init-model trained:" in run_error(["--game", "wapi", "--init-model", "trained"])
    assert not (tmp_path / "run").exists() and not (tmp_path / "advanced").exists()


def test_the_final_tables_deals_are_an_option():
    assert parse_args([]).eval_seed == 20_000 and parse_args(["--eval-seed", "30000"]).eval_seed == 30_000
    from training.rllib.training import settings_from_args

    assert settings_from_args(validate(parse_args(["--backend", "rllib", "--eval-seed", "7"]))).eval_seed == 7
