"""The batched engines against the per-game ones, in the same run: the ratios of each game.

- **random play**: a batch of 4,096 games (``envs.core.batch.batch_games``: the game's fast engine,
  or ``StateBatch`` where it has none; rows say which) stepped with uniformly random legal moves,
  finished games dealt again in place, against the per-game engine's random play
  (``benchmarks.throughput``'s engine loop: ``legal_actions`` + ``apply``, a new game at each end):
  decisions per CPU second.
- **vector env**: ``envs.<game>_v0.vector_env`` with 1,024 games and random opponents, a random legal
  learner move per game a step (observations and masks included), against ``env()``'s random play
  (``benchmarks.throughput``'s PettingZoo loop): games finished per CPU second (the batch is played for
  a game's length first, so that its games end at different steps, as in training).
- **one game**: the batched engine holding a single game, random play against the per-game engine's and its
  vector env against ``env()`` (games per CPU second): could the compiled engine serve ``env()`` too?
- **vector env, heuristic opponents**: the same with the game's heuristic in every other seat
  (``agents.opponents.batch_opponent("heuristic", game)``), against ``env()`` with the heuristic playing the other
  seats through its own view (``agents.opponents.make_opponent``): learner steps per CPU second.
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

Under "First-call compile time": each game's kernels compiled with an empty numba cache, in a fresh process.

    python -m benchmarks.batch --record benchmarks/records/speed/batch.json   # measure (a clean checkout)
    python -m benchmarks.batch --from-record benchmarks/records/speed/batch.json --out benchmarks/results/batch.md

Without ``--out`` the report is only printed; ``benchmarks/results/batch.md`` is made from the committed record
(``benchmarks.core.speed_records``), and ``python -m benchmarks.regenerate`` makes it again.
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import envs
from agents.heuristic import heuristic_module
from agents.opponents import batch_opponent, make_opponent
from benchmarks.batch_time import breakdown, learner_shares, vector_shares
from benchmarks.core import speed_records
from benchmarks.core.records import ROOT
from benchmarks.core.speed_records import SpeedRun, add_record_options
from benchmarks.throughput import EngineRunner, EnvRunner
from envs.core.batch import StateBatch, batch_games
from envs.core.opponents import kth_legal, random_moves

BATCH, VECTOR = 4096, 1024
HEURISTIC_ROW = "vector env, heuristic opponents: learner steps"


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
            masks = env.action_masks()  # a uniform legal move: the k-th, as a learner's sampler takes it in one pass
            _, _, terminated, _, _ = env.step(kth_legal(masks, self.rng.random(len(masks))))
            steps += env.num_envs
            games += int(terminated.sum())
        return steps, games, elapsed


class HeuristicEnvRunner(EnvRunner):
    """``env()``'s PettingZoo loop with the learner (random legal moves) in seat 0 and the heuristic in every other
    seat (``agents.opponents.make_opponent``: through its own view, as a user's opponent plays): the per-game side
    of the vector env against heuristic opponents. A burst counts the learner's turns: with a thousand games
    moving together, games end in clumps that a short burst would count by luck."""

    def __init__(self, make: Callable, game):
        super().__init__(make)
        self.opponent, self.learner, self.learner_turns = make_opponent("heuristic", game, seed=0), self.choose, 0
        self.choose = self._move

    def _move(self, actions: list[int]) -> int:
        state = self.env.unwrapped.game_state
        if state.current_player:
            return self.opponent(state, state.current_player)
        self.learner_turns += 1
        return self.learner(actions)

    def burst(self, seconds: float) -> tuple[int, int, float]:
        before = self.learner_turns
        _, games, elapsed = super().burst(seconds)
        return self.learner_turns - before, games, elapsed


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


def compare(batched, reference, rounds: int, seconds: float, counted: int = 0) -> dict:
    """Alternating bursts: each round's rates and ratio; the medians and the ratios' range. ``counted``: what a
    burst's rate counts (0: decisions or steps, 1: games)."""
    mine, theirs, ratios = [], [], []
    reference.burst(seconds / 10)  # a short burst each first: kernels compile at their first call, never in a round
    batched.burst(seconds / 10)
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


def one_game_rows(name: str, game, engine: str, rounds: int, seconds: float) -> list[dict]:
    """The batched engine serving one game (should it be the engine behind ``env()``?): random play at one game
    against the per-game engine's, and the vector env of one game against ``env()``."""
    rows = [{"what": "one game: random play", "size": 1, "engine": engine}]
    rows[-1].update(compare(BatchRunner(game, 1, random_moves), EngineRunner(game), rounds, seconds))
    rows.append({"what": "one game: vector env, random opponents", "size": 1, "engine": engine})
    module = importlib.import_module(f"envs.{name}_v0")
    rows[-1].update(compare(VectorRunner(name, 1), EnvRunner(module.env), rounds, seconds, counted=1))
    return rows


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
    rows += one_game_rows(name, game, engine + fallback, rounds, seconds)
    rows.append({"what": HEURISTIC_ROW, "size": VECTOR, "engine": engine + fallback})
    vector = VectorRunner(name, VECTOR, batch_opponent("heuristic", game))
    rows[-1].update(compare(vector, HeuristicEnvRunner(module.env, game), rounds, seconds))
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


#: A short run of each game's vector env, random and heuristic opponents, in a fresh process: the first-call
#: compile time is this run's CPU time with an empty numba cache less its CPU time with the cache filled.
COMPILE_RUN = """
import importlib, numpy as np
import envs
from agents.opponents import batch_opponent
module = importlib.import_module("envs.{name}_v0")
for opponents in ("random", batch_opponent("heuristic", envs.describe("{name}").make())):
    env = module.vector_env(64, opponents=opponents, seed=0)
    env.reset()
    for _ in range(20):
        masks = env.action_masks()
        env.step(np.where(masks, 1.0, -1.0).argmax(axis=1))
"""


def compile_seconds(name: str) -> dict[str, float]:
    """The CPU seconds of :data:`COMPILE_RUN` in a fresh process with an empty numba cache (``cold``: every
    kernel compiled) and again with the cache it filled (``warm``)."""
    with tempfile.TemporaryDirectory() as cache:
        runs = [_child_cpu(COMPILE_RUN.format(name=name), {"NUMBA_CACHE_DIR": cache}) for _ in range(2)]
    return {"cold": runs[0], "warm": runs[1]}


def _child_cpu(code: str, environment: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], env={**os.environ, **environment}, check=True, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compile_table(record: dict) -> list[str]:
    """The first-call compile time of each game's kernels."""
    lines = [
        "",
        "## First-call compile time",
        "",
        "A fresh process runs each game's vector env (64 games, 20 steps, random then heuristic opponents) twice: "
        "with an empty numba cache, every kernel compiled, then with the cache that run filled "
        "(`envs/core/compiled.py`: compiled code is cached beside the source, so a machine pays this once).",
        "",
        "| game | CPU-s, empty cache | CPU-s, cache filled | compile time |",
        "|---|---:|---:|---:|",
    ]
    for game, run in record.get("compile", {}).items():
        lines.append(f"| {game} | {run['cold']:.1f} | {run['warm']:.1f} | {run['cold'] - run['warm']:.1f} |")
    return lines


def measured(args: argparse.Namespace, argv: list[str]) -> dict:
    """Measure every row (and each game's compile time) and make the run's record."""
    run = SpeedRun("benchmarks.batch", argv)
    rows = [row for name in args.games for row in measure(name, args.rounds, args.seconds, not args.no_sb3)]
    timings = {envs.describe(name).label({}): compile_seconds(name) for name in args.games}
    return run.finish(rows, rounds=args.rounds, seconds=args.seconds, compile=timings)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(envs.GAMES), choices=envs.GAMES, help="default: all")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--seconds", type=float, default=0.5, help="CPU seconds a burst (default 0.5)")
    parser.add_argument("--out", type=Path, help="write the report there (e.g. benchmarks/results/batch.md)")
    parser.add_argument("--no-sb3", action="store_true", help="leave out the SB3 rows (SB3 and torch not needed)")
    add_record_options(parser)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be at least 1 and --seconds positive")
    record, source = speed_records.recorded(args, lambda: measured(args, list(sys.argv[1:] if argv is None else argv)))
    lines = report(record, source)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def report(record: dict, source: Path) -> list[str]:
    rows = record["rows"]
    about = (
        f"Default configuration of each game; {record['rounds']} rounds of {record['seconds']:g} CPU-s bursts per "
        "side. Per-game sides: random play on the raw engine, env()'s PettingZoo loop (with the heuristic in every "
        "seat but the learner's for the heuristic-opponents row), the heuristic's policy(state). The vector env's "
        "rates are games finished per CPU-s on both sides. A learner step (the SB3 rows) is the learner's turn and "
        "every opponent turn up to its next one; a MaskablePPO burst is whole rollouts, each with its update, at "
        "train.py's settings for the game."
    )
    if any(row["engine"].endswith("(reference)") for row in rows):
        about += " Engine (reference): no fast engine yet, the batch runs on StateBatch over per-game states."
    title = "Batched engines and the vector env against the per-game engines"
    body = table(rows) + breakdown(rows) + compile_table(record)
    return speed_records.report_lines(record, source, title, about, body)


if __name__ == "__main__":
    main()
