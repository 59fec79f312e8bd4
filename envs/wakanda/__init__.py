"""Wakanda (Chevallier, Blue Orange 2014): totems built together, claimed with headdresses, 2 players."""

from envs.core.description import GameDescription, Option
from envs.wakanda.game import WakandaGame
from envs.wakanda.rules import WakandaState

__all__ = ["DESCRIPTION", "WakandaGame", "WakandaState"]

DESCRIPTION = GameDescription(
    name="wakanda",
    game_class=WakandaGame,
    options=(Option("advanced", "bool", False, "advanced rules: face-down villages", (False, True)),),
    # train.py's settings for this game where they differ from envs.core.description.TRAINING_DEFAULTS.
    training=dict(
        timesteps=3_000_000,
        warm_start_games=600,
        n_envs=128,
        eval_freq=100_000,
        snapshot_freq=100_000,
        net_arch=[256, 256],
        batch_size=2048,
        learning_rate=5e-4,
    ),
)
