"""A single-agent Gymnasium view of any game: one learning seat, the others played by opponents.

This is what single-agent learners (Stable-Baselines3's MaskablePPO) train on.
Each episode the learner's seat is drawn anew from the environment's own
generator, so a learner sees every seat; the other seats are played by
opponents sampled from a pool (fixed baseline agents, frozen snapshots of the
learner). ``step`` plays the learner's action, then steps the raw engine for
the opponents until it is the learner's turn again or the game is over.

The learner's reward is its true final reward **whenever** the game ends,
including when the last move is an opponent's: the game is then over before
the learner acts again, so the reward is delivered on the learner's last
step. (The PettingZoo + SB3 tutorial once credited the wrong player's reward
in exactly that case.)

Observation: the game's own observation vector for the learner's seat
(``Box(0, 1, (game.observation_size,), float32)``, seats relative to the
learner). The legal moves are not part of the observation: sb3-contrib reads
them through :meth:`SingleAgentEnv.action_masks`.

Opponents are callables ``opponent(state, player) -> action``
(:func:`agents.opponents.make_opponent` makes one of any agent); an opponent pool is any
object with ``sample(rng) -> opponent``. A plain list of callables is
accepted too (one is drawn uniformly per seat per episode). ``train.py``
does not step games one at a time through this class: it uses the lockstep
batches of :mod:`training`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from envs.core.engine import Game, GameState, check_choice

#: An opponent picks a legal action for ``player`` in ``state``.
Opponent = Callable[[GameState, int], int]

#: What the learner gets for an illegal action (the episode then ends): the
#: loss of PettingZoo's classic "illegal move loses". A masked learner never
#: plays one; the checkers (``check_env``) do, with unmasked random actions.
ILLEGAL_ACTION_REWARD = -1.0


class OpponentSource(Protocol):
    def sample(self, rng: np.random.Generator) -> Opponent: ...


class _UniformChoice:
    """A fixed list of opponents, one drawn uniformly per seat per episode."""

    def __init__(self, opponents: Sequence[Opponent]):
        if not opponents:
            raise ValueError("opponents must hold at least one opponent")
        self.opponents = list(opponents)

    def sample(self, rng: np.random.Generator) -> Opponent:
        return self.opponents[int(rng.integers(len(self.opponents)))]


class SingleAgentEnv(gymnasium.Env):
    """One seat of ``game`` as a Gymnasium environment (see the module docstring).

    Args:
        game: a configured :class:`~envs.core.engine.Game`.
        opponents: an opponent pool (``sample(rng)``) or a list of opponents.
        reward: a reward mode of the game (``"win"``: +1 win, -1 loss, 0 when
            all share; ``"score"``: own score minus the others' mean).
        seat: a fixed learner seat, or None to draw it each episode. ``reset``
            also accepts ``options={"seat": k}`` for one episode (evaluation).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Game,
        opponents: OpponentSource | Sequence[Opponent],
        reward: str = "win",
        seat: int | None = None,
        render_mode: str | None = None,
    ):
        check_choice("reward", reward, game.reward_modes)
        check_choice("seat", seat, (None, *range(game.num_players)))
        check_choice("render_mode", render_mode, (None, "ansi"))
        self.game = game
        self.opponents = opponents if hasattr(opponents, "sample") else _UniformChoice(opponents)
        self.reward_mode = reward
        self.fixed_seat = seat
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, (game.observation_size,), np.float32)
        self.action_space = spaces.Discrete(game.num_actions)
        self.state: GameState | None = None
        self.observer = game.observer()  # told of every move below, so it may stay incremental
        self.seat = 0
        self.seat_opponents: dict[int, Opponent] = {}

    # --- Gymnasium API ----------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new game. ``options``: ``{"seat": k}`` fixes the learner's seat for this
        episode; any other key goes to ``game.new_state`` (e.g. an injected bag)."""
        super().reset(seed=seed)
        options = dict(options or {})
        seat = options.pop("seat", self.fixed_seat)
        rng = self.np_random
        while True:
            self.seat = int(rng.integers(self.game.num_players)) if seat is None else seat
            check_choice("options['seat']", self.seat, range(self.game.num_players))
            self.seat_opponents = {
                p: self.opponents.sample(rng) for p in range(self.game.num_players) if p != self.seat
            }
            for opponent in self.seat_opponents.values():
                getattr(opponent, "reset", lambda: None)()  # agents forget the last game
            self.state = self.game.new_state(rng, options or None)
            self.observer.follow(self.state)
            self._play_opponents()
            if not self.state.is_terminal():
                break
            # The game ended before the learner ever moved: nothing to learn from, deal again.
        return self.observer.observe(self.state, self.seat), {"seat": self.seat}

    def step(self, action):
        state = self.state
        if state is None or state.is_terminal():
            raise RuntimeError("step() called on a finished game: call reset() first")
        action = int(action)
        if action not in state.legal_actions():
            obs = self.observer.observe(state, self.seat)
            return (
                obs,
                ILLEGAL_ACTION_REWARD,
                True,
                False,
                {"seat": self.seat, "illegal_action": True, "is_success": False, "win_points": 0.0},
            )
        state.apply(action)
        self.observer.applied(state, action)
        self._play_opponents()
        obs = self.observer.observe(state, self.seat)
        if not state.is_terminal():
            return obs, 0.0, False, False, {}
        reward = float(state.rewards(self.reward_mode)[self.seat])
        return obs, reward, True, False, self._final_info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool vector (read by sb3-contrib)."""
        if self.state is None or self.state.is_terminal():
            return np.ones(self.game.num_actions, dtype=bool)
        return self.state.legal_mask().astype(bool)

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.state is not None:
            return self.state.render_text()
        return None

    # --- helpers ------------------------------------------------------------------
    def _play_opponents(self) -> None:
        """Step the raw engine for the opponents until the learner is to act or the game is over."""
        state = self.state
        while state.current_player is not None and state.current_player != self.seat:
            player = state.current_player
            action = int(self.seat_opponents[player](state, player))
            state.apply(action)
            self.observer.applied(state, action)

    def _final_info(self) -> dict[str, Any]:
        """The outcome: scores, winners, and the learner's win points (1, 1/k on a
        k-way shared win, 0 on a loss) for win-rate statistics."""
        winners = self.state.winners()
        won = self.seat in winners
        return {
            "seat": self.seat,
            "scores": self.state.scores(),
            "winners": winners,
            "is_success": won and len(winners) == 1,
            "win_points": 1.0 / len(winners) if won else 0.0,
        }

    def add_snapshot(self, path: str) -> None:
        """Pass a new self-play snapshot to the opponent pool (called through ``VecEnv.env_method``)."""
        if not hasattr(self.opponents, "add_snapshot"):
            raise ValueError("this environment's opponents take no snapshots (no 'self' in the pool)")
        self.opponents.add_snapshot(path)
