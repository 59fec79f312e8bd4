"""Hand-written strategies, one module per game, behind one agent class.

Each game's module is ``agents.heuristic.<game name>`` (:func:`heuristic_module`);
it offers ``choose(view, rng) -> action`` and ``policy(state) -> action``, and
may offer ``play_out(states, first_moves)``: the same strategy over many games at once,
for search rollouts (in numpy, over the game's batch engine), and ``roll_out(state, epsilon, rnd)``: one
rollout of ISMCTS played by compiled code. A strategy sees the game only through its
:class:`~agents.protocol.PlayerView`: the observation, the legal actions, or one
determinized copy of the position from which it reads public facts only (the
anti-cheat tests check that hidden facts never change its choice). It is deterministic given its seed.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable

import numpy as np

from agents.protocol import Agent, PlayerView
from envs.core.engine import Game, GameState, shown
from envs.games import GAME_NAMES, description_of


def heuristic_module(game: Game):
    """The game's heuristic module, ``agents.heuristic.<game name>`` (imported: a broken one raises);
    ValueError for a game that is not one of the registry's."""
    if description_of(game) is None:
        raise ValueError(f"no heuristic for game {shown(getattr(game, 'name', game))}; the games: {list(GAME_NAMES)}")
    return importlib.import_module(f"{__name__}.{game.name}")


def strategy_for(game: Game) -> Callable[[PlayerView, np.random.Generator], int]:
    """The ``choose(view, rng)`` function of ``game``'s heuristic; ValueError if there is none."""
    return heuristic_module(game).choose


def rollout_policy_for(game: Game) -> Callable[[GameState], int]:
    """The heuristic as ``policy(state) -> action`` for the player to act in a state the caller owns
    (a search agent's own determinization): ISMCTS's rollouts. The module's ``compiled_policy`` where it has
    one (the same move, in compiled code), else its ``policy``. ValueError if there is none."""
    module = heuristic_module(game)
    return getattr(module, "compiled_policy", module.policy)


def batch_play_out_for(game: Game) -> Callable[[list[GameState], list[int]], tuple[np.ndarray, np.ndarray]] | None:
    """The heuristic's ``play_out(states, first_moves)`` where the game's module has one: every state
    after each first move, played out by the heuristic all at once; returns the final scores and the
    winners (bool), both ``games x players``, game ``i * len(first_moves) + j`` being ``states[i]`` after
    ``first_moves[j]``. None where it has none: ISMCTS then rolls out one by one."""
    return getattr(heuristic_module(game), "play_out", None)


def compiled_roll_out_for(game: Game) -> Callable[[GameState, float, random.Random], tuple[list, list]] | None:
    """The heuristic's ``roll_out(state, epsilon, rnd)`` where the game's module has one: ISMCTS's rollout of one
    position to the end (``agents.evaluator.RolloutEvaluator.roll_out``) played by compiled code, the same moves and
    dice; returns the final scores and the winners. None where it has none: the rollout is played in Python."""
    return getattr(heuristic_module(game), "roll_out", None)


def determinizations_for(game: Game) -> Callable | None:
    """The heuristic's ``determinizations(state, player, rng, count)`` where the game's module has one: a search's
    samples drawn at once, as ``PlayerView.sample_determinizations`` asks, in the form its ``play_out`` takes (the
    same games as ``count`` determinizations one by one). None where it has none: a list of states."""
    return getattr(heuristic_module(game), "determinizations", None)


class HeuristicAgent(Agent):
    """The hand-written strategy of the agent's game (see each game's module docstring)."""

    name = "heuristic"

    def __init__(self, game: Game, seed: int | None = None):
        if game is None:
            raise ValueError("the heuristic agent needs game=... (it plays a game-specific strategy)")
        self._choose = strategy_for(game)
        self.rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        return self._choose(view, self.rng)
