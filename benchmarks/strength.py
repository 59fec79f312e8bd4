"""Measured strength of the agents: win rates with 95% Wilson intervals, seats swapped.

    python -m benchmarks.strength                       # every matchup, default sizes
    python -m benchmarks.strength --only wakanda-heuristic-random --games 200
    python -m benchmarks.strength --ismcts-games 100 --ismcts-iterations 400 --processes 2
    python -m benchmarks.strength --only wapi4-ismcts-vs-3-heuristic --ismcts-option tree_depth=None widening=2.0
    python -m benchmarks.strength --backend ray --ray-address HEAD_IP:6379 --games 20000

Each matchup puts one *hero* agent at a table of identical opponents. Deals
are duplicated: every deal (seed) is played once with the hero in each seat,
so the luck of the draw is the same for hero and opponents. A shared win
counts as 1/k of a win for each of the k winners. The script prints a
markdown table and writes it, with the command, to
``benchmarks/results/strength.md``.

Targets (issue 5): heuristic vs random >= 80% in Wakanda and two-player
Samurai; the heuristic >= 45% at a four-player Wapi table of three random
agents; ISMCTS (<= 0.5 s a move) >= 60% against the heuristic in Wakanda and
two-player Samurai, and the most wins at a four-player Wapi table of three
heuristics.
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from agents import Agent, PlayerView, make_agent, play_game
from agents.games import make_game
from agents.stats import wilson_interval
from benchmarks import backends
from benchmarks.backends import Backend
from benchmarks.matches import run_tasks
from envs.core.engine import shown

RESULTS = Path(__file__).parent / "results" / "strength.md"


@dataclass(frozen=True)
class Matchup:
    name: str
    game: str
    config: tuple[tuple[str, object], ...]
    hero: str
    opponent: str
    target: float | None  # the hero's win rate to reach; None: more wins than any opponent seat
    target_text: str


MATCHUPS = [
    Matchup("wapi4-heuristic-vs-3-random", "wapi", (("num_players", 4),), "heuristic", "random", 0.45, ">= 45%"),
    Matchup("wakanda-heuristic-random", "wakanda", (), "heuristic", "random", 0.80, ">= 80%"),
    Matchup("samurai2-heuristic-random", "samurai", (("num_players", 2),), "heuristic", "random", 0.80, ">= 80%"),
    Matchup("wapi4-ismcts-vs-3-heuristic", "wapi", (("num_players", 4),), "ismcts", "heuristic", None,
            "most wins at the table"),
    Matchup("wakanda-ismcts-heuristic", "wakanda", (), "ismcts", "heuristic", 0.60, ">= 60%"),
    Matchup("samurai2-ismcts-heuristic", "samurai", (("num_players", 2),), "ismcts", "heuristic", 0.60, ">= 60%"),
]


class Timed(Agent):
    """Wraps an agent to time its decisions in CPU seconds (only those with a real choice)."""

    def __init__(self, agent: Agent):
        self.agent, self.name = agent, agent.name
        self.times: list[float] = []

    def reset(self) -> None:
        self.agent.reset()

    def act(self, view: PlayerView) -> int:
        start = time.process_time()  # CPU time: fair on a busy machine
        action = self.agent.act(view)
        if len(view.legal_actions) > 1:
            self.times.append(time.process_time() - start)
        return action


def play_one(task: tuple[Matchup, int, int, dict]) -> tuple[list[float], list[float]]:
    """Game ``index`` of a matchup: deal ``seed + index // n``, hero in seat ``index % n``.
    Returns the win share of each seat relative to the hero (hero first) and the hero's move times."""
    matchup, index, seed, hero_options = task
    game = make_game(matchup.game, **dict(matchup.config))
    n = game.num_players
    deal, hero_seat = seed + index // n, index % n
    agents: list[Agent] = []
    for seat in range(n):
        agent_seed = seed * 1_000_003 + index * 10 + seat
        if seat == hero_seat:
            options = hero_options if matchup.hero == "ismcts" else {}
            agents.append(Timed(make_agent(matchup.hero, game, seed=agent_seed, **options)))
        else:
            agents.append(make_agent(matchup.opponent, game, seed=agent_seed))
    result = play_game(game, agents, seed=deal)
    share = [0.0] * n
    for w in result.winners:
        share[(w - hero_seat) % n] += 1 / len(result.winners)
    return share, agents[hero_seat].times


