"""The skill ceiling: plain ISMCTS's rating against its thinking time, on the protocol's anchored scale.

    python -m research.ceiling --game wakanda --budgets 0.01 0.03 0.1 0.3 1 --deals 8
    python -m research.ceiling --game samurai --num-players 2 --budgets 0.01 0.1 1 --best
    python -m research.ceiling --from-record RECORD --out research/results/ceiling_wakanda.md

Plain ISMCTS (``make_agent("ismcts", game, time_limit=B)``) thinks ``B`` CPU
seconds of its own process a move (``time.process_time``, as the protocol
``drawluck-bench v1`` counts budgets, ``docs/benchmark.md``); each move is
refereed against ``B`` like a rated agent's. ``--best`` adds ``best`` at the
largest budget. The cheapest design that places every budget on the scale
(random 0, heuristic 1,000; :mod:`benchmarks.core.rating`) with its interval:

- the heuristic against random (the anchors);
- every budget against the heuristic (the hero at a table of heuristics);
- every budget against the budget below it, head to head at the same table
  size (the step from one budget to the next, measured directly);
- ``best`` against the heuristic and against ISMCTS at the largest budget.

Each table is played on the first ``--deals`` test deals, and the anchors'
table, which costs milliseconds a game and sets the scale's unit, on the
first ``--anchor-deals``; each deal in every rotation of the seats
(:mod:`benchmarks.core.arena`). ``--reuse`` takes the games a record already holds
with the same agents (a run extended with more deals or anchor deals). The games are played one
deal at a time and the record (``--record``, JSON Lines, gzip when it ends in
``.gz``) is rewritten after each deal, so a run stopped early keeps every
deal it finished. The report (``--out``, markdown, and a ``.png`` plot next to
it when matplotlib is installed) is made from the record only;
``--from-record`` makes it again from any records without playing.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.core import arena, records, report
from benchmarks.core.matches import AgentSpec
from benchmarks.core.protocol import ANCHOR_TABLE, ANCHORS, PROTOCOL, check_deals, config_label
from benchmarks.core.rating import AnchoredRating, deal_of
from benchmarks.core.records import Record
from cli import HelpFormatter
from envs.games import GAME_NAMES, add_game_options, game_config, make_game
from parallel import pool
from research.core.renamed import with_renamed_commands
from research.core.shown_commands import NOTE, rewrites, shown

DEFAULT_BUDGETS = (0.01, 0.03, 0.1, 0.3, 1.0, 2.0)
DEFAULT_DEALS = 20
#: The anchors' table (the heuristic against random) costs milliseconds a game: it is played on this many
#: test deals (or ``--deals``, if more), so that the scale's unit, not the searchers, is pinned down cheaply.
DEFAULT_ANCHOR_DEALS = 200
#: ``--quick``: a check that the command works end to end in seconds, not a measurement.
QUICK_BUDGETS = (0.002, 0.004)
QUICK_DEALS = 2
QUICK_ANCHOR_DEALS = 20


def ismcts_label(budget: float) -> str:
    return f"ismcts-{budget:g}s"


def best_label(budget: float) -> str:
    return f"best-{budget:g}s"


@dataclass(frozen=True)
class Plan:
    """What a run plays: the searchers' budgets, ``best`` or not, the searchers' deals and the anchors' deals."""

    budgets: tuple[float, ...]
    best: bool
    deals: int
    anchor_deals: int


def check_budgets(budgets: Sequence[float]) -> list[float]:
    """The budgets as floats; ValueError naming ``--budgets`` unless positive, finite and increasing."""
    if not budgets:
        raise ValueError("--budgets: give at least one budget (CPU seconds a move)")
    for b in budgets:
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or b <= 0:
            raise ValueError(f"--budgets must be positive finite numbers of CPU seconds, got {b!r}")
    if any(b >= c for b, c in zip(budgets, budgets[1:])):
        raise ValueError(f"--budgets must be strictly increasing, got {list(budgets)}")
    return [float(b) for b in budgets]


