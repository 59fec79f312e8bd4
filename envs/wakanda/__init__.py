"""Wakanda (Chevallier, Blue Orange 2014): totems built together, claimed with headdresses, 2 players."""

from envs.wakanda.rules import WakandaGame, WakandaState

__all__ = ["WakandaGame", "WakandaState"]
