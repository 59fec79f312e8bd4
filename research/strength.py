"""Measured strength of the agents: win rates with 95% t intervals over deals, seats swapped.

    python -m research.strength                       # every matchup, default sizes
    python -m research.strength --only wakanda-heuristic-random --games 200
    python -m research.strength --ismcts-games 100 --ismcts-iterations 400 --processes 2
    python -m research.strength --only wapi4-ismcts-vs-3-heuristic --ismcts-option tree_depth=None widening=2.0
    python -m research.strength --only samurai2-guided-vs-ismcts --network ppo:runs/x/model.zip --guided-time 0.05
    python -m research.strength --backend ray --ray-address HEAD_IP:6379 --games 20000

Each matchup puts one *hero* agent at a table of identical opponents. Deals
are duplicated: every deal (seed) is played once with the hero in each seat,
so the luck of the draw is the same for hero and opponents. A shared win
counts as 1/k of a win for each of the k winners. The script prints a
markdown table and writes it, with the command, to ``--out`` (by default a new file
under ``runs/bench/``; the figures it made before the benchmark protocol are kept in
``docs/experiments/011-agent-strength-before-the-protocol.md``).

Targets (issue 5): heuristic vs random >= 80% in Wakanda and two-player
Samurai; the heuristic >= 45% at a four-player Wapi table of three random
agents; ISMCTS (<= 0.5 s a move) >= 60% against the heuristic in Wakanda and
two-player Samurai, and the most wins at a four-player Wapi table of three
heuristics. Issue 14, the *guided* search (ISMCTS with ``--network``, by
default the shipped ``trained`` model of the game; ``--guided-time`` or
``--guided-iterations`` its budget, by default the ISMCTS one) against plain
ISMCTS at the ISMCTS budget: >= 65% in two-player Samurai, >= 60% in Wakanda;
>= 35% at a four-player Wapi table of three heuristics, >= 75% against the
heuristic in two-player Samurai.
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from agents import Agent, PlayerView, make_agent, parse_agent_options, play_game
from benchmarks.core import records
from benchmarks.core.matches import agent_seed, deal_seed, run_tasks
from benchmarks.core.rating import share_interval
from cli import HelpFormatter, flags, given_settings
from envs.games import available_games, make_game
from parallel import pool
from parallel.pool import Backend


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
    Matchup(
        "wapi4-ismcts-vs-3-heuristic",
        "wapi",
        (("num_players", 4),),
        "ismcts",
        "heuristic",
        None,
        "most wins at the table",
    ),
    Matchup("wakanda-ismcts-heuristic", "wakanda", (), "ismcts", "heuristic", 0.60, ">= 60%"),
    Matchup("samurai2-ismcts-heuristic", "samurai", (("num_players", 2),), "ismcts", "heuristic", 0.60, ">= 60%"),
    Matchup("samurai2-guided-vs-ismcts", "samurai", (("num_players", 2),), "guided", "ismcts", 0.65, ">= 65%"),
    Matchup("wakanda-guided-vs-ismcts", "wakanda", (), "guided", "ismcts", 0.60, ">= 60%"),
    Matchup("wapi4-guided-vs-3-heuristic", "wapi", (("num_players", 4),), "guided", "heuristic", 0.35, ">= 35%"),
    Matchup("samurai2-guided-vs-heuristic", "samurai", (("num_players", 2),), "guided", "heuristic", 0.75, ">= 75%"),
]
#: Heroes and opponents that search: their options come from the command line (budget and settings).
SEARCHERS = ("ismcts", "guided")


class Timed(Agent):
    """Wraps an agent to time its decisions in CPU seconds (only those with a real choice)."""

    def __init__(self, agent: Agent):
        self.agent, self.name = agent, agent.name
        self.times: list[float] = []
        self.simulations: list[int] = []  # a search's simulations per decision (its last_iterations)

    def reset(self) -> None:
        self.agent.reset()

    def act(self, view: PlayerView) -> int:
        start = time.process_time()  # CPU time: fair on a busy machine
        action = self.agent.act(view)
        if len(view.legal_actions) > 1:
            self.times.append(time.process_time() - start)
            if hasattr(self.agent, "last_iterations"):
                self.simulations.append(self.agent.last_iterations)
        return action


def build(kind: str, game, seed: int, options: dict) -> Agent:
    """A matchup's agent: ``guided`` is ISMCTS with a network (its options hold ``network``)."""
    return make_agent(
        "ismcts" if kind == "guided" else kind, game, seed=seed, **(options.get(kind, {}) if kind in SEARCHERS else {})
    )


