"""What the full leaderboard costs: each table of the full ladder timed on a few deals, extrapolated.

    python -m benchmarks.leaderboard_cost --deals 1 --out FILE

Why: ``python -m benchmarks.leaderboard`` without ``--quick`` plays every table of the full ladder on 100
test deals of every configuration, and no one should start it without knowing what it costs. For each
game's default configuration this plays ``--deals`` test deals (each in every rotation, as the protocol
does) of every table of the full ladder (:func:`benchmarks.core.protocol.reference_tables`), one after another
in this process, and times each deal in CPU seconds of this process. A table's estimate is its mean CPU
seconds a deal times the ladder's deals; a configuration's is the sum over its tables. It is an estimate
from few deals (a deal's cost varies with its game's length) on this machine (the calibration factor,
:mod:`benchmarks.calibration`, says how fast it is), and counts no overhead of a pool or of writing records.
A speed measurement without records: the page is this command's output, run again to measure again.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import envs
from benchmarks.core import arena, calibration
from benchmarks.core.protocol import LADDERS, config_label
from envs.games import make_game


def table_costs(game: str, deals: int) -> list[tuple[str, int, float]]:
    """(table, games a deal, mean CPU seconds a deal) for every table of the full ladder on ``game``'s default."""
    config = make_game(game).config()
    out = []
    for label, table in arena.ladder_tables(game, config, "full").items():
        start = time.process_time()
        games = 0
        for task in arena.plan(game, config, [table], "test", deals):
            played, failures = arena.play_deal(task)
            if failures:
                raise RuntimeError(f"{label}: {failures[0]['message']}")
            games += len(played)
        seconds = (time.process_time() - start) / deals
        out.append((label, games // deals, seconds))
        print(f"{config_label(game, {})}: {out[-1][0]}: {seconds:.1f} CPU s a deal", file=sys.stderr, flush=True)
    return out


def page(costs: dict[str, list[tuple[str, int, float]]], deals: int, factor: float, command: str) -> str:
    """The estimate as markdown: every table, each configuration's total and the sum."""
    ladder = LADDERS["full"].deals
    lines = [
        "# The full leaderboard's cost, estimated",
        "",
        f"Command: `{command}`",
        "",
        f"Each table of the full ladder timed on {deals} test deal(s) (every rotation), one after another in one "
        f"process, extrapolated to the ladder's {ladder} deals a table. This machine's calibration factor: "
        f"{factor:.2f} (1 is the reference machine). CPU hours; a pool of N processes divides the wall time by "
        "about N.",
        "",
    ]
    total = 0.0
    for label, rows in costs.items():
        hours = [seconds * ladder / 3600 for _, _, seconds in rows]
        total += sum(hours)
        lines += [
            f"## {label}",
            "",
            "| table | games a deal | CPU s a deal | CPU hours, full ladder |",
            "|---|---:|---:|---:|",
        ]
        lines += [f"| {t} | {g} | {s:,.1f} | {h:,.2f} |" for (t, g, s), h in zip(rows, hours)]
        lines += ["", f"Total for {label}: {sum(hours):,.1f} CPU hours.", ""]
    lines.append(f"**Total for the {len(costs)} default configurations: {total:,.1f} CPU hours.**")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m benchmarks.leaderboard_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1, help="test deals a table to time (default 1)")
    parser.add_argument("--games", nargs="+", choices=list(envs.GAMES), default=list(envs.GAMES), help="games")
    parser.add_argument("--out", type=Path, required=True, help="the page to write")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals must be a positive number of deals, got {args.deals}")
    factor = calibration.measure().factor
    costs = {config_label(game, {}): table_costs(game, args.deals) for game in args.games}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        page(costs, args.deals, factor, shlex.join(["python", "-m", "benchmarks.leaderboard_cost", *argv]))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
