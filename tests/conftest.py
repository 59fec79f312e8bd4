"""Shared test helpers."""

from __future__ import annotations

import os
import random
import shutil
import tempfile

import numpy as np

# Ray in the tests (read when ray is first imported, so set before any test module imports it): every node
# on the loopback address, no usage reports sent anywhere, and a temporary directory of this run's own, so
# that no cluster of another run on this machine is found or disturbed.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
_RAY_TMPDIR = None
if "RAY_TMPDIR" not in os.environ:
    _RAY_TMPDIR = os.environ["RAY_TMPDIR"] = tempfile.mkdtemp(prefix="drl-ray-")


def pytest_unconfigure(config) -> None:
    if _RAY_TMPDIR is not None:
        shutil.rmtree(_RAY_TMPDIR, ignore_errors=True)


def play_random(state, seed: int, check_mask: bool = False):
    """Play random legal actions on an engine state until the end; yields each state before a move.

    With ``check_mask``, verify at each step that the mask equals the legal actions.
    """
    choose = random.Random(seed).choice
    while state.current_player is not None:
        if check_mask:
            assert np.flatnonzero(state.legal_mask()).tolist() == state.legal_actions()
        yield state
        state.apply(choose(state.legal_actions()))
    yield state


def aec_trace(env, seed: int, policy_seed: int = 0, max_steps: int = 100_000) -> list:
    """Drive an AEC env with random legal moves and record everything the agents get."""
    env.reset(seed=seed)
    choose = random.Random(policy_seed).choice
    trace = []
    for agent in env.agent_iter(max_steps):
        obs, reward, termination, truncation, info = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, termination, truncation, repr(info)))
        env.step(None if termination or truncation else choose(np.flatnonzero(obs["action_mask"]).tolist()))
    return trace


def assert_refused(env, call, match: str) -> None:
    """Bad input: ``call()`` raises a ValueError matching ``match`` and the game is untouched."""
    import pytest

    before = env.state_dict()
    with pytest.raises(ValueError, match=match):
        call()
    assert env.state_dict() == before, "a refused call leaves the game untouched"
