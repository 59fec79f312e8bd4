"""Simulations per CPU second of the guided search, next to plain ISMCTS measured in the same run.

Why a ratio: the guided search's strength at a time budget (0.5 CPU-s a move
in ``research/strength.py``) depends on how many simulations that budget
buys, and a CPU second does less work on a busy machine. So plain ISMCTS (the
reference, with its game's defaults) and the guided search (its game's
defaults, the shipped network) run in alternating rounds over the same
positions, and the figure is the median over the rounds of the guided search's
simulations per CPU second divided by the reference's just before and after it.

The positions come from games of the heuristic against itself (fixed seeds),
one every few decisions; each search gets ``--iterations`` simulations from a
fresh agent per round (``keep_tree`` has nothing to keep: positions stand alone).

    python -m benchmarks.search_speed --record benchmarks/records/speed/search_speed.json   # measure (clean checkout)
    python -m benchmarks.search_speed --from-record benchmarks/records/speed/search_speed.json \
        --out benchmarks/results/search_speed.md

Without ``--out`` the page goes to a new file under ``runs/bench/``: the committed results file is
written only when ``--out`` names it, from the committed record (``benchmarks.core.speed_records``).

To compare with another version of the search, run this file from that version's checkout
(``cd OTHER && PYTHONPATH=. python /path/to/benchmarks/search_speed.py --out FILE``): its
``agents`` are then imported, and the ratio to plain ISMCTS makes the two runs comparable.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path

from agents import PlayerView, make_agent, play_game
from envs.games import make_game

CONFIGS = [("wakanda", {}), ("samurai", {"num_players": 2}), ("wapi", {"num_players": 4})]
#: A position is kept every this many decisions with a choice, up to POSITIONS per game configuration.
EVERY, POSITIONS = 7, 30


class _Recorder:
    """Plays as its heuristic does, keeping every ``EVERY``-th view that has a choice."""

    name = "recorder"

    def __init__(self, inner, views: list[PlayerView]):
        self.inner, self.views, self.decisions = inner, views, 0

    def reset(self) -> None:
        self.inner.reset()

    def act(self, view: PlayerView) -> int:
        if len(view.legal_actions) > 1:
            self.decisions += 1
            if self.decisions % EVERY == 0:
                self.views.append(view)
        return self.inner.act(view)


def positions(game) -> list[PlayerView]:
    views: list[PlayerView] = []
    seed = 0
    while len(views) < POSITIONS:
        players = [_Recorder(make_agent("heuristic", game, seed=p), views) for p in range(game.num_players)]
        play_game(game, players, seed=1000 + seed)
        seed += 1
    return views[:POSITIONS]


def rate(game, views: list[PlayerView], iterations: int, **options) -> float:
    """Simulations per CPU second of fresh searches of ``iterations`` over ``views``."""
    agent = make_agent("ismcts", game, iterations=iterations, seed=0, **options)
    start, simulations = time.process_time(), 0
    for view in views:
        agent.reset()
        agent.act(view)
        simulations += agent.last_iterations
    return simulations / (time.process_time() - start)


def measure(name: str, config: dict, rounds: int, iterations: int) -> dict:
    game = make_game(name, **config)
    views = positions(game)
    plain = [rate(game, views, iterations)]
    guided, ratios = [], []
    for _ in range(rounds):
        guided.append(rate(game, views, iterations, network="trained"))
        plain.append(rate(game, views, iterations))
        ratios.append(guided[-1] / statistics.mean(plain[-2:]))
    label = f"{name} {config.get('num_players', 2)}p"
    return {"label": label, **medians(plain, guided, ratios)}


def medians(reference: list[float], measured: list[float], ratios: list[float]) -> dict:
    """Alternating rounds summed up: the median rates (``plain``: the reference's; ``guided``: the
    measured search's) and the median ratio of the rounds, with its range."""
    return {
        "plain": statistics.median(reference),
        "guided": statistics.median(measured),
        "ratio": statistics.median(ratios),
        "range": [min(ratios), max(ratios)],
    }


def main(argv: list[str] | None = None) -> None:
    parser = results_parser(__doc__, "search_speed")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--iterations", type=int, default=256, help="simulations per search (default 256)")
    from benchmarks.core import speed_records  # here, not at the top: this file also runs from an older checkout

    speed_records.add_record_options(parser)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.iterations < 2:
        parser.error("--rounds must be at least 1 and --iterations at least 2")
    record, source = speed_records.recorded(args, lambda: measure_all(args, argv))
    out = args.out or default_out("search_speed")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(report(record, source)) + "\n")
    print(f"written to {out}", file=sys.stderr)


def measure_all(args: argparse.Namespace, argv: list[str] | None) -> dict:
    """Every game's row, in a run's record (``benchmarks.core.speed_records``)."""
    from benchmarks.core import speed_records

    run = speed_records.SpeedRun("benchmarks.search_speed", list(sys.argv[1:] if argv is None else argv))
    rows = []
    for name, config in CONFIGS:
        rows.append(measure(name, config, args.rounds, args.iterations))
        print(rows[-1], flush=True)
    return run.finish(rows, rounds=args.rounds, iterations=args.iterations)


def report(record: dict, source: Path) -> list[str]:
    """The page: guided against plain ISMCTS, one row per game."""
    about = (
        f"{POSITIONS} positions per game from heuristic self-play; {record['iterations']} simulations a search; "
        f"{record['rounds']} rounds. Ratio: guided / plain in the same round (median, min-max)."
    )
    header = "| game | plain ISMCTS sims/CPU-s | guided sims/CPU-s | guided / plain | range |\n|---|---:|---:|---:|---|"
    table = [
        f"| {r['label']} | {r['plain']:,.0f} | {r['guided']:,.0f} | {r['ratio']:.2f} | {span(r, 2)} |"
        for r in record["rows"]
    ]
    title = "Simulations per CPU second: guided search against plain ISMCTS"
    from benchmarks.core import speed_records

    return speed_records.report_lines(record, source, title, about, [header, *table])


def span(row: dict, digits: int) -> str:
    """A row's range of ratios, ``low-high``."""
    low, high = row["range"]
    return f"{low:.{digits}f}-{high:.{digits}f}"


def results_parser(doc: str, stem: str) -> argparse.ArgumentParser:
    """A speed command's parser (described by its docstring's first paragraph) with its ``--out``: the results
    file, by default a new one (:func:`default_out`)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help=f"results file (default runs/bench/{stem}-TIME.md)")
    return parser


def default_out(stem: str) -> Path:
    """A new file under ``runs/bench/`` (imported here, not at the top, so that this file still runs
    from an older checkout with ``--out``: see the module docstring)."""
    from benchmarks.core.records import run_file

    return run_file(stem, ".md")


def write_results(out: Path, title: str, module: str, argv: list[str] | None, about: str, table: list[str]) -> None:
    """The results page: title, the command that made it, the machine and what was measured, the table."""
    command = f"python -m {module} " + shlex.join(argv if argv is not None else sys.argv[1:])
    lines = [f"# {title}", "", f"Command: `{command.strip()}`", ""]
    lines += [f"Machine: {platform.machine()}, Python {platform.python_version()}. {about}", "", *table]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
