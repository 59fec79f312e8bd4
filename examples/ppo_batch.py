"""PPO with action masks on a batched drawluck game, in CleanRL's shape (``cleanrl/ppo.py``), in torch.

The learner plays one seat of ``--num-envs`` games at once through ``envs.<game>_v0.vector_env``
(the batch engine, opponents moved inside it); every setting is in :data:`SETTINGS` (``--help``); illegal actions
get zero probability from ``infos["action_mask"]``. Every ``--eval-every`` updates the greedy policy
plays held-out deals (seeds far from the training's) against random and heuristic opponents: win rates with
95% intervals, printed and logged to TensorBoard (``tensorboard --logdir runs``) with the losses. The
model is saved as ``runs/<run name>/agent.pt`` and plays as an agent of the agent protocol:
``python -m benchmarks.rate examples/ppo_batch.py:BatchPPOAgent --option model=runs/<run>/agent.pt --game G``.
Read top to bottom; ``docs/batch.md`` explains it.

    python examples/ppo_batch.py                                   # Wakanda against the heuristic, 1.5M steps
    python examples/ppo_batch.py --game wapi --opponents random --total-timesteps 200000
    python examples/ppo_batch.py --total-timesteps 2048 --num-envs 64 --num-steps 16   # a smoke run, seconds
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from agents.opponents import batch_opponent
from envs.games import make_game
from training.win_rates import wilson_interval, win_points

#: The first seed of the evaluation's deals: far beyond any seed a training run deals, but in the benchmark's
#: tuning set (``docs/benchmark.md``): a run is watched on them; its reported figure is on the test set
#: (``python -m benchmarks.example_run``, ``benchmarks/results/example_run.md``).
EVAL_DEALS = 10**9


#: Every setting: (name, default, what it is). ``Args`` holds them; each is a flag (``--num-envs``), its help the text.
SETTINGS = (
    # the run
    ("game", "wakanda", "the game (wapi, wakanda, samurai), in its default configuration"),
    ("opponents", "heuristic", "who plays the other seats while training: random, heuristic or trained"),
    ("seed", 1, "seed of the games, the opponents and torch"),
    ("total_timesteps", 1_500_000, "learner steps in all"),
    ("out", "runs", "where each run's folder goes (TensorBoard logs and agent.pt)"),
    # the batch and the network
    ("num_envs", 256, "games played at once"),
    ("num_steps", 32, "steps in each game per rollout"),
    ("hidden", 256, "units in each of the two hidden layers of the actor and of the critic"),
    # the optimiser
    ("learning_rate", 5e-4, "the optimizer's learning rate"),
    ("anneal_lr", True, "anneal the learning rate linearly to zero"),
    ("max_grad_norm", 0.5, "gradient clipping"),
    # PPO
    ("gamma", 1.0, "discount (the only reward is at the end of a game)"),
    ("gae_lambda", 0.95, "lambda of the generalised advantage estimate"),
    ("num_minibatches", 4, "minibatches per epoch"),
    ("update_epochs", 4, "epochs over each rollout"),
    ("norm_adv", True, "normalise the advantages in each minibatch"),
    ("clip_coef", 0.2, "the surrogate clipping coefficient"),
    ("clip_vloss", True, "clip the value loss as the surrogate is clipped"),
    ("ent_coef", 0.01, "entropy coefficient"),
    ("vf_coef", 0.5, "value function coefficient"),
    # evaluation
    ("eval_every", 30, "updates between evaluations (and one at the end); 0: only at the end"),
    ("eval_games", 400, "held-out deals per opponent in an evaluation"),
)
#: The settings of a run, as CleanRL's ``Args`` (a dataclass: ``args.num_envs``), made from :data:`SETTINGS`.
Args = dataclasses.make_dataclass("Args", [(name, type(default), default) for name, default, _ in SETTINGS])


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default, text in SETTINGS:
        flag = f"--{name.replace('_', '-')}"
        if type(default) is bool:  # --norm-adv / --no-norm-adv: bool("False") would be True
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=text)
        else:
            parser.add_argument(flag, type=type(default), default=default, help=f"{text} (default {default})")
    return Args(**vars(parser.parse_args(argv)))


def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    def __init__(self, observations: int, actions: int, hidden: int = 64):
        super().__init__()
        self.critic = nn.Sequential(
            layer(observations, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0)
        )
        self.actor = nn.Sequential(
            layer(observations, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, actions, 0.01)
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e9)  # illegal actions: probability 0
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)

    def greedy(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The most probable legal action: how the agent plays when evaluated."""
        return self.actor(x).masked_fill(~mask, -1e9).argmax(dim=-1)


