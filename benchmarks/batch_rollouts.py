"""Wapi's search with batch rollouts against the same search one rollout at a time, in the same run.

Wapi's ISMCTS (flat, paired, exact heuristic rollouts) plays its rollouts many at
once in numpy where it can (``batch_rollouts``, ``envs/wapi/batch.py``); both
forms make the same samples, sums and choices (``tests/test_wapi_batch.py``).
What the batches buy is simulations per CPU second, so the two run in
alternating rounds over the same positions (those of ``benchmarks/search_speed``)
at each time budget, and the figure is the median over the rounds of the batch
search's rate divided by the one-by-one search's in the same round.

    python -m benchmarks.batch_rollouts [--rounds 3] [--budgets 0.05 0.5] [--out benchmarks/results/batch_rollouts.md]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from agents import PlayerView, make_agent
from agents.games import make_game
from benchmarks.search_speed import medians, positions, span, write_results

RESULTS = Path(__file__).parent / "results" / "batch_rollouts.md"


def rate(game, views: list[PlayerView], budget: float, batch: bool) -> float:
    """Simulations per CPU second of ``budget``-second searches of every view."""
    agent = make_agent("ismcts", game, time_limit=budget, seed=0, batch_rollouts=batch)
    start, simulations = time.process_time(), 0
    for view in views:
        agent.act(view)
        simulations += agent.last_iterations
    return simulations / (time.process_time() - start)


def measure(game, views: list[PlayerView], budget: float, rounds: int) -> dict:
    one, many, ratios = [], [], []
    for _ in range(rounds):
        one.append(rate(game, views, budget, batch=False))
        many.append(rate(game, views, budget, batch=True))
        ratios.append(many[-1] / one[-1])
    return {"budget": budget, **medians(one, many, ratios)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.05, 0.5], help="CPU seconds a move")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"results file (default {RESULTS})")
    args = parser.parse_args(argv)
    if args.rounds < 1 or min(args.budgets) <= 0:
        parser.error("--rounds must be at least 1 and every budget positive")
    game = make_game("wapi", num_players=4)
    views = positions(game)
    rows = []
    for budget in args.budgets:
        rows.append(measure(game, views, budget, args.rounds))
        print(rows[-1], flush=True)
    about = (
        f"{len(views)} four-player positions from heuristic self-play; {args.rounds} alternating rounds. "
        "Ratio: batch / one by one in the same round (median, min-max)."
    )
    header = "| CPU s a move | one by one: sims/CPU-s | batch: sims/CPU-s | batch / one by one | range |\n"
    header += "|---:|---:|---:|---:|---|"
    table = [
        f"| {r['budget']:g} | {r['plain']:,.0f} | {r['guided']:,.0f} | **{r['ratio']:.1f}** | {span(r, 1)} |"
        for r in rows
    ]
    title = "Wapi's search: batch rollouts against one rollout at a time"
    write_results(args.out, title, "benchmarks.batch_rollouts", argv, about, [header, *table])


if __name__ == "__main__":
    main()
