"""Levels 1 to 5: opponents a person can choose without knowing the agents, ``make_agent("level:N", game)``.

Each level is an agent of the registry with fixed options. The common levels
(``research/results/levels.md`` has what was measured):

1. the heuristic playing a random legal move half the time: a beginner that still plays
   the game's ideas, and often throws a move away;
2. the heuristic with one random move in five;
3. the heuristic itself (the game's hand-written strategy);
4. the best agent (``agents.best``) with a fifth of its thinking time, 0.1 CPU s a move;
5. the best agent at the budget its strength was measured at, 0.5 CPU s a move.

Where two common levels measured no different in a game, the game has levels of its own in
their place (:data:`GAME_LEVELS`, with the experiment that chose them); :func:`levels_of` gives
a game's five.

Why these rungs: ε-greedy mixing (``agents.epsilon_greedy``) orders the lower levels by
construction and costs nothing, and the best agent's thinking time orders the upper ones.
A search's ``time_limit`` counts CPU seconds of one move (one sub-action: a Samurai turn has
up to about six), so every move stays well under 2 s.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from envs.core.engine import is_int, shown

#: How a level is written for ``make_agent``: ``level:N``.
LEVEL_PREFIX = "level"


@dataclass(frozen=True)
class Level:
    """One level: its number, a word for people, the agent it is (a ``make_agent`` name and options)."""

    number: int
    title: str
    agent: str
    options: dict[str, Any] = field(default_factory=dict)
    help: str = ""

    @property
    def name(self) -> str:
        """``level:N``, the name ``make_agent`` builds it by."""
        return f"{LEVEL_PREFIX}:{self.number}"

    @property
    def seconds(self) -> float | None:
        """CPU seconds a move the level thinks (None: it does not search)."""
        return self.options.get("time_limit")


LEVELS = {
    1: Level(1, "beginner", "heuristic~0.5", help="knows the game's ideas, but half its moves are random"),
    2: Level(2, "casual", "heuristic~0.2", help="the hand-written strategy, with one random move in five"),
    3: Level(3, "club", "heuristic", help="the game's hand-written strategy, every move"),
    4: Level(4, "strong", "best", {"time_limit": 0.1}, "the strongest search, thinking 0.1 s a move"),
    5: Level(5, "expert", "best", {"time_limit": 0.5}, "the strongest agent, thinking 0.5 s a move"),
}


#: A game's own levels, where two common levels measured no different. Wakanda's heuristic
#: hardly suffers one random move in five (level 3 measured no different from level 2 on test
#: deals), while a search of 0.01 s beats it clearly: there level 2 is the heuristic and level 3 a
#: short search (docs/experiments/010-wakanda-levels.md). In Wapi no search was shown stronger
#: than the heuristic and more thinking bought nothing (flat thinking-time curves), so the common
#: levels 3 to 5 played at one strength: there the heuristic with fewer and fewer random moves
#: makes levels 1 to 4, and level 5 is the best agent at 0.1 s a move, the mixes chosen on the
#: tuning deals (docs/experiments/015-wapi-levels.md).
GAME_LEVELS = {
    "wapi": {
        2: Level(2, "casual", "heuristic~0.3", help="the hand-written strategy, with three random moves in ten"),
        3: Level(3, "club", "heuristic~0.15", help="the hand-written strategy, with about one random move in seven"),
        4: replace(LEVELS[3], number=4, title="strong"),
        5: Level(5, "expert", "best", {"time_limit": 0.1}, "the strongest agent, thinking 0.1 s a move"),
    },
    "wakanda": {
        2: replace(LEVELS[3], number=2, title="casual"),
        3: Level(3, "club", "best", {"time_limit": 0.01}, "the strongest search, thinking 0.01 s a move"),
    },
}


def levels_of(game: str | None) -> dict[int, Level]:
    """The five levels of the game named ``game`` (the common ones for None): its own in their place."""
    return {**LEVELS, **GAME_LEVELS.get(game, {})}


def level(number: Any, game: str | None = None) -> Level:
    """The level ``number`` (an int from 1 to 5, not a bool, float or str) of ``game``; ValueError naming the
    allowed ones."""
    if not is_int(number) or int(number) not in LEVELS:
        raise ValueError(f"level must be an int, one of {list(LEVELS)}; got {shown(number)}")
    return levels_of(game)[int(number)]


def parse_level_name(name: str, game: str | None = None) -> Level:
    """The level of ``game`` a name ``level:N`` means (``N`` written as plain digits); ValueError naming the
    allowed names."""
    prefix, _, text = name.partition(":")
    if prefix != LEVEL_PREFIX or not (text.isascii() and text.isdigit()) or int(text) not in LEVELS:
        allowed = ", ".join(lv.name for lv in LEVELS.values())
        raise ValueError(f"a level is written level:N with N one of {list(LEVELS)} ({allowed}); got {shown(name)}")
    return levels_of(game)[int(text)]
