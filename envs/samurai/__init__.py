"""Samurai (Knizia, Hans im Glück 1998): tiles around the settlements of Japan, 2-4 players."""

from envs.core.description import GameDescription, Option
from envs.samurai.board import PLAYER_COUNTS
from envs.samurai.components import FIGURE_SETUPS
from envs.samurai.game import SamuraiGame
from envs.samurai.rules import SamuraiState

__all__ = ["DESCRIPTION", "SamuraiGame", "SamuraiState"]

DESCRIPTION = GameDescription(
    game_class=SamuraiGame,
    options=(
        Option("num_players", "int", 2, "players", PLAYER_COUNTS),
        Option(
            "choose_hand", "bool", False, "players choose their five starting tiles from their piles", (False, True)
        ),
        Option(
            "figure_setup", "str", "random", "figures placed at random, or Edo full and the rest drafted", FIGURE_SETUPS
        ),
    ),
)
