"""Many games of one game as batched environments, on the batch protocol (:mod:`envs.core.batch`).

Two views, both on :func:`~envs.core.batch.batch_games` (the game's fast engine where it has one,
else the per-game reference), so each works for every game and gets faster as engines land:

- :class:`BatchEnv`, the multi-agent view for self-play: each step moves the player to act in every
  game; it returns who acts next in each, their observations and masks, and every seat's final reward
  in the games that ended.
- :class:`GameVectorEnv`, a ``gymnasium.vector.VectorEnv`` of the single-agent view: the learner's
  seat in each game against built-in opponents (:mod:`envs.core.opponents`) or any batch opponent, or
  against an opponent dealt to each game as it starts (``deal``: training's league draws them).

Choices (``docs/batch.md`` says the same for users):

- Observations are the flat float32 vectors of ``env()`` (the learner's seat first); the legal
  actions are not observations but ``infos["action_mask"]`` (``(N, num_actions)`` bool), also
  :meth:`GameVectorEnv.action_masks` (what sb3-contrib's MaskablePPO calls).
- Autoreset as Gymnasium defines it, chosen at construction (``autoreset_mode``, also in ``metadata``).
  Same-step (the default): the step that ends a game returns its final reward, ``terminated`` and already
  the observation of its next game's first learner turn; ``infos["final_obs"]`` (an object array, None in
  the other rows) holds the last observation and ``infos["final_info"]`` the last info (``score``,
  ``scores``, ``winners``, ``seat``; ``opponent`` with ``deal``), each marked by its ``_key``. Next-step
  (Gymnasium's default, which its observation
  wrappers need): the ending step returns the last observation itself, with ``score`` and ``scores`` in
  the infos; the next step deals that game (its action ignored, reward 0, its mask row all True meanwhile).
  Disabled (TorchRL's preference): as next-step, but the caller deals the games that ended with a partial
  reset before the next step. Games never truncate. Every info key has its ``_key`` mask.
- Seeds: game ``i`` of a reset with seed ``s`` is the per-game game with seed ``s + i`` (a list of seeds
  gives each game its own), each next game of that slot ``N`` seeds later (the batch contract);
  ``options={"reset_mask": mask}`` deals only the games of ``mask`` (Gymnasium's partial reset). The
  learner's seat is ``seed % players`` of each game's seed (rotating: every seat equally over the batch),
  or the fixed ``seat``.
- An illegal learner action raises :class:`~envs.core.engine.IllegalActionError` and changes no game
  (as ``raw_env()``; a masked learner never plays one).
- The single-agent view needs ``step_where`` (the learner's games wait while opponents move): a fast
  engine without it is replaced by ``StateBatch``, with a warning (:func:`waiting_engine`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envs.core.batch import NO_PLAYER, BatchGames, StateBatch, batch_class, batch_games
from envs.core.batch_args import check_batch_args
from envs.core.engine import Game, check_choice, is_int, shown
from envs.core.opponents import BatchOpponent, batch_opponent, random_moves
from envs.core.vector_options import RENDER_MODES, checked_autoreset_mode, fresh_seed, game_seeds, reset_mask


def first_seed(seed: int | None, given: int | None, batch: BatchGames | None) -> int:
    """The seed of game 0 of a new batch: ``seed``; else the constructor's (first reset only); else the
    seed after the last batch's games; else fresh entropy (as Gymnasium's unseeded resets)."""
    if seed is not None:
        check_batch_args(1, seed)
        return seed
    if batch is None:
        return given if given is not None else fresh_seed()
    return int(batch.seeds.max()) + 1


def writable(array: np.ndarray) -> np.ndarray:
    """``array``, copied where it is read-only (an engine's cached mask): what a user gets is theirs to write
    (``torch.as_tensor`` warns on a read-only array)."""
    return array if array.flags.writeable else array.copy()


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
        return batch.observe(), writable(batch.legal_mask()), batch.current_player.copy()

    def _require_batch(self) -> BatchGames:
        if self.batch is None:
            raise RuntimeError("reset() must be called before step()")
        return self.batch


#: The vector env's own options (the others configure the game).
VECTOR_OPTIONS = ("opponents", "deal", "seed", "reward", "seat", "autoreset_mode", "render_mode")
#: ``deal(games, rng) -> opponents``: the batch opponent of each game of ``games`` (an int vector), newly dealt.
Deal = Callable[[np.ndarray, np.random.Generator], Sequence[BatchOpponent]]


class GameVectorEnv(gymnasium.vector.VectorEnv):
    """The learner's seat in ``num_envs`` games of ``game``, the other seats played by ``opponents``
    (``"random"``, a name an installed package offers: ``"heuristic"``, ``"trained"``, see
    :func:`envs.core.opponents.batch_opponent`; or a batch opponent ``(batch, where, rng) -> actions``), or by
    the opponent ``deal`` gives each game when it is dealt (called at every deal, resets and autoresets alike,
    with the env's generator; each opponent moves in its own games, and a game's last info names it); see the
    module docstring for observations, masks, autoreset, seeds and seats."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": [m for m in RENDER_MODES if m]}

    def __init__(
        self,
        game: Game,
        num_envs: int,
        opponents: str | BatchOpponent = "random",
        deal: Deal | None = None,
        seed: int | None = None,
        reward: str = "win",
        seat: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        render_mode: str | None = None,
    ):
        check_batch_args(num_envs, 0 if seed is None else seed)
        check_choice("reward", reward, game.reward_modes)
        check_choice("render_mode", render_mode, RENDER_MODES)
        if seat is not None and not (is_int(seat) and 0 <= seat < game.num_players):
            raise ValueError(f"seat must be None (rotating) or a seat in 0..{game.num_players - 1}, got {shown(seat)}")
        self.game, self.num_envs, self.reward, self.fixed_seat, self._seed = game, num_envs, reward, seat, seed
        self.autoreset_mode, self.render_mode = checked_autoreset_mode(autoreset_mode), render_mode
        self.opponent = batch_opponent(opponents, game)
        self._random = self.opponent is random_moves  # decided once: the engine's fused random moves (_advance)
        if deal is not None and (not callable(deal) or opponents != "random"):
            raise ValueError(f"deal must be a callable (games, rng) -> opponents, without opponents; got {shown(deal)}")
        self.deal = deal
        self.dealt = np.full(num_envs, None, dtype=object)  # with deal: each game's opponent
        self._engine = waiting_engine(game)
        self.metadata = {**GameVectorEnv.metadata, "autoreset_mode": self.autoreset_mode, "name": f"{game.name}_v0"}
        self.single_observation_space = spaces.Box(0.0, 1.0, (game.observation_size,), np.float32)
        self.single_action_space = spaces.Discrete(game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.batch: BatchGames | None = None
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self._masks = np.ones((num_envs, game.num_actions), dtype=bool)
        self._ended = np.zeros(num_envs, dtype=bool)  # next-step autoreset: the games dealt at the next step

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        """Every game dealt anew, or only those of ``options["reset_mask"]`` (the others go on as they are);
        ``seed``: an int (game i gets ``seed + i``), a list of per-game seeds, or None (the constructor's at the
        first reset, then each game's next). The opponents' generator is seeded from game 0's seed at a full reset."""
        mask = reset_mask(options, self.num_envs)
        seeds = game_seeds(seed, self.num_envs)
        if mask is None:
            self._reset_all(seeds)
        elif self.batch is None:
            raise ValueError("reset_mask resets some games of a running batch: call reset() without it first")
        else:
            rows = np.flatnonzero(mask)
            self._deal_rows(rows, (self.batch.seeds + self.num_envs if seeds is None else seeds)[rows])
        return self._observe({})

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """The learner's move in every game, then the opponents' up to its next turn. Next-step autoreset: the
        games that ended at the last step are dealt instead (their actions ignored; reward 0); with autoreset
        disabled, they must have been dealt by a partial reset."""
        batch = self.batch
        if batch is None:
            raise RuntimeError("reset() must be called before step()")
        if self._ended.any():
            if self.autoreset_mode == AutoresetMode.DISABLED:
                raise RuntimeError(
                    f"games {np.flatnonzero(self._ended).tolist()} are over and autoreset_mode is DISABLED: deal them "
                    "with reset(options={'reset_mask': ...}) before the next step"
                )
            moving = ~self._ended
            batch.check_actions(np.asarray(actions), moving)  # an illegal action raises before any game is dealt
            self._ended = np.zeros(self.num_envs, dtype=bool)
            self._deal_finished()
            batch.step_where(np.asarray(actions), moving)
        else:
            batch.step(np.asarray(actions))  # every game is at a learner's turn; an illegal action raises
        self._advance()
        ended = batch.terminated.copy()
        rewards, infos = np.zeros(self.num_envs, dtype=np.float32), {}
        if ended.any():  # the rewards (winners over the whole batch) only where a game ended
            rewards = batch.rewards(self.reward)[np.arange(self.num_envs), self.seats]
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                infos = self._final(ended)
                self._deal_finished()
            else:
                infos, self._ended = self._ending_info(ended), ended.copy()  # the caller owns what step returns
        observations, infos = self._observe(infos)
        return observations, rewards, ended, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """``(N, num_actions)`` bool: the learner's legal actions in each game (sb3-contrib's hook)."""
        return self._masks

    def render(self) -> tuple | None:
        """Each game as ``env(render_mode=...)`` draws it, the learner's seat as the perspective: a tuple of
        texts (``"ansi"``) or pictures (``"rgb_array"``), as Gymnasium's vector envs return their envs' frames."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; pass render_mode= to vector_env()")
            return None
        states = [self._require_batch().state(i) for i in range(self.num_envs)]
        if self.render_mode == "rgb_array":
            return tuple(state.render_image() for state in states)
        return tuple(state.render_text(int(seat)) for state, seat in zip(states, self.seats))

    def close_extras(self, **kwargs: Any) -> None:
        self.batch = None

    # --- inside ---------------------------------------------------------------------------------------
    def _require_batch(self) -> BatchGames:
        if self.batch is None:
            raise RuntimeError("reset() must be called before step() or render()")
        return self.batch

    def _reset_all(self, seeds: np.ndarray | None) -> None:
        """A new batch: game i of ``seeds`` (default: from :func:`first_seed`); the opponents' generator from
        game 0's seed, so that ``seed=s`` and ``seed=[s, s + 1, ...]`` play the same."""
        first = first_seed(None, self._seed, self.batch) if seeds is None else int(seeds[0])
        super().reset(seed=first)
        self.batch = self._engine(self.game, self.num_envs, first)
        if seeds is not None and (other := np.flatnonzero(seeds != self.batch.seeds)).size:
            self.batch.deal(other, seeds[other])
        self._ended[:] = False
        self._dealt(np.arange(self.num_envs))
        self._advance()
        self._deal_finished()

    def _deal_rows(self, rows: np.ndarray, seeds: np.ndarray) -> None:
        """Deal the games ``rows`` the deals of ``seeds`` and play them to the learner's first turn (a game that
        ends before it is dealt its next), the other games untouched: a partial reset."""
        self._ended[rows] = False
        while rows.size:
            self.batch.deal(rows, seeds)
            self._dealt(rows)
            self._advance()
            rows = rows[self.batch.terminated[rows]]
            seeds = self.batch.seeds[rows] + self.num_envs

    def _dealt(self, games: np.ndarray) -> None:
        """The learner's seat in the newly dealt ``games`` (fixed, or its game's seed modulo the players), and
        with ``deal`` their opponents."""
        players = self.game.num_players
        self.seats[games] = self.batch.seeds[games] % players if self.fixed_seat is None else self.fixed_seat
        if self.deal is not None and games.size:
            opponents = list(self.deal(games, self.np_random))
            if len(opponents) != games.size or not all(callable(o) for o in opponents):
                raise ValueError(f"deal must return {games.size} opponents (callables), got {shown(opponents)}")
            self.dealt[games] = opponents

    def _advance(self) -> None:
        """The opponents move, all games together, until the learner is to act in every game not over. Random
        opponents move by the engine's :meth:`~envs.core.batch.BatchGames.play_random_opponents`, with the
        draws :func:`~envs.core.opponents.random_moves` takes (one a game a pass): the same moves, in one call."""
        batch, rng = self.batch, self.np_random
        if self._random and self.deal is None:
            batch.play_random_opponents(self.seats, rng)
            return
        while True:
            players = batch.current_player
            waiting = (players != NO_PLAYER) & (players != self.seats)
            if not waiting.any():
                return
            batch.step_where(self._opponent_moves(waiting, rng), waiting)

    def _opponent_moves(self, waiting: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The opponents' moves in the games ``waiting``: the one opponent's, or each dealt opponent's in its games."""
        if self.deal is None:
            return np.asarray(self.opponent(self.batch, waiting, rng))
        moves = np.zeros(self.num_envs, dtype=np.int64)
        for opponent in {id(o): o for o in self.dealt[waiting]}.values():
            mine = waiting & np.fromiter((o is opponent for o in self.dealt), bool, self.num_envs)
            moves[mine] = np.asarray(opponent(self.batch, mine, rng))[mine]
        return moves

    def _deal_finished(self) -> None:
        """Deal the next game wherever one is over and play it up to the learner's first turn (a game that
        ends before the learner moves, which has nothing to learn from, is dealt again)."""
        while True:
            dealt = self.batch.reset_done()
            if not dealt.size:
                return
            self._dealt(dealt)
            self._advance()

    def _ending_info(self, ended: np.ndarray) -> dict[str, np.ndarray]:
        """What a game's last step tells besides its mask and seat, in the rows ``ended`` (with Gymnasium's
        ``_key`` masks): the learner's final score (env()'s ``info["score"]``) and every seat's."""
        scores = self.batch.scores()
        info = {
            "score": np.where(ended, scores[np.arange(self.num_envs), self.seats], 0.0),
            "scores": np.where(ended[:, None], scores, 0.0),
            "winners": self.batch.winners() & ended[:, None],
            "_score": ended.copy(),
            "_scores": ended.copy(),
            "_winners": ended.copy(),
        }
        if self.deal is not None:
            info.update(opponent=np.where(ended, self.dealt, None), _opponent=ended.copy())
        return info

    def _final(self, ended: np.ndarray) -> dict[str, Any]:
        """Same-step autoreset's ``final_obs`` (an object array: the last observation in the rows that ended,
        None elsewhere) and ``final_info`` (:meth:`_ending_info`), as ``SyncVectorEnv`` gives them."""
        rows = np.flatnonzero(ended)  # only the games that ended: Samurai's 3,807 floats a game cost
        final_obs = np.full(self.num_envs, None, dtype=object)
        for row, seen in zip(rows, self.batch.observe_rows(rows, self.seats)):
            final_obs[row] = seen
        final_info = {**self._ending_info(ended), "seat": np.where(ended, self.seats, 0), "_seat": ended}
        return {"final_obs": final_obs, "_final_obs": ended, "final_info": final_info, "_final_info": ended}

    def _observe(self, infos: dict) -> tuple[np.ndarray, dict]:
        """The learner's observations (the last ones where a game just ended under next-step autoreset) and the
        infos every step has: its masks (writable; all True where a game ended, as its next action is ignored
        and a masked policy needs a legal choice) and seats, each with its ``_key`` mask."""
        self._masks = writable(self.batch.legal_mask())
        self._masks[self._ended] = True
        every = np.ones(self.num_envs, dtype=bool)
        infos.update(action_mask=self._masks, seat=self.seats.copy(), _action_mask=every, _seat=every)
        return self.batch.observe(self.seats), infos


def make_vector_env(name: str, num_envs: int, **options) -> GameVectorEnv:
    """``envs.<name>_v0.vector_env``: ``options`` are :class:`GameVectorEnv`'s (opponents, seed, reward, seat,
    autoreset_mode, render_mode) and the game's ``env()`` options, which configure the game ``name``."""
    from envs import describe  # envs imports envs.core: the description only at call time

    own = {key: options.pop(key) for key in VECTOR_OPTIONS if key in options}
    return GameVectorEnv(describe(name).make(**options), num_envs, **own)


__all__ = [
    "VECTOR_OPTIONS",
    "BatchEnv",
    "Deal",
    "GameVectorEnv",
    "first_seed",
    "make_vector_env",
    "waiting_engine",
    "writable",
]
