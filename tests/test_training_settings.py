"""training.settings and training.train_command: each game's training settings live in the training package as
data, the PPO settings object is the one list of PPO's names (card, learner, RLlib), and one builder turns a
settings dataclass into a command line that refuses bad values by option name."""

from __future__ import annotations

import dataclasses
import glob
from dataclasses import dataclass, field

import pytest

import envs
from agents.models.files import read_card
from training.distill.command import build_parser as distill_parser
from training.settings import (
    GAME_TRAINING,
    NETWORK_CHOICES,
    STRUCTURED_NETWORKS,
    TRAINING_DEFAULTS,
    Args,
    PPOHyperparameters,
    PPOSettings,
    game_training,
)
from training.train_command import build_parser as train_parser
from training.train_command import parse_args
from training.train_command import settings_parser as build_parser


# --- each game's settings -------------------------------------------------------------------
def test_every_game_has_training_settings_and_the_environments_hold_none():
    assert set(GAME_TRAINING) == set(envs.GAMES)
    for name in envs.GAMES:
        assert not hasattr(envs.describe(name), "training"), "tuning lives in training/, not in envs/"


def test_every_per_game_setting_is_a_train_option():
    options = {f.name for f in dataclasses.fields(Args)}
    for name, differences in GAME_TRAINING.items():
        assert set(differences) <= options, name
        assert set(game_training(name)) == {f.name for f in dataclasses.fields(Args) if f.metadata.get("per_game")}
    assert set(TRAINING_DEFAULTS) <= options


def test_game_training_is_a_fresh_copy_and_refuses_an_unknown_game():
    game_training("wapi")["opponents"].append("ismcts")
    assert game_training("wapi")["opponents"] == TRAINING_DEFAULTS["opponents"]
    with pytest.raises(ValueError, match="no training settings for game 'chess'"):
        game_training("chess")


def test_the_network_kinds_are_listed_once():
    assert NETWORK_CHOICES == ("mlp", *STRUCTURED_NETWORKS)
    network = next(f for f in dataclasses.fields(Args) if f.name == "network")
    assert network.metadata["choices"] == list(NETWORK_CHOICES)


# --- the PPO settings object -----------------------------------------------------------------
def ppo_cards() -> list[tuple[str, dict]]:
    """The shipped models train.py made (the distilled ones record no learner settings), with their cards."""
    cards = [(path, read_card(path)) for path in sorted(glob.glob("agents/models/*.zip"))]
    return [(path, card) for path, card in cards if "hyperparameters" in card["training"]]


def test_the_shipped_models_cards_read_as_ppo_settings_and_back():
    assert len(ppo_cards()) == 3
    for path, card in ppo_cards():
        recorded = card["training"]["hyperparameters"]
        assert PPOSettings.from_card(recorded, path).card() == recorded


def test_a_card_without_every_ppo_setting_is_refused():
    recorded = ppo_cards()[0][1]["training"]["hyperparameters"]
    for missing in recorded:
        partial = {k: v for k, v in recorded.items() if k != missing}
        with pytest.raises(ValueError, match="records no learner settings"):
            PPOSettings.from_card(partial, "model file x")


def test_ppo_names_are_maskableppos_and_each_has_its_rllib_name():
    import inspect

    from sb3_contrib import MaskablePPO

    keywords = inspect.signature(MaskablePPO).parameters
    assert all(name in keywords for name in PPOHyperparameters.names())
    args = parse_args(["--game", "wapi", "--learning-rate", "3e-4", "--n-steps", "32"])
    options = PPOSettings.of(args, {}).rllib_options(n_envs=8)
    assert options["lr"] == 3e-4 and options["train_batch_size_per_learner"] == 32 * 8
    assert options["minibatch_size"] == args.batch_size and options["clip_param"] == args.clip_range
    assert len(options) == len(PPOHyperparameters.names())  # each number once, n_steps as the batch


# --- the settings-to-argparse builder --------------------------------------------------------------
def refusal(parser, argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit):
        parser.parse_args(argv)
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["--n-steps", "2.5"], "argument --n-steps: must be a whole number, got '2.5'"),
        (["--learning-rate", "nan"], "argument --learning-rate: must be a finite number, got 'nan'"),
        (["--gamma", "inf"], "argument --gamma: must be a finite number, got 'inf'"),
        (["--clip-range", "wide"], "argument --clip-range: must be a number, got 'wide'"),
        (["--progress-bar", "maybe"], "argument --progress-bar: expected true or false, got 'maybe'"),
        (["--net-arch", "64", "x"], "argument --net-arch: must be a whole number, got 'x'"),
        (["--network", "cnn"], "argument --network: invalid choice: 'cnn'"),
    ],
)
def test_train_options_refuse_bad_values_by_name(argv, expected, capsys):
    assert expected in refusal(train_parser("wapi"), argv, capsys)


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["--epochs", "many"], "argument --epochs: must be a whole number, got 'many'"),
        (["--learning-rate=-inf"], "argument --learning-rate: must be a finite number"),
        (["--resume", "yes"], "unrecognized arguments: yes"),  # a bare flag takes no value
    ],
)
def test_distill_options_come_from_the_same_builder(argv, expected, capsys):
    assert expected in refusal(distill_parser(), argv, capsys)
    assert distill_parser().parse_args(["--resume"]).resume is True


def test_per_game_defaults_are_the_named_games_and_say_so():
    help_text = train_parser("samurai").format_help()
    assert "(default for samurai: samurai_graph)" in help_text and "(default: pfsp)" in help_text
    assert train_parser("samurai").parse_args([]).net_arch == GAME_TRAINING["samurai"]["net_arch"]
    assert "--game-options" not in help_text and "--given" not in help_text  # set by the program


def test_a_field_the_builder_cannot_read_needs_a_parser_of_its_own():
    @dataclass
    class Odd:
        limits: tuple[int, int] = field(default=(1, 2), metadata={"help": "a pair"})

    with pytest.raises(TypeError, match="limits: an option of type tuple"):
        build_parser(Odd, "odd", "")
