"""Pool records into one: their runs and games concatenated, refused when they do not pool.

    python -m benchmarks.pool_records runs/a.jsonl.gz runs/b.jsonl.gz --out runs/pooled.jsonl.gz
    python -m benchmarks.pool_records runs/a.jsonl runs/again.jsonl --leave-out 8885ab84400a --out runs/p.jsonl.gz

``--leave-out`` drops runs with their games: a run played again from a clean checkout, whose games replace
those of a run that a report would refuse (one made from a dirty checkout), so that the pool holds each game once.

What refuses a pool (two protocol versions, one label for two agents, engines of different hashes, a game
twice) is :mod:`benchmarks.core.records`'.
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.core.records import Record, read, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pool_records", description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="record files (.jsonl or .jsonl.gz)")
    parser.add_argument("--out", required=True, help="the pooled record (must not exist)")
    parser.add_argument("--leave-out", nargs="+", default=[], metavar="RUN", help="runs to leave out, with their games")
    args = parser.parse_args(argv)
    try:
        record = pooled(args.records, set(args.leave_out))
        print(f"pooled {len(record.runs)} run(s), {len(record.games)} games into {write(record, args.out)}")
    except (OSError, ValueError) as error:
        parser.error(str(error))
    return 0


def pooled(paths: list[str], leave_out: set[str]) -> Record:
    """The records of ``paths`` pooled without the runs of ``leave_out`` (each must be in one of them)."""
    record, found = Record(), set()
    for path in paths:  # one file at a time: read together, a left-out run's games would refuse the pool as twice
        part = read([path])
        ids = {run["run"] for run in part.runs}
        found |= ids
        record.extend(part.of_runs(ids - leave_out))
    if leave_out - found:
        raise ValueError(f"--leave-out: no run {sorted(leave_out - found)} in the records")
    record.check()
    return record


if __name__ == "__main__":
    sys.exit(main())
