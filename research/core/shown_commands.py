"""A recorded command line as a report prints it: one that runs as written from a clean clone.

A record keeps the command exactly as it was typed on the machine that played it, and some name files
that a clone does not have: a development machine's scratch folder (an absolute path outside the repository) or
the git-ignored ``runs/`` folder. A report prints each such command with those names replaced (the
record itself is never changed): an absolute path as ``FILE`` or ``FOLDER`` (where to write is the
reader's choice), and a ``--reuse`` of a record under ``runs/`` as the committed record that holds the
games it reused (every game of every run a report lists is in its committed records). :data:`NOTE` says
so in the report's header.
"""

from __future__ import annotations

import shlex
from pathlib import PurePosixPath

#: The header's sentence for a report whose commands :func:`shown` rewrote.
NOTE = (
    "Commands are shown as they run from a clean clone: a path outside the repository as FILE or FOLDER, "
    "and a `--reuse` of a scratch record (under the git-ignored `runs/`) as the committed record that "
    "holds the games it reused."
)
#: Where scratch records were written: git-ignored, so absent from a clone.
SCRATCH = ("runs/",)


def _placeholder(path: str) -> str:
    return "FILE" if PurePosixPath(path).suffix else "FOLDER"


def shown(command: str, record: str | None = None) -> str:
    """``command`` (a recorded shell line) with paths a clone lacks replaced; ``record``: the committed
    record that a scratch ``--reuse`` stands for (``FILE`` when not given)."""
    words = shlex.split(command)
    out = []
    for i, word in enumerate(words):
        if i and words[i - 1] == "--reuse" and word.startswith(SCRATCH):
            word = record or "FILE"
        elif word.startswith("/"):
            word = _placeholder(word)
        elif "=/" in word:  # --option=/absolute/path
            option, path = word.split("=", 1)
            word = f"{option}={_placeholder(path)}"
        out.append(word)
    return shlex.join(out)


def with_values(command: str, option: str, values: list[str]) -> str:
    """``command`` with the values that follow ``option`` replaced by ``values`` (``--configs a b``)."""
    words = shlex.split(command)
    if option not in words:
        return command
    start = words.index(option) + 1
    end = next((i for i in range(start, len(words)) if words[i].startswith("--")), len(words))
    return shlex.join(words[:start] + list(values) + words[end:])


def rewrites(commands: list[str], record: str | None = None) -> bool:
    """Whether :func:`shown` changes any of ``commands`` (so the report's header needs :data:`NOTE`)."""
    return any(shown(c, record) != c for c in commands)
