"""Self-play training support: opponents, the snapshot pool, model files, evaluation, callbacks.

``train.py`` saves a frozen copy of the learner every so often; each copy
joins the :class:`OpponentPool` of every training environment (through
``VecEnv.env_method("add_snapshot", path)``, which works alike for in-process
and subprocess environments). Each episode every opponent seat draws a kind
uniformly from the pool's kinds (e.g. random, heuristic, self) and, for
"self", one of the most recent snapshots: the learner keeps meeting the
baselines it is measured against while also facing strategies like its own.

Also here, so that ``train.py`` stays a readable script: building a game by
name, saving a model with the card that ``ppo:PATH`` agents read (:mod:`agents.network`),
checking that a model file belongs to a game, the seat-swapped, fixed-seed
evaluation (win rates with 95% Wilson intervals), the snapshot and
evaluation callbacks, the learning-curve plot and the results table.
"""

from __future__ import annotations

import json
import os
import time
from functools import partial
from typing import Any, Callable

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.stats import wilson_interval
from envs.core.engine import Game, GameState

#: The opponent kinds ``train.py --opponents`` accepts; "ppo:PATH" is also accepted.
OPPONENT_KINDS = ("random", "heuristic", "ismcts", "self")


def build_game(name: str, options: dict[str, Any] | None = None) -> Game:
    """A configured game by name (``agents.games``); the engine validates the options."""
    from agents.games import GAME_NAMES, game_class

    cls = game_class(name)  # ValueError naming the available games
    try:
        return cls(**(options or {}))
    except TypeError as error:  # an option the constructor does not take
        raise ValueError(f"{name}: bad options {sorted(options or {})} ({error}); games: {list(GAME_NAMES)}") from None


# --- opponents -----------------------------------------------------------------------
class AgentOpponent:
    """An agent of the agent protocol (``act(view)``) as an opponent callable.

    The opponent sees only its :class:`~agents.protocol.PlayerView` (its
    observation, its legal moves, determinizations), built here with this
    opponent's own seeded generator, so it cannot read the true hidden state.
    """

    def __init__(self, agent, seed: int | None = None):
        self.agent = agent
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        self.agent.reset()

    def __call__(self, state: GameState, player: int) -> int:
        from agents.protocol import PlayerView

        return int(self.agent.act(PlayerView(state, self.rng)))


class SnapshotOpponent(AgentOpponent):
    """A frozen self-play snapshot (``ppo:PATH``, sampling its policy so that it is a
    varied opponent rather than one fixed line of play). Loaded on first use."""

    def __init__(self, path: str, game: Game, seed: int | None = None):
        super().__init__(None, seed)
        self.path, self.game = path, game

    def reset(self) -> None:
        pass

    def __call__(self, state: GameState, player: int) -> int:
        if self.agent is None:
            from agents import make_agent

            self.agent = make_agent(f"ppo:{self.path}", game=self.game, deterministic=False,
                                    seed=int(self.rng.integers(2**31)))
        return super().__call__(state, player)


def make_opponent(name: str, game: Game, seed: int | None = None) -> AgentOpponent:
    """A baseline opponent by name: "random", "heuristic", "ismcts" or "ppo:PATH" (``agents.make_agent``)."""
    from agents import make_agent

    if name not in OPPONENT_KINDS[:-1] and not name.startswith("ppo:"):
        raise ValueError(f"opponent must be one of {list(OPPONENT_KINDS)} or 'ppo:PATH', got {name!r}")
    return AgentOpponent(make_agent(name, game=game, seed=seed), seed)


