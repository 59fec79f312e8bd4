"""Throughput and memory of the drawluck environments next to PettingZoo classic references.

Every env is driven by the loop of ``pettingzoo.test.performance_benchmark`` (``agent_iter`` + ``last`` + a random
legal action from the mask + ``step``, reset at the end); the raw engines are driven directly (``legal_actions`` +
``apply``). Speed is quoted as a ratio to ``connect_four_v3``, measured so that it holds on a loaded, slower or
different machine:

- time is the CPU time of this process (``time.process_time``), not wall time: time spent waiting for a core while
  other processes run is not counted;
- CPU time alone does not suffice: on a busy machine a CPU second does less work (shared caches and cores,
  frequency), by up to 2x within one run here. So the reference and the subjects run in alternating short bursts: a
  round runs the reference, then each subject in turn (its env, then its raw engine) followed by the reference
  again. Each ratio is taken within a round, against the reference bursts just before and just after the subject's
  (a steady drift cancels), and the figure is the median over the rounds; their range (min-max) is reported beside
  it, so a noisy run is seen, not hidden. Each env carries its game on from burst to burst.

Peak memory is real memory: each env is run in a fresh process, which reports its peak resident set (``VmHWM``), the
part of it above the same process after imports (what the env itself costs), and the peak of Python allocations
traced by ``tracemalloc`` (numpy arrays included).

    python -m benchmarks.throughput [--seconds 3] [--rounds 20] [--out benchmarks/results/throughput.md]

"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import platform
import random
import shlex
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

REFERENCE = "connect_four_v3 (reference)"
#: The CPU clock is a system call (about 1 us): the env loop reads it once per this many cycles of
#: ``agent_iter(num_agents)`` (2-5 turns each), so reading it costs the measurement well under 0.1%.
CYCLES_PER_CLOCK_READ = 16


class EnvRunner:
    """One env driven by PettingZoo's performance_benchmark loop in bursts of CPU time."""

    def __init__(self, make: Callable):
        self.env = make()
        self.env.reset(seed=0)
        self.choose = random.Random(0).choice

    def burst(self, seconds: float) -> tuple[int, int, float]:
        """Play for about ``seconds`` of CPU time, the game carrying on from the last burst:
        (turns, games finished, CPU seconds)."""
        env, choose = self.env, self.choose
        turns = games = 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds:
            for _cycle in range(CYCLES_PER_CLOCK_READ):
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
        return turns, games, elapsed


class EngineRunner:
    """Random legal play on a raw engine (``legal_actions`` + ``apply``) in bursts of CPU time."""

    def __init__(self, game):
        self.game = game
        self.rng = np.random.default_rng(0)
        self.choose = random.Random(0).choice

    def burst(self, seconds: float) -> tuple[int, int, float]:
        """Whole games for about ``seconds`` of CPU time (the clock read once a game):
        (decisions, games, CPU seconds)."""
        choose = self.choose
        decisions = games = 0
        start = time.process_time()
        while (elapsed := time.process_time() - start) < seconds:
            state = self.game.new_state(self.rng)
            while state.current_player is not None:
                state.apply(choose(state.legal_actions()))
                decisions += 1
            games += 1
        return decisions, games, elapsed


class Tally:
    """What the bursts of one runner add up to, and its rate in each round."""

    def __init__(self):
        self.turns = self.games = 0
        self.seconds = 0.0
        self.burst_rates: list[float] = []

    def add(self, turns: int, games: int, seconds: float) -> float:
        self.turns, self.games, self.seconds = self.turns + turns, self.games + games, self.seconds + seconds
        self.burst_rates.append(turns / seconds)
        return turns / seconds

    @property
    def rate(self) -> float:
        return self.turns / self.seconds

    @property
    def game_rate(self) -> float:
        return self.games / self.seconds


def spread(ratios: list[float]) -> tuple[float, float, float]:
    """(median, min, max) of the per-round ratios."""
    return statistics.median(ratios), min(ratios), max(ratios)


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
    """Run in a fresh process: play ``name``'s env for ``seconds`` of CPU time and report its memory (MiB)."""
    make, _ = subjects()[name]
    baseline = _rss_kib("VmRSS")
    tracemalloc.start()
    EnvRunner(make).burst(seconds)
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    peak = _rss_kib("VmHWM")
    return {"peak_rss": peak / 1024, "env_rss": max(0, peak - baseline) / 1024, "traced": traced / 2**20}


