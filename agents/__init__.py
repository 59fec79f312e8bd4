"""Agents for the drawluck games: one protocol (see :mod:`agents.protocol`) and agents built by name.

``make_agent(name, game=..., **options)`` builds ``"random"``, ``"heuristic"``,
``"ismcts"`` (with ``network=...``: guided by a network), ``"ppo:PATH"`` (a model file),
``"rllib:PATH"`` (an RLlib checkpoint), ``"trained"`` (the model shipped for the game's configuration) or
``"best"`` (the strongest agent measured for the configuration), ``"level:N"`` (levels 1 to 5 for people,
:mod:`agents.levels`), and any of them ε-greedy as ``"NAME~EPS"``;
``play_game(game, agents, seed)`` plays one full game between them on the raw engine.
"""

from __future__ import annotations

import inspect
from typing import Any

from agents.epsilon_greedy import EPSILON_SEPARATOR
from agents.protocol import Agent, GameResult, PlayerView, play_game
from envs.core.engine import Game, shown

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "GameResult",
    "PlayerView",
    "SEARCH_AGENTS",
    "agent_kind",
    "agent_options",
    "make_agent",
    "parse_agent_options",
    "plays_model",
    "play_game",
    "split_epsilon",
]

#: The names ``make_agent`` knows; ``ppo`` and ``rllib`` are written with the path of what they play.
AGENT_NAMES = ("random", "heuristic", "ismcts", "ppo:PATH", "rllib:PATH", "trained", "best", "level:N")
#: The agents that search, for a time or a number of simulations a move (``time_limit``, ``iterations``).
SEARCH_AGENTS = ("ismcts", "best")
#: The agents that play a file: ``KIND:PATH``.
FILE_AGENTS = ("ppo", "rllib")
#: The agents that play a model file: a path's (``KIND:PATH``) or the one shipped for the configuration.
MODEL_AGENTS = (*FILE_AGENTS, "trained")
#: Every built-in name written ``KIND:REST``: the file agents and the levels (``level:3``).
PREFIXED_AGENTS = (*FILE_AGENTS, "level")
#: Any agent made ε-greedy (:mod:`agents.epsilon_greedy`): NAME's move with probability 1 - EPS, else a random one.
EPSILON_SPELLING = "NAME~EPS"


def split_epsilon(name: str) -> tuple[str, float | None]:
    """``"heuristic~0.25"`` -> ``("heuristic", 0.25)``; a plain name -> ``(name, None)``.

    EPS is the text after the last ``~``: a decimal number in [0, 1], else a ValueError. A file agent's
    path may hold a ``~`` of its own (``ppo:runs/old~1/model.zip``): there a tail that is no number is
    part of the path."""
    if not isinstance(name, str):
        raise ValueError(
            f"agent name must be a str, one of {', '.join(AGENT_NAMES)} or {EPSILON_SPELLING}; got {shown(name)}"
        )
    base, separator, text = name.rpartition(EPSILON_SEPARATOR)
    if not separator:
        return name, None
    try:
        epsilon = float(text)
    except ValueError:
        epsilon = None
    if epsilon is None and base.partition(":")[0] in FILE_AGENTS:
        return name, None  # a path with a ~ in it
    if epsilon is None or not base or not 0 <= epsilon <= 1:  # nan and inf fail the range
        raise ValueError(
            f"an ε-greedy agent is written {EPSILON_SPELLING} with NAME an agent and EPS a number in [0, 1] "
            f"(heuristic~0.25), got {shown(name)}"
        )
    return base, epsilon


def agent_kind(name: str) -> str:
    """What an agent name builds, without its path or ε: ``"ismcts~0.1"`` -> ``"ismcts"``, ``"ppo:m.zip"`` -> ``"ppo"``;
    what decides, say, whether it takes a search budget."""
    return split_epsilon(name)[0].partition(":")[0]


def plays_model(name: str) -> bool:
    """Whether the agent ``name`` plays a model file: loaded (kept built by whoever loads it) and made for
    one game configuration (its card says which)."""
    return agent_kind(name) in MODEL_AGENTS


