"""What happens while the learner trains: self-play snapshots, the league's update, periodic
evaluation keeping the best model, and the wall-time budget (SB3 callbacks)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from training.league import League
from training.train_command import Validated
from training.win_rates import evaluate

#: ``save(learner, path) -> path written``: the run's own way to write a model file.
Save = Callable[[Any, str], str]


def add_snapshot(save: Save, model, folder: str, league: League) -> str:
    """Freeze the learner into ``folder`` (a model file) and let it join the league."""
    path = save(model, os.path.join(folder, f"snapshot_{model.num_timesteps}"))
    league.add_snapshot(path)
    return path


class SnapshotCallback(BaseCallback):
    """Every ``freq`` learner steps, a snapshot of the learner joins the league (the first one is
    added before training starts, by the script: the games are dealt before any callback runs)."""

    def __init__(self, save: Save, folder: str, freq: int, league: League):
        super().__init__()
        self.save, self.folder, self.freq, self.league = save, folder, freq, league
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last >= self.freq:
            self.last = self.num_timesteps
            add_snapshot(self.save, self.model, self.folder, self.league)
        return True


class LeagueCallback(BaseCallback):
    """After each rollout: new draw probabilities from the win rates, logged per member."""

    def __init__(self, league: League):
        super().__init__()
        self.league = league

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.league.update()
        for row in self.league.table():
            self.logger.record(f"league/win_rate_{row['member']}", row["win_rate"])
            self.logger.record(f"league/probability_{row['member']}", row["probability"])


class TimeLimitCallback(BaseCallback):
    """Stop training once ``seconds`` of wall time have passed (0: never), so that a run
    keeps its time budget on a busy machine; ``stopped`` tells whether it did."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds, self.stopped, self.start = seconds, False, 0.0

    def _on_training_start(self) -> None:
        self.start = time.time()

    def _on_step(self) -> bool:
        if self.seconds and time.time() - self.start > self.seconds:
            self.stopped = True
            return False
        return True


class PhaseTimeCallback(BaseCallback):
    """Wall time spent collecting rollouts (the games, the learner's own forward passes, snapshots and
    periodic evaluations) and in PPO's updates, so a run can say where its time went."""

    def __init__(self):
        super().__init__()
        self.seconds = {"rollouts": 0.0, "updates": 0.0}
        self._phase: str | None = None
        self._since = 0.0

    def _switch(self, phase: str | None) -> None:
        now = time.perf_counter()
        if self._phase is not None:
            self.seconds[self._phase] += now - self._since
        self._phase, self._since = phase, now

    def _on_rollout_start(self) -> None:
        self._switch("rollouts")

    def _on_rollout_end(self) -> None:
        self._switch("updates")  # SB3 updates the policy right after each rollout

    def _on_training_end(self) -> None:
        self._switch(None)  # also closes a rollout cut short by another callback

    def _on_step(self) -> bool:
        return True


class TorchThreadsCallback(BaseCallback):
    """Torch's threads by phase: one for the rollouts (small batches, where more threads only wait on each
    other), ``threads`` for PPO's updates.

    Why: a thread of an update waits at every operation for the slowest; on a machine whose other cores are
    busy, a second thread makes an update several times slower (Samurai 2p: 0.9 s instead of 0.18 s a
    minibatch), while on idle cores it makes it about 1.2x faster. The count is fixed, never chosen by the
    load, so that a seeded run reproduces to the bit (threads change a sum's rounding).
    """

    def __init__(self, threads: int):
        super().__init__()
        self.threads = threads

    def _on_rollout_start(self) -> None:
        torch_threads(1)

    def _on_rollout_end(self) -> None:
        torch_threads(self.threads)

    def _on_training_end(self) -> None:
        torch_threads(self.threads)

    def _on_step(self) -> bool:
        return True


def torch_threads(count: int) -> None:
    import torch

    if torch.get_num_threads() != count:
        torch.set_num_threads(count)


class EvalCallback(BaseCallback):
    """Every ``--eval-freq`` learner steps, evaluate against each ``--eval-opponents`` baseline (fixed seeds,
    seats swapped; ``--eval-freq-games`` games each), log to TensorBoard, record the learning curve and keep the
    best model at ``out/model`` (best = highest mean win rate over the baselines); also refresh the learner at
    ``out/checkpoint``, so that an interrupted run can be resumed."""

    def __init__(self, run: Validated, save: Save, out: str, seed: int = 10_000):
        super().__init__()
        args = run.args
        self.game, self.opponents = run.game, tuple(args.eval_opponents)
        self.games, self.freq = args.eval_freq_games, args.eval_freq
        self.save, self.reward, self.seed = save, args.reward, seed
        self.best_path, self.checkpoint_path = os.path.join(out, "model"), os.path.join(out, "checkpoint")
        self.last = 0
        self.best_score = -1.0
        self.best_timesteps: int | None = None
        self.curve: list[dict[str, Any]] = []

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps
        self.evaluate_now(self.model)

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last >= self.freq:
            self.last = self.num_timesteps
            self.evaluate_now(self.model)
        return True

    def evaluate_now(self, model) -> None:
        from agents.models.network import learner_network

        timesteps = int(model.num_timesteps)
        if self.curve and self.curve[-1]["timesteps"] == timesteps:
            return
        network = learner_network(model.policy, self.game, self.reward)
        started = time.time()
        point: dict[str, Any] = {"timesteps": timesteps}
        for name in self.opponents:
            point[name] = evaluate(network, self.game, name, self.games, seed=self.seed, reward=self.reward)
            model.logger.record(f"eval/win_rate_{name}", point[name]["win_rate"])
        self.curve.append(point)
        print(
            f"evaluation at {timesteps} timesteps (took {time.time() - started:.1f} s): "
            + ", ".join(
                f"vs {n} {point[n]['win_rate']:.1%} [{point[n]['ci_low']:.1%}, {point[n]['ci_high']:.1%}]"
                for n in self.opponents
            ),
            flush=True,
        )
        score = float(np.mean([point[name]["win_rate"] for name in self.opponents]))
        if score > self.best_score:
            self.best_score, self.best_timesteps = score, timesteps
            self.save(model, self.best_path)
        self.save(model, self.checkpoint_path)
        model.logger.record("eval/best_mean_win_rate", self.best_score)
        model.logger.dump(timesteps)


@dataclass
class Loop:
    """The training loop's callbacks (SB3's), and those whose findings the report reads."""

    all: list
    evaluation: Any
    time_limit: Any
    phases: Any
    threads: Any = None


def training_loop(run: Validated, save: Save, out: str, learner, league: League) -> Loop:
    """What runs between rollouts: league logging, periodic evaluation keeping the best model (and the
    checkpoint), the time limit, phase timing, torch's threads by phase and, with self-play, snapshots (the
    learner as it starts is the first)."""
    args = run.args
    evaluation = EvalCallback(run, save, out)
    time_limit, phases = TimeLimitCallback(args.max_minutes * 60), PhaseTimeCallback()
    threads = TorchThreadsCallback(args.torch_threads)
    callbacks = [LeagueCallback(league), evaluation, time_limit, phases, threads]
    loop = Loop(callbacks, evaluation, time_limit, phases, threads)
    if league.uses_snapshots:
        folder = os.path.join(out, "snapshots")
        add_snapshot(save, learner, folder, league)
        loop.all.append(SnapshotCallback(save, folder, args.snapshot_freq, league))
    return loop
