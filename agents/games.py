"""The games by name, for the command line, benchmarks and tests: a thin view of
``envs.GAMES`` and each game's description (``envs.describe``)."""

from __future__ import annotations

from typing import Any

import envs
from envs.core.engine import Game

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
