"""The batched entry points of every ``envs.<game>_v0`` module, written once: ``vector_env`` (Gymnasium) and
``sb3_vec_env`` (Stable-Baselines3, imported only when called)."""

from __future__ import annotations

from envs.core.vector import GameVectorEnv, make_vector_env


def batched_entry_points(name: str):
    """The game ``name``'s ``vector_env`` and ``sb3_vec_env`` (entry points of ``envs.<name>_v0``), written once for
    every game."""

    def vector_env(num_envs: int, **options) -> GameVectorEnv:
        """``num_envs`` games as a Gymnasium VectorEnv of one learner's seat (``docs/batch.md``); ``options``: those
        of ``envs.core.vector.GameVectorEnv`` (opponents, seed, reward, seat, autoreset_mode, render_mode) and of
        ``env()`` (the game's configuration)."""
        return make_vector_env(name, num_envs, **options)

    def sb3_vec_env(num_envs: int, **options):
        """The vector env as a Stable-Baselines3 ``VecEnv`` with sb3-contrib's action masks (``envs/core/sb3.py``;
        SB3 imported only here); ``options`` as :func:`vector_env`'s, but for ``autoreset_mode``."""
        from envs.core.sb3 import sb3_vec_env as make

        return make(name, num_envs, **options)

    return vector_env, sb3_vec_env


__all__ = ["batched_entry_points"]
