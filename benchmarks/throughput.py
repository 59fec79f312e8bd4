"""Throughput of the drawluck environments next to PettingZoo classic references.

Every env is driven by the loop of ``pettingzoo.test.performance_benchmark``
(``agent_iter`` + ``last`` + a random legal action from the mask + ``step``,
reset at the end), so the turns/s are comparable within one run. The raw
engines are driven directly (``legal_actions`` + ``apply``). Ratios are
quoted against ``connect_four_v3`` measured in the same run.

    python -m benchmarks.throughput [--seconds 5] [--out benchmarks/results/throughput.md]
"""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc
from collections.abc import Callable

import numpy as np


def env_turns_per_second(make: Callable, seconds: float) -> float:
    """PettingZoo's performance_benchmark loop, bounded in time, returning turns/s."""
    env = make()
    env.reset(seed=0)
    turns, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for agent in env.agent_iter(env.num_agents):
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = random.choice(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            turns += 1
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
    return turns / (time.perf_counter() - start)


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


def peak_memory_kib(make: Callable, games: int = 3) -> float:
    """Peak traced memory while creating an env and playing a few games."""
    tracemalloc.start()
    env_turns_per_second(make, 0.2)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1024


def subjects() -> dict[str, tuple[Callable, object | None]]:
    """name -> (env factory, engine game or None)."""
    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    from envs import wapi_v0
    from envs.wapi import WapiGame

    found = {
        "connect_four_v3 (reference)": (connect_four_v3.env, None),
        "tictactoe_v3 (reference)": (tictactoe_v3.env, None),
        "wapi 4p": (lambda: wapi_v0.env(num_players=4), WapiGame(4)),
        "wapi 3p shared": (lambda: wapi_v0.env(num_players=3, scoring="shared"), WapiGame(3, "shared")),
    }
    for name, (make, game) in _optional_games().items():
        found[name] = (make, game)
    return found


def _optional_games() -> dict[str, tuple[Callable, object]]:
    """Games added by later issues, if present."""
    found = {}
    try:
        from envs import wakanda_v0
        from envs.wakanda import WakandaGame

        found["wakanda"] = (wakanda_v0.env, WakandaGame())
    except ImportError:
        pass
    try:
        from envs import samurai_v0
        from envs.samurai import SamuraiGame

        for n in (2, 4):
            found[f"samurai {n}p"] = ((lambda n=n: samurai_v0.env(num_players=n)), SamuraiGame(n))
    except ImportError:
        pass
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--out", default=None, help="also write the markdown table to this file")
    args = parser.parse_args()
    rows, reference = [], None
    for name, (make, game) in subjects().items():
        turns = env_turns_per_second(make, args.seconds)
        reference = reference or turns
        decisions, games = engine_rates(game, args.seconds) if game is not None else (None, None)
        memory = peak_memory_kib(make)
        rows.append((name, turns, turns / reference, decisions, games, memory))
        print(f"{name:30s} env() {turns:10,.0f} turns/s ({turns / reference:4.2f}x c4)"
              + (f"   engine {decisions:10,.0f} decisions/s, {games:8,.1f} games/s" if decisions else ""), flush=True)
    table = [
        "| environment | env() turns/s | x connect_four_v3 | engine decisions/s | engine games/s | peak memory (KiB) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, turns, ratio, decisions, games, memory in rows:
        engine = f"{decisions:,.0f} | {games:,.1f}" if decisions else "- | -"
        table.append(f"| {name} | {turns:,.0f} | {ratio:.2f} | {engine} | {memory:,.0f} |")
    text = "\n".join(table)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(f"# Throughput\n\nCommand: `python -m benchmarks.throughput --seconds {args.seconds:g} "
                    f"--out {args.out}`\n\n{text}\n")


if __name__ == "__main__":
    main()
