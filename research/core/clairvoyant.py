"""The clairvoyant player, for research only: ``best``'s search at ``best``'s budget, searching the true state.

Borm and van der Genugten's relative skill needs an upper reference: a
"fictive player" who knows how chance will fall. Here that player is the
same search as :class:`agents.best.BestAgent`, with the same guide and the
same budget, whose every determinization is the true state: it sees the
draw order and every hand. The gap between it and ``best`` is the game's
random effect as far as a player of ``best``'s strength could exploit it.

It cheats by design, so it lives here and not in :mod:`agents`:
``agents.make_agent`` cannot build it, the rating path, the page and the
levels never name it (a test checks it). The agents' code is wrapped,
not edited: the search is handed a :class:`TrueView`, a view whose
determinizations are copies of the true state, and the true state is bound
to the player through :func:`agents.play_game`'s ``on_start`` hook (the engine
mutates that one state object move after move, so the binding stays live).

Its leaf values, though, may still read only the player's own view: ``best``'s network values a position
from the player's observation (Wakanda), and Samurai's static evaluation ignores the hands and the draw
order. :class:`SeerAgent` is the stronger reference: the same guided search and budget, every leaf valued
by a rollout played to the end on the true state, so that both the tree and its values use the truth.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents import Agent, GameResult, PlayerView, play_game
from agents.best import BestAgent, best_guide
from agents.guided import GuidedISMCTSAgent
from agents.ismcts import ISMCTSAgent
from envs.core.engine import Game, GameState

#: The label of the clairvoyant player in records and reports.
LABEL = "clairvoyant"
#: The label of the stronger clairvoyant, whose leaf values are rollouts on the true state.
SEER = "seer"


class TrueView:
    """A player's view that hides nothing: ``sample_determinization`` returns a copy of the true state.

    It offers what the searches read from a :class:`~agents.protocol.PlayerView` (player, game, legal
    actions, mask, observation, action words) so that ``best``'s search runs on it unchanged."""

    def __init__(self, view: PlayerView, truth: GameState):
        self.view, self.truth = view, truth
        self.player, self.game, self.legal_actions = view.player, view.game, view.legal_actions

    @property
    def observation(self) -> np.ndarray:
        return self.view.observation

    @property
    def legal_mask(self) -> np.ndarray:
        return self.view.legal_mask

    def describe_action(self, action: int) -> str:
        return self.view.describe_action(action)

    def sample_determinization(self, rng: np.random.Generator) -> GameState:
        """The true state (a fresh copy): the determinization of a player who knows everything."""
        return self.truth.clone()


class ClairvoyantAgent(Agent):
    """``best`` at ``iterations`` simulations a move (or ``time_limit`` seconds) searching the true state.

    Call :meth:`watch` with the game's live state before its first move (:func:`play_clairvoyant` does);
    acting without it is an error, never a silent fall back to the honest search."""

    name = LABEL

    def __init__(self, game: Game, seed: int | None = None, iterations: int | None = None, time_limit=None):
        budget = {"iterations": iterations} if iterations is not None else {"time_limit": time_limit or 0.5}
        self.search = self.make_search(game, seed, budget)
        self.truth: GameState | None = None

    def make_search(self, game: Game, seed: int | None, budget: dict) -> Agent:
        """The search it runs on the true state: ``best``'s."""
        return BestAgent(game, seed=seed, **budget)

    def watch(self, state: GameState) -> None:
        self.truth = state

    def reset(self) -> None:
        self.search.reset()
        self.truth = None

    def act(self, view: PlayerView) -> int:
        if self.truth is None:
            raise RuntimeError("the clairvoyant player was not shown the true state (use play_clairvoyant)")
        return self.search.act(TrueView(view, self.truth))


class SeerAgent(ClairvoyantAgent):
    """The clairvoyant whose leaf values read the truth too: ``best``'s search (the same guide, priors and budget)
    with every leaf valued by a rollout to the end (the search's rollout policy) on the true state, none by the
    network's or the static evaluation's reading of the player's view. Where ``best`` is plain ISMCTS (Wapi, whose
    rollouts already go to the end) it is the clairvoyant itself."""

    name = SEER

    def make_search(self, game: Game, seed: int | None, budget: dict) -> Agent:
        guide = best_guide(game)
        if guide:
            return GuidedISMCTSAgent(game, seed=seed, **guide, **budget, value_mix=1.0, rollout_depth=None)
        return ISMCTSAgent(game, seed=seed, **budget, rollout_depth=None)


def play_clairvoyant(game: Game, agents: Sequence[Agent], seed: int | None = None) -> GameResult:
    """:func:`agents.play_game`, with every :class:`ClairvoyantAgent` among ``agents`` shown the true state."""

    def bind(state: GameState) -> None:
        for agent in agents:
            if isinstance(agent, ClairvoyantAgent):
                agent.watch(state)

    return play_game(game, agents, seed=seed, on_start=bind)
