"""Every command's --help tells each option's default, once; the small command lines exit as documented."""

from __future__ import annotations

import argparse
import importlib
import re

import pytest

from cli import HelpFormatter
from training.train_command import build_parser

#: The commands whose parsers use the shared HelpFormatter (the benchmarks, the terminal game, model export).
COMMANDS = [
    "research.training_strength",
    "research.decision_gains",
    "research.imitation_networks",
    "benchmarks.scale",
    "benchmarks.training_speed",
    "benchmarks.tournament",
    "research.luck",
    "research.ceiling",
    "research.strength",
    "benchmarks.throughput",
    "agents.play",
    "agents.review",
    "training.model_files",
    "training.distill.ship",
]


class _Parsed(Exception):
    """Raised in place of parsing: the parser a command built, caught before it runs anything."""


def parser_of(module_name: str, monkeypatch) -> argparse.ArgumentParser:
    """The parser ``module.main`` builds (each builds its own inside main)."""
    built = []

    def capture(self, args=None, namespace=None):
        built.append(self)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    with pytest.raises(_Parsed):
        importlib.import_module(module_name).main([])
    return built[-1]


def helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each option's help as printed (the formatter's additions included), by its first flag."""
    formatter = parser._get_formatter()
    return {
        (action.option_strings or [action.dest])[0]: formatter._get_help_string(action) if action.help else ""
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and action.help is not argparse.SUPPRESS
    }


def check_helps(texts: dict[str, str], required: set[str]) -> None:
    for flag, text in texts.items():
        assert text, f"{flag} has no help"
        if flag.startswith("--") and flag not in required:
            assert "default" in text, f"{flag}'s help does not say its default: {text!r}"
        assert not re.search(r"\(default[^()]*\) \(default", text), f"{flag}'s default is said twice: {text!r}"


@pytest.mark.parametrize("module_name", COMMANDS)
def test_every_option_has_a_help_with_its_default_once(module_name, monkeypatch):
    parser = parser_of(module_name, monkeypatch)
    assert parser.formatter_class is HelpFormatter
    required = {action.option_strings[0] for action in parser._actions if action.required and action.option_strings}
    check_helps(helps(parser), required)


@pytest.mark.parametrize("game", ["wakanda", "samurai"])
def test_train_py_says_each_default_once(game):
    texts = {action.option_strings[0]: action.help for action in build_parser(game)._actions[1:]}
    check_helps(texts, set())
    assert texts["--out"].endswith("(default: runs/<game>__maskppo__<seed>__<time>; rllib: __rllib_ppo__)")
    assert "rounded up to whole rollouts" in texts["--timesteps"] and "--resume, steps to add" in texts["--timesteps"]


def test_the_training_speed_games_are_names_not_a_count(capsys):
    from benchmarks import training_speed

    with pytest.raises(SystemExit) as exit_info:
        training_speed.main(["--games", "3"])
    assert exit_info.value.code == 2 and "invalid choice: '3'" in capsys.readouterr().err


@pytest.mark.parametrize("module_name", ["training.model_files", "agents.play", "benchmarks.tournament"])
def test_help_exits_zero(module_name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        importlib.import_module(module_name).main(["--help"])
    assert exit_info.value.code == 0 and "usage: python -m " + module_name in capsys.readouterr().out


@pytest.mark.slow
def test_model_export_copies_a_model_and_refuses_a_missing_file(tmp_path, capsys):
    from agents.models.files import read_card
    from training import model_files

    destination = tmp_path / "copy.zip"
    assert model_files.main(["agents/models/wakanda.zip", str(destination)]) == 0
    assert read_card(str(destination))["game"] == "wakanda"
    with pytest.raises(SystemExit) as exit_info:
        model_files.main([str(tmp_path / "none.zip"), str(tmp_path / "out.zip")])
    assert exit_info.value.code == 2 and "model file not found" in capsys.readouterr().err
    assert not (tmp_path / "out.zip").exists()


def test_a_command_parses_and_keeps_its_own_command_line(monkeypatch):
    """``parse_command``: the arguments given, else the process's own, parsed; the line parsed is returned
    as it was, for the command's records and reports."""
    from cli import parse_command

    parser = argparse.ArgumentParser(prog="python -m benchmarks.example", formatter_class=HelpFormatter)
    parser.add_argument("--games", type=int, default=2, help="games")
    args, argv = parse_command(parser, ["--games", "5"])
    assert args.games == 5 and argv == ["--games", "5"]
    monkeypatch.setattr("sys.argv", ["example.py", "--games", "7"])
    args, argv = parse_command(parser, None)
    assert args.games == 7 and argv == ["--games", "7"]
