"""The frozen anchors' hashes against the committed table (:mod:`benchmarks.core.anchors` computes them).

python -m benchmarks.anchors            # check: exit 1 naming each anchor or engine whose hash changed
python -m benchmarks.anchors --write    # write benchmarks/schema/anchors.json (with a new protocol version)
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks.core.anchors import ROOT, TABLE, changed, table
from benchmarks.core.protocol import PROTOCOL


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.anchors", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {TABLE.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    current = table()
    if args.write:
        TABLE.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
        print(f"wrote {TABLE.relative_to(ROOT)} for {PROTOCOL}")
        return 0
    committed = json.loads(TABLE.read_text())
    differ = changed(current, committed)
    if differ:
        print(f"changed since {committed['protocol']}: {', '.join(differ)}")
        return 1
    print(f"every anchor and engine is the one of {committed['protocol']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