def design(budgets: Sequence[float], with_best: bool) -> tuple[dict[str, AgentSpec], list[tuple[str, str]], dict]:
    """The agents (label -> spec), the (hero, opponent) tables by label, and each searcher's CPU budget."""
    specs = {name: AgentSpec(name, name) for name in ANCHORS}
    searchers = [AgentSpec(ismcts_label(b), "ismcts", (("time_limit", b),)) for b in budgets]
    if with_best:
        searchers.append(AgentSpec(best_label(budgets[-1]), "best", (("time_limit", budgets[-1]),)))
    specs |= {spec.label: spec for spec in searchers}
    tables = [("heuristic", "random")]
    for i, spec in enumerate(searchers):
        tables.append((spec.label, "heuristic"))
        if i > 0:
            tables.append((spec.label, searchers[i - 1].label))
    limits = {spec.label: dict(spec.options)["time_limit"] for spec in searchers}
    return specs, tables, limits


def play(game: str, config: dict, plan: Plan, run: dict, backend, path: Path, reuse: Record | None = None) -> Record:
    """The anchors' table on its deals, then every other table one deal at a time, the record rewritten to
    ``path`` after each; a game ``reuse`` holds with the same agents is taken from it, not played."""
    specs, tables, limits = design(plan.budgets, plan.best)
    pairs = [(specs[hero], specs[opponent]) for hero, opponent in tables]
    anchors = arena.plan(game, config, pairs[:1], "test", plan.anchor_deals)
    tasks = arena.plan(game, config, pairs[1:], "test", plan.deals, budgets=sorted(limits.items()))
    start = time.perf_counter()
    record = arena.play(anchors, run, backend, progress=False, reuse=reuse)
    records.write(record, path)
    for deal in range(plan.deals):
        record.extend(arena.play([t for t in tasks if t.deal == deal], run, backend, progress=False, reuse=reuse))
        records.write(record, path, overwrite=True)
        elapsed = time.perf_counter() - start
        print(f"deal {deal + 1}/{plan.deals}: {len(record.games)} games, {elapsed:.0f} s", file=sys.stderr)
    return record


# --- the report, from records only ---------------------------------------------------------------


def budget_of(spec: dict) -> float | None:
    """A curve agent's thinking time (CPU seconds a move), None for the anchors."""
    return spec["options"].get("time_limit") if spec["name"] in ("ismcts", "best") else None


def cpu_seconds(games: Sequence[dict]) -> dict[str, tuple[int, float]]:
    """Per agent: moves and total CPU seconds over ``games``."""
    out: dict[str, tuple[int, float]] = {}
    for game in games:
        for label, cpu in zip(game["seats"], game["cpu_us"]):
            moves, total = out.get(label, (0, 0.0))
            out[label] = (moves + len(cpu), total + sum(cpu) / 1e6)
    return out


def curve_rows(record: Record) -> list[tuple[str, float | None, AnchoredRating, int, float]]:
    """(label, budget, rating, moves, CPU seconds) per agent: anchors first, then by budget (ISMCTS before best)."""
    agents = record.agents()
    configurations = report.by_configuration(record.games)
    if len(configurations) != 1:
        names = [report.label_of(g, c) for g, c in configurations]
        raise ValueError(f"a ceiling report is of one configuration; the records hold {names or 'no games'}")
    ratings = report.ratings_of(record.games)
    if ratings is None:
        raise ValueError(f"the record has no games of both anchors {list(ANCHORS)}")
    cpu = cpu_seconds(record.games)

    def order(r: AnchoredRating):
        budget = budget_of(agents[r.name])
        rank = ANCHORS.get(r.name, 0.0) if budget is None else budget  # anchors: random, then the heuristic
        return (budget is not None, rank, agents[r.name]["name"] == "best", r.name)

    rows = sorted(ratings, key=order)
    return [(r.name, budget_of(agents[r.name]), r, *cpu.get(r.name, (0, 0.0))) for r in rows]