@dataclass
class Rollout:
    """One rollout's tensors, ``(num_steps, num_envs, ...)``."""

    obs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    values: torch.Tensor

    @classmethod
    def empty(cls, steps: int, envs: int, observations: int, actions: int) -> Rollout:
        zeros = [torch.zeros((steps, envs)) for _ in range(4)]
        return cls(
            torch.zeros((steps, envs, observations)),
            torch.zeros((steps, envs, actions), dtype=torch.bool),
            torch.zeros((steps, envs), dtype=torch.long),
            *zeros,
        )


def collect(envs, agent: Agent, rollout: Rollout, state: tuple, finished: list) -> tuple:
    """Fill ``rollout`` with ``num_steps`` learner steps in every game; returns the next (obs, mask, done)."""
    next_obs, next_mask, next_done = state
    for step in range(rollout.obs.shape[0]):
        rollout.obs[step], rollout.masks[step], rollout.dones[step] = next_obs, next_mask, next_done
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
        rollout.actions[step], rollout.logprobs[step], rollout.values[step] = action, logprob, value.flatten()
        # same-step autoreset: a game that ends gives its reward here, and next_obs is its next game's
        obs, reward, terminations, truncations, infos = envs.step(action.numpy())
        rollout.rewards[step] = torch.as_tensor(reward)
        next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32)
        next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(infos["action_mask"])
        finished += reward[terminations].tolist()
    return next_obs, next_mask, next_done


def advantages(args: Args, agent: Agent, rollout: Rollout, next_obs, next_done) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation, as CleanRL's; returns (advantages, returns)."""
    with torch.no_grad():
        next_value = agent.get_value(next_obs).flatten()
        advantage = torch.zeros_like(rollout.rewards)
        last, steps = 0.0, rollout.rewards.shape[0]
        for t in reversed(range(steps)):
            next_nonterminal = 1.0 - (next_done if t == steps - 1 else rollout.dones[t + 1])
            following = next_value if t == steps - 1 else rollout.values[t + 1]
            delta = rollout.rewards[t] + args.gamma * following * next_nonterminal - rollout.values[t]
            advantage[t] = last = delta + args.gamma * args.gae_lambda * next_nonterminal * last
    return advantage, advantage + rollout.values


