"""Throughput and memory of the drawluck environments next to PettingZoo classic references.

Every env is driven by the loop of ``pettingzoo.test.performance_benchmark``
(``agent_iter`` + ``last`` + a random legal action from the mask + ``step``,
reset at the end), so the turns/s are comparable within one run; the raw
engines are driven directly (``legal_actions`` + ``apply``). Ratios are
quoted against ``connect_four_v3`` measured in the same run, so they hold on
a loaded or slower machine where absolute numbers do not.

Peak memory is real memory: each env is run in a fresh process, which
reports its peak resident set (``VmHWM``), the part of it above the same
process after imports (what the env itself costs), and the peak of Python
allocations traced by ``tracemalloc`` (numpy arrays included).

    python -m benchmarks.throughput [--seconds 5] [--out benchmarks/results/throughput.md]
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

REFERENCE = "connect_four_v3 (reference)"


def env_rates(make: Callable, seconds: float) -> tuple[float, float]:
    """PettingZoo's performance_benchmark loop, bounded in time: (turns/s, full games/s)."""
    env = make()
    env.reset(seed=0)
    choose = random.Random(0).choice
    turns = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _agent in env.agent_iter(env.num_agents):
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = choose(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            turns += 1
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
                games += 1
    elapsed = time.perf_counter() - start
    return turns / elapsed, games / elapsed


def engine_rates(game, seconds: float) -> tuple[float, float]:
    """Random legal play on the raw engine: (decisions/s, full games/s)."""
    rng = np.random.default_rng(0)
    choice = random.Random(0).choice
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_state(rng)
        while state.current_player is not None:
            state.apply(choice(state.legal_actions()))
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def subjects() -> dict[str, tuple[Callable, Callable | None]]:
    """name -> (env factory, engine game factory or None): the references, then every configuration
    of every game (``GameDescription.configurations``: each player count and variant), named by its
    label (``wapi 4p shared``). A game that fails to import stops the run: it is a bug, not a gap."""
    import importlib

    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    import envs

    found: dict[str, tuple[Callable, Callable | None]] = {
        REFERENCE: (connect_four_v3.env, None),
        "tictactoe_v3 (reference)": (tictactoe_v3.env, None),
    }
    for name in envs.GAMES:
        description = envs.describe(name)
        module = importlib.import_module(description.env_module)
        for config in sorted(description.configurations(), key=description.label):
            env = functools.partial(module.env, **config)
            found[description.label(config)] = (env, functools.partial(description.make, **config))
    return found


def _rss_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def memory_child(name: str, seconds: float) -> dict[str, float]:
    """Run in a fresh process: play ``name``'s env for ``seconds`` and report its memory (MiB)."""
    make, _ = subjects()[name]
    baseline = _rss_kib("VmRSS")
    tracemalloc.start()
    env_rates(make, seconds)
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    peak = _rss_kib("VmHWM")
    return {"peak_rss": peak / 1024, "env_rss": max(0, peak - baseline) / 1024, "traced": traced / 2**20}


def peak_memory(name: str, seconds: float) -> dict[str, float]:
    """Peak memory of one env, measured in a fresh interpreter so that nothing else is counted."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.throughput", "--memory-child", name, "--seconds", str(seconds)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(seconds: float, names: list[str] | None = None, log: Callable[[str], None] = print) -> list[dict]:
    """Every subject, references first: env and engine rates, and memory. Each env is warmed up
    first; the reference is measured again at the end and its two rates averaged, so that a
    machine whose load drifts during the run is seen (both values are logged)."""
    rows, reference = [], None
    chosen = {n: v for n, v in subjects().items() if not names or n in names or n == REFERENCE}
    for name, (make, game_factory) in chosen.items():
        env_rates(make, min(0.3, seconds))  # warm-up: imports, caches, first allocations
        turns, games = env_rates(make, seconds)
        if reference is None:
            reference = turns
        decisions, engine_games = engine_rates(game_factory(), seconds) if game_factory else (None, None)
        memory = peak_memory(name, min(seconds, 2.0))
        row = dict(name=name, turns=turns, games=games, decisions=decisions, engine_games=engine_games, **memory)
        rows.append(row)
        log(f"{name:28s} env() {turns:9,.0f} turns/s ({turns / reference:4.2f}x c4), {games:8,.1f} games/s"
            + (f" | engine {decisions:9,.0f} turns/s, {engine_games:8,.1f} games/s" if decisions else "")
            + f" | peak RSS {memory['peak_rss']:.0f} MiB")
    again = env_rates(chosen[REFERENCE][0], seconds)
    log(f"{REFERENCE} again at the end: {again[0]:,.0f} turns/s (first: {rows[0]['turns']:,.0f})")
    rows[0]["turns_end"] = again[0]
    rows[0]["turns"], rows[0]["games"] = (rows[0]["turns"] + again[0]) / 2, (rows[0]["games"] + again[1]) / 2
    for row in rows:
        row["ratio"] = row["turns"] / rows[0]["turns"]
    return rows


def markdown(rows: list[dict], command: str) -> str:
    reference = next(r for r in rows if r["name"] == REFERENCE)
    lines = [
        "# Throughput",
        "",
        f"Command: `{command}`",
        "",
        "env(): PettingZoo's `performance_benchmark` loop (random legal moves from the mask) on `env()`, the "
        "classic wrapper behaviour. Engine: `legal_actions` + `apply` on the raw engine, no observations. "
        f"x c4: the ratio to `connect_four_v3`'s env() rate in the same run ({reference['turns']:,.0f} turns/s, "
        f"{reference['games']:,.0f} games/s; the mean of a measurement first and one last, "
        f"{reference['turns_end']:,.0f} turns/s, to see a drifting load), so ratios carry across machines. "
        "Memory, in a fresh process per env: "
        "peak resident set, its growth over the same process after imports, and the peak of traced Python "
        "(and numpy) allocations.",
        "",
        "| environment | env() turns/s | x c4 | env() games/s | x c4 | engine turns/s | x c4 | engine games/s "
        "| peak RSS (MiB) | env's own RSS (MiB) | traced peak (MiB) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        engine = (f"{r['decisions']:,.0f} | {r['decisions'] / reference['turns']:.2f} | {r['engine_games']:,.1f}"
                  if r["decisions"] else "- | - | -")
        lines.append(
            f"| {r['name']} | {r['turns']:,.0f} | {r['ratio']:.2f} | {r['games']:,.1f} "
            f"| {r['games'] / reference['games']:.3f} | {engine} | {r['peak_rss']:.0f} | {r['env_rss']:.1f} "
            f"| {r['traced']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="measure only these subjects (and the reference)")
    parser.add_argument("--out", default=None, help="also write the markdown table to this file")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not math.isfinite(args.seconds) or args.seconds <= 0:
        parser.error(f"--seconds must be a positive, finite number, got {args.seconds}")
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child, args.seconds)))
        return
    known = list(subjects())
    unknown = [n for n in args.only or [] if n not in known]
    if unknown:
        parser.error(f"--only: unknown subjects {unknown}; available: {known}")
    rows = measure(args.seconds, args.only)
    command = f"python -m benchmarks.throughput --seconds {args.seconds:g}" + (f" --out {args.out}" if args.out else "")
    text = markdown(rows, command)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
