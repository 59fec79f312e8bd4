"""The plumbing of ``train.py``'s SB3 run, behind one small object: a :class:`Job`.

``train.py`` reads as the algorithm (build the games and their opponents, build the learner, loop:
collect, update, evaluate, save; report); the learner's, the loop's and the report's plumbing is one
method each here, taking only what the step before it built. The job holds what every step shares: the checked run
(:class:`~training.train_command.Validated`), its folder, name and command, the learner's settings as its
card records them (read once), and how to save a learner.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from training.train_command import Validated

if TYPE_CHECKING:
    from training.callbacks import Loop, Save


@dataclass
class Job:
    """One SB3 run: the checked settings, where it writes, and what it has started from."""

    run: Validated
    out: str
    name: str
    command: str
    card: dict[str, Any]  # the learner's settings, as a model card records them: the network, PPO's numbers
    warm: dict[str, Any] | None = None
    save: Save | None = None  # set with the loop, once the learner's start is known
    started: float = field(default_factory=time.time)

    @classmethod
    def start(cls, run: Validated, argv: list[str]) -> Job:
        """Seed everything; create the run's folder and record every setting in ``args.json``."""
        args = run.args
        seed_everything(args.seed, args.torch_threads)
        name = f"{args.game}__maskppo__{args.seed}__{int(time.time())}"
        command, card = shlex.join(["python", "train.py", *argv]), run.ppo.card()
        job = cls(run, args.out or os.path.join("runs", name), name, command, card)
        os.makedirs(os.path.join(job.out, "snapshots"), exist_ok=True)
        used = {k: v for k, v in card.items() if k != "network"}  # the learner's, a resumed file's where not given
        record = {**dataclasses.asdict(args), **used, "learner": card, "run_name": name, "command": command}
        with open(os.path.join(job.out, "args.json"), "w") as f:
            json.dump(record, f, indent=1)
        return job

    # --- the learner -------------------------------------------------------------------------------
    def learner(self, games):
        """MaskablePPO built from the settings, then given its start: a ``--resume`` file's tensors and step
        count, an ``--init-model`` file's weights, and then the warm start."""
        from sb3_contrib import MaskablePPO

        from agents.models.policies import policy_class, policy_kwargs
        from training.model_files import load_learner_state

        args, network = self.run.args, self.card["network"]
        policy, kwargs = policy_class(network), policy_kwargs(network)
        numbers = {k: v for k, v in self.card.items() if k != "network"}  # named as MaskablePPO's keywords
        tensorboard = os.path.join(self.out, "tb")
        learner = MaskablePPO(
            policy, games, **numbers, policy_kwargs=kwargs, tensorboard_log=tensorboard, seed=args.seed, device="cpu"
        )
        if args.resume:  # our settings rebuilt the learner; the file gives only tensors and the step count
            load_learner_state(learner, args.resume)
            changed = ", ".join(f"{k} {v}" for k, v in numbers.items() if k in args.given)
            print(f"resuming {args.resume} at {learner.num_timesteps} timesteps{'; given: ' + changed * bool(changed)}")
        if self.run.start is not None:  # the file gives only the policy's weights: a new run from a trained start
            from agents.models.network import load_weights

            load_weights(learner.policy, self.run.start.module.state_dict(), f"--init-model {args.init_model}")
            print(f"starting from the weights of --init-model {args.init_model}", flush=True)
        if args.warm_start != "none":
            self.warm = self._warm_start(learner)
        return learner

    def _warm_start(self, learner) -> dict[str, Any]:
        from agents.models.network import learner_network
        from training.imitation import warm_start
        from training.report import warm_start_line

        args = self.run.args
        warm = warm_start(
            learner_network(learner.policy, self.run.game, args.reward),
            self.run.game,
            args.warm_start,
            args.warm_start_games,
            seed=1_000_000 + 100_000 * args.seed,
            reward=args.reward,
            processes=max(cores() - 1, 2),
            epochs=args.warm_start_epochs,
            samples=args.warm_start_samples,
            fresh=self.run.start is None,
        )
        print(warm_start_line(warm), flush=True)
        return warm

    def saver(self) -> Save:
        """``save(learner, path)``: writes ``learner`` with its card: the command, the settings, where it
        started from (the commands that made that file, read once, and the warm start)."""
        from agents.models.files import read_card
        from training.network import save_learner

        args, start = self.run.args, self.run.start
        card = read_card(args.resume) if args.resume else start.card if start is not None else None
        training = {
            "hyperparameters": self.card,
            "opponents": args.opponents,
            "league": args.league,
            "seed": args.seed,
            "warm_start": self.warm,
            # the commands that made it, oldest first: those that made the file it started from, then that file's
            "history": [*card.get("training", {}).get("history", []), card["command"]] if card else [],
        }
        return functools.partial(
            save_learner, game=self.run.game, command=self.command, reward=args.reward, training=training
        )

    # --- the loop ------------------------------------------------------------------------------------
    def loop(self, learner, league) -> Loop:
        """What runs between rollouts (:func:`training.callbacks.training_loop`): league logging, periodic
        evaluation keeping the best model (and the checkpoint), the time limit, phase timing and, with
        self-play, snapshots. From here on the learner is saved by :meth:`saver`'s ``save``."""
        from training.callbacks import training_loop

        self.save = self.saver()
        return training_loop(self.run, self.save, self.out, learner, league)

    def learn(self, learner, loop: Loop) -> None:
        """``learner.learn`` for ``--timesteps`` rounded up to whole rollouts (what SB3 trains anyway: its
        progress bar then shows the true total); an interruption saves the learner and exits, saying how to
        resume. Then the last model competes for "best" too, and is saved."""
        args = self.run.args
        steps = whole_rollouts(args.timesteps, learner.n_steps * learner.n_envs)
        if steps != args.timesteps:
            print(f"training {steps:,} learner steps: --timesteps {args.timesteps:,} rounded up to whole rollouts")
        self.train_started, self.start_steps = time.time(), learner.num_timesteps
        try:
            learner.learn(
                steps,
                callback=loop.all,
                progress_bar=args.progress_bar,
                tb_log_name=self.name,
                reset_num_timesteps=not args.resume,
            )
        except KeyboardInterrupt:
            learner.env.close()
            path = self.save(learner, os.path.join(self.out, "last_model"))
            sys.exit(f"interrupted at {learner.num_timesteps} timesteps; continue with --resume {path}")
        self.train_seconds = time.time() - self.train_started
        loop.evaluation.evaluate_now(learner)
        self.save(learner, os.path.join(self.out, "last_model"))
        learner.env.close()

    # --- the report ----------------------------------------------------------------------------------
    def report(self, learner, games, loop: Loop, league) -> dict[str, Any]:
        """The best model's win rates on fresh seeds (seats swapped), with the run's record; written to
        ``results.json``, ``results.md`` (the table, also printed) and ``learning_curve.png``."""
        from agents.models.network import load_network
        from training.report import write_report
        from training.win_rates import evaluate

        args, game = self.run.args, self.run.game
        best = load_network(os.path.join(self.out, "model.zip"), game)
        rows = [
            evaluate(best, game, name, args.eval_games, seed=args.eval_seed, reward=args.reward)
            for name in args.eval_opponents
        ]
        results = {
            "run_name": self.name,
            "command": self.command,
            "game": game.name,
            "config": game.config(),
            "timesteps": int(learner.num_timesteps),
            "train_seconds": round(self.train_seconds, 1),
            "steps_per_second": (learner.num_timesteps - self.start_steps) / max(self.train_seconds, 1e-9),
            "total_seconds": round(time.time() - self.started, 1),
            "seconds": {  # where the training time went (the games' share is part of the rollouts')
                "rollouts": round(loop.phases.seconds["rollouts"], 2),
                "games": round(games.game_seconds, 2),
                "updates": round(loop.phases.seconds["updates"], 2),
            },
            "best_at_timesteps": loop.evaluation.best_timesteps,
            "stopped_by_time_limit": loop.time_limit.stopped,
            "warm_start": self.warm,
            "final": rows,
            "curve": loop.evaluation.curve,
            "league": league.table(),
            "learner": self.card,
        }
        print(write_report(results, self.out))
        model = os.path.join(self.out, "model.zip")
        print(f"model: {model} (play it as ppo:{model})")
        return results


def cores() -> int:
    """The cores this process may use (the warm start's processes)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def seed_everything(seed: int, torch_threads: int) -> None:
    """One block: SB3's, torch's and numpy's generators; torch's threads."""
    import numpy as np
    import torch
    from stable_baselines3.common.utils import set_random_seed

    set_random_seed(seed)
    torch.set_num_threads(torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # our masks are checked where built
    np.random.seed(seed)


def whole_rollouts(timesteps: int, rollout: int) -> int:
    """``--timesteps`` rounded up to whole rollouts of ``rollout`` learner steps: SB3 collects whole
    rollouts, so that is what it trains, and its progress bar's total must say so (not 8,192/2,000)."""
    return -(-timesteps // rollout) * rollout
