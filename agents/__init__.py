"""Agents for the drawluck games: one protocol (see :mod:`agents.protocol`) and agents built by name.

``make_agent(name, game=..., **options)`` builds ``"random"``, ``"heuristic"``,
``"ismcts"`` (with ``network=...``: guided by a network), ``"ppo:PATH"`` (a model file),
``"rllib:PATH"`` (an RLlib checkpoint), ``"trained"`` (the model shipped for the game's configuration) or
``"best"`` (the strongest agent measured for the configuration); ``play_game(game, agents, seed)`` plays one
full game between them on the raw engine.
"""

from __future__ import annotations

import inspect
from typing import Any

from agents.protocol import Agent, GameResult, PlayerView, play_game
from envs.core.engine import Game, shown

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "GameResult",
    "PlayerView",
    "SEARCH_AGENTS",
    "agent_options",
    "make_agent",
    "parse_agent_options",
    "play_game",
]

#: The names ``make_agent`` knows; ``ppo`` and ``rllib`` are written with the path of what they play.
AGENT_NAMES = ("random", "heuristic", "ismcts", "ppo:PATH", "rllib:PATH", "trained", "best")
#: The agents that search, for a time or a number of simulations a move (``time_limit``, ``iterations``).
SEARCH_AGENTS = ("ismcts", "best")
#: The agents that play a file: ``KIND:PATH``.
FILE_AGENTS = ("ppo", "rllib")


def _agent_class(kind: str, guided: bool = False) -> type[Agent]:
    if kind == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent
    if kind == "heuristic":
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent
    if kind == "ismcts" and guided:  # ISMCTS with network=...
        from agents.guided import GuidedISMCTSAgent

        return GuidedISMCTSAgent
    if kind == "ismcts":
        from agents.ismcts import ISMCTSAgent

        return ISMCTSAgent
    if kind == "best":
        from agents.best import BestAgent

        return BestAgent
    if kind in ("ppo", "trained"):
        from agents.ppo import PPOAgent

        return PPOAgent
    if kind == "rllib":
        from agents.rllib.policy import RLlibAgent

        return RLlibAgent
    raise ValueError(f"unknown agent {shown(kind)}; available: {', '.join(AGENT_NAMES)}")


def agent_options(name: str, guided: bool = False) -> list[str]:
    """The keyword options an agent accepts (besides ``game``); ``guided``: ISMCTS's with ``network=...``."""
    kind = name.split(":", 1)[0]
    params = inspect.signature(_agent_class(kind, guided).__init__).parameters
    return [p for p in params if p not in ("self", "game", "path")]


def parse_agent_options(pairs: list[str], flag: str) -> dict[str, Any]:
    """Agent options written on a command line (``flag`` names the option in messages):
    ``["rollout_depth=2", "widening=None", "rollout=random"]`` -> ``{"rollout_depth": 2, "widening": None,
    "rollout": "random"}``: values are Python literals, a bare word a string. The agent checks names
    and values; a pair without ``=`` is a ValueError here."""
    import ast

    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} takes KEY=VALUE, got {shown(pair)}")
        try:
            options[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            options[key] = value  # a bare word: a string option such as rollout=random
    return options


def make_agent(name: str, game: Game | None = None, **options: Any) -> Agent:
    """Build an agent by name: ``"random"``, ``"heuristic"``, ``"ismcts"``, ``"ppo:PATH"``, ``"rllib:PATH"``,
    ``"trained"`` or ``"best"``.

    ``options`` are the agent's keyword arguments (``seed`` for all; for
    ISMCTS ``iterations``, ``time_limit``, ``exploration``...; ISMCTS with
    ``network="trained" | "ppo:PATH"`` is the guided search of :mod:`agents.guided`). Unknown names
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
    guided = kind == "ismcts" and options.get("network") is not None
    cls = _agent_class(kind, guided)
    allowed = agent_options(kind, guided)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        more = set(agent_options(kind, True)) - set(allowed) if kind == "ismcts" and not guided else set()
        hint = f" ({sorted(more & set(unknown))} need network=...)" if more & set(unknown) else ""
        raise ValueError(f"unknown options {shown(unknown)} for agent {kind!r}{hint}; available: {allowed}")
    if kind in FILE_AGENTS:
        return cls(path, game=game, **options)
    if kind == "trained":
        return cls("trained", game=game, **options)
    return cls(game=game, **options)
