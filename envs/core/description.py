"""What a game declares about itself, once: every table, command-line option and test
parametrisation keyed by game is derived from these descriptions.

Each game package holds one :class:`GameDescription` as ``DESCRIPTION`` in its
``__init__``; ``envs.GAMES`` lists the packages. Adding a game means writing
its package and adding its name to that one line.

How to play or train a game is not described here: the agents' side (its heuristic, leaf evaluation,
search settings) lives with the agents (``agents/heuristic/``, ``agents/leaf_values.py``,
``agents/tuning.py``), the training settings in ``training/settings.py``.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from envs.core.engine import Game, shown


def _int_keys(obj: dict) -> dict:
    """JSON object keys are always strings; keys written as integers are read back as ints."""
    return {int(k) if k.lstrip("-").isdigit() else k: v for k, v in obj.items()}


def parse_bool(text: str) -> bool:
    """A yes/no written on a command line: true/1/yes or false/0/no, in any case (an argparse ``type``)."""
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


@dataclass(frozen=True)
class Option:
    """One constructor argument of a game: its name, type, default and allowed values.

    ``kind`` is ``"int"``, ``"bool"``, ``"str"`` or ``"json"`` (a JSON value,
    e.g. Wapi's coin counts); ``choices`` is None when any value of the kind
    may be given (the game's constructor still validates it).
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple | None = None

    def parse(self, text: str) -> Any:
        """The value of this option written on a command line (``"true"``, ``"3"``, JSON...)."""
        if self.kind == "bool":
            try:
                return parse_bool(text)
            except argparse.ArgumentTypeError:
                raise ValueError(f"--{self.flag} must be true or false, got {shown(text)}") from None
        if self.kind == "int":
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"--{self.flag} must be an integer, got {shown(text)}") from None
        if self.kind == "json":
            try:
                return json.loads(text, object_hook=_int_keys)
            except json.JSONDecodeError as error:
                raise ValueError(f"--{self.flag} must be JSON, got {shown(text)} ({error})") from None
        return text

    @property
    def flag(self) -> str:
        """The command-line spelling: ``num_players`` -> ``num-players``."""
        return self.name.replace("_", "-")


@dataclass(frozen=True)
class GameDescription:
    """Everything the rest of the project needs to know about one game.

    Attributes:
        game_class: the :class:`~envs.core.engine.Game` subclass.
        options: its constructor arguments, in order.
    """

    game_class: type[Game]
    options: tuple[Option, ...]

    @property
    def name(self) -> str:
        """The game's name, its class's ``Game.name``: also its package ``envs.<name>`` and its PettingZoo
        entry point ``envs.<name>_v0``."""
        return self.game_class.name

    @property
    def env_module(self) -> str:
        return f"envs.{self.name}_v0"

    @property
    def env_id(self) -> str:
        """The PettingZoo registry id, ``drawluck/<name>-v0``."""
        return f"drawluck/{self.name}-v0"

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        raise ValueError(f"{self.name} has no option {shown(name)}; its options: {[o.name for o in self.options]}")

    def defaults(self) -> dict[str, Any]:
        """The constructor's defaults by option name."""
        return {option.name: option.default for option in self.options}

    def configurations(self) -> list[dict[str, Any]]:
        """The default configuration (``{}``) and one per other allowed value of each option with
        choices, the rest at their defaults: every player count and variant once. Tests and
        benchmarks that run "every configuration" of a game run these."""
        configs: list[dict[str, Any]] = [{}]
        for option in self.options:
            configs += [{option.name: value} for value in option.choices or () if value != option.default]
        return configs

    def label(self, config: dict[str, Any]) -> str:
        """A short name of a configuration for tables and test ids: ``wapi 3p shared``,
        ``wakanda advanced``, ``samurai 2p draft`` (the player count always, other options when
        not at their default: a word for a True flag, the value otherwise). An option whose default is
        None ("the game's own", Wapi's coins) is at its default when it has the value the game gives it,
        so a game's own ``config()``, which spells every option out, has the short label too."""
        full = {**self.defaults(), **config}
        parts = [self.name]
        for option in self.options:
            value = full[option.name]
            if option.name == "num_players":
                parts.append(f"{value}p")
            elif value != option.default and not (option.default is None and value == self._own(full, option.name)):
                word = option.name if value is True else f"{option.name}={value}" if value is False else str(value)
                parts.append(word)
        return " ".join(parts)

    def _own(self, config: dict[str, Any], name: str) -> Any:
        """The value the game gives option ``name`` when left at None, at ``config``'s player count."""
        players = {"num_players": config["num_players"]} if "num_players" in config else {}
        return self.make(**players).config()[name]

    def make(self, **config: Any) -> Game:
        """The configured game; unknown option names are refused by name."""
        unknown = sorted(set(config) - {option.name for option in self.options})
        if unknown:
            known = [o.name for o in self.options]
            raise ValueError(f"{self.name} has no options {shown(unknown)}; its options: {known}")
        return self.game_class(**config)

    def make_from_json(self, config: dict[str, Any]) -> Game:
        """The game of a configuration read back from JSON (a model card's): keys written as integers
        (Wapi's coin values) are ints again."""
        return self.make(**json.loads(json.dumps(config), object_hook=_int_keys))
