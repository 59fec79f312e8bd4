"""Many games of one game as batched environments, on the batch protocol (:mod:`envs.core.batch`).

Two views, both on :func:`~envs.core.batch.batch_games` (the game's fast engine where it has one,
else the per-game reference), so each works for every game and gets faster as engines land:

- :class:`BatchEnv`, the multi-agent view for self-play: each step moves the player to act in every
  game; it returns who acts next in each, their observations and masks, and every seat's final reward
  in the games that ended.
- :class:`GameVectorEnv`, a ``gymnasium.vector.VectorEnv`` of the single-agent view: the learner's
  seat in each game against built-in opponents (:mod:`envs.core.opponents`) or any batch opponent.

Choices (``docs/batch.md`` says the same for users):

- Observations are the flat float32 vectors of ``env()`` (the learner's seat first); the legal
  actions are not observations but ``infos["action_mask"]`` (``(N, num_actions)`` bool), also
  :meth:`GameVectorEnv.action_masks` (what sb3-contrib's MaskablePPO calls).
- Same-step autoreset (``AutoresetMode.SAME_STEP``): a game that ends returns its final reward
  and ``terminated`` in the step that ended it, and the observation of its next game's first
  learner turn; its last observation is ``infos["final_obs"]`` (``infos["_final_obs"]`` marks
  those games), its final scores ``infos["final_scores"]``. Games never truncate.
- Seeds: game ``i`` of a reset with seed ``s`` is the per-game game with seed ``s + i``, each next
  game of that slot ``N`` seeds later (the batch contract). The learner's seat is ``seed % players``
  of each game's seed (rotating: every seat equally over the batch), or the fixed ``seat``.
- An illegal learner action raises :class:`~envs.core.engine.IllegalActionError` and changes no game
  (as ``raw_env()``; a masked learner never plays one).
- The single-agent view needs ``step_where`` (the learner's games wait while opponents move): a fast
  engine without it is replaced by ``StateBatch``, with a warning (:func:`waiting_engine`).
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envs.core.batch import NO_PLAYER, BatchGames, StateBatch, batch_class, batch_games, check_batch_args
from envs.core.engine import Game, check_choice, is_int, shown
from envs.core.opponents import BatchOpponent, batch_opponent


def first_seed(seed: int | None, given: int | None, batch: BatchGames | None) -> int:
    """The seed of game 0 of a new batch: ``seed``; else the constructor's (first reset only); else the
    seed after the last batch's games; else fresh entropy (as Gymnasium's unseeded resets)."""
    if seed is not None:
        check_batch_args(1, seed)
        return seed
    if batch is None:
        return given if given is not None else int(np.random.SeedSequence().entropy % 2**62)
    return int(batch.seeds.max()) + 1


def waiting_engine(game: Game) -> type[BatchGames]:
    """The game's batch engine if it can let games wait (``step_where``), else ``StateBatch``, with a warning:
    the single-agent view moves the opponents while the learner's games wait."""
    engine = batch_class(game)
    if engine.step_where is BatchGames.step_where:
        warnings.warn(
            f"{engine.__name__} has no step_where yet: the vector env plays {game.name} on StateBatch", stacklevel=3
        )
        return StateBatch
    return engine