class OpponentPool:
    """Baseline opponents plus self-play snapshots, sampled per seat per episode.

    Args:
        kinds: opponent names; "self" stands for the snapshots (it plays
            randomly until the first snapshot exists).
        game: the game the opponents play.
        seed: seeds the opponents' own generators.
        max_snapshots: how many of the most recent snapshots stay in the pool.
    """

    def __init__(self, kinds: list[str], game: Game, seed: int | None = None, max_snapshots: int = 5):
        if not kinds:
            raise ValueError(f"opponents must name at least one of {list(OPPONENT_KINDS)}")
        self.kinds = list(kinds)
        self.game, self.seed = game, seed
        self.max_snapshots = max_snapshots
        self.baselines = {k: make_opponent(k, game, seed) for k in dict.fromkeys(kinds) if k != "self"}
        self.snapshots: list[SnapshotOpponent] = []
        self._fallback = make_opponent("random", game, seed)

    def add_snapshot(self, path: str) -> None:
        self.snapshots.append(SnapshotOpponent(path, self.game, seed=None if self.seed is None
                                               else self.seed + 7919 * len(self.snapshots)))
        del self.snapshots[:-self.max_snapshots]

    def sample(self, rng: np.random.Generator) -> AgentOpponent:
        kind = self.kinds[int(rng.integers(len(self.kinds)))]
        if kind != "self":
            return self.baselines[kind]
        if not self.snapshots:
            return self._fallback
        return self.snapshots[int(rng.integers(len(self.snapshots)))]


# --- model files ---------------------------------------------------------------------
def save_model(model, path: str, game: Game, command: str, reward: str = "win",
               training: dict[str, Any] | None = None) -> str:
    """Save the learner ``model`` as ``path`` (a ``.zip`` with our card, see :mod:`agents.network`)."""
    from agents.network import make_card, network_description, network_from_policy, save_network

    arch = model.policy.net_arch
    activation = {"Tanh": "tanh", "ReLU": "relu"}[model.policy.activation_fn.__name__]
    card = make_card(game, network_description(arch, activation), command, reward,
                     {**(training or {}), "num_timesteps": int(model.num_timesteps)})
    return save_network(network_from_policy(model.policy, card), path, learner=model)


def load_learner_state(model, path: str) -> None:
    """Resume: load a model file's policy and optimizer tensors and its step count into ``model``,
    a MaskablePPO already built from our settings (read safely: nothing in the file is executed)."""
    from agents.network import OPTIMIZER_NAME, POLICY_NAME, find_model, load_weights, read_card, read_tensors

    where = f"model file {find_model(path)}"
    card = read_card(path)
    load_weights(model.policy, read_tensors(path, POLICY_NAME), where)
    try:
        model.policy.optimizer.load_state_dict(read_tensors(path, OPTIMIZER_NAME))
    except (KeyError, RuntimeError, TypeError) as error:
        raise ValueError(f"{where}: the optimizer state does not fit the learner ({error})") from None
    steps = card.get("training", {}).get("num_timesteps")
    if type(steps) is not int or steps < 0:
        raise ValueError(f"{where}: its card records no step count (training.num_timesteps), got {steps!r}")
    model.num_timesteps = steps


def check_model_file(path: str, game: Game) -> dict[str, Any]:
    """The card of model file ``path``; ValueError unless it is one of ours made for this game."""
    from agents.network import check_card, find_model, read_card

    card = read_card(path)
    check_card(card, game, f"model file {find_model(path)}")
    return card