def play_one(task: tuple[Matchup, int, int, dict]) -> tuple[list[float], list[float]]:
    """Game ``index`` of a matchup: deal ``index // n`` of the run (:func:`benchmarks.core.matches.deal_seed`),
    the hero in seat ``index % n``, every agent seeded as the match runner seeds it (``agent_seed``, the hero's
    seat as the seating). Returns the win share of each seat relative to the hero (hero first), the hero's move
    times and (a search) its simulations per move.
    ``options``: the searchers' options by kind (``{"ismcts": {...}, "guided": {...}}``)."""
    matchup, index, seed, options = task
    game = make_game(matchup.game, **dict(matchup.config))
    n = game.num_players
    deal, hero_seat = index // n, index % n
    agents: list[Agent] = []
    for seat in range(n):
        kind = matchup.hero if seat == hero_seat else matchup.opponent
        agent = build(kind, game, agent_seed(seed, deal, hero_seat, seat), options)
        agents.append(Timed(agent) if seat == hero_seat else agent)
    result = play_game(game, agents, seed=deal_seed(seed, deal))
    share = [0.0] * n
    for w in result.winners:
        share[(w - hero_seat) % n] += 1 / len(result.winners)
    return share, agents[hero_seat].times, agents[hero_seat].simulations


def deal_interval(shares: list[float], seats: int) -> tuple[float, float]:
    """The hero's 95% interval when game ``i`` deals ``i // seats``: the share interval of its deals."""
    _, low, high = share_interval([shares[k : k + seats] for k in range(0, len(shares), seats)])
    return low, high


def run_matchup(
    matchup: Matchup, games: int, seed: int, processes: int, options: dict, backend: Backend | None = None
) -> dict:
    """Play one matchup on ``backend`` (default: ``processes`` local processes); the same rates on any backend.
    ``options``: the searchers' options by kind (see :func:`play_one`)."""
    tasks = [(matchup, i, seed, options) for i in range(games)]
    start = time.perf_counter()
    results = run_tasks(tasks, processes, progress=False, play=play_one, backend=backend)
    elapsed = time.perf_counter() - start
    n = len(results[0][0])
    seat_wins = [sum(r[0][s] for r in results) for s in range(n)]
    times = [t for r in results for t in r[1]]
    simulations = [k for r in results for k in r[2]]
    wins = seat_wins[0]
    low, high = deal_interval([r[0][0] for r in results], n)
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
        "simulations": sum(simulations) / len(simulations) if simulations else None,
        "elapsed": elapsed,
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| matchup | games | hero win rate | 95% interval (t over deals) | opponents' win rates (each seat) | target "
        "| met | hero CPU s/move (mean / max) | hero simulations/move |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        m = r["matchup"]
        others = ", ".join(f"{o:.1%}" for o in r["others"])
        verdict = r["met"]
        lines.append(
            f"| {m.name} | {r['games']} | {r['rate']:.1%} | {r['ci'][0]:.1%} – {r['ci'][1]:.1%} | {others} | "
            f"{m.target_text} | {verdict} | {r['mean_move']:.3f} / {r['max_move']:.3f} | "
            f"{'–' if r['simulations'] is None else round(r['simulations'])} |"
        )
    return "\n".join(lines)


def parse_options(parser: argparse.ArgumentParser, pairs: list[str], flag: str) -> dict:
    """``flag``'s KEY=VALUE pairs as agent options (the agent itself validates names and values)."""
    try:
        return parse_agent_options(pairs, flag)
    except ValueError as error:
        parser.error(str(error))


def parse_networks(parser: argparse.ArgumentParser, entries: list[str]) -> dict[str | None, str]:
    """``["trained", "samurai=ppo:x.zip"]`` -> ``{None: "trained", "samurai": "ppo:x.zip"}`` (None: every game)."""
    networks: dict[str | None, str] = {}
    for entry in entries:
        name, sep, source = entry.partition("=")
        if sep and name in available_games():
            networks[name] = source
        elif sep and not name.startswith("ppo:"):
            parser.error(f"--network: {name!r} is not a game; write GAME=SOURCE with one of {available_games()}")
        else:
            networks[None] = entry
    return networks


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument(
        "--only", nargs="+", choices=[m.name for m in MATCHUPS], help="run only these matchups (default: every one)"
    )
    parser.add_argument("--games", type=int, default=1000, help="games per heuristic-vs-random matchup (default 1000)")
    parser.add_argument("--ismcts-games", type=int, default=100, help="games per ISMCTS matchup (default 100)")
    parser.add_argument(
        "--ismcts-iterations",
        type=int,
        help="ISMCTS iterations per move (default: none, budgeted by --ismcts-time)",
    )
    parser.add_argument(
        "--ismcts-time",
        type=float,
        default=0.5,
        help="ISMCTS seconds per move (default 0.5), or budget it by --ismcts-iterations",
    )
    parser.add_argument(
        "--ismcts-option",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="further ISMCTS options, values as Python literals (e.g. rollout_depth=2 score_weight=0.5)",
    )
    parser.add_argument(
        "--network",
        nargs="+",
        default=["trained"],
        metavar="[GAME=]SOURCE",
        help="the guided search's network: trained (the shipped model), ppo:PATH, for every game or "
        "as GAME=SOURCE for one (default trained)",
    )
    parser.add_argument(
        "--guided-iterations",
        type=int,
        help="guided search simulations per move (default: the ISMCTS budget)",
    )
    parser.add_argument(
        "--guided-time",
        type=float,
        help="guided search seconds per move (default: the ISMCTS budget), or budget it by --guided-iterations",
    )
    parser.add_argument(
        "--guided-option",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="further guided-search options (e.g. c_puct=2.0 value_mix=0.25 leaf_batch=8)",
    )
    pool.add_arguments(parser)
    parser.add_argument("--seed", type=int, default=0, help="the run's seed: every deal and agent seed derives from it")
    parser.add_argument(
        "--out",
        type=Path,
        help="markdown report (default runs/bench/strength-TIME.md; the curated results file only when named)",
    )
    return parser


