"""The AgileRL recipe of docs/integrations.md, run as it is on a few episodes of every game.

AgileRL pins ``pettingzoo<1.27`` and ``tensordict==0.13.0``: this module runs in its own virtual
environment (``make test-agilerl``; see ``tests/conftest.py``), on PettingZoo 1.26."""

from __future__ import annotations

import math

import agilerl  # noqa: F401 - where this module is collected, a missing AgileRL is a failure
import pytest
import torch

from tests.conftest import game_modules, recipe

RECIPE = recipe("agilerl")
pytestmark = pytest.mark.slow  # imports and whole games through a library: seconds each
GAMES = game_modules()


@pytest.mark.parametrize("name,module", GAMES, ids=[name for name, _ in GAMES])
def test_agilerl_dqn_self_play_makes_one_transition_per_decision_and_learns(name, module):
    """Every decision becomes one transition, closed at the agent's next turn or at the end; the
    DQN only picks legal actions (the raw env raises on an illegal one); learning runs on them."""
    env = module.raw_env()
    decisions = []
    original = env.step

    def counting_step(action):
        if action is not None:
            decisions.append(action)
        original(action)

    env.step = counting_step
    dqn, buffer, losses = RECIPE["agilerl_train"](env, episodes=3, seed=1)
    assert len(buffer) == len(decisions) > 0
    batch = buffer.sample(len(buffer))
    done = batch["done"].flatten().bool()
    assert int(done.sum()) == 3 * len(env.possible_agents), "each agent's last transition of each game is final"
    rewards = batch["reward"].flatten()
    assert torch.all(rewards[~done] == 0), "rewards only when the game ends"
    assert losses and all(math.isfinite(loss) for loss in losses)
