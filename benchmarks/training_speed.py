"""Training throughput: train.py's learner steps/s next to the same game's env() random-play turns/s.

For each game (its shipped configuration), in one run: env() random-play
turns/s (PettingZoo's performance-benchmark loop, ``benchmarks.throughput``),
then the ``train.py`` command as a subprocess (its games in the game's
batched SB3 vector env, in this one process), then env() again (the reference is the mean of the two, so a
drifting load shows). The command trains ``--timesteps`` learner steps with
the game's default settings except: no warm start and one evaluation of a few
games at each end (what is measured is training), and ``--opponents`` as
given. Reported: the learner steps/s of the training (``model.learn``,
periodic snapshots and league updates included) and of the whole command
(start-up, evaluations and report included), each as a share of env()
turns/s.

    python -m benchmarks.training_speed [--timesteps 200000] [--seconds 5] [--out FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.core import records
from cli import HelpFormatter, parse_command
from training.report import time_shares
from training.settings import game_training

#: The configurations measured: the ones models are shipped for.
CONFIGS = {"wakanda": {}, "wapi": {"num_players": 4}, "samurai": {"num_players": 2}}


def env_turns_per_second(game: str, config: dict, seconds: float) -> float:
    """env() random-play turns/s in wall-clock time, as the training command is timed (a subprocess: CPU time
    of this process is the wrong clock for it)."""
    from benchmarks.throughput import EnvRunner

    module = importlib.import_module(f"envs.{game}_v0")
    runner = EnvRunner(lambda: module.env(**config))
    start = time.perf_counter()
    turns, _, _ = runner.burst(seconds)
    return turns / (time.perf_counter() - start)


def train_command(game: str, config: dict, timesteps: int, opponents: list[str], out: str) -> list[str]:
    flags = [f"--{k.replace('_', '-')}={json.dumps(v) if isinstance(v, dict) else v}" for k, v in config.items()]
    return [
        "python",
        "train.py",
        "--game",
        game,
        *flags,
        "--timesteps",
        str(timesteps),
        "--opponents",
        *opponents,
        "--warm-start",
        "none",
        "--eval-freq",
        str(10 * timesteps),
        "--eval-freq-games",
        "10",
        "--eval-games",
        "10",
        "--eval-opponents",
        "random",
        "--max-minutes",
        "0",
        "--progress-bar",
        "false",
        "--out",
        out,
    ]


def run_train(command: list[str]) -> dict:
    """Run one train.py command; its learner steps/s (training) and the whole command's."""
    started = time.perf_counter()
    subprocess.run([sys.executable, *command[1:]], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - started
    results = json.load(open(os.path.join(command[command.index("--out") + 1], "results.json")))
    return {
        "train": results["steps_per_second"],
        "whole": results["timesteps"] / wall,
        "wall": wall,
        "timesteps": results["timesteps"],
        "seconds": results["seconds"],
    }


def measure(game: str, timesteps: int, seconds: float, opponents: list[str]) -> dict:
    config = CONFIGS[game]
    before = env_turns_per_second(game, config, seconds)
    with tempfile.TemporaryDirectory() as tmp:
        command = train_command(game, config, timesteps, opponents, os.path.join(tmp, "run"))
        run = {**run_train(command), "command": shlex.join(command[:-2])}
    after = env_turns_per_second(game, config, seconds)
    return {
        "game": game,
        "config": config,
        "env_before": before,
        "env_after": after,
        "env": (before + after) / 2,
        "run": run,
    }


def report(rows: list[dict], argv: list[str], load: tuple[float, float]) -> str:
    lines = [
        "# Training throughput",
        "",
        f"Command: `python -m benchmarks.training_speed {shlex.join(argv)}` (load average "
        f"{load[0]:.1f} before, {load[1]:.1f} after, on {os.cpu_count()} cores).",
        "",
        "env(): random-play turns/s of the game's env() (mean of a measurement before and one after the "
        "training runs). train: the learner steps/s of `model.learn` in the train.py command (snapshots, "
        "league updates, rollouts and PPO updates); whole: learner steps over the whole command's wall time "
        "(start-up, evaluations, report). Target: train ≥ 25% of env(). Where the training time went (train.py's "
        "own report): stepping the games (with the opponents' moves), the learner's own forward passes and "
        "bookkeeping, PPO's updates.",
        "",
        "| game | env() turns/s (before / after) | train steps/s | % of env() | whole steps/s "
        "| % of env() | games / learner / updates |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        run = row["run"]
        split = " / ".join(f"{share:.0%}" for share in time_shares(run["seconds"]))
        lines.append(
            f"| {row['game']} {row['config'] or ''} | {row['env']:,.0f} ({row['env_before']:,.0f} / "
            f"{row['env_after']:,.0f}) | {run['train']:,.0f} | {run['train'] / row['env']:.0%} "
            f"| {run['whole']:,.0f} | {run['whole'] / row['env']:.0%} | {split} |"
        )
    commands = [f"- `{row['run']['command']}`" for row in rows]
    return "\n".join([*lines, "", "Commands (each with `--out DIR`):", "", *commands]) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.training_speed", description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter
    )
    parser.add_argument(
        "--games",
        nargs="+",
        default=list(CONFIGS),
        choices=list(CONFIGS),
        metavar="GAME",
        help=f"which games to measure, by name ({', '.join(CONFIGS)}), not a count",
    )
    parser.add_argument(
        "--timesteps", type=int, default=200_000, help="learner steps per train.py run (start-up weighs little)"
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of each env() measurement")
    parser.add_argument(
        "--opponents", nargs="+", default=None, help="train.py --opponents (default: each game's own default opponents)"
    )
    parser.add_argument("--out", help="markdown report (default runs/bench/training_speed-TIME.md)")
    args, argv = parse_command(parser, argv)
    args.out = Path(args.out) if args.out else records.run_file("training_speed", ".md")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    rows = []
    for game in args.games:
        opponents = args.opponents or game_training(game)["opponents"]
        rows.append(measure(game, args.timesteps, args.seconds, opponents))
        print(json.dumps(rows[-1], default=str), file=sys.stderr, flush=True)
    text = report(rows, argv, (load_before, os.getloadavg()[0]))
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