def peak_memory(name: str, seconds: float) -> dict[str, float]:
    """Peak memory of one env, measured in a fresh interpreter so that nothing else is counted."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.throughput", "--memory-child", name, "--seconds", str(seconds)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


class Interleaved:
    """The bursts of one run: every runner's tally, and each subject's ratio to the reference in every round."""

    def __init__(self, names: list[str], with_engine: list[str]):
        self.reference = Tally()
        self.env = {name: Tally() for name in names}
        self.engine = {name: Tally() for name in with_engine}
        self.env_ratios: dict[str, list[float]] = {name: [] for name in names}
        self.engine_ratios: dict[str, list[float]] = {name: [] for name in with_engine}


def interleave(pace, runners: dict, rounds: int, burst: float, log: Callable[[str], None] = print) -> Interleaved:
    """Run ``rounds`` rounds of bursts of ``burst`` CPU-seconds. ``pace`` is the reference's runner,
    ``runners`` maps each subject to (env runner, engine runner or None). A round runs the reference,
    then for each subject its env burst, its engine burst and the reference again (A B A B ... A); each
    ratio is taken against the reference bursts on either side of the subject's."""
    run = Interleaved(list(runners), [name for name, (_, engine) in runners.items() if engine])
    for round_number in range(rounds):
        before = pace.burst(burst)
        run.reference.add(*before)
        for name, (env_runner, engine_runner) in runners.items():
            env_burst = env_runner.burst(burst)
            engine_burst = engine_runner.burst(burst) if engine_runner else None
            after = pace.burst(burst)
            run.reference.add(*after)
            # the reference's rate on both sides of the subject's bursts: a steady drift of the load cancels
            reference_rate = (before[0] + after[0]) / (before[2] + after[2])
            run.env_ratios[name].append(run.env[name].add(*env_burst) / reference_rate)
            if engine_burst:
                run.engine_ratios[name].append(run.engine[name].add(*engine_burst) / reference_rate)
            before = after
        rates = run.reference.burst_rates[-len(runners) - 1 :]
        log(f"round {round_number + 1}/{rounds}: {REFERENCE} {min(rates):,.0f}-{max(rates):,.0f} turns/s")
    return run


def measure(
    seconds: float, names: list[str] | None = None, rounds: int = 20, log: Callable[[str], None] = print
) -> list[dict]:
    """Every subject, references first: env and engine rates, ratios (``interleave``: each subject's
    ``seconds`` of CPU time split into ``rounds`` bursts), and memory."""
    load = load_average()
    chosen = {n: v for n, v in subjects().items() if not names or n in names or n == REFERENCE}
    burst = seconds / rounds
    pace = EnvRunner(chosen[REFERENCE][0])  # the reference's bursts: one before and one after each subject's
    # the reference is a subject too (a second env of it): its ratio to itself shows the measurement's noise
    runners = {
        name: (EnvRunner(make), EngineRunner(factory()) if factory else None)
        for name, (make, factory) in chosen.items()
    }
    for env_runner, engine_runner in [(pace, None), *runners.values()]:  # warm-up: imports, caches, allocations
        env_runner.burst(min(0.2, seconds))
        if engine_runner:
            engine_runner.burst(min(0.2, seconds))
    run = interleave(pace, runners, rounds, burst, log)
    reference = run.reference
    rows = []
    for name in chosen:
        env, engine = run.env[name], run.engine.get(name)
        ratio, low, high = spread(run.env_ratios[name])
        row = dict(
            name=name,
            turns=env.rate,
            games=env.game_rate,
            ratio=ratio,
            ratio_low=low,
            ratio_high=high,
            games_ratio=env.game_rate / reference.game_rate,
            decisions=engine.rate if engine else None,
            engine_games=engine.game_rate if engine else None,
            engine_ratio=spread(run.engine_ratios[name])[0] if engine else None,
            **peak_memory(name, min(seconds, 2.0)),
        )
        rows.append(row)
        log(
            f"{name:28s} env() {row['turns']:9,.0f} turns/s ({ratio:4.2f}x c4, rounds {low:.2f}-{high:.2f}), "
            f"{row['games']:8,.1f} games/s"
            + (f" | engine {row['decisions']:9,.0f} turns/s, {row['engine_games']:8,.1f} games/s" if engine else "")
            + f" | peak RSS {row['peak_rss']:.0f} MiB"
        )
    rows[0]["reference"] = dict(
        turns=reference.rate,
        games=reference.game_rate,
        rounds=rounds,
        burst=burst,
        load=load,
        low=min(reference.burst_rates),
        high=max(reference.burst_rates),
    )
    return rows


