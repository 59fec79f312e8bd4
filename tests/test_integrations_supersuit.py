"""The SuperSuit recipe of docs/integrations.md, run as it is on every game."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from tests.conftest import aec_trace, game_modules, recipe

RECIPE = recipe("supersuit")
GAMES = game_modules()


@pytest.mark.parametrize("name,module", GAMES, ids=[name for name, _ in GAMES])
def test_supersuit_reward_clipping_keeps_the_api_and_bounds_the_rewards(name, module):
    reward = "score" if "score" in module.raw_env().game.reward_modes else "win"
    env = RECIPE["supersuit_rewards_in"](module.env(reward=reward), low=-0.5, high=0.5)
    api_test(env, num_cycles=200)
    rewards = [step[3] for seed in range(3) for step in aec_trace(env, seed)]
    assert all(-0.5 <= r <= 0.5 for r in rewards) and any(r != 0 for r in rewards)


@pytest.mark.parametrize("name,module", GAMES, ids=[name for name, _ in GAMES])
def test_supersuit_observation_lambda_changes_the_observation_and_keeps_the_mask(name, module):
    plain, wrapped = module.env(), RECIPE["supersuit_centred_observations"](module.env())
    api_test(RECIPE["supersuit_centred_observations"](module.env()), num_cycles=200)
    for env in (plain, wrapped):
        env.reset(seed=5)
    for _ in range(30):
        if not plain.agents:
            break
        (a, *_), (b, *_) = plain.last(), wrapped.last()
        assert np.array_equal(b["observation"], 2 * a["observation"] - 1)
        assert np.array_equal(b["action_mask"], a["action_mask"])
        action = None if plain.terminations[plain.agent_selection] else int(np.flatnonzero(a["action_mask"])[0])
        plain.step(action)
        wrapped.step(action)
    space = wrapped.observation_space(wrapped.possible_agents[0])["observation"]
    assert space.low.min() == -1.0 and space.high.max() == 1.0
