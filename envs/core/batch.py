"""The batch protocol: N games of one configuration stepped together, for every game.

Why: search rollouts, training and studies play millions of games, and a compiled step of a thousand games
costs about what a few dozen Python turns do. Each game's fast engine (``envs/<game>/batch.py``) implements
:class:`BatchGames` over arrays; :class:`StateBatch` implements the same protocol over a list of per-game
states: the reference the fast engines are tested against, and the batch of a game without a fast engine.

The contract, the same for every implementation:

- Game ``i`` of a batch made with seed ``s`` is the per-game engine's game with seed
  ``s + i`` (the deal ``env().reset(seed=s + i)`` draws); when it ends and is reset in
  place (:meth:`BatchGames.reset_done`), its next game has seed ``s + i + N``, then
  ``s + i + 2N`` and so on (``seeds`` holds each game's).
- Every game has its own player to act (``current_player``), so games that end at
  different steps and games of different lengths mix freely.
- :meth:`observe` is exactly what ``env()`` shows that player (the same float32 vector),
  :meth:`legal_mask` exactly the per-game state's mask.
- :meth:`step` checks every action first: one illegal action raises
  :class:`~envs.core.engine.IllegalActionError` naming the game, and changes no game.
- :meth:`BatchGames.from_states` makes a batch of given positions (a search's determinizations);
  such a batch has no seeds (``seeds`` all -1), so it plays its games out but cannot deal new ones.
- A finished game stays finished (``terminated``, ``current_player`` -1, an all-zero mask)
  until :meth:`reset_done` starts its next game.
- :meth:`BatchGames.step_where` plays only some games and the others wait (a learner's
  games while its opponents move): engines override it; the same checks as :meth:`step`.
- :meth:`BatchGames.deal` starts given games afresh from given seeds (a caller's own dealing
  scheme: training's dealer draws each slot's next seed); ``reset_done`` goes on from those seeds.

:func:`batch_games` gives a game's fast engine (``BATCH_CLASS`` of ``envs/<game>/batch.py``)
where it has one, else :class:`StateBatch`.
"""

from __future__ import annotations

import importlib
import importlib.util
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np
from gymnasium.utils import seeding

from envs.core.batch_args import check_batch_args, check_draws, check_where
from envs.core.dealing import DealsAhead
from envs.core.engine import Game, GameState, IllegalActionError, check_choice, shown
from envs.core.seeding import seeded
from envs.core.uniform import kth_legal

#: ``current_player`` of a game that is over.
NO_PLAYER = -1


def new_game(game: Game, seed: int) -> GameState:
    """The game ``env().reset(seed=seed)`` deals."""
    rng, _ = seeding.np_random(seed)
    return game.new_state(rng)


def new_games(game: Game, seeds: Sequence[int]) -> list[GameState]:
    """``new_game`` for each seed, its generators set by :func:`envs.core.seeding.seeded` (several times
    faster for many seeds): how every batch deals."""
    return [game.new_state(rng) for rng in seeded([int(seed) for seed in seeds])]


