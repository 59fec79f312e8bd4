"""``envs.<game>_v0.sb3_vec_env``: the batched games as a Stable-Baselines3 ``VecEnv``, with sb3-contrib's action
masks; SB3's conventions checked against the same games through the Gymnasium vector env, and MaskablePPO
trained on it."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

import envs


def module(name: str):
    return importlib.import_module(f"envs.{name}_v0")


@pytest.mark.parametrize("name", envs.GAMES)
def test_sb3s_conventions_hold_on_the_same_games_as_the_vector_env(name):
    """``seed(s)`` then ``reset()`` deals the vector env's ``reset(seed=s)`` games; each step gives the vector
    env's observations, rewards and dones; a finished game's info holds its ``terminal_observation`` and final
    score, the others' infos are empty; the masks reach sb3-contrib as the vector env's."""
    sb3 = module(name).sb3_vec_env(3, seed=0)
    venv = module(name).vector_env(3, seed=0)
    assert isinstance(sb3, VecEnv) and is_masking_supported(sb3) and sb3.render_mode is None
    assert sb3.seed(7) == [7, 8, 9]
    assert np.array_equal(sb3.reset(), venv.reset(seed=7)[0])
    rng, ended = np.random.default_rng(0), 0
    while ended < 4:
        masks = get_action_masks(sb3)
        assert np.array_equal(masks, venv.action_masks())
        actions = np.where(masks, rng.random(masks.shape), -1).argmax(axis=1)
        obs, rewards, dones, infos = sb3.step(actions)
        obs_v, rewards_v, terminated, _, infos_v = venv.step(actions)
        assert np.array_equal(obs, obs_v) and np.array_equal(rewards, rewards_v) and np.array_equal(dones, terminated)
        for i, info in enumerate(infos):
            if not dones[i]:
                assert info == {}
                continue
            assert np.array_equal(info["terminal_observation"], infos_v["final_obs"][i])
            assert info["score"] == infos_v["final_info"]["score"][i] and info["TimeLimit.truncated"] is False
            ended += 1
    sb3.close()
    sb3.close()


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="autoreset_mode is not an option of an SB3 vector env"):
        module("wapi").sb3_vec_env(2, autoreset_mode="NextStep")
    with pytest.raises(ValueError, match="opponents must be one of"):
        module("wapi").sb3_vec_env(2, opponents="ismcts")
    with pytest.raises(AttributeError, match="cannot be set"):
        module("wapi").sb3_vec_env(2).set_attr("seat", 1)
    venv = module("wapi").sb3_vec_env(2)
    venv.set_options({"seat": 1})
    with pytest.raises(ValueError, match="options must be empty: the SB3 vector env takes none"):
        venv.reset()


@pytest.mark.slow
def test_maskable_ppo_trains_on_it_with_legal_moves_only():
    """MaskablePPO collects and updates on the SB3 vector env: every move it plays is legal (the env raises on
    an illegal one), VecMonitor sees whole games with win rewards, and the policy's weights change."""
    torch.manual_seed(0)
    env = VecMonitor(module("wakanda").sb3_vec_env(16, seed=0))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(512)
    assert model.num_timesteps == 512
    episodes = list(model.ep_info_buffer)
    assert episodes and {e["r"] for e in episodes} <= {-1.0, 0.0, 1.0}
    assert any(not torch.equal(b, p) for b, p in zip(before, model.policy.parameters()))
    env.close()
