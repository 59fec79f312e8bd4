"""The levels measured: each level against the one below, head to head, on the protocol's test deals.

    python -m research.levels play --configs wakanda "samurai 2p" --deals 60 --search-deals 16 --processes 2
    python -m research.levels report --out research/results/levels.md --ratings research/results/levels.json

``play`` plays, for each configuration, every level (``agents.levels``) against the level
below it (the hero alone at a table of the lower level's copies), and the two tables that put
the levels on the protocol's scale (the heuristic against random, level 1 against random), each
deal in every rotation of the seats (``benchmarks.core.arena``), into one record per configuration,
table and chunk of deals in ``--records`` (by default the committed
``research/records/levels``). Tables without a search (games of milliseconds) play their
``--deals`` in one record; tables with a searching level play ``--search-deals`` in chunks of
``--chunk``, in rounds, every table's first chunk before any table's second, so that a run
stopped early still holds every table; ``--up-to N`` plays the tables of levels up to N only (the
upper levels' games cost the most). A record that exists is skipped, so a stopped run goes
on where it stopped. Every move is refereed against
:data:`MOVE_LIMIT` CPU seconds: the levels promise a move under 2 s.

``report`` writes, from the records alone, the report (``--out``; the committed one is
``research/results/levels.md``: win shares with 95% t intervals clustered by deal and the verdicts they
decide, ratings on the protocol's scale with expanded bootstrap intervals, CPU time a move) and the ratings
as JSON (``--ratings``; the committed ``research/results/levels.json`` holds the ratings the web page
shows, by configuration label: the game, its options with choices, and per level the rating, its interval
and games).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import envs
from agents.levels import LEVELS, Level, levels_of
from benchmarks.core import arena, records
from benchmarks.core.matches import AgentSpec
from benchmarks.core.protocol import BUDGET_MARGIN, BUDGET_SLACK, check_deals, parse_config_label
from benchmarks.core.rating import win_shares
from benchmarks.core.records import ROOT
from benchmarks.core.report import RATING_INTERVAL, SHARE_INTERVAL, by_configuration, label_of, ratings_of, shown_path
from cli import parse_command
from envs.games import make_game
from parallel import pool
from research.core.renamed import renamed
from research.core.shown_commands import NOTE, rewrites, shown

RECORDS = ROOT / "research" / "records" / "levels"
REPORT_NAME, RATINGS_NAME = "research/results/levels.md", "research/results/levels.json"
REPORT, RATINGS = ROOT / REPORT_NAME, ROOT / RATINGS_NAME
#: The CPU seconds a level's move may take here (the referee stops a longer one).
MOVE_LIMIT = 2.0
#: A level beats the one below when it wins this share of their head-to-head games (two players).
TARGET = 0.6
DEFAULT_CONFIGS = ("wakanda", "samurai 2p")


def level_spec(level: Level) -> AgentSpec:
    """The level as a record holds it: labelled ``level:N``, played as its agent, so a record says what played."""
    return AgentSpec(level.name, level.agent, tuple(sorted(level.options.items())))


def tables(game: str) -> list[tuple[AgentSpec, AgentSpec]]:
    """(hero, opponent) in ``game``: each level against the one below, then the two tables that anchor the scale."""
    specs = [level_spec(lv) for lv in levels_of(game).values()]
    anchors = [
        (AgentSpec("heuristic", "heuristic"), AgentSpec("random", "random")),
        (specs[0], AgentSpec("random", "random")),
    ]
    return [(specs[i], specs[i - 1]) for i in range(1, len(specs))] + anchors


def hero_level(table: tuple[AgentSpec, AgentSpec]) -> int:
    """The level of the table's hero (0 at the anchors' tables, whose hero is no level)."""
    prefix, _, number = table[0].label.partition(":")
    return int(number) if prefix == "level" else 0


def searches(table: tuple[AgentSpec, AgentSpec]) -> bool:
    """Whether a level at the table thinks for a time (its games cost seconds, not milliseconds)."""
    return any(dict(spec.options).get("time_limit") for spec in table)


def play(args: argparse.Namespace, argv: list[str]) -> None:
    """Play the missing chunks, round by round (see the module docstring)."""
    chosen = [parse_config_label(text) for text in args.configs]
    backend = pool.from_args(args)
    budget = (MOVE_LIMIT - BUDGET_SLACK) / BUDGET_MARGIN
    runs = {game: level_run(game, argv) for game, _ in chosen}  # a level is one agent within a game
    rounds = -(-args.search_deals // args.chunk)
    with backend:
        for chunk in range(rounds):
            for game, config in chosen:
                run = runs[game]
                for table in (t for t in tables(game) if hero_level(t) <= args.up_to):
                    if searches(table):
                        deals = range(chunk * args.chunk, min(args.search_deals, (chunk + 1) * args.chunk))
                    else:  # games of milliseconds: every deal in the first round, one record
                        deals = range(args.deals if chunk == 0 else 0)
                    budgets = [(label, budget) for label in run["agents"]]
                    arena.play_chunk(args.records, chunk, game, config, table, deals, run, backend, budgets)


def level_run(game: str, argv: list[str]) -> dict:
    """The run header of ``game``'s tables: its levels' agents, by label."""
    specs = {spec.label: spec for table in tables(game) for spec in table}
    agents = {label: {"name": s.name, "options": dict(s.options)} for label, s in specs.items()}
    return records.new_run(
        ["python", "-m", "research.levels", *argv], agents, game
    )  # a level hashed as what it plays in game


def verdict(hero: str, share, players: int) -> str:
    """What the head-to-head share says about ``hero`` against the level below."""
    if players == 2:
        if share.low >= TARGET:
            return f"beats it at {TARGET:.0%} or more"
        return f"wins more often, {TARGET:.0%} not shown" if share.low > 0.5 else "not shown to be stronger"
    fair = 1 / players
    return f"above the fair share {fair:.2f}" if share.low > fair else f"not shown above the fair share {fair:.2f}"


def _cpu(games: list[dict]) -> dict[str, tuple[int, float, float]]:
    """Per label: moves, mean and largest CPU milliseconds a move."""
    times: dict[str, list[int]] = {}
    for game in games:
        for label, cpu in zip(game["seats"], game["cpu_us"]):
            times.setdefault(label, []).extend(cpu)
    return {label: (len(t), sum(t) / len(t) / 1000, max(t) / 1000) for label, t in times.items() if t}


def _whole(x: float) -> int | None:
    """A rating rounded for the page; None for an unbounded end of an interval (too few games)."""
    return round(x) if math.isfinite(x) else None


def configuration_section(heading: str, games: list[dict], agents: dict[str, dict]) -> tuple[list[str], dict]:
    """The markdown section of one configuration and its levels' ratings (for the page); ``agents``: what
    each label played, as the records' runs say."""
    players = len(games[0]["seats"])
    shares = {(s.hero, s.opponent): s for s in win_shares(games)}
    ratings = {r.name: r for r in ratings_of(games) or ()}  # none until both anchors played
    cpu = sum(sum(map(sum, g["cpu_us"])) for g in games) / 1e6
    deals = len({g["seed"] for g in games})
    lines = [f"## {heading}", "", f"{len(games)} games on {deals} test deals; the moves took {cpu:,.0f} CPU s.", ""]
    lines += [
        f"| level | opponents | win share | {SHARE_INTERVAL} | games | deals | verdict |",
        "|---|---|---:|---|---:|---:|---|",
    ]
    for number in list(LEVELS)[1:]:
        hero, below = f"level:{number}", f"level:{number - 1}"
        s = shares.get((hero, below))
        if s is not None:
            cells = f"{s.value:.3f} | [{s.low:.3f}, {s.high:.3f}] | {s.games} | {s.deals} | {verdict(hero, s, players)}"
            lines.append(f"| {hero} | {below} | {cells} |")
    lines += ["", "Ratings on the protocol's scale (random 0, heuristic 1,000):", ""]
    lines += [f"| level | plays | rating | {RATING_INTERVAL} | games |", "|---|---|---:|---|---:|"]
    rated = {}
    for name in (f"level:{number}" for number in LEVELS):
        r = ratings.get(name)
        if r is not None:
            options = ", ".join(f"{k}={v}" for k, v in agents[name]["options"].items())
            plays = f"`{agents[name]['name']}`" + (f" ({options})" if options else "")
            lines.append(f"| {name} | {plays} | {r.value:,.0f} | [{r.low:,.0f}, {r.high:,.0f}] | {r.games} |")
            rated[name] = {"rating": _whole(r.value), "low": _whole(r.low), "high": _whole(r.high), "games": r.games}
    lines += ["", "CPU time a move (milliseconds):", "", "| agent | moves | mean | largest |", "|---|---:|---:|---:|"]
    for label, (moves, mean, most) in sorted(_cpu(games).items()):
        lines.append(f"| {label} | {moves} | {mean:.1f} | {most:.1f} |")
    return lines + [""], rated