class BatchEnv:
    """``num_envs`` games moved together, every game's player to act in each step: self-play.

    ``reset(seed)`` and ``step(actions)`` return ``(observations, masks, players)`` of the players
    to act (``(N, observation_size)`` float32, ``(N, num_actions)`` bool, ``(N,)`` int); ``step``
    adds each seat's final reward (``(N, num_players)`` float32, the per-game rewards; zero in the
    games still going), the games that ended (``(N,)`` bool) and infos (``final_scores``). A game
    that ends is dealt anew in the same step: the returned observations are of its next game.
    """

    def __init__(self, game: Game, num_envs: int, seed: int | None = None, reward: str = "win"):
        check_batch_args(num_envs, 0 if seed is None else seed)
        check_choice("reward", reward, game.reward_modes)
        self.game, self.num_envs, self.reward, self._seed = game, num_envs, reward, seed
        self.batch: BatchGames | None = None

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self.batch = batch_games(self.game, self.num_envs, first_seed(seed, self._seed, self.batch))
        return self._view()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        batch = self._require_batch()
        batch.step(actions)
        ended = batch.terminated.copy()
        rewards = batch.rewards(self.reward)
        infos = {"final_scores": np.where(ended[:, None], batch.scores(), 0.0), "_final_scores": ended}
        batch.reset_done()
        return (*self._view(), rewards, ended, infos)

    def _view(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        batch = self._require_batch()
        return batch.observe(), batch.legal_mask(), batch.current_player.copy()

    def _require_batch(self) -> BatchGames:
        if self.batch is None:
            raise RuntimeError("reset() must be called before step()")
        return self.batch


class GameVectorEnv(gymnasium.vector.VectorEnv):
    """The learner's seat in ``num_envs`` games of ``game``, the other seats played by ``opponents``
    (``"random"`` or a batch opponent ``(batch, where, rng) -> actions``, made by ``agents.opponents``); see the
    module docstring for observations, masks, autoreset, seeds and seats."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: Game,
        num_envs: int,
        opponents: str | BatchOpponent = "random",
        seed: int | None = None,
        reward: str = "win",
        seat: int | None = None,
    ):
        check_batch_args(num_envs, 0 if seed is None else seed)
        check_choice("reward", reward, game.reward_modes)
        if seat is not None and not (is_int(seat) and 0 <= seat < game.num_players):
            raise ValueError(f"seat must be None (rotating) or a seat in 0..{game.num_players - 1}, got {shown(seat)}")
        self.game, self.num_envs, self.reward, self.fixed_seat, self._seed = game, num_envs, reward, seat, seed
        self.opponent = batch_opponent(opponents, game)
        self._engine = waiting_engine(game)
        self.metadata = {**GameVectorEnv.metadata, "name": f"{game.name}_v0"}
        self.single_observation_space = spaces.Box(0.0, 1.0, (game.observation_size,), np.float32)
        self.single_action_space = spaces.Discrete(game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.batch: BatchGames | None = None
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self._masks = np.ones((num_envs, game.num_actions), dtype=bool)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        if options is not None:
            raise ValueError(f"options must be None (the vector env takes none), got {shown(options)}")
        first = first_seed(seed, self._seed, self.batch)
        super().reset(seed=first)  # the opponents' generator
        self.batch = self._engine(self.game, self.num_envs, first)
        self._seat(np.arange(self.num_envs))
        self._advance()
        self._deal_finished()
        return self._observe({})

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        batch = self.batch
        if batch is None:
            raise RuntimeError("reset() must be called before step()")
        batch.step(np.asarray(actions))  # every game is at a learner's turn; an illegal action raises
        self._advance()
        ended = batch.terminated.copy()
        rewards = batch.rewards(self.reward)[np.arange(self.num_envs), self.seats]
        infos: dict[str, Any] = {}
        if ended.any():
            final_obs = np.zeros((self.num_envs, self.game.observation_size), dtype=np.float32)
            rows = np.flatnonzero(ended)  # only the games that ended: Samurai's 3,807 floats a game cost
            final_obs[rows] = batch.observe_rows(rows, self.seats)
            infos["final_obs"] = final_obs
            infos["final_scores"] = np.where(ended[:, None], batch.scores(), 0.0)
            infos["_final_obs"] = infos["_final_scores"] = ended
            self._deal_finished()
        observations, infos = self._observe(infos)
        return observations, rewards, ended, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """``(N, num_actions)`` bool: the learner's legal actions in each game (sb3-contrib's hook)."""
        return self._masks

    # --- inside ---------------------------------------------------------------------------------------
    def _seat(self, games: np.ndarray) -> None:
        """The learner's seat in the newly dealt ``games``: fixed, or its game's seed modulo the players."""
        players = self.game.num_players
        self.seats[games] = self.batch.seeds[games] % players if self.fixed_seat is None else self.fixed_seat

    def _advance(self) -> None:
        """The opponents move, all games together, until the learner is to act in every game not over."""
        batch, rng = self.batch, self.np_random
        while True:
            players = batch.current_player
            waiting = (players != NO_PLAYER) & (players != self.seats)
            if not waiting.any():
                return
            batch.step_where(np.asarray(self.opponent(batch, waiting, rng)), waiting)

    def _deal_finished(self) -> None:
        """Deal the next game wherever one is over and play it up to the learner's first turn (a game that
        ends before the learner moves, which has nothing to learn from, is dealt again)."""
        while True:
            dealt = self.batch.reset_done()
            if not dealt.size:
                return
            self._seat(dealt)
            self._advance()

    def _observe(self, infos: dict) -> tuple[np.ndarray, dict]:
        self._masks = self.batch.legal_mask()
        infos["action_mask"], infos["seat"] = self._masks, self.seats.copy()
        return self.batch.observe(self.seats), infos


def make_vector_env(name: str, num_envs: int, opponents="random", seed=None, reward="win", seat=None, **config):
    """``envs.<name>_v0.vector_env``: the game ``name`` configured by ``config`` (its ``env()`` options),
    as a :class:`GameVectorEnv`."""
    from envs import describe  # envs imports envs.core: the description only at call time

    game = describe(name).make(**config)
    return GameVectorEnv(game, num_envs, opponents=opponents, seed=seed, reward=reward, seat=seat)


__all__ = ["BatchEnv", "GameVectorEnv", "first_seed", "make_vector_env", "waiting_engine"]