def search_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[dict, dict]:
    """The ISMCTS and the guided search's options from the command line (the guided search takes the ISMCTS
    budget unless given its own)."""
    ismcts = {"iterations": args.ismcts_iterations} if args.ismcts_iterations else {"time_limit": args.ismcts_time}
    ismcts.update(parse_options(parser, args.ismcts_option, "--ismcts-option"))
    if args.guided_iterations:
        guided = {"iterations": args.guided_iterations}
    else:
        guided = (
            {"time_limit": args.guided_time}
            if args.guided_time
            else {k: ismcts[k] for k in ismcts if k in ("iterations", "time_limit")}
        )
    guided.update(parse_options(parser, args.guided_option, "--guided-option"))
    return ismcts, guided


def matchup_options(
    parser: argparse.ArgumentParser, runnable: list[Matchup], networks: dict, ismcts: dict, guided: dict
) -> dict[str, dict]:
    """Each matchup's searcher options (see :func:`play_one`), every searcher built once here so that a bad
    option or network fails with its message, not inside a worker."""
    options_by_matchup = {}
    for matchup in runnable:
        network = networks.get(matchup.game, networks.get(None, "trained"))
        options = {"ismcts": ismcts, "guided": {"network": network, **guided}}
        try:
            for kind in {matchup.hero, matchup.opponent} & set(SEARCHERS):
                build(kind, make_game(matchup.game, **dict(matchup.config)), 0, options)
        except ValueError as error:
            parser.error(f"{matchup.name}: {error}")
        options_by_matchup[matchup.name] = options
    return options_by_matchup


def report_text(command: str, ran_on: str, ismcts: dict, guided: dict | None, network: list[str], rows) -> str:
    """The markdown report of a run: the command, the machine and the budgets, then the table.
    ``guided``: the guided search's options, None when no matchup of the run played it."""
    guided_text = "" if guided is None else f"; guided search {guided}, network {' '.join(network)}"
    return (
        f"# Agent strength\n\nCommand: `{command.strip()}`\n\n"
        f"Machine: {platform.machine()}, {multiprocessing.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"ran on the {ran_on}; ISMCTS budget and options {ismcts}{guided_text}.\n"
        "Each deal is played with the hero in every seat (seats swapped / rotated); a shared win counts 1/k; "
        "intervals are 95% t intervals over deals (deals − 1 degrees of freedom, a deal's games together). "
        "'met': yes when the whole interval clears the target "
        "(for 'most wins': the best opponent seat's rate); times are CPU seconds per decision.\n\n"
        f"{table(rows)}\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.out = args.out or records.run_file("strength", ".md")
    for flag in ("games", "ismcts_games"):
        if getattr(args, flag) < 1:
            parser.error(f"{flags([flag])} must be at least 1")
    given = given_settings(parser, argv)
    for search in ("ismcts", "guided"):
        if f"{search}_iterations" in given and f"{search}_time" in given:
            parser.error(f"--{search}-iterations and --{search}-time contradict each other: give one budget")
    try:
        backend = pool.from_args(args)
    except ValueError as error:
        parser.error(str(error))
    ismcts, guided = search_options(parser, args)
    runnable = [m for m in MATCHUPS if (args.only is None or m.name in args.only)]
    options = matchup_options(parser, runnable, parse_networks(parser, args.network), ismcts, guided)
    rows = []
    try:
        with backend:
            for matchup in runnable:
                games = args.ismcts_games if matchup.hero in SEARCHERS else args.games
                row = run_matchup(matchup, games, args.seed, backend.workers, options[matchup.name], backend)
                rows.append(row)
                print(table([row]).splitlines()[-1], f"({row['elapsed']:.0f} s)", flush=True)
            ran_on = backend.describe()
    except ValueError as error:  # the cluster could not be joined or cannot run this project
        sys.exit(f"python -m research.strength: error: {error}")
    print("\n" + table(rows))
    command = "python -m research.strength " + " ".join(sys.argv[1:] if argv is None else argv)
    played_guided = any(m.hero == "guided" for m in runnable)
    text = report_text(command, ran_on, ismcts, guided if played_guided else None, args.network, rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"\nwritten to {args.out}")


if __name__ == "__main__":
    main()
