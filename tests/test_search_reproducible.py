"""The searches' first moves of a few seeded games, pinned: with a budget in iterations a search is reproducible
from its seed, so a change of how the search is organised (issue 52: its options in one settings object, its
rollouts an evaluator) must not change a single move. The moves were recorded before that change. A change
meant to alter the search changes them on purpose: record them again and say why in its commit."""

from __future__ import annotations

import pytest

from agents import make_agent, play_game
from envs.games import make_game

#: (game, configuration, agent, options): the first six moves of the game with seed 1, every seat that agent
#: (seeded 10 + seat).
PINNED = [
    ("wakanda", {}, "ismcts", {"iterations": 60}, [26, 8, 18, 36, 27, 26]),
    ("wakanda", {}, "ismcts", {"iterations": 60, "rollout": "random", "widening": None}, [25, 6, 36, 33, 27, 27]),
    ("samurai", {"num_players": 3}, "ismcts", {"iterations": 30, "rollout_depth": 2}, [11, 73, 13, 124, 11, 104]),
    ("wapi", {"num_players": 4}, "ismcts", {"iterations": 80}, [5, 7, 3, 0, 1, 0]),
    (
        "wapi",
        {"num_players": 3},
        "ismcts",
        {"iterations": 50, "paired_root": False, "tree_depth": None},
        [5, 7, 0, 4, 5, 3],
    ),
    ("wakanda", {}, "ismcts", {"iterations": 40, "network": "trained"}, [24, 8, 20, 30, 24, 36]),
    (
        "wakanda",
        {},
        "ismcts",
        {"iterations": 40, "network": "trained", "value_mix": 0.5, "keep_tree": False},
        [24, 8, 20, 30, 24, 36],
    ),
    ("samurai", {"num_players": 3}, "ismcts", {"iterations": 30, "evaluator": "heuristic"}, [2, 73, 8, 187, 13, 164]),
    (
        "wapi",
        {"num_players": 4},
        "ismcts",
        {"iterations": 30, "evaluator": "heuristic", "value_mix": 1.0},
        [0, 6, 1, 1, 1, 1],
    ),
    ("samurai", {"num_players": 2}, "best", {"iterations": 30}, [11, 104, 11, 73, 13, 134]),
]


class _Enough(Exception):
    """Raised to end a game once its first moves are recorded."""


class _Recorded:
    """Plays as ``inner``, recording every move into ``moves`` until it holds ``count``."""

    name = "recorded"

    def __init__(self, inner, moves: list[int], count: int):
        self.inner, self.moves, self.count = inner, moves, count

    def reset(self) -> None:
        self.inner.reset()

    def act(self, view) -> int:
        if len(self.moves) >= self.count:
            raise _Enough
        action = int(self.inner.act(view))
        self.moves.append(action)
        return action


@pytest.mark.parametrize("name,config,agent,options,expected", PINNED)
def test_a_seeded_search_plays_the_moves_it_always_played(name, config, agent, options, expected):
    game = make_game(name, **config)
    moves: list[int] = []
    seats = [
        _Recorded(make_agent(agent, game, seed=10 + p, **options), moves, len(expected))
        for p in range(game.num_players)
    ]
    with pytest.raises(_Enough):
        play_game(game, seats, seed=1)
    assert moves == expected
