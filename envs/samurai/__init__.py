"""Samurai (Knizia, Hans im Glück 1998): tiles around the settlements of Japan, 2-4 players."""

from envs.samurai.rules import SamuraiGame, SamuraiState

__all__ = ["SamuraiGame", "SamuraiState"]
