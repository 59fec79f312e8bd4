"""The frozen anchors' hashes against the committed table (:mod:`benchmarks.core.anchors` computes them).

python -m benchmarks.anchors            # check: exit 1 naming each anchor or engine whose hash changed
python -m benchmarks.anchors --write    # write benchmarks/schema/anchors.json (refused when a hash changed
                                        # under the committed table's protocol version)
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks.core.anchors import TABLE, changed, table
from benchmarks.core.protocol import PROTOCOL


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.anchors", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the committed table of hashes (anchors.json)")
    args = parser.parse_args(argv)
    current, committed = table(), json.loads(TABLE.read_text())
    differ = changed(current, committed)
    if args.write:
        if differ and committed["protocol"] == PROTOCOL:  # else the records of two codes would pool as one
            print(f"refused: {', '.join(differ)} changed under {PROTOCOL}; bump the protocol's version first")
            return 1
        TABLE.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
        print(f"wrote {TABLE} for {PROTOCOL}")
        return 0
    if differ:
        print(f"changed since {committed['protocol']}: {', '.join(differ)}")
        return 1
    print(f"every anchor and engine is the one of {committed['protocol']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
