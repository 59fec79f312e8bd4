"""The command lines' shared parts: each command builds its own parser with ``argparse.ArgumentParser``, and these
are what several of them share (docs/architecture.md). Imports nothing of the project, so that every package's
commands (the terminal game, train.py, the benchmarks, the studies) may use it; a game's options on a command line
are the games' own (``envs.games.add_game_options``).

- :class:`HelpFormatter`: a help that keeps the description's lines and says each option's default once;
- :func:`parse_command`: the arguments parsed, and the command line parsed, for a command's records and reports;
- :func:`given_settings`: the settings a command line gives, as opposed to those left to their defaults;
- :func:`flags`: settings as a command line spells them, for messages.
"""

from __future__ import annotations

import argparse
import sys


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The help of every command: its description as written (the module docstring's examples keep their
    lines) and each option's default after its help, as ``argparse.ArgumentDefaultsHelpFormatter`` adds it,
    unless the help already says its default in words (``default: every core``) or the option is required."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.required or action.default is argparse.SUPPRESS or not action.option_strings:
            return text
        default = action.default
        if isinstance(default, (list, tuple)):
            default = " ".join(map(str, default)) or "none"
        shown_default = "none" if default is None else str(default)
        return f"{text} (default: {shown_default.replace('%', '%%')})".lstrip()


def parse_command(parser: argparse.ArgumentParser, argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """``argv`` (the process's own arguments when None) parsed by ``parser``, and the ``argv`` parsed: the
    command line a command writes into its records and reports."""
    argv = sys.argv[1:] if argv is None else argv
    return parser.parse_args(argv), argv


def flags(names) -> str:
    """Settings as a command line spells them, for messages: ``--net-arch, --shared-layers``."""
    return ", ".join("--" + name.replace("_", "-") for name in names)


def given_settings(parser: argparse.ArgumentParser, argv: list[str] | None) -> list[str]:
    """The settings ``argv`` gives, as opposed to those left to their defaults (argparse's abbreviations
    included; a game option by its name, e.g. ``num_players``): ``argv`` is parsed into a namespace
    where every name is already set, since argparse sets no default on a name a namespace has."""
    unset = object()
    names = vars(parser.parse_args([]))
    parsed = vars(parser.parse_args(argv, argparse.Namespace(**dict.fromkeys(names, unset))))
    return sorted(name.removeprefix("game_option_") for name, value in parsed.items() if value is not unset)