def update(args: Args, agent: Agent, optimizer, rollout: Rollout, advantage, returns, iteration: int) -> dict:
    """PPO's clipped update over the rollout, ``update_epochs`` times in minibatches; returns the last losses."""
    flat = {name: getattr(rollout, name).flatten(0, 1) for name in ("obs", "masks", "actions", "logprobs", "values")}
    b_advantages, b_returns = advantage.flatten(), returns.flatten()
    batch_size = b_returns.numel()
    indices = np.arange(batch_size)
    for _epoch in range(args.update_epochs):
        np.random.default_rng(args.seed + iteration).shuffle(indices)
        for start in range(0, batch_size, batch_size // args.num_minibatches):
            mb = indices[start : start + batch_size // args.num_minibatches]
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                flat["obs"][mb], flat["masks"][mb], flat["actions"][mb]
            )
            ratio = (newlogprob - flat["logprobs"][mb]).exp()
            mb_advantages = b_advantages[mb]
            if args.norm_adv:
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
            clipped = torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
            pg_loss = torch.max(-mb_advantages * ratio, -mb_advantages * clipped).mean()
            newvalue = newvalue.flatten()
            v_loss = (newvalue - b_returns[mb]) ** 2
            if args.clip_vloss:
                old = flat["values"][mb]
                v_clipped = old + torch.clamp(newvalue - old, -args.clip_coef, args.clip_coef)
                v_loss = torch.max(v_loss, (v_clipped - b_returns[mb]) ** 2)
            v_loss = 0.5 * v_loss.mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()
    return {"policy_loss": pg_loss.item(), "value_loss": v_loss.item(), "entropy": entropy.mean().item()}


def evaluate(agent: Agent, game: str, opponent: str, games: int) -> dict:
    """The greedy policy on ``games`` held-out deals (seeds from :data:`EVAL_DEALS`, the learner's seat rotating with
    the seed) against ``opponent`` in every other seat: its win rate (a win 1, a win shared by k 1/k, a loss
    0) with a 95% Wilson interval. Each slot's first game counts."""
    envs = importlib.import_module(f"envs.{game}_v0").vector_env(
        games, opponents=batch_opponent(opponent, make_game(game)), seed=EVAL_DEALS
    )
    obs, infos = envs.reset()
    points, counted = np.zeros(games), np.zeros(games, dtype=bool)
    while not counted.all():
        with torch.no_grad():
            action = agent.greedy(torch.as_tensor(obs), torch.as_tensor(infos["action_mask"]))
        obs, reward, terminated, _, infos = envs.step(action.numpy())
        final = infos.get("final_info", {})
        for i in np.flatnonzero(terminated & ~counted):
            points[i] = win_points(final["winners"][i], final["seat"][i])
        counted |= terminated
    envs.close()
    low, high = wilson_interval(points.sum(), games)
    return {"opponent": opponent, "games": games, "win_rate": points.mean(), "low": low, "high": high}


def save(agent: Agent, path: Path) -> None:
    """The weights and the sizes that rebuild the network (read back by :class:`BatchPPOAgent`)."""
    first, last = agent.actor[0], agent.actor[-1]
    sizes = {
        "observations": int(first.in_features),
        "actions": int(last.out_features),
        "hidden": int(first.out_features),
    }
    torch.save({"sizes": sizes, "state_dict": agent.state_dict()}, path)


class BatchPPOAgent:
    """A saved model as a player of the agent protocol (``act(view) -> int``): its greedy legal move."""

    name = "ppo-batch"

    def __init__(self, game=None, seed=None, model: str = ""):
        saved = torch.load(model, weights_only=True)  # tensors and sizes only: no code runs
        self.agent = Agent(**saved["sizes"])
        self.agent.load_state_dict(saved["state_dict"])

    def reset(self) -> None:
        """Nothing to forget between games: the policy reads only the observation."""

    def act(self, view) -> int:
        obs, mask = torch.as_tensor(view.observation)[None], torch.as_tensor(view.legal_mask.astype(bool))[None]
        with torch.no_grad():
            return int(self.agent.greedy(obs, mask)[0])


def log_iteration(writer, run_name: str, iteration: int, iterations: int, step: int, logged: dict) -> None:
    """One update's figures, to TensorBoard (``charts/``) and one printed line."""
    for key, value in logged.items():
        writer.add_scalar(f"charts/{key}", value, step)
    print(
        f"{run_name} iteration {iteration}/{iterations}: {step} steps, {logged['SPS']:,.0f} steps/s, "
        f"{logged['games']} games, mean final reward of the last 1000: {logged['mean_final_reward']:.3f}",
        flush=True,
    )


def evaluate_now(agent: Agent, args: Args, writer, step: int) -> list[dict]:
    """:func:`evaluate` against random and heuristic opponents, logged (``eval/``) and printed."""
    results = []
    for opponent in ("random", "heuristic"):
        result = {**evaluate(agent, args.game, opponent, args.eval_games), "step": step}
        writer.add_scalar(f"eval/win_rate_vs_{opponent}", result["win_rate"], step)
        print(
            f"  vs {opponent}: win rate {result['win_rate']:.3f} [{result['low']:.3f}, {result['high']:.3f}] "
            f"on {result['games']} held-out deals",
            flush=True,
        )
        results.append(result)
    return results


def main(argv: list[str] | None = None) -> dict:
    from torch.utils.tensorboard import SummaryWriter

    args = parse_args(argv)
    run_name = f"{args.game}__ppo_batch__{args.seed}__{int(time.time())}"
    folder = Path(args.out) / run_name
    writer = SummaryWriter(str(folder))
    writer.add_text("settings", "\n".join(f"{k}: {v}" for k, v in vars(args).items()))

    # seeding: the games (game i of the batch is env().reset(seed=seed + i)'s), the opponents, torch
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small networks: one thread is fastest, and leaves the other cores alone
    opponents = batch_opponent(args.opponents, make_game(args.game))  # players come from agents
    envs = importlib.import_module(f"envs.{args.game}_v0").vector_env(
        args.num_envs, opponents=opponents, seed=args.seed
    )
    sizes = (envs.single_observation_space.shape[0], int(envs.single_action_space.n))
    agent = Agent(*sizes, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    rollout = Rollout.empty(args.num_steps, args.num_envs, *sizes)
    iterations = max(1, args.total_timesteps // (args.num_envs * args.num_steps))

    start_time, global_step, finished, evaluations = time.time(), 0, [], []
    obs, infos = envs.reset(seed=args.seed)
    state = (torch.as_tensor(obs), torch.as_tensor(infos["action_mask"]), torch.zeros(args.num_envs))
    for iteration in range(1, iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / iterations) * args.learning_rate
        state = collect(envs, agent, rollout, state, finished)
        global_step += args.num_envs * args.num_steps
        advantage, returns = advantages(args, agent, rollout, state[0], state[2])
        losses = update(args, agent, optimizer, rollout, advantage, returns, iteration)
        rate, lr = global_step / (time.time() - start_time), optimizer.param_groups[0]["lr"]
        mean = float(np.mean(finished[-1000:])) if finished else 0.0
        logged = {**losses, "mean_final_reward": mean, "games": len(finished), "learning_rate": lr, "SPS": rate}
        log_iteration(writer, run_name, iteration, iterations, global_step, logged)
        if iteration == iterations or (args.eval_every and iteration % args.eval_every == 0):
            evaluations += evaluate_now(agent, args, writer, global_step)
    envs.close()
    writer.close()
    save(agent, folder / "agent.pt")
    model = str(folder / "agent.pt")
    return {"run_name": run_name, "steps": global_step, "games": len(finished), "rewards": finished,
            "evaluations": evaluations, "model": model}  # fmt: skip


if __name__ == "__main__":
    main()
