"""The one generic AEC adapter: any :class:`~envs.core.engine.Game` as a PettingZoo AECEnv.

It is a thin skin over the engine: agents ``player_0..player_{n-1}``, the
observation ``{"observation": float32, "action_mask": int8}`` (the mask is
all zeros for an agent that is not to act, as in PettingZoo classic), rewards
only when the game ends, and the final scores in ``infos``. From ``reset()`` on,
``infos[agent]`` already holds the keys and shapes of the final info, every
value zero (libraries such as TorchRL read the keys at reset to build their
specs), until the game ends and the real values replace them. Under this raw
environment an illegal or out-of-range action raises a ValueError and changes
nothing; ``env()`` adds the classic behaviour (see ``classic.py``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from envs.core.engine import Game, GameState, check_choice, shown

RENDER_MODES = ("ansi", "human", "rgb_array")


def blank(value: Any) -> Any:
    """``value`` with the same keys, lengths, shapes and types, every number zero: what ``infos`` hold
    until the game ends. Info values must be numbers, strings, numpy arrays, or lists, tuples and
    dicts of them, of a shape that never changes (``GameState.final_info``)."""
    if isinstance(value, dict):
        return {key: blank(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(blank(item) for item in value)
    if isinstance(value, np.ndarray):
        return np.zeros_like(value)
    if isinstance(value, (bool, int, float, np.bool_, np.number)):
        return type(value)(0)
    if isinstance(value, str):
        return ""
    raise TypeError(
        f"an info value must be a number, a string, an array, or a list or dict of them; got {shown(value)}"
    )


class GameEnv(AECEnv):
    """A PettingZoo AEC environment for one configured game."""

    metadata = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 1}

    def __init__(self, game: Game, reward: str = "win", render_mode: str | None = None):
        super().__init__()
        check_choice("reward", reward, game.reward_modes)
        check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        # each env its own dict and list: changing one env's metadata never changes another's
        self.metadata = {**GameEnv.metadata, "render_modes": list(RENDER_MODES), "name": f"{game.name}_v0"}
        self.game = game
        self.reward_mode = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self.agents = self.possible_agents[:]
        self._index = {agent: i for i, agent in enumerate(self.possible_agents)}
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (game.observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (game.num_actions,), np.int8),
            }
        )
        action_space = spaces.Discrete(game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        self._num_actions = game.num_actions
        self._no_moves = np.zeros(game.num_actions, dtype=np.int8)
        self._rng: np.random.Generator | None = None
        self.game_state: GameState | None = None
        self._observer = game.observer()  # told of every change to game_state, so it may stay incremental
        self._info_template: list[dict[str, Any]] | None = None  # the final infos' shape, read at the first reset

    # --- PettingZoo API -------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. A seed fixes every hidden order; without one the
        generator carries on, so one seed reproduces a whole run of episodes."""
        rng = self._rng
        if seed is not None or rng is None:
            rng, _ = seeding.np_random(seed)
        if options is None:  # nothing to refuse (and the generator's state, a dict, is not copied every game)
            state = self.game.new_state(rng)
        else:
            drawn_from = rng.bit_generator.state
            try:
                state = self.game.new_state(rng, options)
            except ValueError:  # refused options: the next deal is as if this reset never happened
                rng.bit_generator.state = drawn_from
                raise
        self._rng = rng
        self._begin(state)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.game_state
        if state is None:
            self._require_state()  # raises the clear error
        player = self._index[agent]
        mask = state.legal_mask() if state.current_player == player else self._no_moves.copy()
        return {"observation": self._observer.observe(state, player), "action_mask": mask}

    def step(self, action: int | None) -> None:
        try:
            agent = self.agent_selection
            done = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):  # before reset(), or every agent has stepped out
            self._require_agents()
            raise
        if done:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is still playing: action None is only for finished agents")
        if not (type(action) is int and 0 <= action < self._num_actions):  # the common case first
            action = self._checked_action(action)
        self._play(action)

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        if self.game_state is None or not self.agents:  # where the base class would raise AttributeError or KeyError
            self._require_agents()
        return self._last_of(self.agent_selection, observe)

    def _last_of(self, agent: str, observe: bool) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict]:
        """``last()``'s tuple for ``agent``, unchecked (the classic wrapper checks in its own way)."""
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; pass render_mode= to env()")
            return None
        state = self._require_state()
        if self.render_mode == "rgb_array":
            return state.render_image()
        if self.render_mode == "ansi":
            return state.render_text()
        print(state.render_text())
        return None

    def close(self) -> None:
        pass

    # --- drawluck extras -------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The whole game as JSON-safe data (hidden information included: not for agents)."""
        return self._require_state().to_dict()

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Continue from ``state_dict()`` data; it must be for this game and configuration."""
        self._begin(self.game.state_from_dict(data))

    def describe_action(self, action: int) -> str:
        """A human-readable description of ``action`` in the current position."""
        return self._require_state().describe_action(int(action))

    def end_by_illegal_move(self, agent: str, illegal_reward: float = -1.0) -> None:
        """End the episode as PettingZoo's TerminateIllegalWrapper does: the
        offender gets ``illegal_reward``, the others 0, everyone is done."""
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0)
        self.rewards[agent] = float(illegal_reward)
        self._accumulate_rewards()
        self._deads_step_first()

    # --- internals --------------------------------------------------------
    def _checked_action(self, action: Any) -> int:
        """``action`` as a Python int in range, or a ValueError naming it. Types are checked, not compared
        (a bool or a float is no action), and the range in Python ints: Discrete.contains would convert
        first and raise OverflowError on an int beyond int64, such as 2**70."""
        if isinstance(action, (bool, np.bool_)):
            raise ValueError(f"action must be an int (a numpy integer will do), not a bool: got {shown(action)}")
        integer = isinstance(action, (int, np.integer)) or (
            isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer)
        )
        if not integer:
            raise ValueError(f"action {shown(action)} is out of range: allowed ints 0..{self._num_actions - 1}")
        if not 0 <= int(action) < self._num_actions:
            raise ValueError(f"action {shown(action)} is out of range: allowed 0..{self._num_actions - 1}")
        return int(action)

    def _play(self, action: int) -> None:
        """Play ``action`` (an int in range) for the agent to act, who is not done: the common end of
        ``step`` and ``ClassicWrapper.step``, each of which checks the action its own way first.
        An illegal action raises IllegalActionError (a ValueError) and changes nothing."""
        state = self.game_state
        state.apply(action)
        self._observer.applied(state, action)
        player = state.current_player
        if player is None:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[player]
        if self.render_mode == "human":
            self.render()

    def _require_state(self) -> GameState:
        if self.game_state is None:
            raise RuntimeError("reset() must be called before using the environment")
        return self.game_state

    def _require_agents(self) -> None:
        """A clear error where PettingZoo's base class would raise AttributeError or KeyError."""
        self._require_state()
        if not self.agents:
            raise RuntimeError("the game is over and every agent has stepped out: call reset() to play again")

    def _begin(self, state: GameState) -> None:
        self.game_state = state
        self._observer.follow(state)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        if self._info_template is None:
            self._info_template = [state.final_info(p) for p in range(self.game.num_players)]
        self.infos = {agent: blank(info) for agent, info in zip(self.agents, self._info_template)}
        self._skip_agent_selection = None
        if state.current_player is None:
            self.agent_selection = self.agents[0]
            self._finish()
        else:
            self.agent_selection = self.possible_agents[state.current_player]

    def _finish(self) -> None:
        state = self.game_state
        for agent, reward in zip(self.possible_agents, state.rewards(self.reward_mode)):
            self.rewards[agent] = reward
            self.terminations[agent] = True
            self.infos[agent] = state.final_info(self._index[agent])
        self._accumulate_rewards()