class BatchGames(ABC):
    """N games of one configuration; see the module docstring for the contract."""

    game: Game
    #: ``(N,)`` int64: the seed of each game's current deal.
    seeds: np.ndarray

    def __init__(self, game: Game, num_games: int, seed: int):
        check_batch_args(num_games, seed)
        self.game = game
        self.num_games = num_games
        self.seeds = seed + np.arange(num_games, dtype=np.int64)
        self._ahead: DealsAhead | None = None  # the next deals, made ahead (an array engine's, _deal_next)

    def __len__(self) -> int:
        return self.num_games

    @classmethod
    @abstractmethod
    def from_states(cls, states: list[GameState]) -> BatchGames:
        """A batch of these positions (of one game configuration; copied, never changed), without seeds."""

    @classmethod
    def _unseeded(cls, states: Sequence[GameState], state_type: type) -> BatchGames:
        """The start of every engine's :meth:`from_states`: ``states`` checked (a non-empty list of
        ``state_type`` of one configuration) and an object of this class for them with no seeds and no
        arrays yet."""
        if not isinstance(states, Sequence) or not states or not all(isinstance(s, state_type) for s in states):
            raise ValueError(f"states must be a non-empty list of {state_type.__name__}s, got {shown(states)}")
        game = states[0].game
        if any(s.game is not game and s.game.config() != game.config() for s in states):
            raise ValueError(f"states must all be of one configuration, {game.config()}")
        batch = cls.__new__(cls)
        BatchGames.__init__(batch, game, len(states), 0)
        batch.seeds[:] = -1
        return batch

    @classmethod
    def _loaded(cls, states: Sequence[GameState], state_type: type) -> BatchGames:
        """:meth:`from_states` of an engine whose arrays are made by ``_allocate(n)`` and filled from
        per-game states by ``_load(rows, states)``: :meth:`_unseeded`, then those two."""
        batch = cls._unseeded(states, state_type)
        batch._allocate(len(states))
        batch._load(np.arange(len(states)), states)
        return batch

    @property
    @abstractmethod
    def current_player(self) -> np.ndarray:
        """``(N,)`` int64: the player to act in each game, :data:`NO_PLAYER` where it is over."""

    @property
    def terminated(self) -> np.ndarray:
        """``(N,)`` bool: the games that are over (and not yet reset)."""
        return self.current_player == NO_PLAYER

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """``(N, num_actions)`` bool: each game's legal actions (all False where it is over)."""

    def legal_mask_where(self, where: np.ndarray) -> np.ndarray:
        """``legal_mask()`` in the games ``where`` (a ``(N,)`` bool), all False in the others: an engine whose
        mask costs per game computes only those (an opponents' pass moves some of the games)."""
        return self.legal_mask() & where[:, None]

    @abstractmethod
    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        """``(N, observation_size)`` float32: game i as ``players[i]`` sees it (default: the player
        to act; a finished game is observed by seat 0 unless told)."""

    def observe_rows(self, rows: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        """``observe(players)[rows]``: the games ``rows`` alone (an engine whose cost is per game computes
        only those)."""
        return self.observe(players)[rows]

    @abstractmethod
    def step(self, actions: np.ndarray) -> None:
        """Play ``actions[i]`` in every game still going (ignored where a game is over)."""

    def step_where(self, actions: np.ndarray, where: np.ndarray) -> None:
        """Play ``actions[i]`` only in the games where ``where[i]`` (a ``(N,)`` bool) and the game is still
        going; the other games wait, their entries ignored. Checked as :meth:`step` (nothing changes on an
        illegal action). An engine that cannot yet says so: the single-agent vector env needs it."""
        raise NotImplementedError(
            f"{type(self).__name__} cannot play some of its games while the others wait: it needs step_where"
        )

    def play_kth_legal(self, where: np.ndarray, draws: np.ndarray) -> None:
        """Play in each game of ``where`` still going its k-th legal action, k = floor(``draws[i]`` * its count of
        legal actions) (:func:`~envs.core.uniform.kth_legal`: random opponents' moves). Why a method: an engine may
        choose and play in one compiled loop, with no ``(N, num_actions)`` mask and no second check (Samurai's
        does); this default is the mask, the choice and :meth:`step_where`."""
        draws = check_draws(draws, self.num_games)
        mask = np.ascontiguousarray(self.legal_mask_where(check_where(where, self.num_games)), dtype=bool)
        self.step_where(kth_legal(mask, draws), where)

    def play_random_opponents(self, seats: np.ndarray, rng: np.random.Generator) -> None:
        """Random moves (:meth:`play_kth_legal`, with ``rng.random(N)``'s draws: one a game a pass) in every game
        whose player to act is not its seat in ``seats``, pass after pass, until each game not over is at its
        seat: the vector env's random opponents, the same moves as :func:`~envs.core.opponents.random_moves`
        asked pass by pass. Why a method: an engine may run all passes in one compiled call (Samurai's: 15 a
        learner step; numba draws from the same generator, in the same order)."""
        while True:
            players = self.current_player
            waiting = (players != NO_PLAYER) & (players != seats)
            if not waiting.any():
                return
            self.play_kth_legal(waiting, rng.random(self.num_games))

    @abstractmethod
    def scores(self) -> np.ndarray:
        """``(N, num_players)`` float64: each player's score (final in the games that are over)."""

    @abstractmethod
    def winners(self) -> np.ndarray:
        """``(N, num_players)`` bool: the winners of each finished game (all False while playing)."""

    def _deals(self, seeds: np.ndarray) -> tuple[np.ndarray, ...]:
        """The deals of ``seeds`` as arrays whose first axis is the seed (``envs.core.dealing.Dealer``): an array
        engine's vectorised deal, written into its games by :meth:`_start`."""
        raise NotImplementedError(f"{type(self).__name__} deals by its own _deal")

    def _start(self, rows: np.ndarray, *deals: np.ndarray) -> None:
        """Start the games ``rows`` from their deals (:meth:`_deals`' arrays, one row per game)."""
        raise NotImplementedError(f"{type(self).__name__} deals by its own _deal")

    def _deal(self, where: np.ndarray) -> None:
        """Start the games at indices ``where`` afresh from their ``seeds``: an array engine's deals
        (:meth:`_deals`) written into those games (:meth:`_start`); an engine of another kind overrides it."""
        self._start(where, *self._deals(self.seeds[where]))

    @abstractmethod
    def state(self, index: int) -> GameState:
        """Game ``index`` as a fresh per-game state (for tests, rendering and search)."""

    def rewards(self, mode: str) -> np.ndarray:
        """``(N, num_players)`` float32 final rewards in a reward mode of ``game.reward_modes``
        (zero in the games still going): the per-game ``GameState.rewards``, batched."""
        check_choice("mode", mode, self.game.reward_modes)
        done = self.terminated
        players = self.game.num_players
        if mode == "win":
            won = self.winners()
            rewards = np.where(won, 1.0, -1.0)
            rewards[won.all(axis=1)] = 0.0  # everyone shares the win
        else:
            scores = self.scores()
            rewards = scores - (scores.sum(axis=1, keepdims=True) - scores) / (players - 1)
        rewards[~done] = 0.0
        return rewards.astype(np.float32)

    def deal(self, where, seeds) -> None:
        """Start the games at indices ``where`` afresh, game ``where[k]`` with the deal of seed ``seeds[k]`` (the
        one ``env().reset(seed=seeds[k])`` draws), whatever their state. Why: a caller that deals by its own
        scheme (training's dealer draws each slot's next seed from that slot's generator) keeps the engine's
        fast deal. Checked first: distinct indices in range, non-negative int64 seeds."""
        where, seeds = np.asarray(where), np.asarray(seeds)
        if where.ndim != 1 or not (where.size == 0 or np.issubdtype(where.dtype, np.integer)):
            raise ValueError(f"where must be a vector of game indices, got {where.dtype} of shape {where.shape}")
        if seeds.shape != where.shape or not (seeds.size == 0 or np.issubdtype(seeds.dtype, np.integer)):
            raise ValueError(
                f"seeds must be {where.size} ints (one per index of where), got {seeds.dtype} {seeds.shape}"
            )
        if ((where < 0) | (where >= self.num_games)).any() or np.unique(where).size != where.size:
            raise ValueError(f"where must hold distinct game indices in 0..{self.num_games - 1}, got {where.tolist()}")
        if (seeds < 0).any():
            raise ValueError(f"seeds must be non-negative, got {seeds.tolist()}")
        if where.size:
            where = where.astype(np.int64)
            self.seeds[where] = seeds
            self._deal(where)

    def reset_done(self) -> np.ndarray:
        """Start the next game wherever one is over (seed advanced by N); returns where."""
        done = np.flatnonzero(self.terminated)
        if (self.seeds[done] < 0).any():
            raise ValueError("this batch was made from_states: it has no seeds to deal its next games from")
        if done.size:
            self.seeds[done] += self.num_games
            self._deal_next(done)
        return done

    def _deal_next(self, where: np.ndarray) -> None:
        """:meth:`reset_done`'s deal of the games ``where`` (their seeds just advanced by N, so every game's
        next seed is known): an array engine's deals made ahead for many games at a time (``envs.core.dealing``),
        once here for every engine; an engine that deals by its own :meth:`_deal` overrides it."""
        if self._ahead is None:
            self._ahead = DealsAhead(self._deals, self.num_games)
        self._start(where, *self._ahead.take(where, self.seeds[where], self.seeds + self.num_games))

    def _action_vector(self, actions) -> np.ndarray:
        """``actions`` as an array of N ints, or a ValueError saying what it is instead."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_games} ints, got {actions.dtype} of shape {actions.shape}")
        return actions

    def check_actions(self, actions: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """``actions`` as an int64 vector of N, each legal in its game (ignored where a game is over, or
        outside ``where`` when given); an IllegalActionError names the first game whose action is not,
        before anything changes."""
        actions = self._action_vector(actions)
        going = ~self.terminated if where is None else ~self.terminated & check_where(where, self.num_games)
        mask = self.legal_mask() if where is None else self.legal_mask_where(going)
        in_range = (actions >= 0) & (actions < self.game.num_actions)
        legal = in_range & mask[np.arange(self.num_games), np.where(in_range, actions, 0)]
        bad = np.flatnonzero(going & ~legal)
        if bad.size:
            i = int(bad[0])
            raise IllegalActionError(
                f"action {int(actions[i])} is not legal in game {i}; legal: {np.flatnonzero(mask[i]).tolist()}"
            )
        return actions.astype(np.int64, copy=False)


class StateBatch(BatchGames):
    """The batch protocol over a list of per-game states: the reference for the fast engines,
    and a batch for any game (at the per-game engine's speed)."""

    def __init__(self, game: Game, num_games: int, seed: int):
        super().__init__(game, num_games, seed)
        self.states: list[GameState] = new_games(game, self.seeds)
        self._follow()

    @classmethod
    def from_states(cls, states: list[GameState]) -> StateBatch:
        batch = cls._unseeded(states, GameState)
        batch.states = [state.clone() for state in states]
        batch._follow()
        return batch

    def _follow(self) -> None:
        """An observer per game, told of every move (``Observer.follow``/``applied``): observations stay
        incremental, as the AEC adapter's."""
        self._observers = [self.game.observer() for _ in self.states]
        for observer, state in zip(self._observers, self.states):
            observer.follow(state)

    @property
    def current_player(self) -> np.ndarray:
        return np.array(
            [NO_PLAYER if s.current_player is None else s.current_player for s in self.states], dtype=np.int64
        )

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros((self.num_games, self.game.num_actions), dtype=bool)
        for i, state in enumerate(self.states):
            mask[i, list(state.legal_tuple())] = True  # a list: a tuple would index several dimensions
        return mask

    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        if players is None:
            players = np.maximum(self.current_player, 0)
        seen = np.empty((self.num_games, self.game.observation_size), np.float32)
        for i, (observer, state, player) in enumerate(zip(self._observers, self.states, np.asarray(players).tolist())):
            seen[i] = observer.observe(state, player)  # row by row: np.stack was 4x slower for Samurai's 3,807 floats
        return seen

    def step(self, actions: np.ndarray) -> None:
        self.step_where(actions, np.ones(self.num_games, dtype=bool))

    def step_where(self, actions: np.ndarray, where: np.ndarray) -> None:
        where = check_where(where, self.num_games)
        moving = [i for i in np.flatnonzero(where).tolist() if self.states[i].current_player is not None]
        self._check_some(actions, moving)
        for i in moving:
            action = int(actions[i])
            self.states[i].apply(action)
            self._observers[i].applied(self.states[i], action)

    def _check_some(self, actions: np.ndarray, moving: list[int]) -> None:
        """:meth:`check_actions` for the games ``moving`` alone (the others' masks are not built: each costs a
        per-game call here)."""
        actions = self._action_vector(actions)
        for i in moving:
            legal = self.states[i].legal_tuple()
            if int(actions[i]) not in legal:
                raise IllegalActionError(f"action {int(actions[i])} is not legal in game {i}; legal: {list(legal)}")

    def observe_rows(self, rows: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        if players is None:
            players = self.current_player
        seen = np.empty((len(rows), self.game.observation_size), np.float32)
        for k, row in enumerate(np.asarray(rows).tolist()):
            seen[k] = self._observers[row].observe(self.states[row], int(players[row]))
        return seen

    def scores(self) -> np.ndarray:
        return np.array([s.scores() for s in self.states], dtype=np.float64)

    def winners(self) -> np.ndarray:
        won = np.zeros((self.num_games, self.game.num_players), dtype=bool)
        for i, state in enumerate(self.states):
            if state.current_player is None:
                won[i, state.winners()] = True
        return won

    def _deal(self, where: np.ndarray) -> None:
        for i, state in zip(where, new_games(self.game, self.seeds[where])):
            self.states[i] = state
            self._observers[i].follow(state)

    def _deal_next(self, where: np.ndarray) -> None:
        self._deal(where)  # per-game states: nothing to make ahead

    def state(self, index: int) -> GameState:
        return self.states[index].clone()


def batch_class(game: Game) -> type[BatchGames]:
    """The batch engine of ``game``: ``BATCH_CLASS`` of ``envs/<game.name>/batch.py`` where that module
    defines one, else :class:`StateBatch`. A module that exists but fails to import raises."""
    module_name = f"envs.{game.name}.batch"
    if importlib.util.find_spec(module_name) is None:
        return StateBatch
    return getattr(importlib.import_module(module_name), "BATCH_CLASS", StateBatch)


def batch_games(game: Game, num_games: int, seed: int) -> BatchGames:
    """``num_games`` games of ``game`` (game ``i`` the per-game engine's game with seed ``seed + i``), on
    the game's fast engine where it has one (:func:`batch_class`)."""
    return batch_class(game)(game, num_games, seed)


__all__ = [
    "NO_PLAYER",
    "BatchGames",
    "StateBatch",
    "batch_class",
    "batch_games",
    "check_batch_args",
    "check_draws",
    "check_where",
    "new_game",
    "new_games",
]
