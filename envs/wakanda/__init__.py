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
    # Guided by the shipped model, the search beat plain ISMCTS 64.0% [54.2, 72.7] at 0.5 CPU-s a move
    # (benchmarks/results/strength.md).
    best_guide="trained",
    # train.py's defaults for this game (benchmarks/results/training.md says how they were chosen).
    training=dict(
        timesteps=3_000_000,
        opponents=["random", "heuristic", "self"],
        warm_start="heuristic",
        warm_start_games=600,
        n_envs=128,
        eval_freq=100_000,
        snapshot_freq=100_000,
        net_arch=[256, 256],
        shared_layers=[],
        n_steps=64,
        batch_size=2048,
        n_epochs=4,
        learning_rate=5e-4,
        gamma=1.0,
        gae_lambda=0.95,
        ent_coef=0.01,
        clip_range=0.2,
    ),
)
