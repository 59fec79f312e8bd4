"""The vector env as a Stable-Baselines3 ``VecEnv``: ``envs.<game>_v0.sb3_vec_env(num_envs, ...)``.

Why: SB3 takes its own ``VecEnv`` (``reset() -> obs``, ``step_wait() -> obs, rewards, dones, infos``
with a list of per-game info dicts and ``infos[i]["terminal_observation"]``), not a Gymnasium
``VectorEnv``; and sb3-contrib's ``MaskablePPO`` reads the legal actions through
``env_method("action_masks")``. This adapter gives the batched engines to SB3 as they are: one
:class:`~envs.core.vector.GameVectorEnv` under same-step autoreset (SB3's own convention), its masks
handed over as one array.

Imported only when ``sb3_vec_env`` is called: Stable-Baselines3 is a training extra, not a dependency of
the environments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from envs.core.engine import shown
from envs.core.vector import GameVectorEnv, make_vector_env


class GameSB3VecEnv(VecEnv):
    """A :class:`GameVectorEnv` (same-step autoreset) as SB3's ``VecEnv``; see the module docstring.

    ``infos[i]`` is empty but where game ``i`` just ended: then ``terminal_observation`` (its last
    observation, as SB3's ``DummyVecEnv`` gives it), ``TimeLimit.truncated`` (False: games never
    truncate), ``score`` and ``scores`` (the learner's and every seat's final scores), ``winners`` (each
    seat's), ``seat`` and, with ``deal``, the ``opponent`` it was dealt.
    ``seed(s)`` deals game i the seed ``s + i`` at the next ``reset()``, as SB3's vector envs do.
    Wrap it in SB3's ``VecMonitor`` for episode statistics."""

    def __init__(self, venv: GameVectorEnv):
        if not isinstance(venv, GameVectorEnv) or venv.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ValueError(f"venv must be a GameVectorEnv with same-step autoreset (SB3's), got {shown(venv)}")
        self.venv = venv
        self._actions: np.ndarray | None = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    def reset(self) -> np.ndarray:
        if any(self._options):
            raise ValueError(f"options must be empty: the SB3 vector env takes none, got {shown(self._options[0])}")
        seeds = None if all(seed is None for seed in self._seeds) else list(self._seeds)
        obs, _ = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        listed: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = infos["final_info"]
            for i in np.flatnonzero(dones).tolist():
                listed[i] = {
                    "terminal_observation": infos["final_obs"][i],
                    "TimeLimit.truncated": bool(truncated[i]),
                    "score": float(final["score"][i]),
                    "scores": final["scores"][i],
                    "winners": final["winners"][i],
                    "seat": int(final["seat"][i]),
                    **({"opponent": final["opponent"][i]} if "opponent" in final else {}),
                }
        return obs, rewards, dones, listed

    def action_masks(self) -> np.ndarray:
        """``(N, num_actions)`` bool: the learner's legal actions in each game."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Each game's picture (``render_mode="rgb_array"``), for SB3's ``render()`` and video recorder."""
        frames = self.venv.render() if self.venv.render_mode == "rgb_array" else None
        return list(frames) if frames is not None else [None] * self.num_envs

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The vector env's attribute, once per game asked for (every game shares it: ``render_mode``,
        ``action_masks``, ...)."""
        value = getattr(self.venv, attr_name)  # an AttributeError, as SB3's DummyVecEnv raises, where none
        return [value] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"the games of an SB3 vector env share their settings: {attr_name!r} cannot be set")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> Any:
        """``action_masks`` (what sb3-contrib's ``get_action_masks`` stacks): the masks of the games asked for,
        as one array; any other method is the vector env's, once per game asked for."""
        rows = self._get_indices(indices)
        if method_name == "action_masks":
            return self.venv.action_masks()[list(rows)] if indices is not None else self.venv.action_masks()
        return [getattr(self.venv, method_name)(*method_args, **method_kwargs)] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def _get_indices(self, indices) -> list[int]:
        return list(super()._get_indices(indices))


def sb3_vec_env(name: str, num_envs: int, **options) -> GameSB3VecEnv:
    """``envs.<name>_v0.sb3_vec_env``: ``options`` are the vector env's (opponents or deal, seed, reward, seat,
    render_mode; its autoreset is SB3's, same-step) and the game's ``env()`` options."""
    if "autoreset_mode" in options:
        raise ValueError("autoreset_mode is not an option of an SB3 vector env: SB3 resets in the same step")
    return GameSB3VecEnv(make_vector_env(name, num_envs, **options))


__all__ = ["GameSB3VecEnv", "sb3_vec_env"]
