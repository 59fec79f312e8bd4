"""The opponents the page offers, listed in one place (:func:`offered_opponents`).

First the levels 1 to 5 (``agents/levels.py``), the page's default choice: each the agent of
its level with the level's options fixed (a visitor sets nothing; a searching level's thinking
time is each move's, as measured), shown with its rating where ``research/results/levels.json``
has one for the configuration (``python -m research.levels``), else with its description.
Then, the advanced choice, every agent of ``agents.AGENT_NAMES`` that needs no path under its
own name, so an agent added there appears on the page by itself; a trained model is offered
only when whoever starts the server names it (``python -m web --model NAME=PATH``). The page
never sends a path: a visitor can only pick from this list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import AGENT_NAMES, SEARCH_AGENTS, Agent, make_agent, plays_model
from agents.levels import GAME_LEVELS, LEVELS, Level
from envs.core.engine import Game, is_int, shown

#: The levels' measured ratings (written by ``python -m research.levels report``; read, never executed).
LEVEL_RATINGS = Path(__file__).resolve().parent.parent / "research" / "results" / "levels.json"

#: Thinking time a searching opponent may be given from the page, in CPU seconds per turn
#: (every sub-action of the turn together); the server's ``--max-think`` may lower the top.
TIME_LIMIT_RANGE = (0.05, 10.0)
TIME_LIMIT_DEFAULT = 1.0


@dataclass(frozen=True)
class OpponentChoice:
    """One entry of the page's opponent list: the name shown and sent, the agent built."""

    name: str
    agent: str  # the name given to ``agents.make_agent``
    help: str
    #: options the page may set, with their default: {"time_limit": 1.0} for the searchers
    options: dict[str, float] = field(default_factory=dict)
    #: "level" (the default choice) or "advanced" (agents by name)
    group: str = "advanced"
    #: what the page shows (the name when empty)
    title: str = ""
    #: options fixed for this choice (a level's), not settable from the page; time_limit at most max_think
    preset: dict[str, float] = field(default_factory=dict)
    #: measured ratings: ``{"game", "options", "rating", "low", "high", "games"}`` per configuration
    ratings: tuple[dict[str, Any], ...] = ()
    #: a level's agent and preset in the games with levels of their own (``agents.levels.GAME_LEVELS``)
    by_game: dict[str, tuple[str, dict[str, float]]] = field(default_factory=dict)

    def for_game(self, game: str | None) -> tuple[str, dict[str, float]]:
        """The agent and the preset this choice plays in the game named ``game``."""
        return self.by_game.get(game, (self.agent, self.preset))

    def check_options(
        self, options: Mapping[str, Any], max_think: float = TIME_LIMIT_RANGE[1], game: str | None = None
    ) -> dict[str, Any]:
        """``options`` with the defaults and ``game``'s preset filled in; ValueError naming a wrong one.
        ``time_limit`` is a number of seconds in ``[0.05, max_think]``."""
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ValueError(f"opponent {self.name!r} has no options {unknown}; its options: {sorted(self.options)}")
        values = {**self.options, **options}
        if "time_limit" in values:
            low, high = TIME_LIMIT_RANGE[0], max_think
            limit = options["time_limit"] if "time_limit" in options else min(self.options["time_limit"], high)
            if not (isinstance(limit, float) or is_int(limit)) or not low <= limit <= high:
                raise ValueError(f"time_limit must be a number of seconds in [{low}, {high}], got {shown(limit)}")
            values["time_limit"] = float(limit)
        preset = dict(self.for_game(game)[1])
        if "time_limit" in preset:
            preset["time_limit"] = float(min(preset["time_limit"], max_think))
        return {**preset, **values}

    def listing(self, max_think: float) -> dict[str, Any]:
        """The choice as the catalog lists it: the options a visitor may set (with their defaults) and
        what the page shows."""
        settable = {key: value for key, value in self.check_options({}, max_think).items() if key in self.options}
        entry = {"name": self.name, "help": self.help, "options": settable, "group": self.group}
        return entry | {"title": self.title or self.name, "ratings": list(self.ratings)}

    @property
    def plays_a_model(self) -> bool:
        """Whether this opponent is a trained model (made for one game configuration)."""
        return plays_model(self.agent)

    def check_game(self, game: Game) -> None:
        """ValueError unless this opponent can play ``game``'s configuration (a trained model is
        made for one): read from the model's card, without loading the model."""
        if not self.plays_a_model:
            return
        from agents.models.card import check_card
        from agents.models.files import read_card, shipped_model_path

        if self.agent == "trained":
            shipped_model_path(game)
        else:
            path = self.agent.removeprefix("ppo:")
            check_card(read_card(path), game, f"model {self.name!r} ({Path(path).name})")


