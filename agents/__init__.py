"""Agents for the drawluck games: one protocol (see :mod:`agents.protocol`) and agents built by name.

``make_agent(name, game=..., **options)`` builds ``"random"``, ``"heuristic"``,
``"ismcts"``, ``"ppo:PATH"`` (a model file), ``"rllib:PATH"`` (an RLlib checkpoint) or
``"trained"`` (the model shipped for the game's configuration); ``play_game(game, agents, seed)`` plays one
full game between them on the raw engine.
"""

from __future__ import annotations

import inspect
from typing import Any

from agents.protocol import Agent, GameResult, PlayerView, play_game
from envs.core.engine import Game, shown

__all__ = ["AGENT_NAMES", "Agent", "GameResult", "PlayerView", "agent_options", "make_agent", "play_game"]

#: The names ``make_agent`` knows; ``ppo`` and ``rllib`` are written with the path of what they play.
AGENT_NAMES = ("random", "heuristic", "ismcts", "ppo:PATH", "rllib:PATH", "trained")
#: The agents that play a file: ``KIND:PATH``.
FILE_AGENTS = ("ppo", "rllib")


def _agent_class(kind: str) -> type[Agent]:
    if kind == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent
    if kind == "heuristic":
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent
    if kind == "ismcts":
        from agents.ismcts import ISMCTSAgent

        return ISMCTSAgent
    if kind in ("ppo", "trained"):
        from agents.ppo import PPOAgent

        return PPOAgent
    if kind == "rllib":
        from agents.rllib.policy import RLlibAgent

        return RLlibAgent
    raise ValueError(f"unknown agent {shown(kind)}; available: {', '.join(AGENT_NAMES)}")


def agent_options(name: str) -> list[str]:
    """The keyword options an agent accepts (besides ``game``)."""
    kind = name.split(":", 1)[0]
    params = inspect.signature(_agent_class(kind).__init__).parameters
    return [p for p in params if p not in ("self", "game", "path")]


def make_agent(name: str, game: Game | None = None, **options: Any) -> Agent:
    """Build an agent by name: ``"random"``, ``"heuristic"``, ``"ismcts"``, ``"ppo:PATH"``, ``"rllib:PATH"`` or
    ``"trained"``.

    ``options`` are the agent's keyword arguments (``seed`` for all; for
    ISMCTS ``iterations``, ``time_limit``, ``exploration``...). Unknown names
    or options raise a ValueError listing the available ones.
    """
    if not isinstance(name, str):
        raise ValueError(f"agent name must be a str, one of {', '.join(AGENT_NAMES)}; got {shown(name)}")
    kind, _, path = name.partition(":")
    if kind == "ppo" and not path:
        raise ValueError("the ppo agent is written 'ppo:PATH' with the path of a MaskablePPO model file")
    if kind == "rllib" and not path:
        raise ValueError("the rllib agent is written 'rllib:PATH' with a checkpoint of train.py --backend rllib")
    if kind not in FILE_AGENTS and path:
        raise ValueError(f"unknown agent {shown(name)}; available: {', '.join(AGENT_NAMES)}")
    cls = _agent_class(kind)
    allowed = agent_options(kind)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"unknown options {shown(unknown)} for agent {kind!r}; available: {allowed}")
    if kind in FILE_AGENTS:
        return cls(path, game=game, **options)
    if kind == "trained":
        return cls("trained", game=game, **options)
    return cls(game=game, **options)
