"""The trained-model agent (``ppo:PATH``): plays a saved MaskablePPO model with the mask, and refuses
a missing file, a file that is not a model, or a model for another game or observation shape, with a
clear ValueError before torch runs."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

from agents import make_agent, play_game  # noqa: E402
from agents.games import available_games, make_game  # noqa: E402


class TinyEnv(gymnasium.Env):
    """Only the spaces matter: enough for MaskablePPO to build and save a policy."""

    def __init__(self, observation_size: int, num_actions: int):
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (observation_size,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(num_actions)

    def reset(self, seed=None, options=None):
        return np.zeros(self.observation_space.shape, np.float32), {}

    def step(self, action):
        return np.zeros(self.observation_space.shape, np.float32), 0.0, True, False, {}

    def action_masks(self):
        return np.ones(self.action_space.n, bool)


def save_model(path, game, sidecar: dict | None = None) -> str:
    model = MaskablePPO("MlpPolicy", TinyEnv(game.observation_size, game.num_actions), n_steps=16, batch_size=16, seed=0)
    model.save(str(path))
    if sidecar is not None:
        (path.parent / (path.name + ".json")).write_text(json.dumps(sidecar))
    return str(path)


@pytest.fixture(scope="module")
def wapi_model(tmp_path_factory):
    game = make_game("wapi", num_players=3)
    path = tmp_path_factory.mktemp("model") / "wapi.zip"
    meta = {"game": "wapi", "config": game.config(), "observation_size": game.observation_size}
    return save_model(path, game, meta)


def test_a_saved_model_plays_legal_games_deterministically(wapi_model):
    game = make_game("wapi", num_players=3)
    for seed in range(3):
        agents = [make_agent(f"ppo:{wapi_model}", game), make_agent("random", game, seed=seed), make_agent("heuristic", game)]
        first = play_game(game, agents, seed=seed, record=True)
        again = play_game(game, [make_agent(f"ppo:{wapi_model}", game), make_agent("random", game, seed=seed), agents[2]],
                          seed=seed, record=True)
        assert first.actions == again.actions, "deterministic by default"


def test_the_zip_suffix_may_be_left_out(wapi_model):
    game = make_game("wapi", num_players=3)
    assert make_agent(f"ppo:{wapi_model[:-4]}", game, deterministic=False).deterministic is False


def test_missing_and_foreign_files_are_clear_errors(tmp_path):
    game = make_game("wapi")
    with pytest.raises(ValueError, match="ppo model file not found"):
        make_agent(f"ppo:{tmp_path / 'nothing.zip'}", game)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="could not load .* as a MaskablePPO model"):
        make_agent(f"ppo:{junk}", game)


def test_a_model_for_another_configuration_is_refused_by_its_sidecar(wapi_model):
    with pytest.raises(ValueError, match="trained for wapi configuration"):
        make_agent(f"ppo:{wapi_model}", make_game("wapi", num_players=4))


@pytest.mark.skipif("wakanda" not in available_games(), reason="the Wakanda engine is not in this checkout")
def test_a_model_for_another_game_is_refused(wapi_model, tmp_path):
    wakanda = make_game("wakanda")
    with pytest.raises(ValueError, match="trained for game 'wapi', not 'wakanda'"):
        make_agent(f"ppo:{wapi_model}", wakanda)
    bare = save_model(tmp_path / "bare.zip", make_game("wapi"))  # no sidecar: the shapes decide
    with pytest.raises(ValueError, match=r"expects observations Box.*\(92,\).*wakanda gives vectors of shape \(150,\)"):
        make_agent(f"ppo:{bare}", wakanda)
