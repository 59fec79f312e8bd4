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
    # Guided by the shipped model, the search beats plain ISMCTS at 0.5 CPU-s a move. Its leaves are valued
    # half by the network and half by a rollout: 68.3% [62.9, 73.3] on 300 fresh deals, against 61.0% of 400
    # with the network's value alone (benchmarks/results/strength.md).
    best_guide="trained",
    guided_search={"value_mix": 0.5},
)