def _agent_class(kind: str, guided: bool = False) -> type[Agent]:
    if kind == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent
    if kind == "heuristic":
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent
    if kind == "ismcts" and guided:  # ISMCTS with network=... or evaluator=...
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
        from agents.rllib_agent import RLlibAgent

        return RLlibAgent
    raise ValueError(f"unknown agent {shown(kind)}; available: {', '.join(AGENT_NAMES)} or {EPSILON_SPELLING}")


def agent_options(name: str, guided: bool = False) -> list[str]:
    """The keyword options an agent accepts (besides ``game``); ``guided``: ISMCTS's with ``network=...``
    (or ``evaluator=...``)."""
    cls = _agent_class(agent_kind(name), guided)
    params = inspect.signature(cls.__init__).parameters
    named = [p for p, param in params.items() if p not in ("self", "game", "path") and param.kind != param.VAR_KEYWORD]
    return named + list(getattr(cls, "OPTIONS", ()))  # a search's options (agents.search_options.SearchSettings)


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


def _make_level(name: str, game: Game | None, options: dict[str, Any]) -> Agent:
    """The agent of level ``level:N`` (:mod:`agents.levels`): its options are the level's, only ``seed`` is free."""
    from agents.levels import parse_level_name

    chosen = parse_level_name(name, None if game is None else game.name)
    unknown = sorted(set(options) - {"seed"})
    if unknown:
        raise ValueError(f"unknown options {shown(unknown)} for {name}: a level fixes its agent; available: ['seed']")
    agent = make_agent(chosen.agent, game, **chosen.options, **options)
    agent.name = f"level {chosen.number}"
    return agent


def make_agent(name: str, game: Game | None = None, **options: Any) -> Agent:
    """Build an agent by name: ``"random"``, ``"heuristic"``, ``"ismcts"``, ``"ppo:PATH"``, ``"rllib:PATH"``,
    ``"trained"``, ``"best"`` or ``"level:N"`` (N from 1 to 5, :mod:`agents.levels`; only ``seed`` may be given).

    ``options`` are the agent's keyword arguments (``seed`` for all; for
    ISMCTS ``iterations``, ``time_limit``, ``exploration``...; ISMCTS with
    ``network="trained" | "ppo:PATH"``, or ``evaluator=`` any :class:`agents.evaluator.Evaluator`, is the
    guided search of :mod:`agents.guided`). Unknown names
    or options raise a ValueError listing the available ones. ``"NAME~EPS"`` (``"heuristic~0.25"``) is
    NAME's agent, built with these options, made ε-greedy (:class:`agents.epsilon_greedy.EpsilonGreedy`, its
    random moves drawn from a stream of ``seed`` apart from NAME's).
    """
    base, epsilon = split_epsilon(name)
    if epsilon is not None:
        from agents.epsilon_greedy import EpsilonGreedy

        return EpsilonGreedy(make_agent(base, game, **options), epsilon, options.get("seed"), name=name)
    kind, _, path = name.partition(":")
    if kind == "level":
        return _make_level(name, game, options)
    if kind == "ppo" and not path:
        raise ValueError("the ppo agent is written 'ppo:PATH' with the path of a MaskablePPO model file")
    if kind == "rllib" and not path:
        raise ValueError("the rllib agent is written 'rllib:PATH' with a checkpoint of train.py --backend rllib")
    if kind not in FILE_AGENTS and path:
        raise ValueError(f"unknown agent {shown(name)}; available: {', '.join(AGENT_NAMES)} or {EPSILON_SPELLING}")
    guided = kind == "ismcts" and (options.get("network") is not None or options.get("evaluator") is not None)
    cls = _agent_class(kind, guided)
    allowed = agent_options(kind, guided)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        more = set(agent_options(kind, True)) - set(allowed) if kind == "ismcts" and not guided else set()
        hint = f" ({sorted(more & set(unknown))} need network=... or evaluator=...)" if more & set(unknown) else ""
        raise ValueError(f"unknown options {shown(unknown)} for agent {kind!r}{hint}; available: {allowed}")
    if kind in FILE_AGENTS:
        return cls(path, game=game, **options)
    if kind == "trained":
        return cls("trained", game=game, **options)
    return cls(game=game, **options)