def load_average() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def machine(load_at_start: str) -> str:
    """Python, platform, cores and load: what the figures were measured on."""
    return (
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}, {os.cpu_count()} cores; "
        f"load average (1, 5, 15 min) {load_at_start} at the start of the run, {load_average()} at the end"
    )


TITLE = "# Throughput"
INTRO = (
    "env(): PettingZoo's `performance_benchmark` loop (random legal moves from the mask) on `env()`, the classic "
    "wrapper behaviour. Engine: `legal_actions` + `apply` on the raw engine, no observations. Rates are per second "
    "of the process's CPU time. x c4: the ratio to `connect_four_v3`'s env() rate, taken in each round against "
    "the reference's bursts just before and just after the subject's; the median over the rounds, and (range) the "
    "lowest and highest round, so ratios carry across machines and loads. The reference's own row is a second env "
    "of it against the first: its range is the measurement's noise. Memory, in a fresh process per env: peak "
    "resident set, its growth over the same process after imports, and the peak of traced Python (and numpy) "
    "allocations. One section per Python version: a run replaces the section of its own version."
)


def markdown(rows: list[dict], command: str) -> str:
    """The section of this run: ``## Python X.Y``, its command, machine, reference and table."""
    reference = rows[0]["reference"]
    lines = [
        f"## Python {platform.python_version()}",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {machine(reference['load'])}. {reference['rounds']} rounds of bursts of {reference['burst']:g} "
        f"CPU-s. The reference ran {reference['turns']:,.0f} turns/s and {reference['games']:,.0f} games/s over all "
        f"its bursts, which ranged {reference['low']:,.0f}-{reference['high']:,.0f} turns/s (how much a CPU-second "
        "varied during the run).",
        "",
        "| environment | env() turns/s | x c4 | range | env() games/s | x c4 | engine turns/s | x c4 | engine games/s "
        "| peak RSS (MiB) | env's own RSS (MiB) | traced peak (MiB) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        engine = (
            f"{r['decisions']:,.0f} | {r['engine_ratio']:.2f} | {r['engine_games']:,.1f}"
            if r["decisions"]
            else "- | - | -"
        )
        lines.append(
            f"| {r['name']} | {r['turns']:,.0f} | {r['ratio']:.2f} | {r['ratio_low']:.2f}-{r['ratio_high']:.2f} "
            f"| {r['games']:,.1f} | {r['games_ratio']:.3f} | {engine} | {r['peak_rss']:.0f} | {r['env_rss']:.1f} "
            f"| {r['traced']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def python_of(section: str) -> tuple[int, ...]:
    """(major, minor) of a section's heading ``## Python 3.12.1``."""
    return tuple(int(part) for part in section.split()[2].split(".")[:2])


def report(section: str, previous: str | None) -> str:
    """The whole results file: the title, the method, and one section per Python version, newest first;
    ``section`` replaces the previous file's section of the same version and keeps the others."""
    kept = []
    if previous:
        parts = previous.split("\n## Python ")[1:]
        kept = ["## Python " + part.strip() + "\n" for part in parts]
    sections = [old for old in kept if python_of(old) != python_of(section)] + [section]
    sections.sort(key=python_of, reverse=True)
    return "\n".join([TITLE, "", INTRO, "", *sections])


def main(argv: list[str] | None = None) -> None:
    from cli import HelpFormatter

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="CPU time per subject and measurement, split into the rounds (default 5)",
    )
    parser.add_argument("--rounds", type=int, default=20, help="rounds of alternating bursts (default 20)")
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="measure only these subjects (and the reference; default: every one)"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="also write the table to this file, replacing its section for this Python version (default: printed only)",
    )
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not math.isfinite(args.seconds) or args.seconds <= 0:
        parser.error(f"--seconds must be a positive, finite number, got {args.seconds}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child, args.seconds)))
        return
    known = list(subjects())
    unknown = [n for n in args.only or [] if n not in known]
    if unknown:
        parser.error(f"--only: unknown subjects {unknown}; available: {known}")
    rows = measure(args.seconds, args.only, args.rounds)
    command = (
        f"python -m benchmarks.throughput --seconds {args.seconds:g}"
        + (f" --rounds {args.rounds}" if args.rounds != 20 else "")
        + (f" --only {' '.join(shlex.quote(n) for n in args.only)}" if args.only else "")
        + (f" --out {args.out}" if args.out else "")
    )
    text = markdown(rows, command)
    print(text)
    if args.out:
        previous = None
        if os.path.exists(args.out):
            with open(args.out) as f:
                previous = f.read()
        with open(args.out, "w") as f:
            f.write(report(text, previous))


if __name__ == "__main__":
    main()