def run_matchup(matchup: Matchup, games: int, seed: int, processes: int, hero_options: dict,
                backend: Backend | None = None) -> dict:
    """Play one matchup on ``backend`` (default: ``processes`` local processes); the same rates on any backend."""
    tasks = [(matchup, i, seed, hero_options) for i in range(games)]
    start = time.perf_counter()
    results = run_tasks(tasks, processes, progress=False, play=play_one, backend=backend)
    elapsed = time.perf_counter() - start
    n = len(results[0][0])
    seat_wins = [sum(r[0][s] for r in results) for s in range(n)]
    times = [t for r in results for t in r[1]]
    wins = seat_wins[0]
    low, high = wilson_interval(wins, games)
    bar = max(seat_wins[1:]) / games if matchup.target is None else matchup.target
    if low >= bar:
        met = "yes"
    elif wins / games >= bar:
        met = "point estimate only (interval overlaps)"
    else:
        met = "no"
    return {
        "matchup": matchup,
        "games": games,
        "rate": wins / games,
        "ci": (low, high),
        "others": [w / games for w in seat_wins[1:]],
        "met": met,
        "mean_move": sum(times) / len(times) if times else 0.0,
        "max_move": max(times, default=0.0),
        "elapsed": elapsed,
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| matchup | games | hero win rate | 95% CI | opponents' win rates (each seat) | target | met "
        "| hero CPU s/move (mean / max) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        m = r["matchup"]
        others = ", ".join(f"{o:.1%}" for o in r["others"])
        verdict = r["met"]
        lines.append(
            f"| {m.name} | {r['games']} | {r['rate']:.1%} | {r['ci'][0]:.1%} – {r['ci'][1]:.1%} | {others} | "
            f"{m.target_text} | {verdict} | {r['mean_move']:.3f} / {r['max_move']:.3f} |"
        )
    return "\n".join(lines)


def parse_options(parser: argparse.ArgumentParser, pairs: list[str]) -> dict:
    """``["rollout_depth=2", "rollout='random'"]`` -> ``{"rollout_depth": 2, "rollout": "random"}``
    (the agent itself validates names and values)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            parser.error(f"--ismcts-option takes KEY=VALUE, got {shown(pair)}")
        try:
            options[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            options[key] = value  # a bare word: a string option such as rollout=random
    return options


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=[m.name for m in MATCHUPS], help="run only these matchups")
    parser.add_argument("--games", type=int, default=1000, help="games per heuristic-vs-random matchup (default 1000)")
    parser.add_argument("--ismcts-games", type=int, default=100, help="games per ISMCTS matchup (default 100)")
    parser.add_argument("--ismcts-iterations", type=int, default=None, help="ISMCTS iterations per move")
    parser.add_argument("--ismcts-time", type=float, default=0.5, help="ISMCTS seconds per move (default 0.5; "
                        "ignored with --ismcts-iterations)")
    parser.add_argument("--ismcts-option", nargs="+", default=[], metavar="KEY=VALUE",
                        help="further ISMCTS options, values as Python literals "
                             "(e.g. rollout_depth=2 score_weight=0.5)")
    backends.add_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, help="first deal (default 0)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"markdown report (default {RESULTS})")
    args = parser.parse_args(argv)
    for flag in ("games", "ismcts_games"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1")
    try:
        backend = backends.from_args(args)
    except ValueError as error:
        parser.error(str(error))
    hero_options = (
        {"iterations": args.ismcts_iterations} if args.ismcts_iterations else {"time_limit": args.ismcts_time}
    )
    hero_options.update(parse_options(parser, args.ismcts_option))
    runnable = [m for m in MATCHUPS if (args.only is None or m.name in args.only)]
    for matchup in runnable:  # a bad option fails here, with its message, not inside a worker
        if matchup.hero == "ismcts":
            try:
                make_agent("ismcts", make_game(matchup.game, **dict(matchup.config)), **hero_options)
            except ValueError as error:
                parser.error(f"{matchup.name}: {error}")
    rows = []
    try:
        with backend:
            for matchup in runnable:
                games = args.ismcts_games if matchup.hero == "ismcts" else args.games
                row = run_matchup(matchup, games, args.seed, backend.workers, hero_options, backend)
                rows.append(row)
                print(table([row]).splitlines()[-1], f"({row['elapsed']:.0f} s)", flush=True)
            ran_on = backend.describe()
    except ValueError as error:  # the cluster could not be joined or cannot run this project
        sys.exit(f"python -m benchmarks.strength: error: {error}")
    report = table(rows)
    print("\n" + report)
    command = "python -m benchmarks.strength " + " ".join(sys.argv[1:] if argv is None else argv)
    text = (
        f"# Agent strength\n\nCommand: `{command.strip()}`\n\n"
        f"Machine: {platform.machine()}, {multiprocessing.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"ran on the {ran_on}; ISMCTS budget {hero_options}.\n"
        "Each deal is played with the hero in every seat (seats swapped / rotated); a shared win counts 1/k; "
        "intervals are 95% Wilson score intervals. 'met': yes when the whole interval clears the target "
        "(for 'most wins': the best opponent seat's rate); times are CPU seconds per decision.\n\n"
        f"{report}\n"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"\nwritten to {args.out}")


if __name__ == "__main__":
    main()
