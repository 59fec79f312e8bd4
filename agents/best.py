"""The strongest agent of each game configuration, by measurement: ``make_agent("best", game)``.

Which agent that is was decided by the strength benchmark
(``docs/experiments/004-guided-search-strength.md``). The best agent is ISMCTS guided by a
network (with the game's guided defaults) where one is known to make the
search stronger than plain ISMCTS: the network :data:`agents.tuning.BEST_GUIDE` names for the configuration
(``"trained"``: the configuration's shipped model; Wakanda basic's and two-player Samurai's). Where the configuration
has no shipped model, :data:`agents.tuning.BEST_GUIDE_WITHOUT_MODEL` may name another guide (Samurai's:
the heuristic, :mod:`agents.heuristic_evaluator`, because plain ISMCTS lost to the heuristic there:
``docs/experiments/013-samurai-heuristic-guide.md``). Elsewhere it is plain ISMCTS with the game's
search defaults.
Both think ``time_limit`` CPU seconds a move (0.5 s, the budget the figures
were measured at) or ``iterations`` simulations.
"""

from __future__ import annotations

from pathlib import Path

from agents.guided import GuidedISMCTSAgent
from agents.ismcts import ISMCTSAgent
from agents.protocol import Agent, PlayerView
from agents.tuning import BEST_GUIDE, BEST_GUIDE_WITHOUT_MODEL
from envs.core.engine import Game
from envs.games import description_of


def described_guide(game: Game) -> str | None:
    """The model file of :data:`agents.tuning.BEST_GUIDE`'s network for ``game``'s configuration, if one is
    shipped; else None."""
    from agents.models.files import shipped_model_path

    description = description_of(game)
    if description is None or BEST_GUIDE.get(description.label(game.config())) != "trained":
        return None
    try:
        return shipped_model_path(game)
    except ValueError:  # no model shipped for this configuration (e.g. Wakanda advanced)
        return None


def best_guide(game: Game) -> dict[str, str]:
    """What guides the best agent's search in ``game``'s configuration, as the guided search's keyword:
    ``{"network": PATH}``, ``{"evaluator": NAME}`` (:data:`agents.tuning.BEST_GUIDE_WITHOUT_MODEL`), or ``{}``
    where the best agent is plain ISMCTS."""
    network = described_guide(game)
    if network is not None:
        return {"network": network}
    fallback = BEST_GUIDE_WITHOUT_MODEL.get(game.name) if description_of(game) is not None else None
    return {} if fallback is None else {"evaluator": fallback}


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
        guide = best_guide(game)
        if guide:
            self.agent = GuidedISMCTSAgent(game, seed=seed, **guide, **budget)
        else:
            self.agent = ISMCTSAgent(game, seed=seed, **budget)
        self.choice = describe_guide(guide)

    def reset(self) -> None:
        self.agent.reset()

    def act(self, view: PlayerView) -> int:
        return self.agent.act(view)


def describe_guide(guide: dict[str, str]) -> str:
    """The best agent's search in words: ``"ismcts guided by wakanda.zip"``, ``"... by the heuristic"``."""
    if "network" in guide:
        return f"ismcts guided by {Path(guide['network']).name}"
    if "evaluator" in guide:
        return f"ismcts guided by the {guide['evaluator']}"
    return "ismcts"
