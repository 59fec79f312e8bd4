"""Wapi (Knizia, Tactic 2003): silver mines and totem poles, 2-5 players.

The package in layers: ``components`` (the game's pieces as data), ``actions``
(the action space), ``rules`` (the state, plain game data), ``observation``
(the observer), ``serialize`` (state_dict), ``render`` (text and image), and
``game`` (the configured game, which wires them).
"""

from envs.core.description import GameDescription, Option
from envs.wapi.components import PLAYER_COUNTS, SCORINGS
from envs.wapi.game import WapiGame
from envs.wapi.rules import WapiState

__all__ = ["DESCRIPTION", "WapiGame", "WapiState"]

DESCRIPTION = GameDescription(
    game_class=WapiGame,
    options=(
        Option("num_players", "int", 4, "players (2 is our unofficial variant)", PLAYER_COUNTS),
        Option("scoring", "str", "full", "full: each pole scores the whole mine; shared: poles share it", SCORINGS),
        Option("coins", "json", None, 'silver coins per value, e.g. {"0": 6, "1": 6, "2": 6, "3": 6, "5": 6}'),
    ),
)
