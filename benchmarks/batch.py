"""The batched engines against the per-game ones, in the same run: three ratios per game.

- **random play**: a batch of 4,096 games (``envs.core.batch.batch_games``: the game's fast engine,
  or ``StateBatch`` where it has none; rows say which) stepped with uniformly random legal moves,
  finished games dealt again in place, against the per-game engine's random play
  (``benchmarks.throughput``'s engine loop: ``legal_actions`` + ``apply``, a new game at each end):
  decisions per CPU second.
- **vector env**: ``envs.<game>_v0.vector_env`` with 1,024 games and random opponents, a random legal
  learner move per game a step (observations and masks included), against ``env()``'s random play
  (``benchmarks.throughput``'s PettingZoo loop): games finished per CPU second (the batch is played for
  a game's length first, so that its games end at different steps, as in training).
- **heuristic opponents, vector env**: the same with the heuristic in the other seats (``agents.opponents``'
  ``batch_opponent("heuristic", game)``), against ``env()``'s PettingZoo loop with a random learner in one seat
  (rotating game by game) and the heuristic's ``policy`` on the env's state in the others: games per CPU second,
  in bursts of at least ``HEURISTIC_BURST`` CPU seconds (the batch finishes few games a second, in waves).
- **heuristic**: 4,096 games with the heuristic in every seat (``agents.opponents``: the game's
  ``batch_policy`` where it has one, else game by game), against the per-game ``policy(state)`` +
  ``apply``: decisions per CPU second.
- **SB3**, with ``train.py``'s per-game settings (its ``n_envs`` games; ``n_steps``, ``batch_size``,
  ``n_epochs``, an MLP of its ``net_arch``; one torch thread), random opponents: learner steps per CPU
  second of sb3-contrib's ``MaskablePPO`` learning in whole rollouts on ``envs.<game>_v0.sb3_vec_env``
  against learning on ``train.py``'s games (``training.league_games``: the same env, each game's opponent
  dealt from the league).

Then, under "Where the time goes" (``benchmarks/batch_time.py``): the vector env's step split by part (the
engine's moves, legality, dealing, observations, the opponents' policy, ...) with the ratio's ceiling were only
the moves and dealing to cost, and MaskablePPO's run split into the env, the rollout's forward passes and the
update, with the most any faster env could gain (Amdahl's law: ``1 / (1 - env share)``).

Rates are per CPU second of this one process (one core). The two sides of a ratio run in alternating
bursts; each round's ratio is the batched rate over the per-game rate of that round, and the figure is
the median over the rounds with their range, so a loaded machine shows as a wide range, not a bias.
The random-play row also says what share of the batched time went to dealing new games (``reset_done``:
each deal is ``env().reset(seed)``'s, made ahead for many games at once, ``envs/core/dealing.py``).

    python -m benchmarks.batch [--games wapi ...] [--rounds 5] [--seconds 0.5] [--out benchmarks/results/batch.md]

Without ``--out`` the report is only printed; ``benchmarks/results/batch.md`` is this command's output.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import time
from pathlib import Path

import numpy as np

import envs
from agents.heuristic import heuristic_module
from agents.opponents import batch_opponent
from benchmarks.batch_time import breakdown, learner_shares, vector_shares
from benchmarks.search_speed import write_results
from benchmarks.throughput import EngineRunner, EnvRunner, load_average
from envs.core.batch import StateBatch, batch_games
from envs.core.opponents import random_moves

BATCH, VECTOR = 4096, 1024
#: The shortest burst of the heuristic opponents' row: its games end in waves a few learner steps apart.
HEURISTIC_BURST = 2.0


class BatchRunner:
    """A batch of games played by ``policy(batch, where, rng)`` in bursts of CPU time, dealt again as they end."""

    def __init__(self, game, size: int, policy):
        self.batch, self.policy, self.rng = batch_games(game, size, 0), policy, np.random.default_rng(0)
        self.dealing = 0.0

    def burst(self, seconds: float) -> tuple[int, int, float]:
        batch, decisions, games = self.batch, 0, 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds:
            going = ~batch.terminated
            decisions += int(going.sum())
            batch.step(np.asarray(self.policy(batch, going, self.rng)))
            dealt_at = time.process_time()
            games += len(batch.reset_done())
            self.dealing += time.process_time() - dealt_at
        return decisions, games, elapsed


class VectorRunner:
    """The vector env with ``opponents`` (random by default), a random legal learner move in every game a step;
    first played until it has finished as many games as it holds, so that its games no longer end together."""

    def __init__(self, name: str, size: int, opponents="random"):
        self.env = importlib.import_module(f"envs.{name}_v0").vector_env(size, opponents=opponents, seed=0)
        self.env.reset()
        self.rng = np.random.default_rng(0)
        finished = 0
        while finished < size:
            finished += self.burst(0.1)[1]

    def burst(self, seconds: float) -> tuple[int, int, float]:
        env, steps, games = self.env, 0, 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds:
            masks = env.action_masks()
            _, _, terminated, _, _ = env.step(np.where(masks, self.rng.random(masks.shape), -1.0).argmax(axis=1))
            steps += env.num_envs
            games += int(terminated.sum())
        return steps, games, elapsed


class LearnerRunner:
    """sb3-contrib's MaskablePPO learning on ``env`` with ``settings``, a whole rollout and its update at a time."""

    def __init__(self, env, settings: dict):
        import torch
        from sb3_contrib import MaskablePPO

        torch.set_num_threads(1)
        self.rollout = env.num_envs * settings["n_steps"]
        options = {key: settings[key] for key in ("n_steps", "batch_size", "n_epochs", "gamma", "learning_rate")}
        net = {"net_arch": settings["net_arch"]}
        self.env, self.model = env, MaskablePPO("MlpPolicy", env, policy_kwargs=net, seed=0, device="cpu", **options)

    def burst(self, seconds: float) -> tuple[int, int, float]:
        steps, start = 0, time.process_time()
        while (elapsed := time.process_time() - start) < seconds:
            self.model.learn(self.rollout, reset_num_timesteps=False)
            steps += self.rollout
        return steps, 0, elapsed