def choice_options(game: str, config: dict) -> dict:
    """The options with choices (player count, variants) of a played configuration: what the page matches."""
    return {o.name: config[o.name] for o in envs.describe(game).options if o.choices and o.name in config}


def report(folder: Path, out: Path, ratings_out: Path) -> None:
    """``levels.md`` and ``levels.json`` from every record in ``folder``."""
    paths = sorted(folder.glob("*.jsonl*"))
    pooled = pooled_by_game(paths)
    runs = [run for record in pooled.values() for run in record.runs]
    commands = sorted({renamed(run["command"]) for run in runs})
    lines = [
        "# Levels",
        "",
        f"Each level of `agents/levels.py` against the level below, seats rotated, on the test deals of "
        f"`{records.protocols(runs)}`; intervals clustered by deal, for small samples (the verdicts use them). "
        "Generated by `python -m research.levels report --out FILE` from "
        f"the {len(paths)} records in `{shown_path(folder)}`; never edited by hand.",
        "",
        "Commands: " + "; ".join(f"`{shown(c)}`" for c in commands) + "." + (f" {NOTE}" if rewrites(commands) else ""),
        "",
    ]
    failures = [f for record in pooled.values() for f in record.failures]
    if failures:
        lines += [f"{len(failures)} games were stopped (a move over {MOVE_LIMIT} s or a failure):", ""]
        lines += [f"- {f['agent']} {f['game']} seed {f['seed']}: {f['message']}" for f in failures[:10]] + [""]
    rated = {}
    sections = [(key, games, r.agents()) for r in pooled.values() for key, games in by_configuration(r.games).items()]
    for (game, config), games, agents in sections:
        heading = label_of(game, config)
        section, levels = configuration_section(heading, games, agents)
        rated[heading] = {"game": game, "options": choice_options(game, json.loads(config)), "levels": levels}
        lines += section
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines).rstrip() + "\n")
    ratings_out.write_text(json.dumps(rated, indent=1, sort_keys=True) + "\n")
    played = sum(len(games) for _, games, _ in sections)
    print(f"wrote {out} and {ratings_out} from {played} games", file=sys.stderr)