def _number(x: float) -> str:
    return ("-∞" if x < 0 else "∞") if math.isinf(x) else f"{x:,.0f}"


def curve_table(rows) -> list[str]:
    lines = [f"| agent | budget (CPU s a move) | rating | {report.RATING_INTERVAL} | games | moves | CPU seconds |"]
    lines.append("|---|---:|---:|---|---:|---:|---:|")
    for label, budget, r, moves, seconds in rows:
        shown = "" if budget is None else f"{budget:g}"
        interval = f"[{_number(r.low)}, {_number(r.high)}]"
        lines.append(f"| {label} | {shown} | {_number(r.value)} | {interval} | {r.games} | {moves} | {seconds:,.1f} |")
    return lines


def heading(record: Record) -> str:
    labels = {report.label_of(g, c) for g, c in report.by_configuration(record.games)}
    return f"Skill ceiling: {', '.join(sorted(labels))}"


def markdown(record: Record, sources: Sequence[str | Path], plot: str | None) -> str:
    """The curve table, the plot's link (or why there is none), then the full report of the record."""
    rows = curve_rows(record)
    searchers = {deal_of(g) for g in record.games if g["table"] != ANCHOR_TABLE}
    anchors = {deal_of(g) for g in record.games if g["table"] == ANCHOR_TABLE}
    total = sum(row[4] for row in rows)
    protocols = records.protocols(record.runs)
    intro = [
        f"Plain ISMCTS's rating against its thinking time (CPU seconds of its own process a move, {protocols}), "
        "random 0 and the heuristic 1,000; 95% intervals by bootstrap over deals, expanded for small samples. "
        f"{len(record.games)} games, "
        f"every rotation of the seats: the searchers' tables on {len(searchers)} test deals, the anchors' table "
        f"(the heuristic against random, which sets the scale's unit) on {len(anchors)}; "
        f"{total:,.0f} CPU seconds of moves in all. "
        "Generated from the records below by `python -m research.ceiling --from-record RECORD... --out FILE`; "
        "never edited by hand.",
        "",
    ]
    intro += curve_table(rows) + [""]
    intro.append(f"![rating against thinking time]({plot})" if plot else "(no plot: matplotlib is not installed)")
    committed = report.shown_path(sources[0]) if len(sources) == 1 else None  # what a scratch --reuse stands for
    record = with_renamed_commands(record)  # a command as it runs today (research.core.renamed)
    commands = [run["command"] for run in record.runs]
    if rewrites(commands, committed):
        intro[0] += f" {NOTE}"
        runs = [{**run, "command": shown(run["command"], committed)} for run in record.runs]
        record = Record(runs, record.games, record.failures)
    return report.markdown(record, heading(record), "\n".join(intro), sources)