def sb3_rows(name: str, rounds: int, seconds: float) -> list[dict]:
    """The SB3 row of game ``name``: MaskablePPO at ``train.py``'s settings learning on the game's SB3 vector env
    against learning on train.py's games (the same adapter, each game's opponent dealt from a league of
    ``random``): what the league's dealing costs, and each run's time split (env, rollout, update)."""
    from training.league import League
    from training.league_games import league_games
    from training.settings import game_training

    settings, game, other = game_training(name), envs.describe(name).make(), "train.py's games"
    size = settings["n_envs"]
    mine = LearnerRunner(importlib.import_module(f"envs.{name}_v0").sb3_vec_env(size, seed=0), settings)
    theirs = LearnerRunner(league_games(game, size, League(["random"], 0, "uniform"), 0, "win"), settings)
    row = {"what": f"MaskablePPO, random opponents; against {other}", "size": size, "engine": "sb3_vec_env"}
    row |= compare(mine, theirs, rounds, seconds)
    row["shares"] = {"sb3_vec_env": learner_shares(mine), other: learner_shares(theirs)}
    mine.env.close()
    theirs.env.close()
    return [row]


class HeuristicRunner:
    """The per-game heuristic (``policy(state)``) in every seat, whole games in bursts of CPU time."""

    def __init__(self, game):
        self.game, self.rng = game, np.random.default_rng(0)
        self.policy = heuristic_module(game).policy

    def burst(self, seconds: float) -> tuple[int, int, float]:
        decisions = games = 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds:
            state = self.game.new_state(self.rng)
            while state.current_player is not None:
                state.apply(self.policy(state))
                decisions += 1
            games += 1
        return decisions, games, elapsed


class HeuristicEnvRunner:
    """``env()``'s PettingZoo loop with the heuristic (``policy`` on the env's state) in every seat but the
    learner's, which plays a random legal move; the learner's seat rotates game by game (as the vector env's
    does over its games): the per-game side of the vector env with heuristic opponents."""

    def __init__(self, make, game):
        self.env, self.rng = make(), random.Random(0)
        self.env.reset(seed=0)
        self.policy, self.learner, self.players = heuristic_module(game).policy, 0, game.num_players

    def burst(self, seconds: float) -> tuple[int, int, float]:
        env, turns, games = self.env, 0, 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds:
            for agent in env.agent_iter(env.num_agents):
                obs, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    action = None
                elif env.possible_agents.index(agent) == self.learner:
                    action = self.rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
                else:
                    action = self.policy(env.unwrapped.game_state)
                env.step(action)
                turns += 1
                if all(env.terminations.values()) or all(env.truncations.values()):
                    env.reset()
                    games += 1
                    self.learner = games % self.players
        return turns, games, elapsed


def compare(batched, reference, rounds: int, seconds: float, counted: int = 0) -> dict:
    """Alternating bursts: each round's rates and ratio; the medians and the ratios' range. ``counted``: what a
    burst's rate counts (0: decisions or steps, 1: games)."""
    mine, theirs, ratios = [], [], []
    for _ in range(rounds):
        counts = reference.burst(seconds)
        theirs.append(counts[counted] / counts[2])
        counts = batched.burst(seconds)
        mine.append(counts[counted] / counts[2])
        ratios.append(mine[-1] / theirs[-1])
    return {
        "batched": statistics.median(mine),
        "per_game": statistics.median(theirs),
        "ratio": statistics.median(ratios),
        "low": min(ratios),
        "high": max(ratios),
    }