# --- evaluation ----------------------------------------------------------------------
def evaluate(network, game: Game, opponent: str, games: int, seed: int = 0, reward: str = "win") -> dict[str, Any]:
    """Play ``games`` games of ``network`` (a :class:`~agents.network.PolicyValueNet`, its most
    probable legal move) against ``opponent`` in every other seat.

    Seats are swapped: game ``i`` uses deal seed ``seed + i // n`` with the
    learner in seat ``i % n``, so every deal is played from every seat (the
    luck is shared out evenly) and the same seeds give the same games. A
    k-way shared win counts 1/k.
    """
    from agents.single_agent import SingleAgentEnv

    env = SingleAgentEnv(game, [make_opponent(opponent, game, seed)], reward=reward)
    n = game.num_players
    points = 0.0
    for i in range(games):
        obs, _ = env.reset(seed=seed + i // n, options={"seat": i % n})
        done = False
        while not done:
            probs, _ = network.evaluate(obs[None, :], env.action_masks()[None, :])
            obs, _, done, _, info = env.step(int(np.argmax(probs[0])))
        points += info["win_points"]
    low, high = wilson_interval(points, games)
    return {"opponent": opponent, "games": games, "win_rate": points / max(games, 1), "ci_low": low, "ci_high": high}


# --- training environments and callbacks ----------------------------------------------
def _training_env(game_name: str, config: dict, opponents: list[str], reward: str, seed: int, rank: int,
                  max_snapshots: int):
    from stable_baselines3.common.monitor import Monitor

    from agents.single_agent import SingleAgentEnv

    game = build_game(game_name, config)
    pool = OpponentPool(opponents, game, seed=seed * 1000 + rank, max_snapshots=max_snapshots)
    return Monitor(SingleAgentEnv(game, pool, reward=reward), info_keywords=("win_points",))


def make_training_env(game_name: str, config: dict, opponents: list[str], reward: str, seed: int, rank: int,
                      max_snapshots: int = 5) -> Callable[[], Any]:
    """A picklable constructor of one training environment (for DummyVecEnv or SubprocVecEnv)."""
    return partial(_training_env, game_name, config, list(opponents), reward, seed, rank, max_snapshots)


class SnapshotCallback(BaseCallback):
    """Every ``freq`` learner steps, freeze the learner to ``folder`` and add it to every env's pool."""

    def __init__(self, save: Callable[[Any, str], str], folder: str, freq: int):
        super().__init__()
        self.save, self.folder, self.freq = save, folder, freq
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last >= self.freq:
            self.last = self.num_timesteps
            path = self.save(self.model, os.path.join(self.folder, f"snapshot_{self.num_timesteps}"))
            self.training_env.env_method("add_snapshot", path)
        return True


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


class EvalCallback(BaseCallback):
    """Every ``freq`` learner steps, evaluate against each baseline (fixed seeds, seats
    swapped), log to TensorBoard, record the learning curve and keep the best model at
    ``best_path`` (best = highest mean win rate over the baselines)."""

    def __init__(self, game: Game, opponents: tuple[str, ...], games: int, freq: int, best_path: str,
                 save: Callable[[Any, str], str], reward: str = "win", seed: int = 10_000):
        super().__init__()
        self.game, self.opponents, self.games, self.freq, self.save = game, opponents, games, freq, save
        self.best_path, self.reward, self.seed = best_path, reward, seed
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
        timesteps = int(model.num_timesteps)
        if self.curve and self.curve[-1]["timesteps"] == timesteps:
            return
        point = {"timesteps": timesteps}
        from agents.network import game_card, network_from_policy

        network = network_from_policy(model.policy, {**game_card(self.game), "reward": self.reward})
        for name in self.opponents:
            result = evaluate(network, self.game, name, self.games, seed=self.seed, reward=self.reward)
            point[name] = result
            model.logger.record(f"eval/win_rate_{name}", result["win_rate"])
        self.curve.append(point)
        print(f"evaluation at {timesteps} timesteps: " + ", ".join(
            f"vs {n} {point[n]['win_rate']:.1%} [{point[n]['ci_low']:.1%}, {point[n]['ci_high']:.1%}]"
            for n in self.opponents), flush=True)
        score = float(np.mean([point[name]["win_rate"] for name in self.opponents]))
        if score > self.best_score:
            self.best_score, self.best_timesteps = score, timesteps
            self.save(model, self.best_path)
        model.logger.record("eval/best_mean_win_rate", self.best_score)
        model.logger.dump(timesteps)


def plot_curve(curve: list[dict[str, Any]], path: str, title: str = "") -> None:
    """Evaluation win rate (with its 95% interval) against learner timesteps, one line per opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    names = [k for k in (curve[0] if curve else {}) if k != "timesteps"]
    for name in names:
        xs = [p["timesteps"] for p in curve]
        ax.plot(xs, [p[name]["win_rate"] for p in curve], marker="o", label=f"vs {name}")
        ax.fill_between(xs, [p[name]["ci_low"] for p in curve], [p[name]["ci_high"] for p in curve], alpha=0.2)
    ax.set(xlabel="learner timesteps", ylabel="evaluation win rate", ylim=(0, 1), title=title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def results_table(results: dict[str, Any]) -> str:
    """The final win-rate table (markdown)."""
    lines = [f"{results['game']} {results['config']}: {results['timesteps']} timesteps, "
             f"trained in {results['train_seconds']:.0f} s (best model at {results['best_at_timesteps']} timesteps)",
             "", "| opponent | games | win rate | 95% CI |", "|---|---|---|---|"]
    for row in results["final"]:
        lines.append(f"| {row['opponent']} | {row['games']} | {row['win_rate']:.1%} | "
                     f"{row['ci_low']:.1%} – {row['ci_high']:.1%} |")
    return "\n".join(lines)