_HELP = {
    "random": "plays a legal move at random",
    "heuristic": "the game's hand-written strategy",
    "ismcts": "information-set Monte Carlo tree search, with a thinking time per turn",
    "trained": "the model trained and shipped for this configuration (refused where none is shipped)",
    "best": "the strongest agent measured for this configuration (a search), with a thinking time per turn",
}


def level_ratings(path: Path = LEVEL_RATINGS) -> dict[str, list[dict[str, Any]]]:
    """``level:N`` -> the level's measured ratings, one per configuration measured (none when the
    file is absent: the page then shows each level's description)."""
    if not path.is_file():
        return {}
    found: dict[str, list[dict[str, Any]]] = {}
    try:
        for entry in json.loads(path.read_text()).values():
            for name, rating in entry["levels"].items():
                found.setdefault(name, []).append({"game": entry["game"], "options": entry["options"], **rating})
    except (ValueError, KeyError, AttributeError, TypeError) as error:
        raise ValueError(f"{path} is not the levels' ratings of python -m research.levels report ({error!r})") from None
    return found


def level_choices(ratings: Mapping[str, list[dict[str, Any]]]) -> dict[str, OpponentChoice]:
    """The levels, by their ``make_agent`` name (``level:3``): each its level's agent and options."""
    choices = {}
    for lv in LEVELS.values():
        own = {game: levels[lv.number] for game, levels in GAME_LEVELS.items() if lv.number in levels}
        title = f"Level {lv.number} · {lv.title}"
        help = _level_help(lv) + "".join(f"; in {game}: {_level_help(other)}" for game, other in own.items())
        rated = tuple(ratings.get(lv.name, ()))
        by_game = {game: (other.agent, other.options) for game, other in own.items()}
        choices[lv.name] = OpponentChoice(lv.name, lv.agent, help, group="level", title=title, preset=lv.options,
                                          ratings=rated, by_game=by_game)  # fmt: skip
    return choices


def _level_help(lv: Level) -> str:
    return f"{lv.help} ({lv.agent}{''.join(f', {k}={v}' for k, v in lv.options.items())})"


def offered_opponents(
    models: Mapping[str, str] | None = None, ratings: Mapping[str, list[dict[str, Any]]] | None = None
) -> dict[str, OpponentChoice]:
    """The opponents the page offers, by name: the levels (with ``ratings``, by default the measured
    ones), then the agents of ``agents.AGENT_NAMES`` written without a path, then each ``models`` entry
    ``NAME -> PATH`` as the trained model ``ppo:PATH``."""
    choices = level_choices(level_ratings() if ratings is None else ratings)
    for name in AGENT_NAMES:
        if ":" in name:  # a template such as ppo:PATH: offered only through models
            continue
        options = {"time_limit": TIME_LIMIT_DEFAULT} if name in SEARCH_AGENTS else {}
        choices[name] = OpponentChoice(name, name, _HELP.get(name, f"the {name} agent"), options)
    for name, path in (models or {}).items():
        if name in choices:
            raise ValueError(f"model name {name!r} is taken by an agent; taken names: {sorted(choices)}")
        choices[name] = OpponentChoice(name, f"ppo:{path}", f"a trained model ({Path(path).name})")
    return choices


def build_agent(agent: str, game: Game, options: Mapping[str, Any]) -> Agent:
    """The agent named ``agent`` (an :attr:`OpponentChoice.agent`) for ``game``, with checked options: built
    by the players' own registry (``agents.make_agent``), as every opponent is; the page adds no player."""
    return make_agent(agent, game, **options)


def parse_model(text: str) -> tuple[str, str]:
    """``--model NAME=PATH``: the name the page shows and the path of a MaskablePPO model file."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise ValueError(
            f"--model must be NAME=PATH (a name for the page, the path of a MaskablePPO model), got {text!r}"
        )
    if not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"--model NAME must be letters, digits, - or _, got {name!r}")
    candidates = [Path(path)] if path.endswith(".zip") else [Path(path), Path(path + ".zip")]
    if not any(candidate.is_file() for candidate in candidates):
        raise ValueError(f"--model {name}: no model file at {path!r}")
    return name, path
