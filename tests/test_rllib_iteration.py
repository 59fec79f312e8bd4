"""One RLlib PPO iteration per game on a local Ray: the multi-agent config builds and learns, the league's
results come back from the environments, and the exported policy computes exactly the RLlib module's
masked logits (so ``rllib:PATH`` plays what was trained)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import envs
from agents.models.card import network_description
from agents.models.rllib_policy import MaskedPolicy
from parallel.ray_cluster import ray_session
from training.rllib.env import RLlibGameEnv
from training.rllib.league import SELF, league_state, new_league
from training.rllib.policy import export_policy, policy_state
from training.rllib.training import LEARNER, RLlibRun, build_config, learner_steps, learner_weights, pull_results
from training.settings import PPOSettings

pytestmark = pytest.mark.slow

#: A tiny run: the rest of PPO's numbers are the defaults (training/settings.py).
TINY_PPO = PPOSettings(n_steps=64, batch_size=64, n_epochs=1, learning_rate=1e-3, network=network_description([16, 16]))


@pytest.fixture(scope="module")
def local_ray():
    with ray_session(num_cpus=1) as cluster:
        yield cluster


def observations(name: str, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of real positions of ``name``, from the wrapper."""
    env = RLlibGameEnv({"game": name})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    rows, masks = [], []
    while len(rows) < count:
        ((agent, seen),) = obs.items()
        rows.append(seen["observations"])
        masks.append(seen["action_mask"])
        obs, _, done, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(seen["action_mask"])))})
        if done["__all__"]:
            obs, _ = env.reset()
    return np.array(rows), np.array(masks)


@pytest.mark.parametrize("name", envs.GAMES)
def test_one_training_iteration_and_the_exported_policy_is_the_module(name, local_ray, tmp_path):
    game = envs.describe(name).make()
    run = RLlibRun(game, TINY_PPO, 128, 128, 128, opponents=["random", SELF], n_envs=2, num_env_runners=0, seed=1)
    league = new_league(run.opponents)
    algo = build_config(run, league).build_algo()
    try:
        before = policy_state(learner_weights(algo))
        result = algo.train()
        assert learner_steps(result) >= 2 * 64, "a full rollout of learner steps"
        after = policy_state(learner_weights(algo))
        assert any(not np.array_equal(before[k], after[k]) for k in after), "PPO updated the policy"
        results = pull_results(algo)
        assert results and {member for member, _ in results} == {0}, "no snapshot yet: random, the only member"
        assert league_state(league, {}).kinds == ("random",)
        assert all(points in (0.0, 0.5, 1.0) for _, points in results)
        module = algo.get_module(LEARNER)
        obs, masks = observations(name, 24)
        with torch.no_grad():
            out = module.forward_inference(
                {"obs": {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(masks)}}
            )
        expected = out["action_dist_inputs"].numpy()
        policy = MaskedPolicy.load(export_policy(module.state_dict(), game, tmp_path / "exported"), game)
        logits = policy.logits(obs, masks)
        legal = masks.astype(bool)
        np.testing.assert_allclose(logits[legal], expected[legal], rtol=1e-5, atol=1e-5)
        assert (np.argmax(logits, axis=1) == np.argmax(expected, axis=1)).all(), "the same greedy moves"
    finally:
        algo.stop()
