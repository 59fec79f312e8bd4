"""The Tianshou recipe of docs/integrations.md, run as it is on a few episodes of every game."""

from __future__ import annotations

import numpy as np
import pytest
import tianshou  # noqa: F401 - a missing Tianshou is a failure here, never a skip

from tests.conftest import game_modules, recipe
from tests.test_integrations_torchrl import is_win_rewards

RECIPE = recipe("tianshou")
pytestmark = pytest.mark.slow  # imports and whole games through a library: seconds each

GAMES = [pytest.param(name, module) for name, module in game_modules()]


@pytest.mark.parametrize("name,module", GAMES, ids=[p.values[0] for p in GAMES])
def test_tianshou_collects_whole_games_into_its_replay_buffer(name, module):
    """Masked random players in every seat (the raw env raises on an illegal move); every episode
    ends with the game's win rewards, and the buffer holds each step with its agent and mask."""
    stats, buffer = RECIPE["tianshou_collect"](module.raw_env, episodes=4)
    assert stats.n_collected_episodes >= 4
    for returns in np.asarray(stats.returns):
        assert is_win_rewards([float(r) for r in returns]), returns
    assert len(buffer) == stats.n_collected_steps
    data = buffer.sample(0)[0]
    assert set(np.unique(data.obs.agent_id)) <= set(module.raw_env().possible_agents)
    chosen = data.obs.mask[np.arange(len(data)), data.act]
    assert chosen.all(), "every collected action was legal where it was taken"
