"""A search with batch rollouts against the same search one rollout at a time, in the same run.

ISMCTS's flat paired search with exact heuristic rollouts (Wapi's default; asked for
explicitly in Wakanda and Samurai, whose default searches are a tree and leaf
values) plays its rollouts many at once in numpy (``batch_rollouts``, the games'
``envs/<game>/batch.py``); both forms make the same samples, sums and choices
(``tests/test_<game>_batch.py``).
What the batches buy is simulations per CPU second, so the two run in
alternating rounds over the same positions (those of ``benchmarks/search_speed``)
at each time budget, and the figure is the median over the rounds of the batch
search's rate divided by the one-by-one search's in the same round.

    python -m benchmarks.batch_rollouts [--game wapi] [--rounds 3] [--budgets 0.05 0.5] [--out FILE]

The committed reports are ``benchmarks/results/batch_rollouts.md`` (Wapi) and ``batch_rollouts_<game>.md``,
written only when ``--out`` names them; by default the report goes to a new file under ``runs/bench/``.
"""

from __future__ import annotations

import time

import envs
from agents import PlayerView, make_agent
from benchmarks.search_speed import default_out, medians, positions, results_parser, span, write_results
from envs.games import make_game

#: The flat paired search with exact heuristic rollouts to the end: the search whose rollouts batch.
FLAT = {"paired_root": True, "tree_depth": 1, "rollout_depth": None, "rollout_epsilon": 0.0}
#: The configuration measured in each game (Wapi's: the four-player table of the shipped model).
CONFIGS = {"wapi": {"num_players": 4}, "wakanda": {}, "samurai": {}}


def rate(game, views: list[PlayerView], budget: float, batch: bool) -> float:
    """Simulations per CPU second of ``budget``-second searches of every view."""
    agent = make_agent("ismcts", game, time_limit=budget, seed=0, batch_rollouts=batch, **FLAT)
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
    parser = results_parser(__doc__, "batch_rollouts_GAME")
    parser.add_argument("--game", default="wapi", choices=envs.GAMES, help="the game (default wapi)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.05, 0.5], help="CPU seconds a move")
    args = parser.parse_args(argv)
    if args.rounds < 1 or min(args.budgets) <= 0:
        parser.error("--rounds must be at least 1 and every budget positive")
    game = make_game(args.game, **CONFIGS[args.game])
    views = positions(game)
    rows = []
    for budget in args.budgets:
        rows.append(measure(game, views, budget, args.rounds))
        print(rows[-1], flush=True)
    label = envs.describe(args.game).label(CONFIGS[args.game])
    about = (
        f"{len(views)} positions of {label} from heuristic self-play; {args.rounds} alternating rounds. "
        "Ratio: batch / one by one in the same round (median, min-max)."
    )
    header = "| CPU s a move | one by one: sims/CPU-s | batch: sims/CPU-s | batch / one by one | range |\n"
    header += "|---:|---:|---:|---:|---|"
    table = [
        f"| {r['budget']:g} | {r['plain']:,.0f} | {r['guided']:,.0f} | **{r['ratio']:.1f}** | {span(r, 1)} |"
        for r in rows
    ]
    title = f"{args.game.capitalize()}'s flat search: batch rollouts against one rollout at a time"
    out = args.out or default_out(f"batch_rollouts_{args.game}")
    write_results(out, title, "benchmarks.batch_rollouts", argv, about, [header, *table])


if __name__ == "__main__":
    main()
