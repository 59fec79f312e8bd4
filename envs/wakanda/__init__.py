"""Wakanda (Chevallier, Blue Orange 2014): totems built together, claimed with headdresses, 2 players."""

from envs.core.description import GameDescription, Option
from envs.wakanda.game import WakandaGame
from envs.wakanda.rules import WakandaState

__all__ = ["DESCRIPTION", "WakandaGame", "WakandaState"]

DESCRIPTION = GameDescription(
    game_class=WakandaGame,
    options=(Option("advanced", "bool", False, "advanced rules: face-down villages", (False, True)),),
)