def write_plot(record: Record, path: Path) -> bool:
    """Rating against log thinking time with 95% intervals; False (nothing written) without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [row for row in curve_rows(record) if row[1] is not None]
    fig, ax = plt.subplots(figsize=(6, 4))
    for kind, marker in (("ismcts", "o-"), ("best", "s")):
        chosen = [row for row in rows if record.agents()[row[0]]["name"] == kind]
        if not chosen:
            continue
        x = [row[1] for row in chosen]
        y = [row[2].value for row in chosen]
        err = [[row[2].value - row[2].low for row in chosen], [row[2].high - row[2].value for row in chosen]]
        ax.errorbar(x, y, yerr=err, fmt=marker, capsize=3, label=kind)
    for name, value in ANCHORS.items():
        ax.axhline(value, color="grey", linestyle=":", linewidth=1)
        ax.annotate(name, (rows[0][1] if rows else 1, value), fontsize=8, color="grey")
    ax.set_xscale("log")
    ax.set_xlabel("thinking time (CPU seconds a move)")
    ax.set_ylabel("rating (random 0, heuristic 1,000)")
    ax.set_title(heading(record))
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return True


def write_report(record: Record, sources: Sequence[str | Path], out: Path) -> str:
    """The markdown report (and its plot, ``out`` with ``.png``) of ``record``; returns the markdown."""
    plot = out.with_suffix(".png")
    text = markdown(record, sources, plot.name if write_plot(record, plot) else None)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text


# --- the command ---------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m research.ceiling", description=__doc__, formatter_class=HelpFormatter
    )
    parser.add_argument("--game", choices=GAME_NAMES, help="the game (required unless --from-record)")
    parser.add_argument("--budgets", type=float, nargs="+", help=f"CPU seconds a move (default {DEFAULT_BUDGETS})")
    parser.add_argument("--deals", type=int, help=f"test deals per table (default {DEFAULT_DEALS})")
    parser.add_argument("--best", action="store_true", help="add best at the largest budget")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_DEALS} deals at budgets {QUICK_BUDGETS}")
    parser.add_argument("--record", type=Path, help="the record to write (default runs/bench/ceiling-...jsonl.gz)")
    parser.add_argument("--out", type=Path, help="the report to write (default the record's name with .md)")
    parser.add_argument(
        "--anchor-deals",
        type=int,
        help=f"test deals of the heuristic against random (default {DEFAULT_ANCHOR_DEALS}, at least --deals)",
    )
    parser.add_argument(
        "--reuse",
        nargs="+",
        type=Path,
        metavar="RECORD",
        help="take the games these records hold with the same agents instead of playing them (extend a run)",
    )
    parser.add_argument("--from-record", nargs="+", type=Path, metavar="RECORD", help="report these records only")
    pool.add_arguments(parser)
    add_game_options(parser)
    return parser


def from_records(parser, args) -> int:
    if args.out is None:
        parser.error("--out: name the report to write from --from-record")
    try:
        record = records.read(args.from_record)
        write_report(record, args.from_record, args.out)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    print(f"wrote {args.out} from {len(record.games)} games", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.from_record:
        return from_records(parser, args)
    try:
        if args.game is None:
            raise ValueError("--game is required (unless --from-record)")
        config = game_config(args.game, args)
        make_game(args.game, **config)  # a bad configuration fails here, before anything is played
        budgets = check_budgets(args.budgets or (QUICK_BUDGETS if args.quick else DEFAULT_BUDGETS))
        deals = check_deals(args.deals if args.deals is not None else (QUICK_DEALS if args.quick else DEFAULT_DEALS))
        anchor_deals = args.anchor_deals
        if anchor_deals is None:
            anchor_deals = max(deals, QUICK_ANCHOR_DEALS if args.quick else DEFAULT_ANCHOR_DEALS)
        if anchor_deals < deals:
            raise ValueError(f"--anchor-deals must be at least --deals ({deals}), got {anchor_deals}")
        plan = Plan(tuple(budgets), args.best, deals, anchor_deals)
        reuse = records.read(args.reuse) if args.reuse else None
        where = config_label(args.game, config)
        stem = "ceiling-" + "".join(c if c.isalnum() else "_" for c in where)
        path = args.record or records.run_file(stem, ".jsonl.gz")
        if path.exists():
            raise ValueError(f"--record {path} exists; records are not overwritten")
        out = args.out or path.with_name(path.name.split(".")[0] + ".md")
        backend = pool.from_args(args)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    specs, tables, _ = design(budgets, args.best)
    agents = {label: {"name": s.name, "options": dict(s.options)} for label, s in specs.items()}
    run = records.new_run(["python", "-m", "research.ceiling", *argv], agents, args.game)
    print(
        f"{PROTOCOL}: {where}, budgets {budgets}: the anchors on {anchor_deals} test deals, then {len(tables) - 1} "
        f"tables x {deals} test deals",
        file=sys.stderr,
    )
    with backend:
        record = play(args.game, config, plan, run, backend, path, reuse)
    write_report(record, [path], out)
    print(f"record: {path}\nreport: {out}", file=sys.stderr)
    return 1 if record.failures else 0


if __name__ == "__main__":
    sys.exit(main())
