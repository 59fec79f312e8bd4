"""The games by name, for the command line, benchmarks and tests (imported lazily: a game
still being written does not break the others)."""

from __future__ import annotations

import importlib
from typing import Any

from envs.core.engine import Game

#: game name -> (module, Game class)
GAME_CLASSES = {
    "wapi": ("envs.wapi", "WapiGame"),
    "wakanda": ("envs.wakanda", "WakandaGame"),
    "samurai": ("envs.samurai", "SamuraiGame"),
}


def game_class(name: str) -> type[Game]:
    if name not in GAME_CLASSES:
        raise ValueError(f"unknown game {name!r}; available: {sorted(GAME_CLASSES)}")
    module, cls = GAME_CLASSES[name]
    try:
        return getattr(importlib.import_module(module), cls)
    except (ModuleNotFoundError, AttributeError) as error:
        raise ValueError(f"game {name!r} is not available in this checkout ({error})") from error


def make_game(name: str, **config: Any) -> Game:
    """``make_game("samurai", num_players=3)``: the game's constructor arguments as keywords."""
    return game_class(name)(**config)


def available_games() -> list[str]:
    """The games whose engines are importable here."""
    out = []
    for name in GAME_CLASSES:
        try:
            game_class(name)
        except ValueError:
            continue
        out.append(name)
    return out
