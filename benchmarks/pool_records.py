"""Pool records into one: their runs and games concatenated, refused when they do not pool.

    python -m benchmarks.pool_records runs/a.jsonl.gz runs/b.jsonl.gz --out runs/pooled.jsonl.gz

What refuses a pool (two protocol versions, one label for two agents, engines of different hashes, a game
twice) is :mod:`benchmarks.core.records`'.
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.core.records import read, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pool_records", description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="record files (.jsonl or .jsonl.gz)")
    parser.add_argument("--out", required=True, help="the pooled record (must not exist)")
    args = parser.parse_args(argv)
    try:
        record = read(args.records)
        print(f"pooled {len(record.runs)} run(s), {len(record.games)} games into {write(record, args.out)}")
    except (OSError, ValueError) as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
