"""The engines' and anchors' identities against the committed table, and their golden games and decisions
replayed (:mod:`benchmarks.core.anchors`, :mod:`benchmarks.core.golden`).

python -m benchmarks.anchors            # quick: identities unchanged, golden games replayed, cheap witnesses asked
python -m benchmarks.anchors --check    # full: every witness asked at every golden position (about 20 s)
python -m benchmarks.anchors --write    # write the table; under a new protocol version, re-record first only what
                                        # no longer replays (refused under the committed table's version when
                                        # anything plays otherwise)
"""

from __future__ import annotations

import argparse
import json
import sys

import envs
from benchmarks.core import anchors, golden
from benchmarks.core.anchors import TABLE, changed, table
from benchmarks.core.protocol import PROTOCOL

#: Witnesses that cost a second or more in all: the quick check leaves them to ``--check`` (and the slow tests).
SLOW_WITNESSES = ("ismcts-100", "ismcts-1000", "best-1000")


def problems(full: bool) -> list[str]:
    """Every golden game and decision (of the cheap witnesses unless ``full``) that this checkout plays otherwise."""
    labels = [label for label in golden.witnesses() if full or label not in SLOW_WITNESSES]
    found = [p for game in envs.GAMES for p in anchors.engine_problems(game)]
    return found + [p for label in labels for game in envs.GAMES for p in anchors.witness_problems(label, game)]


def rerecord() -> list[str]:
    """Record afresh the golden games of each game whose engines play them otherwise (and its decisions), and
    the decisions of each witness that chooses otherwise; keep every entry that replays. What was re-recorded."""
    games, decisions = (json.loads(json.dumps(part)) for part in anchors.goldens())
    redone = []
    for game in envs.GAMES:
        fresh = bool(anchors.engine_problems(game))
        if fresh:
            games[game] = golden.record_games(game)
            redone.append(f"engine/{game}")
        for label in golden.witnesses():
            if fresh or anchors.witness_problems(label, game):
                decisions.setdefault(label, {})[game] = golden.record_decisions(label, game, games[game])
                redone.append(f"{label}/{game}")
    if redone:
        golden.save(golden.GAMES_FILE, games)
        golden.save(golden.DECISIONS_FILE, decisions)
        for cached in (anchors.goldens, anchors.engine_problems, anchors.witness_problems):
            cached.cache_clear()
    return redone


def write(committed: dict) -> int:
    """``--write``: under the committed table's protocol version, only a table whose every golden game and decision
    replays, with identities unchanged; under a new version, whatever no longer replays is re-recorded first."""
    if committed["protocol"] == PROTOCOL:  # else the records of two behaviours would pool as one
        differ = problems(full=True) + changed(table(), committed)
        if differ:
            print(f"refused: {'; '.join(differ)} under {PROTOCOL}; bump the protocol's version first")
            return 1
    else:
        redone = rerecord()
        print(f"re-recorded: {', '.join(redone)}" if redone else "every golden game and decision replays")
    legacy = {anchors.LEGACY: committed[anchors.LEGACY]} if committed["protocol"] == PROTOCOL else {}
    TABLE.write_text(json.dumps(table() | legacy, indent=1, sort_keys=True) + "\n")
    print(f"wrote {TABLE} for {PROTOCOL}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.anchors", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="ask every witness at every golden position")
    parser.add_argument("--write", action="store_true", help="re-record what no longer replays; write the table")
    args = parser.parse_args(argv)
    committed = json.loads(TABLE.read_text())
    if args.write:
        return write(committed)
    found = problems(args.check)
    found += [f"{name}: identity changed" for name in changed(table(), committed)]
    if found:
        print("\n".join([f"differs from {committed['protocol']}:", *found]))
        return 1
    print(f"every engine and anchor plays as in {committed['protocol']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