def measure(name: str, rounds: int, seconds: float, sb3: bool = True) -> list[dict]:
    """The rows of game ``name`` (its default configuration); the SB3 ones unless ``sb3`` is False."""
    module = importlib.import_module(f"envs.{name}_v0")
    game = envs.describe(name).make()
    engine = type(batch_games(game, 1, 0)).__name__
    fallback = " (reference)" if engine == StateBatch.__name__ else ""
    random_play = BatchRunner(game, BATCH, random_moves)
    rows = [{"what": "random play", "size": BATCH, "engine": engine + fallback}]
    rows[-1].update(compare(random_play, EngineRunner(game), rounds, seconds))
    rows[-1]["dealing"] = random_play.dealing / (rounds * seconds)
    rows.append({"what": "vector env, random opponents", "size": VECTOR, "engine": engine + fallback})
    vector = VectorRunner(name, VECTOR)  # one warm-up: the same runner is then clocked by part
    rows[-1].update(compare(vector, EnvRunner(module.env), rounds, seconds, counted=1))
    rows[-1]["shares"] = vector_shares(vector, seconds)
    rows.append({"what": "heuristic opponents, vector env", "size": VECTOR, "engine": engine + fallback})
    against = HeuristicEnvRunner(module.env, game)
    batched = VectorRunner(name, VECTOR, batch_opponent("heuristic", game))
    rows[-1].update(compare(batched, against, rounds, max(seconds, HEURISTIC_BURST), counted=1))
    heuristic = heuristic_module(game)
    how = "batch_policy" if hasattr(heuristic, "batch_policy") and not fallback else "game by game"
    rows.append({"what": f"heuristic ({how})", "size": BATCH, "engine": engine + fallback})
    batched = BatchRunner(game, BATCH, batch_opponent("heuristic", game))
    rows[-1].update(compare(batched, HeuristicRunner(game), rounds, seconds))
    if sb3:
        rows += sb3_rows(name, rounds, seconds)
    for row in rows:
        row["game"] = envs.describe(name).label({})
        print(row, flush=True)
    return rows


def table(rows: list[dict]) -> list[str]:
    """The report's table; the dealing share is a column of its own, so that a row is named by what it
    measures, never by a figure."""
    header = (
        "| game | measure | games | engine | batched /CPU-s | per-game /CPU-s | batched / per-game | range "
        "| batched time dealing |\n"
        "|---|---|---:|---|---:|---:|---:|---|---:|"
    )
    lines = [header]
    for r in rows:
        dealing = f"{r['dealing']:.0%}" if "dealing" in r else ""
        lines.append(
            f"| {r['game']} | {r['what']} | {r['size']:,} | {r['engine']} | {r['batched']:,.0f} "
            f"| {r['per_game']:,.0f} | **{r['ratio']:.1f}** | {r['low']:.1f}-{r['high']:.1f} | {dealing} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(envs.GAMES), choices=envs.GAMES, help="default: all")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--seconds", type=float, default=0.5, help="CPU seconds a burst (default 0.5)")
    parser.add_argument("--out", type=Path, help="write the report there (e.g. benchmarks/results/batch.md)")
    parser.add_argument("--no-sb3", action="store_true", help="leave out the SB3 rows (SB3 and torch not needed)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be at least 1 and --seconds positive")
    load = load_average()
    rows = [row for name in args.games for row in measure(name, args.rounds, args.seconds, not args.no_sb3)]
    about = (
        f"{os.cpu_count()} cores, load average {load} at the start and {load_average()} at the end. "
        f"Default configuration of each game; {args.rounds} rounds of {args.seconds:g} CPU-s bursts per side. "
        "Per-game sides: random play on the raw engine, env()'s PettingZoo loop, the heuristic's policy(state). "
        "The vector env's rates are games finished per CPU-s on both sides. "
        "A learner step (the SB3 rows) is the learner's turn and every opponent turn up to its next one; "
        "a MaskablePPO burst is whole rollouts, each with its update, at train.py's settings for the game."
    )
    if any(row["engine"].endswith("(reference)") for row in rows):
        about += " Engine (reference): no fast engine yet, the batch runs on StateBatch over per-game states."
    title = "Batched engines and the vector env against the per-game engines"
    if args.out is not None:
        write_results(args.out, title, "benchmarks.batch", argv, about, table(rows) + breakdown(rows))
    else:
        print("\n".join([f"# {title}", "", about, "", *table(rows), *breakdown(rows)]))


if __name__ == "__main__":
    main()
