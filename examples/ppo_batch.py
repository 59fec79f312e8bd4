"""PPO with action masks on a batched drawluck game, in CleanRL's shape (``cleanrl/ppo.py``), in torch.

The learner plays one seat of ``--num-envs`` games at once through ``envs.<game>_v0.vector_env``
(the batch engine, opponents moved inside it); every setting is in :class:`Args`; illegal actions
get zero probability from ``infos["action_mask"]``. Read top to bottom; ``docs/batch.md`` explains it.

    python examples/ppo_batch.py --game wapi --total-timesteps 200000
    python examples/ppo_batch.py --total-timesteps 2048 --num-envs 64 --num-steps 16   # a smoke run, seconds
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from agents.opponents import batch_opponent
from envs.games import make_game


@dataclass
class Args:
    game: str = "wapi"
    """the game (wapi, wakanda, samurai), in its default configuration"""
    opponents: str = "random"
    """who plays the other seats: random or heuristic"""
    seed: int = 1
    """seed of the games, the opponents and torch"""
    total_timesteps: int = 200_000
    """learner steps in all"""
    learning_rate: float = 2.5e-4
    """the optimizer's learning rate"""
    num_envs: int = 256
    """games played at once"""
    num_steps: int = 32
    """steps in each game per rollout"""
    gamma: float = 1.0
    """discount (the only reward is at the end of a game)"""
    gae_lambda: float = 0.95
    """lambda of the generalised advantage estimate"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs over each rollout"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    ent_coef: float = 0.01
    """entropy coefficient"""
    vf_coef: float = 0.5
    """value function coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping"""


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for field in dataclasses.fields(Args):
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=type(field.default), default=field.default)
    return Args(**vars(parser.parse_args(argv)))


def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    def __init__(self, observations: int, actions: int):
        super().__init__()
        self.critic = nn.Sequential(layer(observations, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, 1, 1.0))
        self.actor = nn.Sequential(
            layer(observations, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, actions, 0.01)
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e9)  # illegal actions: probability 0
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)
    run_name = f"{args.game}__ppo_batch__{args.seed}__{int(time.time())}"

    # seeding: the games (game i of the batch is env().reset(seed=seed + i)'s), the opponents, torch
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: one thread is fastest, and leaves the other cores alone
    opponents = batch_opponent(args.opponents, make_game(args.game))  # players come from agents
    envs = importlib.import_module(f"envs.{args.game}_v0").vector_env(
        args.num_envs, opponents=opponents, seed=args.seed
    )
    observation_size = envs.single_observation_space.shape[0]
    num_actions = envs.single_action_space.n
    agent = Agent(observation_size, num_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs, observation_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    start_time, global_step, finished = time.time(), 0, []
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.as_tensor(next_obs), torch.as_tensor(infos["action_mask"])
    next_done = torch.zeros(args.num_envs)
    for iteration in range(1, num_iterations + 1):
        optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value.flatten()
            # same-step autoreset: a game that ends gives its reward here, and next_obs is its next game's
            next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward)
            next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32)
            next_obs, next_mask = torch.as_tensor(next_obs), torch.as_tensor(infos["action_mask"])
            finished += reward[terminations].tolist()

        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.get_value(next_obs).flatten()
            advantages = torch.zeros_like(rewards)
            last = 0.0
            for t in reversed(range(args.num_steps)):
                next_nonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * next_nonterminal - values[t]
                advantages[t] = last = delta + args.gamma * args.gae_lambda * next_nonterminal * last
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, observation_size), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        indices = np.arange(batch_size)
        for _epoch in range(args.update_epochs):
            np.random.default_rng(args.seed + iteration).shuffle(indices)
            for start in range(0, batch_size, minibatch_size):
                mb = indices[start : start + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_advantages = b_advantages[mb]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_advantages * ratio, -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                v_loss = 0.5 * ((newvalue.flatten() - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        recent = finished[-1000:]
        print(
            f"{run_name} iteration {iteration}/{num_iterations}: {global_step} steps, "
            f"{global_step / (time.time() - start_time):,.0f} steps/s, {len(finished)} games, "
            f"mean final reward of the last {len(recent)}: {np.mean(recent) if recent else float('nan'):.3f}",
            flush=True,
        )
    envs.close()
    return {"run_name": run_name, "steps": global_step, "games": len(finished), "rewards": finished}


if __name__ == "__main__":
    main()
