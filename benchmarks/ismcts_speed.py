"""CPU per move of plain ISMCTS at a fixed number of simulations: this checkout against a reference commit.

Why a second checkout, in the same run: a speed-up of the search is a ratio to what the search cost before,
and a CPU second does less work on a busy machine. So the reference commit is checked out into a temporary
``git worktree`` and two worker processes, one per checkout, search the same positions with the same seeds
in alternating bursts; the figure per game is the median over the rounds of the reference's CPU seconds
divided by this checkout's. A faster search must be the same search: every move chosen is compared, and
the positions themselves (their observations and legal moves) must be equal in both checkouts.

The positions are :func:`benchmarks.search_speed.positions` (heuristic self-play with fixed seeds, every few
decisions with a choice); position ``k`` is searched by a fresh ``make_agent("ismcts", game, iterations=N,
seed=k)`` with its game's defaults (:mod:`agents.tuning`), and only ``act`` is timed (CPU time of the worker).

    python -m benchmarks.ismcts_speed [--reference ce71659] [--rounds 5] [--iterations 256] [--out FILE]
    python -m benchmarks.ismcts_speed --record benchmarks/records/speed/ismcts_speed.json   # a clean checkout
    python -m benchmarks.ismcts_speed --from-record benchmarks/records/speed/ismcts_speed.json \
        --out benchmarks/results/ismcts_speed.md

The report is made from the record (``benchmarks.core.speed_records``), so ``python -m benchmarks.regenerate``
makes it again.

A worker runs this file as a script (``python -P benchmarks/ismcts_speed.py --worker``) with its checkout on
``PYTHONPATH``: it imports that checkout's ``agents``, ``envs`` and ``benchmarks.search_speed`` and nothing
of this checkout's, reads one request a line on stdin and answers one JSON line on stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The games measured: name, configuration and label (the issue's three: issue 61).
CONFIGS = [
    ("samurai", {"num_players": 2}, "samurai 2p"),
    ("wakanda", {}, "wakanda 2p"),
    ("wapi", {"num_players": 4}, "wapi 4p"),
]
#: The commit the search is measured against (issue 61: main before the compiled engines).
REFERENCE = "ce71659"
ROOT = Path(__file__).resolve().parent.parent


# --- the worker: one checkout's search ---------------------------------------------------------------------
class Worker:
    """The positions of each game (made once) and bursts of searches over them, in this process's checkout."""

    def __init__(self) -> None:
        self.views: dict[str, tuple] = {}

    def positions(self, name: str, config: dict) -> tuple:
        """The game and its positions, with their fingerprint (every position's player, observation, legal moves)."""
        if name not in self.views:
            from benchmarks.search_speed import positions
            from envs.games import make_game

            game = make_game(name, **config)
            views = positions(game)
            digest = hashlib.sha256()
            for view in views:
                digest.update(bytes([view.player]) + view.observation.tobytes() + repr(view.legal_actions).encode())
            self.views[name] = (game, views, digest.hexdigest()[:16])
        return self.views[name]

    def burst(self, name: str, config: dict, iterations: int) -> dict:
        """Every position searched once by a fresh seeded agent: the CPU seconds of the moves and the moves."""
        from agents import make_agent

        game, views, fingerprint = self.positions(name, config)
        seconds, moves = 0.0, []
        for k, view in enumerate(views):
            agent = make_agent("ismcts", game, iterations=iterations, seed=k)
            start = time.process_time()
            moves.append(int(agent.act(view)))
            seconds += time.process_time() - start
        return {"seconds": seconds, "moves": moves, "fingerprint": fingerprint}


def serve() -> None:
    """Answer each request line (``{"game", "config", "iterations"}``) with a burst's JSON line."""
    worker = Worker()
    for line in sys.stdin:
        request = json.loads(line)
        answer = worker.burst(request["game"], request["config"], request["iterations"])
        print(json.dumps(answer), flush=True)


