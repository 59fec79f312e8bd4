"""The steps of ``train.py``'s SB3 run that are plumbing: seeding, the learner's start, the callbacks,
the training loop's interruption, and the final evaluation and report.

``train.py`` calls them in order; each takes the :class:`~training.train_command.Validated`
run, so that nothing here reads the command line again.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from training.settings import cores, whole_rollouts
from training.train_command import Validated, settings_record


def seed_everything(seed: int, torch_threads: int) -> None:
    """One block: SB3's, torch's and numpy's generators; torch's threads."""
    import numpy as np
    import torch
    from stable_baselines3.common.utils import set_random_seed

    set_random_seed(seed)
    torch.set_num_threads(torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # our masks are checked where built
    np.random.seed(seed)


def write_settings(run: Validated, out: str, **extra: Any) -> None:
    """Create ``out`` (and its ``snapshots/``) and record every setting in ``args.json``."""
    os.makedirs(os.path.join(out, "snapshots"), exist_ok=True)
    with open(os.path.join(out, "args.json"), "w") as f:
        json.dump(settings_record(run, **extra), f, indent=1)


def start_learner(model, run: Validated) -> dict[str, Any] | None:
    """Give the new learner its start: a ``--resume`` file's tensors and step count, an ``--init-model``
    file's weights, and then the warm start. Returns the warm start's report (None without one)."""
    from agents.models.card import POLICY_NAME
    from agents.models.files import read_tensors
    from agents.models.network import load_weights
    from training.imitation import warm_start
    from training.model_files import load_learner_state
    from training.network import wrap_policy
    from training.report import warm_start_line

    args, game = run.args, run.game
    if args.resume:  # our settings rebuilt the learner; the file gives only tensors and the step count
        load_learner_state(model, args.resume)
        given = run.ppo.hyperparameters()
        changed = ", ".join(f"{k} {given[k]}" for k in given if k in args.given)
        print(
            f"resuming {args.resume} at {model.num_timesteps} timesteps{'; given: ' + changed if changed else ''}",
            flush=True,
        )
    if args.init_model:  # the file gives only the policy's weights: a new run from a trained start
        load_weights(model.policy, read_tensors(args.init_model, POLICY_NAME), f"--init-model: {args.init_model}")
        print(f"starting from the weights of {args.init_model}", flush=True)
    if args.warm_start == "none":
        return None
    warm = warm_start(
        wrap_policy(model.policy, game, run.ppo.network, args.reward),
        args.game,
        game.config(),
        args.warm_start,
        args.warm_start_games,
        seed=1_000_000 + 100_000 * args.seed,
        reward=args.reward,
        processes=max(cores() - 1, 2),
        epochs=args.warm_start_epochs,
        samples=args.warm_start_samples,
        fresh=not args.init_model,
    )
    print(warm_start_line(warm), flush=True)
    return warm


def saver(run: Validated, command: str, warm: dict[str, Any] | None) -> Callable[[Any, str], str]:
    """``save(learner, path)``: the learner with its card (the command, the settings, where it started from)."""
    from training.model_files import history_of, save_learner

    args = run.args
    started_from = args.resume or args.init_model
    training = {
        "hyperparameters": run.ppo.card(),
        "opponents": args.opponents,
        "league": args.league,
        "seed": args.seed,
        "warm_start": warm,
        "history": history_of(started_from) if started_from else [],  # the commands that made it, oldest first
    }

    def save(learner, path: str) -> str:
        return save_learner(learner, path, run.game, command, args.reward, training)

    return save


@dataclass
class Callbacks:
    """The training's callbacks, and those whose findings the report reads."""

    all: list
    evaluation: Any
    time_limit: Any
    phases: Any


def callbacks(run: Validated, model, league, save, out: str) -> Callbacks:
    """League logging, periodic evaluation keeping the best model, the time limit, phase timing and, with
    self-play, snapshots (the learner as it starts is the first)."""
    from training.callbacks import (
        EvalCallback,
        LeagueCallback,
        PhaseTimeCallback,
        SnapshotCallback,
        TimeLimitCallback,
        add_snapshot,
    )

    args = run.args
    evaluation = EvalCallback(
        run.game,
        tuple(args.eval_opponents),
        args.eval_freq_games,
        args.eval_freq,
        os.path.join(out, "model"),
        save,
        args.reward,
        seed=10_000,
        checkpoint_path=os.path.join(out, "checkpoint"),
    )
    time_limit, phases = TimeLimitCallback(args.max_minutes * 60), PhaseTimeCallback()
    found = Callbacks([LeagueCallback(league), evaluation, time_limit, phases], evaluation, time_limit, phases)
    if league.uses_snapshots:
        add_snapshot(save, model, os.path.join(out, "snapshots"), league)
        found.all.append(SnapshotCallback(save, os.path.join(out, "snapshots"), args.snapshot_freq, league))
    return found


def learn(model, env, save, found: Callbacks, run: Validated, run_name: str, out: str) -> None:
    """``model.learn`` for ``--timesteps`` rounded up to whole rollouts (what SB3 trains anyway: its progress
    bar then shows the true total); an interruption saves the learner and exits, saying how to resume."""
    args = run.args
    steps = whole_rollouts(args.timesteps, model.n_steps * model.n_envs)
    if steps != args.timesteps:
        print(f"training {steps:,} learner steps: --timesteps {args.timesteps:,} rounded up to whole rollouts")
    try:
        model.learn(
            steps,
            callback=found.all,
            progress_bar=args.progress_bar,
            tb_log_name=run_name,
            reset_num_timesteps=not args.resume,
        )
    except KeyboardInterrupt:
        env.close()
        path = save(model, os.path.join(out, "last_model"))
        sys.exit(f"interrupted at {model.num_timesteps} timesteps; continue with --resume {path}")


def final_results(run: Validated, out: str, model, env, found: Callbacks, league, **timing: Any) -> dict[str, Any]:
    """The best model's win rates on fresh seeds (seats swapped), with the run's record: ``timing`` holds
    ``run_name``, ``command``, ``started``, ``start_steps``, ``train_seconds`` and ``warm``."""
    from agents.models.network import load_network
    from training.win_rates import evaluate

    args, game = run.args, run.game
    best = load_network(os.path.join(out, "model.zip"), game)
    rows = [
        evaluate(best, game, name, args.eval_games, seed=20_000, reward=args.reward) for name in args.eval_opponents
    ]
    train_seconds = timing["train_seconds"]
    return {
        "run_name": timing["run_name"],
        "command": timing["command"],
        "game": game.name,
        "config": game.config(),
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": (model.num_timesteps - timing["start_steps"]) / max(train_seconds, 1e-9),
        "total_seconds": round(time.time() - timing["started"], 1),
        "seconds": {  # where the training time went (the games' share is part of the rollouts')
            "rollouts": round(found.phases.seconds["rollouts"], 2),
            "games": round(env.game_seconds, 2),
            "updates": round(found.phases.seconds["updates"], 2),
        },
        "best_at_timesteps": found.evaluation.best_timesteps,
        "stopped_by_time_limit": found.time_limit.stopped,
        "warm_start": timing["warm"],
        "final": rows,
        "curve": found.evaluation.curve,
        "league": league.table(),
        "learner": run.ppo.card(),
    }


def write_report(results: dict[str, Any], out: str) -> None:
    """``results.json``, ``results.md`` (the table, also printed) and ``learning_curve.png``."""
    from training.report import write_report as write

    print(write(results, out))
    model = os.path.join(out, "model.zip")
    print(f"model: {model} (play it as ppo:{model})")
