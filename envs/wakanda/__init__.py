"""Wakanda (Chevallier, Blue Orange 2014): totems built together, claimed with headdresses, 2 players."""

from envs.core.description import GameDescription, Option
from envs.wakanda.game import WakandaGame
from envs.wakanda.rules import WakandaState

__all__ = ["DESCRIPTION", "WakandaGame", "WakandaState"]

DESCRIPTION = GameDescription(
    name="wakanda",
    game_class=WakandaGame,
    options=(Option("advanced", "bool", False, "advanced rules: face-down villages", (False, True)),),
    heuristic="agents.heuristic.wakanda",
    training=dict(timesteps=300_000, net_arch=[128, 128], n_steps=256, batch_size=512, learning_rate=1e-3,
                  n_epochs=10, gamma=1.0, ent_coef=0.01, eval_freq=40_000, snapshot_freq=25_000),
)
