"""The training environments as one Stable-Baselines3 VecEnv: lockstep games in this process or in workers.

``workers=0``: one :class:`~training.lockstep.LockstepGames` batch in
this process. ``workers=k``: the ``num_envs`` games split over this process
and ``k`` worker processes, each stepping its whole share in lockstep; a
worker exchanges **one message per batch step** (the learner's actions in;
observations, masks and finished games out), so more cores give more steps
per second. This process steps its own share while the workers step theirs:
it would otherwise only wait for them (with one worker, the games used one
core of two and the messages made the run slower than no worker at all).

The league (:mod:`training.league`) lives here, in the main process:
finished games are recorded in it, and whenever its ``version`` changes
(members added, probabilities updated once per rollout) the members and
probabilities travel to the batches with the next step.

MaskablePPO reads the legal masks through ``env_method("action_masks")``;
they come back with every step, so that costs nothing.
"""

from __future__ import annotations

import multiprocessing
import time
import traceback
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from training.league import League
from training.lockstep import LockstepGames, RandomDealer
from training.members import build_member


class Batch:
    """One lockstep batch (slots ``first_slot`` on) and its members, kept in step with the league."""

    def __init__(self, game_name: str, config: dict, reward: str, num_slots: int, seed: int, first_slot: int = 0):
        from envs.games import make_game

        game = make_game(game_name, **config)
        self.seed = seed
        self.dealer = RandomDealer(game.num_players, seed)
        self.games = LockstepGames(game, num_slots, {}, self.dealer, reward, first_slot)

    def update(self, specs: dict[int, tuple], probabilities: dict[int, float]) -> None:
        members = self.games.members
        for member_id, spec in specs.items():
            if member_id not in members:
                members[member_id] = build_member(spec, self.games.game, seed=self.seed * 1000 + member_id)
        in_use = self.games.members_in_use()
        for member_id in [i for i in members if i not in specs and i not in in_use]:
            del members[member_id]
        self.dealer.set_probabilities(list(probabilities), list(probabilities.values()))

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        self.games.reset()
        return self.games.obs, self.games.masks

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
        outcomes = self.games.step(actions)
        return self.games.obs, self.games.masks, [(slot, o) for slot, o in enumerate(outcomes) if o is not None]


@contextmanager
def one_torch_thread(wanted: bool):
    """Torch on one thread for a while (when ``wanted``): this process's share of the games takes one core,
    as each worker's does; its learner's forward passes and updates keep ``--torch-threads`` (a thread
    more would only contend with the workers, slowing everyone: measured on Samurai's graph network)."""
    threads = torch.get_num_threads()
    if wanted and threads > 1:
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(threads)
    else:
        yield


def _worker(remote, game_name: str, config: dict, reward: str, num_slots: int, seed: int, first_slot: int) -> None:
    """A worker process: one batch, one message in and one out per step."""
    torch.set_num_threads(1)
    try:
        batch = Batch(game_name, config, reward, num_slots, seed, first_slot)
        remote.send(("ready", None))
        while True:
            command, update, payload = remote.recv()
            if update is not None:
                batch.update(*update)
            if command == "step":
                remote.send(("ok", batch.step(payload)))
            elif command == "reset":
                remote.send(("ok", batch.reset()))
            elif command == "close":
                remote.send(("ok", None))
                return
    except KeyboardInterrupt:
        return
    except Exception:  # noqa: BLE001 - reported to the main process, which raises it
        remote.send(("error", traceback.format_exc()))


