"""Relative skill against a fixed field: every hero plays the same duplicate deals, the heuristic in the other seats.

    python -m research.relative_skill play --config wakanda --deals 150 --first 500000 --budgets 25 100
    python -m research.relative_skill report --out research/results/relative_skill.md   # from the records

Borm and van der Genugten's relative skill compares three players on the
same luck: a beginner (``random``), our strongest player (``best``) and a
fictive player who knows how chance falls (:mod:`research.core.clairvoyant`,
``best``'s search on the true state, at the same budget). Here each of them,
and the heuristic and ``best`` at each budget (the ladder of the variance
components and the Elo spread, :mod:`research.core.measures`), sits in
every seat of every deal in turn against the same field: the heuristic in
every other seat, with the same seeds whoever the hero is, so that the heroes
differ only by what they play (common random numbers).

Searches spend a budget of iterations, not seconds, so the games reproduce
exactly. Deals are taken from the protocol's *test* set from ``--first`` on
(:func:`benchmarks.core.protocol.deal_seeds`); the record is a JSON Lines file of
:mod:`benchmarks.core.records`' format, appended a deal at a time so that a run
stopped early keeps every deal it finished (and ``play`` run again resumes it).
The report is made from the records only (:mod:`research.relative_skill.report`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

from agents import Agent, make_agent
from benchmarks.core import records
from benchmarks.core.matches import agent_seed
from benchmarks.core.protocol import check_deals, deal_seeds, seatings
from benchmarks.core.rating import win_share
from cli import HelpFormatter
from envs.games import make_game
from research.core.clairvoyant import LABEL as CLAIRVOYANT
from research.core.clairvoyant import SEER, ClairvoyantAgent, SeerAgent, play_clairvoyant
from research.luck.stats import CONFIGS

#: The command, as its help and its records name it.
PROG = "python -m research.relative_skill"

#: The folder of the study's records, one file per configuration.
RECORDS = records.ROOT / "research" / "records" / "relative_skill"
#: The field's agent, in every seat but the hero's, and its label in the records' seats.
FIELD, FIELD_LABEL = "heuristic", "field"


def hero_labels(budgets: list[int], seer: bool = False) -> list[str]:
    """The heroes of a run, weakest first: random, the heuristic, then ``best`` and the clairvoyant at each budget
    (and with ``seer`` the stronger clairvoyant, :class:`research.core.clairvoyant.SeerAgent`, at each budget)."""
    seers = [f"{SEER}-{b}" for b in budgets] if seer else []
    return ["random", FIELD, *(f"best-{b}" for b in budgets), *(f"{CLAIRVOYANT}-{b}" for b in budgets), *seers]


def build_hero(label: str, game, seed: int) -> Agent:
    """The agent a label names: ``best-100`` is ``best`` at 100 iterations a move, ``clairvoyant-100`` its
    clairvoyant twin (built here, never by :func:`agents.make_agent`), ``field`` the field's heuristic."""
    kind, _, budget = label.partition("-")
    if kind == CLAIRVOYANT:
        return ClairvoyantAgent(game, seed=seed, iterations=int(budget))
    if kind == SEER:
        return SeerAgent(game, seed=seed, iterations=int(budget))
    if kind == "best":
        return make_agent("best", game, seed=seed, iterations=int(budget))
    return make_agent(FIELD if label == FIELD_LABEL else kind, game, seed=seed)


def play_tables(config: str, deal: int, seed: int, tables: list[tuple[str, str]], replays: int) -> list[dict]:
    """Every table ``(hero, opponent)`` of one deal, the hero in each seat in turn and the opponent in every other
    (``replays`` times, fresh agent seeds): the games as record lines.

    The agents' seeds depend on the deal, the seat and the replay only, never on the table (common random numbers)."""
    game_name, game_config = CONFIGS[config]
    game = make_game(game_name, **game_config)
    lines = []
    for replay, (hero, opponent) in itertools.product(range(replays), tables):
        for rotation, seating in enumerate(seatings(game.num_players)):
            hero_seat = seating.index(0)
            seats = [hero if s == hero_seat else opponent for s in range(game.num_players)]
            agents = [
                build_hero(label, game, agent_seed(seed, 0, rotation, s, replay)) for s, label in enumerate(seats)
            ]
            start = time.process_time()
            outcome = play_clairvoyant(game, agents, seed=seed)
            lines.append(
                {"kind": "game", "game": game_name, "config": game_config, "study_config": config}
                | {"deal_set": "test", "deal": deal, "seed": seed, "seating": rotation, "replay": replay}
                | {"hero": hero, "hero_seat": hero_seat, "seats": seats}
                | {"scores": [float(x) for x in outcome.scores]}
                | {"winners": [int(w) for w in outcome.winners], "result": win_share(outcome.winners, hero_seat)}
                | {"cpu_s": round(time.process_time() - start, 3)}
            )
    return lines


