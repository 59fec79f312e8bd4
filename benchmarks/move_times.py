"""How long a time-budgeted search's moves take, with the collector's long-lived objects frozen and without.

A move past the protocol's allowance (1.5 x budget + 0.05 s, ``docs/benchmark.md``: twice a 0.1 s budget)
breaks the protocol; this page counts the moves past twice the budget. In a process that
has imported torch, one full collection of Python's garbage collector takes about as long as a 0.1 s
budget (:mod:`agents.gc_freeze`), so a search now freezes the objects alive when it is made. This
measures, in one run on the same deals: one full collection's CPU time before and after the freeze,
and ``best``'s moves against heuristics with the freeze (as every search is made now) and with it undone
after the agents are made (``gc.unfreeze``: as before), with every full collection that ran inside a move.

    python -m benchmarks.move_times [--games 20] [--budget 0.1] [--out benchmarks/results/move_times.md]
"""

from __future__ import annotations

import gc
import statistics
import time

import numpy as np

from agents import make_agent, play_game
from benchmarks.search_speed import default_out, results_parser, write_results
from envs.games import make_game

CONFIG = {"num_players": 3}  # Samurai at three players, where the thinking-time curve's moves overran


def full_collection_seconds(repeats: int = 5) -> float:
    """The median CPU time of one full collection of what the collector walks now."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        gc.collect()
        times.append(time.process_time() - start)
    return statistics.median(times)


class Clock:
    """Times each move of the agent it wraps, and every full collection that runs inside one."""

    def __init__(self, agent) -> None:
        self.agent, self.moves, self.collections, self.in_move = agent, [], [], False
        self.started = 0.0

    def reset(self) -> None:
        self.agent.reset()

    def act(self, view) -> int:
        self.in_move = True
        start = time.process_time()
        action = self.agent.act(view)
        self.moves.append(time.process_time() - start)
        self.in_move = False
        return action

    def on_collection(self, phase: str, info: dict) -> None:
        if not self.in_move or info["generation"] != 2:
            return
        if phase == "start":
            self.started = time.process_time()
        else:
            self.collections.append(time.process_time() - self.started)


def play(games: int, budget: float, frozen: bool) -> Clock:
    """``best`` in seat 0 against heuristics on ``games`` deals (seeds 0..games-1)."""
    game = make_game("samurai", **CONFIG)
    clock = Clock(None)
    gc.callbacks.append(clock.on_collection)
    try:
        for deal in range(games):
            clock.agent = make_agent("best", game, time_limit=budget, seed=deal)
            others = [make_agent("heuristic", game, seed=deal * 10 + i) for i in range(1, game.num_players)]
            if not frozen:
                gc.unfreeze()  # as before agents.gc_freeze: a full collection walks every library object
            play_game(game, [clock, *others], seed=deal)
    finally:
        gc.callbacks.remove(clock.on_collection)
    return clock


def row(label: str, clock: Clock, budget: float) -> str:
    moves = np.array(clock.moves) * 1000
    over = int((moves > 2000 * budget).sum())
    longest = max(clock.collections, default=0.0) * 1000
    return (
        f"| {label} | {len(moves)} | {moves.mean():.1f} | {np.percentile(moves, 99):.1f} | {moves.max():.1f} "
        f"| {over} | {len(clock.collections)} | {longest:.1f} |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = results_parser(__doc__, "move_times")
    parser.add_argument("--games", type=int, default=20, help="deals played by each row (default 20)")
    parser.add_argument("--budget", type=float, default=0.1, help="best's CPU seconds a move (default 0.1)")
    args = parser.parse_args(argv)
    if args.games < 1 or not args.budget > 0:
        parser.error(f"--games must be at least 1 and --budget above 0; got {args.games} and {args.budget}")
    make_agent("best", make_game("samurai", **CONFIG), time_limit=args.budget)  # imports torch, freezes
    gc.unfreeze()
    tracked, before = len(gc.get_objects()), full_collection_seconds()
    gc.freeze()  # what freeze_long_lived did when the search was made, again (it froze once per imports)
    after = full_collection_seconds()
    rows = [row("frozen (now)", play(args.games, args.budget, True), args.budget)]
    rows.append(row("unfrozen (before)", play(args.games, args.budget, False), args.budget))
    about = (
        f"Samurai at three players; `best` at {args.budget} CPU s a move in seat 0 against two heuristics, "
        f"{args.games} deals a row, the same deals. One full collection with the {tracked:,} objects tracked "
        f"after the guided search is made: {before * 1000:.1f} ms unfrozen, {after * 1e6:.0f} µs frozen. "
        "Move times in CPU ms; over 2x: moves past twice "
        "the budget; full collections: those that ran inside a move, and the longest."
    )
    header = [
        "| search | moves | mean | 99th percentile | max | over 2x | full collections | longest |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    out = args.out or default_out("move_times")
    write_results(out, "Move times of a search on a time budget", "benchmarks.move_times", argv, about, header + rows)


if __name__ == "__main__":
    main()
