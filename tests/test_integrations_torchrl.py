"""The TorchRL recipe of docs/integrations.md, run as it is on whole games of every game."""

from __future__ import annotations

import pytest
import torchrl  # noqa: F401 - a missing TorchRL is a failure here, never a skip

from tests.conftest import game_modules, recipe

RECIPE = recipe("torchrl")
pytestmark = pytest.mark.slow  # imports and whole games through a library: seconds each

GAMES = [pytest.param(name, module) for name, module in game_modules()]


def is_win_rewards(values: list[float]) -> bool:
    """+1 for each winner and -1 for each other player, or 0 for all on a win shared by everyone."""
    return all(v == 0 for v in values) or (set(values) <= {-1.0, 1.0} and 1.0 in values)


@pytest.mark.parametrize("name,module", GAMES, ids=[p.values[0] for p in GAMES])
def test_torchrl_plays_whole_games_with_legal_moves_and_final_infos(name, module):
    """TorchRL's own random actions follow the action mask (the raw env raises on an illegal move),
    every episode ends with the game's win rewards, and the final info reaches each group."""
    raw = module.raw_env()
    env = RECIPE["torchrl_env"](raw, seed=3)
    assert sorted(env.group_map) == sorted(raw.possible_agents), "one group per agent"
    for final in RECIPE["torchrl_episodes"](env, 3):
        assert raw.game_state.is_terminal()
        assert is_win_rewards([final[agent] for agent in raw.possible_agents]), final
    rollout = env.rollout(100_000, break_when_any_done=True)
    scores = raw.game_state.scores()
    for i, agent in enumerate(raw.possible_agents):
        info = rollout["next", agent, "info"]
        assert set(info.keys()) == set(raw.game_state.final_info(i))
        assert float(info["score"][-1]) == pytest.approx(scores[i]), "the final score, read at the last step"
