"""A settings dataclass as a command line: one option per field, its help and default beside the field.

Used by ``train.py`` (:class:`training.settings.Args`) and ``python -m
training.expert_iteration`` (:class:`training.expert_iteration.settings.Settings`),
so that the two read their options the same way. A field's ``metadata``:

- ``help``: the option's help (its default is appended, unless the help says it);
- ``choices``: the allowed values; ``type``: a parser of its own (else one from
  the annotation: ``int``, ``float`` (finite), ``bool`` (true/false), ``str``,
  ``list[...]`` of one of those, one value or more);
- ``action="store_true"``: a bare flag; ``option=False``: not an option (set by
  the program: the game options, say); ``per_game``: its default is the game's.

Every game's options (``--num-players``...) are added from the games'
descriptions; :func:`parse` reads them back as texts for the chosen game.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from typing import Any

from envs.core.description import parse_bool
from envs.games import add_game_options, game_option_texts, given_settings


def finite_float(text: str) -> float:
    """A command-line number: finite (``nan`` and ``inf`` are refused, naming the option)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def whole_number(text: str) -> int:
    """A command-line count: a whole number (``2.5`` and ``1e3`` are refused, naming the option)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None


PARSERS = {"int": whole_number, "float": finite_float, "bool": parse_bool, "str": str}


def _kind(field: dataclasses.Field) -> tuple[Any, str | None]:
    """The option's parser and ``nargs`` from the field's annotation (a string: annotations are postponed)."""
    annotation = str(field.type)
    if annotation.startswith("list[") and annotation.endswith("]"):
        return PARSERS[annotation[5:-1]], "+"
    if annotation not in PARSERS:
        raise TypeError(f"{field.name}: an option of type {annotation} needs a 'type' in its metadata")
    return PARSERS[annotation], None


def default_of(field: dataclasses.Field) -> Any:
    return field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default


def shown_default(value: Any) -> str:
    """A default as the help shows it: lists as written on the command line, empty as ``none``."""
    text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if text else "none"


def build_parser(
    settings_class: type,
    prog: str | None,
    description: str,
    game_defaults: dict[str, Any] | None = None,
    game: str = "",
) -> argparse.ArgumentParser:
    """One option per field of ``settings_class`` (its own fields, then those it inherits), then every
    game's options.
    ``game_defaults``: the defaults of the ``per_game`` fields, those of ``game``."""
    parser = argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    own = settings_class.__dict__.get("__annotations__", {})
    fields = sorted(dataclasses.fields(settings_class), key=lambda f: f.name not in own)  # inherited ones last
    for field in fields:
        meta = dict(field.metadata)
        if meta.pop("option", True) is False:
            continue
        per_game = meta.pop("per_game", False)
        meta.pop("rllib", None)
        flag = "--" + field.name.replace("_", "-")
        if meta.get("action") == "store_true":
            parser.add_argument(flag, **meta)
            continue
        default = game_defaults[field.name] if per_game and game_defaults is not None else default_of(field)
        if "(default" not in meta["help"]:  # else the help says its default in words
            meta["help"] += f" (default{' for ' + game if per_game and game else ''}: {shown_default(default)})"
        kind, nargs = (meta.pop("type"), None) if "type" in meta else _kind(field)
        parser.add_argument(flag, default=default, type=kind, nargs=nargs, **meta)
    add_game_options(parser)
    return parser


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """``argv`` read by ``parser``: (the settings by field name, the game options' texts by option name,
    the names of the settings ``argv`` gives). A bad value exits with argparse's message naming its option."""
    values = vars(parser.parse_args(argv))
    settings = {k: v for k, v in values.items() if not k.startswith("game_option_")}
    return settings, game_option_texts(values), given_settings(parser, argv)
