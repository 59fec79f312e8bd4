"""The games by name, for the command line, benchmarks and tests: a thin view of
``envs.GAMES`` and each game's description (``envs.describe``), and a game's options on a command line.

Command lines that build a game (the terminal game, the tournaments) take every
option of every game through :func:`add_game_options` and :func:`game_config`, so a
game's new option is settable everywhere the moment its description declares it.
"""

from __future__ import annotations

import argparse
from typing import Any

import envs
from envs.core.description import GameDescription, Option
from envs.core.engine import Game, shown

#: The game names, in the order of ``envs.GAMES``.
GAME_NAMES = envs.GAMES


def game_class(name: str) -> type[Game]:
    """The Game class of ``name``; ValueError naming the games if there is none."""
    return envs.describe(name).game_class


def make_game(name: str, **config: Any) -> Game:
    """``make_game("samurai", num_players=3)``: the game's constructor arguments as keywords."""
    return envs.describe(name).make(**config)


def available_games() -> list[str]:
    """Every game. A game package that fails to import raises here: it is a bug, never a skip."""
    return [envs.describe(name).name for name in envs.GAMES]


def description_of(game: Game | None) -> GameDescription | None:
    """The description of a configured game, or None for a game that has none (a test's stub game)."""
    name = getattr(game, "name", None)
    if name not in envs.GAMES:
        return None
    description = envs.describe(name)
    return description if isinstance(game, description.game_class) else None


# --- a game's options on a command line (the command lines' shared parts are the package cli) -----------
def _options_by_name() -> dict[str, list[tuple[str, Option]]]:
    """option name -> (game, option) for every game that takes it, in the order of ``envs.GAMES``."""
    found: dict[str, list[tuple[str, Option]]] = {}
    for name in GAME_NAMES:
        for option in envs.describe(name).options:
            found.setdefault(option.name, []).append((name, option))
    return found


def _option_help(name: str, option: Option) -> str:
    values = f"{', '.join(map(str, option.choices))}; " if option.choices else ""
    default = "the game's own" if option.default is None else option.default
    return f"{name}: {option.help} ({values}default {default})".replace("%", "%%")


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """One flag for every option of every game (``--num-players``, ``--coins``, ``--figure-setup``...).

    Each defaults to None, so that a game's own default applies; the help gives every
    game's own help, values and default. A flag option (``--advanced``) may stand alone
    for True. Values are read by :func:`game_config` once the game is known.
    """
    group = parser.add_argument_group("game options (each game takes its own; see its env card)")
    for name, owners in _options_by_name().items():
        flag = owners[0][1].flag
        is_flag = all(option.kind == "bool" for _, option in owners)
        group.add_argument(
            f"--{flag}",
            dest=f"game_option_{name}",
            default=None,
            metavar="VALUE",
            nargs="?" if is_flag else None,
            const="true" if is_flag else None,
            help="; ".join(_option_help(game, option) for game, option in owners),
        )


def game_option_texts(values: dict[str, Any]) -> dict[str, str]:
    """The game options given on the command line, by option name, from a parsed namespace's
    ``vars()`` (see :func:`add_game_options`); :func:`read_game_options` reads them for a game."""
    prefix = "game_option_"
    return {k[len(prefix) :]: v for k, v in values.items() if k.startswith(prefix) and v is not None}


def game_config(game: str, args: argparse.Namespace) -> dict[str, Any]:
    """The options of ``game`` given on the command line (see :func:`add_game_options`)."""
    return read_game_options(game, game_option_texts(vars(args)))


def read_game_options(game: str, texts: dict[str, str]) -> dict[str, Any]:
    """Each option text read by the game's own :class:`~envs.core.description.Option`; ValueError
    naming the flag for an option the game does not take or a value outside its choices."""
    description = envs.describe(game)
    config = {}
    for name, owners in _options_by_name().items():
        text = texts.get(name)
        if text is None:
            continue
        flag = owners[0][1].flag
        if name not in {option.name for option in description.options}:
            takes = [f"--{option.flag}" for option in description.options]
            raise ValueError(f"--{flag} is not an option of {game}; {game} takes {takes}")
        option = description.option(name)
        value = option.parse(text)
        if option.choices is not None and not any(type(value) is type(c) and value == c for c in option.choices):
            raise ValueError(f"--{flag} must be one of {list(option.choices)} for {game}, got {shown(text)}")
        config[name] = value
    return config
