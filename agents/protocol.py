"""The agent protocol: what an agent may see, and how a game is played between agents.

An agent is any object with ``act(view) -> int`` (subclass :class:`Agent`).
``view`` is a :class:`PlayerView` that the framework builds for the player
to act, and it is the agent's only window on the game:

- ``view.player``: the agent's seat; ``view.game``: the game's fixed
  configuration (``num_players``, ``num_actions``, ``name``, ``config()``);
- ``view.observation``: the player's observation vector (float32, as the
  PettingZoo environment gives it); ``view.legal_mask`` / ``view.legal_actions``;
- ``view.describe_action(a)``: the action in words;
- ``view.sample_determinization(rng)``: a full :class:`GameState` drawn from
  the engine's ``determinize(player, rng)``: everything the player cannot
  see (other hands, the order of every bag or pile, face-down tiles)
  re-sampled consistently with what the player knows. It is a fresh copy
  each time: search agents may play it out as they like.

Why an agent that keeps to its view cannot cheat: the view never holds the true
state (code in this process could still walk the stack up to :func:`play_game`;
a user's rated agent therefore plays sealed, :mod:`benchmarks.core.sealed`). When
the framework builds a view it immediately replaces the true state by one
determinized copy drawn with the framework's own generator, and keeps only
that copy; every sample the agent asks for is re-determinized from it. No
attribute, closure or method of the view leads back to the true hidden
information. (Engines must
make ``determinize`` re-sample *everything* hidden from that player; for
reproducible play they should also make its result depend only on what the
player knows and on ``rng`` -- the anti-cheat tests check both.)

:func:`play_game` plays one full game on the raw engine and returns the
scores, winners and rewards; benchmarks, tournaments and tests use it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.engine import Game, GameState, IllegalActionError, shown


class PlayerView:
    """What the player to act may see: built by the framework, never holding the true state."""

    __slots__ = ("player", "game", "legal_actions", "_snapshot", "_observation", "_mask")

    def __init__(self, state: GameState, rng: np.random.Generator):
        if state.current_player is None:
            raise ValueError("a PlayerView needs a state with a player to act; the game is over")
        self.player: int = state.current_player
        self.game: Game = state.game
        self.legal_actions: tuple[int, ...] = tuple(state.legal_actions())
        # The only state the view keeps: a determinized copy (hidden facts re-drawn).
        self._snapshot: GameState = state.determinize(self.player, rng)
        self._observation: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    @property
    def observation(self) -> np.ndarray:
        """The player's observation vector (a fresh copy on each access would cost; do not modify)."""
        if self._observation is None:
            self._observation = self._snapshot.observation(self.player)
        return self._observation

    @property
    def legal_mask(self) -> np.ndarray:
        """The legal actions as an int8 vector of length ``game.num_actions``."""
        if self._mask is None:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
            mask[list(self.legal_actions)] = 1
            self._mask = mask
        return self._mask

    def describe_action(self, action: int) -> str:
        """``action`` in words, in this position."""
        return self._snapshot.describe_action(int(action))

    def sample_determinization(self, rng: np.random.Generator) -> GameState:
        """A full game state consistent with everything this player knows (a fresh copy)."""
        return self._snapshot.determinize(self.player, rng)

    def sample_determinizations(self, rng: np.random.Generator, count: int, draw: Callable | None = None) -> Any:
        """``count`` determinizations, as ``count`` calls of :meth:`sample_determinization` draw them: a list, or
        what ``draw(state, player, rng, count)`` makes of them at once with the same draws of ``rng`` (a batch
        engine's ``determinizations``, where it has one: a search's samples without a copy of each)."""
        if draw is None:
            return [self.sample_determinization(rng) for _ in range(count)]
        return draw(self._snapshot, self.player, rng, count)


class Agent(ABC):
    """Base class of agents: override :meth:`act`; :meth:`reset` is called before each game."""

    #: A short name for tables and logs.
    name: str = "agent"

    def reset(self) -> None:
        """Forget anything kept from a previous game (search trees, caches). Default: nothing."""

    @abstractmethod
    def act(self, view: PlayerView) -> int:
        """Return one of ``view.legal_actions``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


@dataclass
class GameResult:
    """The outcome of one game played by :func:`play_game`."""

    scores: list[float]
    winners: list[int]
    rewards: list[float]
    moves: int
    actions: list[tuple[int, int]] = field(default_factory=list)  # (player, action), in order


def start_game(game: Game, seed: int | None, options: dict | None = None) -> tuple[GameState, np.random.Generator]:
    """The state :func:`play_game` deals from ``seed``, and the generator that determinizes its views: two
    streams of the one seed, so that a game's seed alone deals it again (a record's replay, a batch of games)."""
    game_seq, view_seq = np.random.SeedSequence(seed).spawn(2)
    return game.new_state(np.random.default_rng(game_seq), options), np.random.default_rng(view_seq)


def play_game(
    game: Game,
    agents: Sequence[Agent],
    seed: int | None = None,
    *,
    options: dict | None = None,
    reward: str = "win",
    on_start: Callable[[GameState], None] | None = None,
    on_move: Callable[[GameState, int, int, str], None] | None = None,
    record: bool = False,
) -> GameResult:
    """Play one full game of ``game`` between ``agents`` (one per seat, seat order).

    ``seed`` fixes the deal (through ``game.new_state``) and the framework's
    determinizations; the agents keep their own seeds. ``on_move(state,
    player, action, description)`` is called after each move with the true
    state and the move in words (for displays and logs, never for agents);
    ``on_start(state)`` once before the first move. An agent returning an illegal
    action raises IllegalActionError naming it.
    """
    if len(agents) != game.num_players:
        raise ValueError(f"agents must hold one agent per player: {game.num_players} needed, got {len(agents)}")
    state, view_rng = start_game(game, seed, options)
    for agent in agents:
        agent.reset()
    moves, actions = 0, []
    if on_start is not None:
        on_start(state)
    while state.current_player is not None:
        player = state.current_player
        view = PlayerView(state, view_rng)
        action = agents[player].act(view)
        if action not in view.legal_actions:
            raise IllegalActionError(
                f"{agents[player]!r} in seat {player} chose action {shown(action)}, "
                f"not one of {list(view.legal_actions)}"
            )
        description = view.describe_action(action) if on_move is not None else ""
        state.apply(int(action))
        moves += 1
        if record:
            actions.append((player, int(action)))
        if on_move is not None:
            on_move(state, player, int(action), description)
    return GameResult(state.scores(), state.winners(), state.rewards(reward), moves, actions)
