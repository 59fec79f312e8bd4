"""``train.py --backend rllib``: RLlib's PPO (new API stack) on a drawluck game, as a multi-agent problem.

One shared learning policy (RLlib module ``"learner"``, RLlib's action-masking
PPO module) holds every learner seat; the other seats are the league's
(:class:`training.league.League`, the SB3 path's, seated by :mod:`training.rllib.league`): the
baselines and frozen snapshots of the learner, drawn more often the more the learner loses to them, played inside
the environments (:mod:`training.rllib.env`). ``--num-env-runners N`` Ray actors
sample games (0: in this process), on a local Ray or the cluster at
``--ray-address``; the learner updates in this process.

The settings are ``train.py``'s: the game and its options, the per-game PPO
settings (:class:`training.settings.PPOSettings`, overridable), the opponents, the
evaluation. PPO's settings follow sb3-contrib's MaskablePPO where RLlib's
defaults differ (GAE lambda 0.95, clip 0.2, value-loss weight 0.5, gradient
norm 0.5, no KL term, separate policy and value networks), so that the two
backends train the same problem; a rollout is ``n_steps * n_envs`` learner steps.

It evaluates and reports as the SB3 path does (``training.win_rates``, ``training.report``): every
``eval_freq`` learner steps, games against each baseline with fixed seeds
and seats swapped (the best policy is kept); at the end the best policy's
win rates with 95% Wilson intervals over ``eval_games`` fresh games.

What a run writes to ``--out`` (default ``runs/<game>__rllib_ppo__<seed>__<time>``):
``checkpoint/`` (the best policy: an RLlib checkpoint plus the exported
policy, playable as ``rllib:<out>/checkpoint``), ``last_checkpoint/``,
``snapshots/`` (each snapshot's exported policy), ``args.json``,
``results.json``, ``results.md`` and ``learning_curve.png``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field, fields
from typing import Any

from envs.core.engine import Game, shown
from training.league import League
from training.rllib.league import add_snapshot, league_state, new_league
from training.settings import PPOSettings

#: The RLlib module id of the shared learning policy.
LEARNER = "learner"


@dataclass
class RLlibRun:
    """The settings of one RLlib run (built from ``train.py``'s validated run by :func:`settings_from_args`)."""

    game: Game
    ppo: PPOSettings  # an MLP network: its policy layers are RLlib's hidden layers
    timesteps: int  # learner steps to train, and between evaluations and snapshots
    eval_freq: int
    snapshot_freq: int
    reward: str = "win"
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic", "self"])
    n_envs: int = 16
    num_env_runners: int = 0
    ray_address: str | None = None
    seed: int = 1
    out: str | None = None
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    eval_games: int = 400
    eval_seed: int = 20_000
    eval_freq_games: int = 100
    max_snapshots: int = 5
    torch_threads: int = 1
    max_minutes: float = 8.0
    progress_bar: bool = True

    @property
    def envs_per_runner(self) -> int:
        return max(1, self.n_envs // max(1, self.num_env_runners))

    def hyperparameters(self) -> dict[str, Any]:
        """The learner's settings as this backend uses them (its MLP is ``--net-arch``)."""
        return {
            "timesteps": self.timesteps,
            "net_arch": list(self.ppo.network["pi"]),
            **self.ppo.hyperparameters(),
            "eval_freq": self.eval_freq,
            "snapshot_freq": self.snapshot_freq,
        }

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("game", "ppo")}
        return {"game": self.game.name, "config": self.game.config(), "ppo": self.ppo.card(), **data}


def settings_from_args(checked) -> RLlibRun:
    """The run's settings from ``train.py``'s validated run (:class:`training.train_command.Validated`);
    ValueError for what this backend cannot do."""
    args, game = checked.args, checked.game
    if args.resume:
        raise ValueError("--resume continues an SB3 model; it is not an option of --backend rllib")
    runners = args.num_env_runners
    if type(runners) is not int or runners < 0:
        raise ValueError(f"--num-env-runners must be 0 (sample in this process) or more, got {shown(runners)}")
    names = (
        "timesteps",
        "eval_freq",
        "snapshot_freq",
        "reward",
        "opponents",
        "n_envs",
        "seed",
        "out",
        "eval_opponents",
        "eval_games",
        "eval_seed",
        "eval_freq_games",
        "max_snapshots",
        "torch_threads",
        "max_minutes",
        "progress_bar",
    )
    address = args.ray_address or os.environ.get("RAY_ADDRESS") or None
    settings = {name: getattr(args, name) for name in names}
    settings["out"] = args.out or None  # train.py's "" means the default folder
    return RLlibRun(game, checked.ppo, num_env_runners=runners, ray_address=address, **settings)


def build_config(run: RLlibRun, league: League):
    """The PPOConfig of the run: the masked multi-agent environment, one shared learning module."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from training.rllib.env import RLlibGameEnv

    model = DefaultModelConfig(
        fcnet_hiddens=list(run.ppo.network["pi"]), fcnet_activation="tanh", head_fcnet_hiddens=[], vf_share_layers=False
    )
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
    env_config = {
        "game": run.game.name,
        "config": run.game.config(),
        "reward": run.reward,
        "league": league_state(league, {}),
    }
    return (
        PPOConfig()
        .environment(RLlibGameEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=run.num_env_runners,
            num_envs_per_env_runner=run.envs_per_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
            sample_timeout_s=None,  # wait for the runners: RLlib drops a batch that takes over 60 s (a busy machine)
        )
        .learners(num_learners=0)
        .multi_agent(policies={LEARNER}, policy_mapping_fn=_to_learner, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: module}))
        .training(
            **run.ppo.rllib_options(run.n_envs),
            vf_loss_coeff=0.5,
            grad_clip=0.5,
            grad_clip_by="global_norm",
            use_kl_loss=False,
        )
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=run.seed)
    )


def _to_learner(agent_id, episode, **kwargs) -> str:
    """Every seat the environment hands to RLlib is a learner seat (opponents play inside the environment)."""
    return LEARNER


# --- talking to the environments on every env runner ------------------------------------
def _envs(runner) -> list:
    return [] if runner.env is None else [env.unwrapped for env in runner.env.envs]


def push_league(algo, state) -> None:
    """Hand the league's current state to every environment (on every env runner, local and remote)."""
    algo.env_runner_group.foreach_env_runner(lambda runner: [env.set_league(state) for env in _envs(runner)])


def pull_results(algo) -> list[tuple[int, float]]:
    """The learner's results (league member id, points) against each opponent seat since the last pull, from
    every environment."""
    per_runner = algo.env_runner_group.foreach_env_runner(
        lambda runner: [r for env in _envs(runner) for r in env.pop_results()]
    )
    return [r for results in per_runner for r in results]


def learner_weights(algo) -> dict[str, Any]:
    return algo.learner_group.get_weights([LEARNER])[LEARNER]


def learner_steps(result: dict[str, Any]) -> int:
    """Learner steps sampled so far (every step of a learner seat, in any environment)."""
    return int(result["env_runners"].get("num_module_steps_sampled_lifetime", {}).get(LEARNER, 0))


# --- the run ------------------------------------------------------------------------------
def train(run: RLlibRun) -> dict[str, Any]:
    """Train, evaluate and report (see the module docstring); returns the results."""
    import torch

    from agents.models.rllib_policy import MaskedPolicy
    from parallel.ray_cluster import ray_session
    from training.report import write_report
    from training.rllib.policy import export_policy
    from training.win_rates import evaluate

    game = run.game
    torch.set_num_threads(run.torch_threads)
    run_name = f"{game.name}__rllib_ppo__{run.seed}__{int(time.time())}"
    out = run.out or os.path.join("runs", run_name)
    logging.getLogger("ray.rllib").setLevel(logging.ERROR)  # RLlib's notices about its own API stack
    local_cpus = None if run.ray_address else max(os.cpu_count() or 1, run.num_env_runners)
    with contextlib.ExitStack() as stack:
        try:  # an unreachable or unfit cluster: a message, and nothing left running
            cluster = stack.enter_context(ray_session(run.ray_address, local_cpus))
            if run.num_env_runners > cluster.cpus:
                raise ValueError(f"--num-env-runners {run.num_env_runners} needs as many CPUs; {cluster.describe()}")
        except ValueError as error:
            sys.exit(f"train.py: error: {error}")
        os.makedirs(os.path.join(out, "snapshots"), exist_ok=True)
        with open(os.path.join(out, "args.json"), "w") as f:
            json.dump(
                {**run.to_json(), "backend": "rllib", "run_name": run_name, "cluster": cluster.describe()}, f, indent=1
            )
        league = new_league(run.opponents, run.max_snapshots)
        algo = build_config(run, league).build_algo()
        try:
            trained = _train_loop(algo, run, league, out)
            export_policy(
                learner_weights(algo), game, algo.save_to_path(os.path.abspath(os.path.join(out, "last_checkpoint")))
            )
        finally:
            algo.stop()
    best = MaskedPolicy.load(os.path.join(out, "checkpoint"), game)  # read back as any user would
    rows = [
        evaluate(best, game, name, run.eval_games, seed=run.eval_seed, reward=run.reward) for name in run.eval_opponents
    ]
    results = {
        "run_name": run_name,
        "backend": "rllib",
        "cluster": cluster.describe(),
        "game": game.name,
        "config": game.config(),
        "num_env_runners": run.num_env_runners,
        **trained,
        "total_seconds": round(time.time() - trained.pop("started"), 1),
        "final": rows,
        "hyperparameters": run.hyperparameters(),
    }
    note = (
        f"\n\nTrained with RLlib PPO, {run.num_env_runners} env runner(s) on "
        f"{cluster.describe()}, {results['steps_per_second']:.0f} learner steps/s."
    )
    print(write_report(results, out, note))
    print(f"checkpoint: {os.path.join(out, 'checkpoint')} (play it as rllib:{os.path.join(out, 'checkpoint')})")
    return results


@dataclass
class Evaluations:
    """The periodic evaluation: the learner's win rates against each baseline (fixed seeds, seats swapped),
    the curve of them, and the best policy so far saved as ``out/checkpoint``."""

    algo: Any
    run: RLlibRun
    league: League
    out: str
    curve: list[dict[str, Any]] = field(default_factory=list)
    best_score: float = -1.0
    best_timesteps: int | None = None

    def __call__(self, steps: int) -> None:
        from agents.models.rllib_policy import MaskedPolicy
        from training.rllib.policy import export_policy, policy_state
        from training.win_rates import evaluate

        run, game = self.run, self.run.game
        weights = learner_weights(self.algo)
        policy = MaskedPolicy.from_state_dict(policy_state(weights), game)
        point = {"timesteps": steps}
        for name in run.eval_opponents:
            point[name] = evaluate(policy, game, name, run.eval_freq_games, seed=10_000, reward=run.reward)
        self.curve.append(point)
        rates = ", ".join(
            f"vs {n} {point[n]['win_rate']:.1%} [{point[n]['ci_low']:.1%}, {point[n]['ci_high']:.1%}]"
            for n in run.eval_opponents
        )
        print(f"evaluation at {steps} timesteps: {rates}; league {self.league.table()}", flush=True)
        score = sum(point[n]["win_rate"] for n in run.eval_opponents) / len(run.eval_opponents)
        if score > self.best_score:
            self.best_score, self.best_timesteps = score, steps
            export_policy(weights, game, self.algo.save_to_path(os.path.abspath(os.path.join(self.out, "checkpoint"))))


def _train_loop(algo, run: RLlibRun, league: League, out: str) -> dict[str, Any]:
    """Iterate until ``timesteps`` learner steps (or ``max_minutes``): league, snapshots, evaluations."""
    from tqdm import tqdm

    from training.rllib.policy import export_policy, policy_state

    started = time.time()
    evaluate_now = Evaluations(algo, run, league, out)
    evaluate_now(0)
    snapshots: dict[int, Any] = {}  # the weights of the league's snapshots, by member id

    def snapshot(steps: int) -> None:
        weights = learner_weights(algo)
        path = os.path.join(out, "snapshots", f"snapshot_{steps}")
        export_policy(weights, run.game, path)
        add_snapshot(league, snapshots, path, policy_state(weights))

    if league.uses_snapshots:
        snapshot(0)  # the learner as it starts, as the SB3 path does
    push_league(algo, league_state(league, snapshots))
    pushed = set(snapshots)
    steps = last_eval = last_snapshot = 0
    stopped = False
    bar = tqdm(total=run.timesteps, unit="step", disable=not run.progress_bar, dynamic_ncols=True)
    train_started = time.time()
    while steps < run.timesteps:
        if run.max_minutes and time.time() - train_started > run.max_minutes * 60:
            stopped = True
            break
        result = algo.train()
        bar.update(learner_steps(result) - steps)
        steps = learner_steps(result)
        for member, points in pull_results(algo):
            league.record(member, points)
        league.update()
        if steps - last_snapshot >= run.snapshot_freq:
            last_snapshot = steps
            snapshot(steps)
        push_league(algo, league_state(league, snapshots, with_snapshots=set(snapshots) != pushed))
        pushed = set(snapshots)
        if steps - last_eval >= run.eval_freq:
            last_eval = steps
            evaluate_now(steps)
    bar.close()
    train_seconds = time.time() - train_started
    if evaluate_now.curve[-1]["timesteps"] != steps:
        evaluate_now(steps)  # the last policy competes for "best" too
    return {
        "timesteps": steps,
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": round(steps / max(train_seconds, 1e-9), 1),
        "best_at_timesteps": evaluate_now.best_timesteps,
        "stopped_by_time_limit": stopped,
        "curve": evaluate_now.curve,
        "league": league.table(),
        "started": started,
    }


def main(checked) -> dict[str, Any]:
    """``train.py --backend rllib`` on its validated run: check this backend's settings, then train; bad input
    exits with a message."""
    try:
        run = settings_from_args(checked)
    except ValueError as error:
        sys.exit(f"train.py: error: {error}")
    return train(run)
