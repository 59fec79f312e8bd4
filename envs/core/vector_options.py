"""The arguments of the vector env (:mod:`envs.core.vector`) as Gymnasium's vector API defines them, checked.

Why a module of their own: Gymnasium's ``SyncVectorEnv`` takes a seed as an int, a list of per-game
seeds or None, a partial reset as ``options={"reset_mask": mask}`` and the autoreset mode as the enum or its
string; the vector env accepts exactly those, and refuses anything else with a ``ValueError`` naming the
argument and what it may be (Gymnasium asserts; the project's rule is a clear error).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envs.core.engine import is_int, shown

#: The autoreset modes the vector env plays: Gymnasium's default (the step after the end deals), same-step, and
#: none (the caller deals with a partial reset: TorchRL's way).
AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)
#: Its render modes: a picture or a text of each game (``"human"`` has no window to draw many games in).
RENDER_MODES = (None, "ansi", "rgb_array")


def checked_autoreset_mode(value: Any) -> AutoresetMode:
    """``value`` (an :class:`AutoresetMode` or its string, as ``SyncVectorEnv`` takes it) as the enum."""
    allowed = [*AUTORESET_MODES, *(mode.value for mode in AUTORESET_MODES)]
    if isinstance(value, AutoresetMode) or (type(value) is str and value in allowed):
        return AutoresetMode(value)
    raise ValueError(f"autoreset_mode must be one of {allowed}, got {shown(value)}")


def fresh_seed() -> int:
    """A seed from fresh entropy, as Gymnasium's unseeded resets draw one."""
    return int(np.random.SeedSequence().entropy % 2**62)


def game_seeds(seed: Any, num_envs: int) -> np.ndarray | None:
    """``reset``'s ``seed`` as one seed per game (int64), or None when not given: an int ``s`` is
    ``s, s + 1, ...`` (Gymnasium's rule, and the batch contract's), a list gives each game its own
    (a None in it: fresh entropy for that game)."""
    if seed is None:
        return None
    if is_int(seed) and 0 <= seed < 2**63 - num_envs:
        return seed + np.arange(num_envs, dtype=np.int64)
    if isinstance(seed, (list, tuple)) and len(seed) == num_envs:
        if all(s is None or (is_int(s) and 0 <= s < 2**63 - num_envs) for s in seed):
            return np.array([fresh_seed() if s is None else s for s in seed], dtype=np.int64)
    raise ValueError(
        f"seed must be None, a non-negative int or a list of {num_envs} non-negative ints (or None), got {shown(seed)}"
    )


def reset_mask(options: Any, num_envs: int) -> np.ndarray | None:
    """The games a reset deals: ``options["reset_mask"]`` (Gymnasium's partial reset: a ``(num_envs,)``
    numpy bool array with at least one True), or None for every game; any other option is refused."""
    if options is None:
        return None
    if not isinstance(options, dict) or set(options) - {"reset_mask"}:
        raise ValueError(f"options must be None or {{'reset_mask': ...}} (its only key), got {shown(options)}")
    if "reset_mask" not in options:
        return None
    mask = options["reset_mask"]
    if not isinstance(mask, np.ndarray) or mask.shape != (num_envs,) or mask.dtype != np.bool_ or not mask.any():
        raise ValueError(f"reset_mask must be a numpy bool array of shape ({num_envs},) with a True, got {shown(mask)}")
    return mask


__all__ = ["AUTORESET_MODES", "RENDER_MODES", "checked_autoreset_mode", "fresh_seed", "game_seeds", "reset_mask"]
