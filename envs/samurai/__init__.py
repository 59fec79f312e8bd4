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
        Option(
            "choose_hand", "bool", False, "players choose their five starting tiles from their piles", (False, True)
        ),
        Option(
            "figure_setup", "str", "random", "figures placed at random, or Edo full and the rest drafted", FIGURE_SETUPS
        ),
    ),
    # train.py's settings for this game where they differ from envs.core.description.TRAINING_DEFAULTS.
    training=dict(
        # The board as a graph: imitating the heuristic it predicts 71.7% of held-out moves, the MLP below 59.7%
        # (benchmarks/results/imitation_networks.md); --network mlp uses net_arch and shared_layers.
        network="samurai_graph",
        # Its updates run 1.5x faster on two threads than on one: 1,365 against 1,070 learner steps/s on this
        # 2-core machine (benchmarks/results/training.md, "The Samurai graph network's training speed").
        torch_threads=2,
        timesteps=1_000_000,
        warm_start_games=300,
        n_envs=64,
        eval_freq=50_000,
        snapshot_freq=50_000,
        net_arch=[128],
        shared_layers=[256],
        batch_size=1024,
        learning_rate=1e-3,
    ),
)
