"""A two-move game whose luck and skill are known by hand, for the review's tests (``test_review.py``).

The duel: a bag of numbered tiles is shuffled (hidden from both). Player 0 chooses: SAFE scores ``safe`` at
once, GAMBLE scores the tile drawn from the bag. Player 1 then draws (its one move) and scores that tile. The
higher score wins; equal scores share the win. With the bag 1, 2, 3, 4 and ``safe`` 2, player 0's value is
3/8 after SAFE (player 1 beats 2 with a 3 or a 4, ties with the 2) and 1/2 after GAMBLE (a tile x then wins
against the three others with chance (x - 1)/3, a mean of 1/2): SAFE loses exactly 1/8. A GAMBLE that draws
x is worth (x - 1)/3 - 1/2 of luck to player 0.

:class:`ExactValues` values its positions exactly, under best play (expectimax over the chance protocol
itself, :mod:`envs.core.chance`): with it a review's residual is 0 and every term is the hand's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.review_values import expected_action_values, state_result
from envs.core import chance
from envs.core.engine import Game, GameState

SAFE, GAMBLE = 0, 1
DRAW = GAMBLE  # player 1's one move


class DuelState(GameState):
    def __init__(self, game: DuelGame, bag: list[int]):
        self.game, self.bag = game, list(bag)
        self.score: list[int | None] = [None, None]
        self.current_player: int | None = 0

    def _compute_legal(self) -> tuple[int, ...]:
        return () if self.current_player is None else (SAFE, GAMBLE) if self.current_player == 0 else (DRAW,)

    def _play(self, action: int) -> None:
        player = self.current_player
        self.score[player] = self.game.safe if action == SAFE else self.bag.pop(0)
        self.current_player = 1 if player == 0 else None

    def scores(self) -> list[float]:
        return [float(s or 0) for s in self.score]

    def winners(self) -> list[int]:
        if self.current_player is not None:
            return []
        best = max(self.score)
        return [p for p in (0, 1) if self.score[p] == best]

    def clone(self) -> DuelState:
        other = DuelState(self.game, self.bag)
        other.score, other.current_player = self.score[:], self.current_player
        return other

    def determinize(self, player: int, rng: np.random.Generator) -> DuelState:
        return chance.reshuffled(self, rng)

    def describe_action(self, action: int) -> str:
        return "draw" if self.current_player == 1 else ("gamble" if action == GAMBLE else f"take {self.game.safe}")

    def hidden_orders(self) -> list[list[int]]:
        return [self.bag[:]]

    def set_hidden_orders(self, orders: list[list[int]]) -> None:
        self.bag = list(orders[0])

    def drawer(self, order: int) -> int | None:
        return self.current_player

    def describe_draw(self, order: int, items: tuple[int, ...]) -> str:
        return f"drew {items[0]}"


class DuelGame(Game):
    name = "duel"
    num_actions = 2
    num_players = 2
    observation_size = 1

    def __init__(self, tiles: tuple[int, ...] = (1, 2, 3, 4), safe: int = 2):
        self.tiles, self.safe = tuple(tiles), safe

    def config(self) -> dict[str, Any]:
        return {"tiles": list(self.tiles), "safe": self.safe}

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> DuelState:
        return DuelState(self, [self.tiles[i] for i in rng.permutation(len(self.tiles))])


class ExactValues:
    """Every player's exact value under best play: the mover's best action's value, each action's the
    expectation over its draw's outcomes (or the position after it)."""

    name = "exact"

    def __init__(self, outcome: str = "win"):
        self.outcome = outcome

    def value(self, state: GameState) -> np.ndarray:
        if state.current_player is None:
            return state_result(state, self.outcome)
        q = self.action_values(state, state.legal_tuple(), 0)
        return q[int(np.argmax(q[:, state.current_player]))]

    def values(self, states, seed: int) -> np.ndarray:
        return np.array([self.value(state) for state in states])

    def action_values(self, state, actions, seed: int) -> np.ndarray:
        return expected_action_values(self, state, actions, seed, max_outcomes=10**6)


def gambler(probability: float):
    """Player 0's strategy: GAMBLE with ``probability`` (drawn from ``rnd``), else SAFE; player 1 draws."""

    def policy(state: GameState, rnd: np.random.Generator) -> int:
        if state.current_player == 1:
            return DRAW
        return GAMBLE if rnd.random() < probability else SAFE

    return policy


def play_duel(game: DuelGame, seed: int, probability: float) -> list[int]:
    """One duel dealt by ``seed`` (as ``play_game`` deals it) and played by :func:`gambler`: its moves."""
    from agents.protocol import start_game

    state, _ = start_game(game, seed)
    rnd, policy, moves = np.random.default_rng([seed, 7]), gambler(probability), []
    while state.current_player is not None:
        moves.append(policy(state, rnd))
        state.apply(moves[-1])
    return moves