def record_path(config: str) -> Path:
    """A configuration's record while it is played (plain, appended a deal at a time); a finished record is
    committed gzipped (``.jsonl.gz``), and ``play`` does not add to a configuration whose record is sealed so."""
    return RECORDS / f"{config}.jsonl"


def done_deals(path: Path) -> set[int]:
    """The deals a record already holds (a deal's lines are written together, so a deal is whole or absent)."""
    if not path.exists():
        return set()
    return {line["deal"] for line in records.read([path]).games}


def play_record(path: Path, config: str, deal_numbers: range, tables: list[tuple[str, str]], header: dict) -> None:
    """Play every table of each deal in ``deal_numbers`` (test deals), appending each deal to the record at
    ``path`` as it finishes; a deal the record holds is skipped, so a stopped run resumes where it was.
    ``header``: the run's header line (:func:`benchmarks.core.records.new_run`, with its ``replays``)."""
    if Path(f"{path}.gz").exists():
        raise SystemExit(f"{path}.gz is a finished record: play into another --record")
    path.parent.mkdir(parents=True, exist_ok=True)
    done = done_deals(path)
    seeds = deal_seeds("test", len(deal_numbers), deal_numbers.start)
    todo = [(deal, s) for deal, s in zip(deal_numbers, seeds) if deal not in done]
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(header, separators=(",", ":")) + "\n")
        for n, (deal, seed) in enumerate(todo, 1):
            for line in play_tables(config, deal, seed, tables, header["replays"]):
                out.write(json.dumps(line | {"run": header["run"]}, separators=(",", ":")) + "\n")
            out.flush()
            print(f"{config}: deal {deal} done ({n}/{len(todo)})", file=sys.stderr, flush=True)


def agent_entries(labels: list[str]) -> dict[str, dict]:
    """The header's agents: ``best-B`` as ``best`` with its iterations (so that it carries its anchor identity)."""
    entries = {}
    for label in labels:
        kind, _, budget = label.partition("-")
        entries[label] = {"name": kind, "options": {"iterations": int(budget)}} if kind == "best" else {"name": label}
        entries[label].setdefault("options", {})
    return entries


def play(args: argparse.Namespace, argv: list[str]) -> int:
    """Play ``--deals`` deals from ``--first`` on, every hero against the field (:func:`play_record`)."""
    heroes = hero_labels(args.budgets, args.seer)
    agents = agent_entries(heroes) | {FIELD_LABEL: {"name": FIELD, "options": {}}}
    path = args.record or record_path(args.config)
    command = [*PROG.split(), *argv]
    header = records.new_run(command, agents, CONFIGS[args.config][0], own=path)
    header |= {"study": "relative_skill", "config": args.config, "heroes": heroes, "replays": args.replays}
    tables = [(hero, FIELD_LABEL) for hero in heroes]
    play_record(path, args.config, range(args.first, args.first + args.deals), tables, header)
    return 0


def add_play(sub, folder: Path) -> argparse.ArgumentParser:
    """A study's ``play`` sub-command on ``sub`` (the parser's sub-commands), with the arguments that say where
    and on what it plays: --config, --deals, --first, --record (by default ``folder``/CONFIG.jsonl)."""
    run = sub.add_parser("play", help="play deals into a configuration's record")
    run.add_argument("--config", required=True, choices=list(CONFIGS))
    run.add_argument("--deals", type=int, required=True, help="how many test deals (at least 2)")
    run.add_argument("--first", type=int, required=True, help="the first test deal (pre-registered)")
    run.add_argument("--record", type=Path, help=f"default {folder.relative_to(records.ROOT)}/CONFIG.jsonl")
    return run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = add_play(sub, RECORDS)
    run.add_argument("--budgets", type=int, nargs="+", default=[25, 100], help="iterations a move of best")
    run.add_argument("--replays", type=int, default=1, help="plays of each deal and seat with fresh agent seeds")
    run.add_argument("--seer", action="store_true", help="add the stronger clairvoyant (rollouts on the truth)")
    report = sub.add_parser("report", help="write the report from every record")
    report.add_argument("--records", type=Path, default=RECORDS)
    report.add_argument("--out", type=Path, help="the report (default a new runs/bench file)")
    report.add_argument(
        "--allow-dirty", action="store_true", help="accept runs from a dirty checkout (marked so; never to publish)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "report":
        from research.relative_skill import report as relative_skill_report

        out = args.out or records.run_file("relative_skill", ".md")
        relative_skill_report.write(sorted(args.records.glob("*.jsonl*")), out, args.allow_dirty)
        print(f"wrote {out}", file=sys.stderr)
        return 0
    try:
        check_deals(args.deals)
        if min(args.budgets) < 1 or args.replays < 1:
            raise ValueError("--budgets and --replays must be positive")
    except ValueError as error:
        parser.error(str(error))
    return play(args, argv)
