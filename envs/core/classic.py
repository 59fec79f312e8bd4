"""PettingZoo's standard classic wrapper stack, implemented once in one lean layer.

PettingZoo's classic games wrap their raw env in TerminateIllegalWrapper
(illegal_reward=-1), AssertOutOfBoundsWrapper and OrderEnforcingWrapper.
Those three layers cost about 45 µs a turn, more than our engines; this
class reproduces their observable behaviour exactly (errors, warnings,
rewards, terminations) with direct attribute access instead of three rounds
of ``__getattr__`` forwarding. The calls of every turn take the shortest
path: ``last()`` and the ``agent_iter`` iterator read the raw env's attributes
directly (the guarded properties cost a call each), and ``step`` checks the
action once and hands it to ``GameEnv._play`` without the raw env's checks.
``tests/test_conformance.py`` checks all of it against the real stack.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import BaseWrapper

from envs.core.aec import GameEnv

_NEED_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"})


def _guarded(name: str) -> property:
    """An attribute of the raw env that, as under OrderEnforcingWrapper, needs reset() first.

    A property that raises AttributeError makes Python fall back to
    ``__getattr__``, which raises the same error again.
    """

    def get(self: ClassicWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get)


class ClassicWrapper(BaseWrapper):
    """Order enforcing + out-of-bounds assertion + illegal move loses (-1), in one layer."""

    agents = _guarded("agents")
    agent_selection = _guarded("agent_selection")
    rewards = _guarded("rewards")
    terminations = _guarded("terminations")
    truncations = _guarded("truncations")
    infos = _guarded("infos")
    num_agents = _guarded("num_agents")

    def __init__(self, env: GameEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._illegal_reward = illegal_reward
        self._num_actions = env.game.num_actions
        self._has_reset = False
        self._has_updated = False

    def __getattr__(self, name: str) -> Any:
        if name in _NEED_RESET and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return super().__getattr__(name)

    @property
    def _cumulative_rewards(self) -> dict:
        return self.env._cumulative_rewards

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self.env.reset(seed=seed, options=options)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def render(self) -> Any:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return self.env.render()

    def state(self) -> Any:
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return self.env.state()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last`` reading the raw env's attributes directly (not through the guarded properties)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env._last_of(self.env.agent_selection, observe)

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        env = self.env
        self._has_updated = True
        if not env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = env.agent_selection
        done = env.terminations[agent] or env.truncations[agent]
        if not ((action is None and done) or self._in_bounds(action)):
            raise AssertionError("action is not in action space")
        if done:
            env._was_dead_step(action)
        elif action not in env.game_state.legal_tuple():
            EnvLogger.warn_on_illegal_move()
            env.end_by_illegal_move(agent, self._illegal_reward)
        else:
            env._play(int(action))  # checked above: in range, legal, the agent not done

    def _in_bounds(self, action: Any) -> bool:
        if type(action) is int:
            return 0 <= action < self._num_actions
        if isinstance(action, (bool, np.bool_)):  # Discrete.contains takes True for 1: a bool is no action
            return False
        if isinstance(action, int):  # an int subclass: compared as it is (Discrete.contains overflows past int64)
            return 0 <= action < self._num_actions
        return self.env.action_spaces[self.env.agent_selection].contains(action)

    def __str__(self) -> str:
        return str(self.env)


class _OrderEnforcingIterable(AECIterable):
    def __iter__(self) -> AECIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECIterator):
    """As OrderEnforcingWrapper's iterator: each agent must step before the next is yielded."""

    def __next__(self) -> str:
        wrapper = self.env
        raw = wrapper.env  # read directly: the wrapper's guarded properties cost a call each
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return raw.agent_selection
