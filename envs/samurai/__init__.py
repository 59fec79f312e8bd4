"""Samurai (Knizia, Hans im Glück 1998): tiles around the settlements of Japan, 2-4 players."""

from envs.core.description import GameDescription, Option
from envs.samurai.board import PLAYER_COUNTS
from envs.samurai.components import FIGURE_SETUPS
from envs.samurai.game import SamuraiGame
from envs.samurai.rules import SamuraiState

__all__ = ["DESCRIPTION", "SamuraiGame", "SamuraiState"]

DESCRIPTION = GameDescription(
    name="samurai",
    game_class=SamuraiGame,
    options=(
        Option("num_players", "int", 2, "players", PLAYER_COUNTS),
        Option("choose_hand", "bool", False, "players choose their five starting tiles from their piles",
               (False, True)),
        Option("figure_setup", "str", "random", "figures placed at random, or Edo full and the rest drafted",
               FIGURE_SETUPS),
    ),
    heuristic="agents.heuristic.samurai",
    leaf_evaluation="agents.evaluation:samurai",
    # Leaf evaluation instead of rollouts: a rollout to the end costs ~15 ms (agents/evaluation.py).
    search_defaults={"rollout_depth": 0},
    training=dict(timesteps=300_000, net_arch=[256, 256], n_steps=256, batch_size=512, learning_rate=1e-3,
                  n_epochs=10, gamma=1.0, ent_coef=0.01, eval_freq=40_000, snapshot_freq=25_000),
)