class LockstepVecEnv(VecEnv):
    """``num_envs`` training games (see the module docstring) against the opponents of ``league``."""

    def __init__(
        self, game_name: str, config: dict, reward: str, num_envs: int, league: League, seed: int, workers: int = 0
    ):
        from envs.games import make_game

        if not 0 <= workers < num_envs:
            raise ValueError(f"workers must be in 0..{num_envs - 1} (fewer than num_envs, {num_envs}), got {workers}")
        game = make_game(game_name, **config)
        self.league = league
        self._sent_version = -1
        self._actions: np.ndarray | None = None
        self.masks = np.zeros((num_envs, game.num_actions), bool)
        self._started = time.time()
        self.game_seconds = 0.0  # wall time of stepping the games (opponents' moves included), for reports
        #: Where each process's share of the slots starts (this process's first), and the end.
        self.bounds = [num_envs * part // (workers + 1) for part in range(workers + 2)]
        context = multiprocessing.get_context("spawn")
        self.remotes, self.processes = [], []
        for first, end in zip(self.bounds[1:-1], self.bounds[2:]):
            local, remote = context.Pipe()
            process = context.Process(
                target=_worker, daemon=True, args=(remote, game_name, config, reward, end - first, seed, first)
            )
            process.start()
            remote.close()
            self.remotes.append(local)
            self.processes.append(process)
        self.batch = Batch(game_name, config, reward, self.bounds[1], seed)
        for local in self.remotes:
            self._receive(local)
        super().__init__(
            num_envs, spaces.Box(0.0, 1.0, (game.observation_size,), np.float32), spaces.Discrete(game.num_actions)
        )

    # --- talking to the batches ---------------------------------------------------------------
    def _update(self):
        if self.league.version == self._sent_version:
            return None
        self._sent_version = self.league.version
        return self.league.specs(), dict(self.league.probabilities)

    @staticmethod
    def _receive(remote):
        try:
            status, payload = remote.recv()
        except EOFError:
            raise RuntimeError("a training worker process ended unexpectedly") from None
        if status == "error":
            raise RuntimeError(f"a training worker failed:\n{payload}")
        return payload

    def _call(self, command: str, actions: np.ndarray | None = None) -> list:
        """Every share's reply, this process's first: the workers are sent theirs before this one is played."""
        update = self._update()
        for remote, first, end in zip(self.remotes, self.bounds[1:-1], self.bounds[2:]):
            remote.send((command, update, None if actions is None else actions[first:end]))
        if update is not None:
            self.batch.update(*update)
        with one_torch_thread(bool(self.remotes)):
            own = self.batch.reset() if command == "reset" else self.batch.step(actions[: self.bounds[1]])
        return [own, *(self._receive(remote) for remote in self.remotes)]

    # --- VecEnv ----------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        replies = self._call("reset")
        self.masks = np.concatenate([masks for _, masks in replies])
        return np.concatenate([obs for obs, _ in replies])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        started = time.perf_counter()
        replies = self._call("step", self._actions)
        self.game_seconds += time.perf_counter() - started
        obs = np.concatenate([o for o, _, _ in replies])
        self.masks = np.concatenate([m for _, m, _ in replies])
        rewards = np.zeros(self.num_envs, np.float32)
        dones = np.zeros(self.num_envs, bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for first, (_, _, finished) in zip(self.bounds, replies):
            for slot, outcome in finished:
                env = first + slot
                rewards[env], dones[env] = outcome["reward"], True
                self.league.record(outcome["member"], outcome["win_points"])
                infos[env] = {
                    "episode": {
                        "r": outcome["reward"],
                        "l": outcome["moves"],
                        "t": round(time.time() - self._started, 6),
                    },
                    "win_points": outcome["win_points"],
                    "is_success": outcome["win_points"] == 1.0,
                    "terminal_observation": outcome["terminal_observation"],
                }
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.masks

    def close(self) -> None:
        for remote in self.remotes:
            try:
                remote.send(("close", None, None))
                remote.recv()
            except (OSError, EOFError):  # a worker that already failed and ended
                pass
        for process in self.processes:
            process.join(timeout=5)
        self.remotes = []

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in ("render_mode", "action_masks")

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "render_mode":
            return [None] * len(list(self._get_indices(indices)))
        raise AttributeError(f"LockstepVecEnv environments have no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"LockstepVecEnv environments have no settable attribute {attr_name!r}")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> Any:
        if method_name == "action_masks":  # sb3-contrib's get_action_masks stacks what this returns
            return self.masks if indices is None else self.masks[list(self._get_indices(indices))]
        raise AttributeError(f"LockstepVecEnv has no environment method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def seed(self, seed: int | None = None) -> list[None]:
        """Seeded when built (``seed=...``); SB3's later call changes nothing."""
        return [None] * self.num_envs