# --- the driver: two workers, alternating -----------------------------------------------------------------
class Checkout:
    """A worker process searching in the checkout at ``root``."""

    def __init__(self, root: Path):
        env = {**os.environ, "PYTHONPATH": str(root)}
        command = [sys.executable, "-P", str(Path(__file__).resolve()), "--worker"]
        self.process = subprocess.Popen(
            command, cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def burst(self, name: str, config: dict, iterations: int) -> dict:
        self.process.stdin.write(json.dumps({"game": name, "config": config, "iterations": iterations}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a worker stopped (exit status {self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def reference_checkout(commit: str, into: Path) -> Path:
    """A detached worktree of ``commit`` under ``into`` (removed by :func:`remove_checkout`)."""
    path = into / "reference"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit], check=True, capture_output=True
    )
    return path


def remove_checkout(path: Path) -> None:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False, capture_output=True
    )


def measure(new: Checkout, old: Checkout, name: str, config: dict, rounds: int, iterations: int) -> dict:
    """One game: a warm-up burst each (imports, compiled code), then ``rounds`` rounds of one burst each, the
    order alternating; the ratios of the reference's CPU seconds to this checkout's, and whether the moves agree."""
    first = {side: checkout.burst(name, config, iterations) for side, checkout in (("new", new), ("old", old))}
    if first["new"]["fingerprint"] != first["old"]["fingerprint"]:
        raise RuntimeError(f"{name}: the positions differ between the checkouts")
    times = {"new": [], "old": []}
    equal = first["new"]["moves"] == first["old"]["moves"]
    for round_ in range(rounds):
        order = [("old", old), ("new", new)] if round_ % 2 == 0 else [("new", new), ("old", old)]
        for side, checkout in order:
            answer = checkout.burst(name, config, iterations)
            times[side].append(answer["seconds"])
            equal = equal and answer["moves"] == first["old"]["moves"]
    ratios = [o / n for o, n in zip(times["old"], times["new"])]
    moves = len(first["new"]["moves"])
    return {
        "old_ms": 1000 * statistics.median(times["old"]) / moves,
        "new_ms": 1000 * statistics.median(times["new"]) / moves,
        "ratio": statistics.median(ratios),
        "range": (min(ratios), max(ratios)),
        "equal": equal,
    }


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--worker"]:  # before any import of this checkout's: a worker serves the reference's code
        return serve()
    from benchmarks.core import speed_records
    from benchmarks.search_speed import default_out, results_parser

    parser = results_parser(__doc__, "ismcts_speed")
    parser.add_argument("--reference", default=REFERENCE, help=f"the commit to compare with (default {REFERENCE})")
    parser.add_argument("--reference-dir", type=Path, help="an existing checkout of the reference (no new worktree)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--iterations", type=int, default=256, help="simulations per search (default 256)")
    parser.add_argument("--games", nargs="+", choices=[c[0] for c in CONFIGS], help="the games (default: all three)")
    speed_records.add_record_options(parser)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.iterations < 2:
        parser.error("--rounds must be at least 1 and --iterations at least 2")
    record, source = speed_records.recorded(args, lambda: measure_all(args, argv))
    out = args.out or default_out("ismcts_speed")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(report(record, source)) + "\n")
    print(f"written to {out}", file=sys.stderr)


def measure_all(args: argparse.Namespace, argv: list[str]) -> dict:
    """Every game's row in a run's record (``benchmarks.core.speed_records``), the reference checked out for the
    run (or ``--reference-dir``'s)."""
    from benchmarks.core import speed_records

    run = speed_records.SpeedRun("benchmarks.ismcts_speed", argv)
    about = {"reference": args.reference, "rounds": args.rounds, "iterations": args.iterations}
    configs = [c for c in CONFIGS if args.games is None or c[0] in args.games]
    with tempfile.TemporaryDirectory(prefix="ismcts-speed-") as scratch:
        reference = args.reference_dir or reference_checkout(args.reference, Path(scratch))
        new, old = Checkout(ROOT), Checkout(reference)
        try:
            rows = []
            for name, config, label in configs:
                rows.append({"label": label, **measure(new, old, name, config, args.rounds, args.iterations)})
                print(rows[-1], flush=True)
            return run.finish(rows, **about)
        finally:
            new.close()
            old.close()
            if args.reference_dir is None:
                remove_checkout(reference)


def report(record: dict, source: Path) -> list[str]:
    """The page: one row per game, the reference's CPU per move against this checkout's."""
    from benchmarks.core import speed_records
    from benchmarks.search_speed import POSITIONS, span

    reference = record["reference"]
    about = (
        f"{POSITIONS} positions per game from heuristic self-play; plain ISMCTS with its game's defaults, "
        f"{record['iterations']} simulations a move, seed = position; {record['rounds']} rounds of alternating "
        f"bursts. Ratio: the reference's ({reference}) CPU seconds / this checkout's in the same round (median, "
        "min-max)."
    )
    header = (
        f"| game | {reference} ms/move | this checkout ms/move | speed-up | range | moves equal |\n"
        "|---|---:|---:|---:|---|---|"
    )
    table = [
        f"| {r['label']} | {r['old_ms']:.1f} | {r['new_ms']:.1f} | **{r['ratio']:.2f}** | {span(r, 2)} | "
        f"{'yes' if r['equal'] else 'NO'} |"
        for r in record["rows"]
    ]
    title = "CPU per move of plain ISMCTS: this checkout against a reference commit"
    return speed_records.report_lines(record, source, title, about, [header, *table])


if __name__ == "__main__":
    main()
