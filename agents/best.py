"""The strongest agent of each game configuration, by measurement: ``make_agent("best", game)``.

Which agent that is was decided by the strength benchmark
(``docs/experiments/004-guided-search-strength.md``). The best agent is ISMCTS guided by a
network (with the game's guided defaults) where one is known to make the
search stronger than plain ISMCTS: the network :data:`agents.tuning.BEST_GUIDE` names for the game
(``"trained"``: the configuration's shipped model; Wakanda's and Samurai's). Elsewhere it is plain
ISMCTS with the game's search defaults, which beats the heuristic in every game measured.
Both think ``time_limit`` CPU seconds a move (0.5 s, the budget the figures
were measured at) or ``iterations`` simulations.
"""

from __future__ import annotations

from pathlib import Path

from agents.guided import GuidedISMCTSAgent
from agents.ismcts import ISMCTSAgent
from agents.protocol import Agent, PlayerView
from agents.tuning import BEST_GUIDE
from envs.core.engine import Game
from envs.games import description_of


def described_guide(game: Game) -> str | None:
    """The model file of :data:`agents.tuning.BEST_GUIDE`'s network for ``game``'s configuration, if one is
    shipped; None where the best agent is plain ISMCTS."""
    from training.network import shipped_model_path

    if description_of(game) is None or BEST_GUIDE.get(game.name) != "trained":
        return None
    try:
        return shipped_model_path(game)
    except ValueError:  # no model shipped for this configuration (e.g. Wakanda advanced)
        return None


class BestAgent(Agent):
    """The strongest measured agent of ``game``'s configuration (see the module docstring)."""

    name = "best"

    def __init__(
        self,
        game: Game | None = None,
        seed: int | None = None,
        time_limit: float | None = 0.5,
        iterations: int | None = None,
    ):
        if game is None:
            raise ValueError("the best agent needs game=... (it is chosen per game configuration)")
        budget = {"iterations": iterations} if iterations is not None else {"time_limit": time_limit}
        network = described_guide(game)
        if network is not None:
            self.agent = GuidedISMCTSAgent(game, network=network, seed=seed, **budget)
        else:
            self.agent = ISMCTSAgent(game, seed=seed, **budget)
        self.choice = f"ismcts guided by {Path(network).name}" if network else "ismcts"

    def reset(self) -> None:
        self.agent.reset()

    def act(self, view: PlayerView) -> int:
        return self.agent.act(view)
