"""The TorchRL recipe for the batched vector env (docs/integrations.md, ``torchrl_vector``), run as it is on every
game: TorchRL's own checks, its random actions kept legal by the mask, finished games dealt again by its resets."""

from __future__ import annotations

import numpy as np
import pytest
import torchrl  # noqa: F401 - a missing TorchRL is a failure here, never a skip
from torchrl.envs.utils import check_env_specs

from tests.conftest import game_modules, recipe

RECIPE = recipe("torchrl_vector")
GAMES = [pytest.param(name, module, id=name) for name, module in game_modules()]


@pytest.mark.parametrize("name,module", GAMES)
def test_torchrl_steps_the_vector_env_with_legal_actions_and_deals_finished_games(name, module):
    """``check_env_specs`` passes; the first observations are the vector env's for the same seeds; every action of
    a random rollout is legal in its game (the env raises on an illegal one) and within the mask TorchRL read;
    rewards come only where a game ends, as win rewards, and the games go on after their ends."""
    env = RECIPE["torchrl_vector_env"](module.vector_env, 3, seed=4)
    first = env.reset()
    seeds = env.base_env._env.batch.seeds.tolist()  # the games TorchRL's reset dealt
    assert np.array_equal(first["observation"].numpy(), module.vector_env(3).reset(seed=seeds)[0])
    check_env_specs(env)
    rollout = env.rollout(60, break_when_any_done=False)
    chosen = rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1))
    assert chosen.all(), "TorchRL's random actions follow the masks"
    done, reward = rollout["next", "done"].squeeze(-1), rollout["next", "reward"].squeeze(-1)
    assert done.any() and (reward[~done] == 0).all() and set(reward[done].tolist()) <= {-1.0, 0.0, 1.0}
    assert (done.sum(dim=1) >= 1).any() and not done[:, -1].all()