def pooled_by_game(paths: list[Path]) -> dict[str, records.Record]:
    """The records pooled game by game: a level is one agent within a game, another in the next."""
    by_game: dict[str, records.Record] = {}
    for path in paths:
        part = records.read([path])
        for name in sorted({game["game"] for game in part.games}):
            by_game.setdefault(name, records.Record()).extend(part)
    for record in by_game.values():
        record.check()
    return by_game


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m research.levels", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    played = sub.add_parser("play", help="play the levels' tables, then write the report")
    played.add_argument("--configs", nargs="+", default=list(DEFAULT_CONFIGS), metavar="LABEL", help="configurations")
    played.add_argument("--deals", type=int, default=60, help="test deals of a table without a search (default 60)")
    played.add_argument("--search-deals", type=int, default=16, help="test deals of a table with a search (default 16)")
    played.add_argument("--chunk", type=int, default=4, help="deals a record of a searching table holds (default 4)")
    played.add_argument(
        "--up-to",
        type=int,
        default=max(LEVELS),
        choices=list(LEVELS)[1:],
        metavar="N",
        help=f"play the tables of levels up to N against the one below (default {max(LEVELS)}: every level)",
    )
    pool.add_arguments(played)
    for command in (played, sub.add_parser("report", help="write the report from the records")):
        command.add_argument("--records", type=Path, default=RECORDS, help="the records' folder")
        command.add_argument(
            "--out", type=Path, help=f"the report (default a new runs/bench file; the committed: {REPORT_NAME})"
        )
        command.add_argument(
            "--ratings", type=Path, help=f"the ratings as JSON (default beside --out; the page's: {RATINGS_NAME})"
        )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, argv = parse_command(parser, argv)
    try:
        if args.command == "play":
            check_deals(args.deals)
            check_deals(args.search_deals, "--search-deals")
            arena.check_chunk(args.chunk)
            for text in args.configs:
                game, config = parse_config_label(text)
                make_game(game, **config)  # a bad label fails before anything is played
    except ValueError as error:
        parser.error(str(error))
    if args.command == "play":
        play(args, argv)
    out = args.out or records.run_file("levels", ".md")
    report(args.records, out, args.ratings or out.with_suffix(".json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
