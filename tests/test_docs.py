"""The documented commands run as written: every fenced shell and Python block marked runnable.

The convention (also in ``docs/runnable_blocks.md``): in README.md, agents/README.md and docs/*.md, an
HTML comment on the line right before a fence marks the block runnable; rendered, the page shows nothing
of it.

- ``<!-- runnable -->``: the block runs exactly as written;
- ``<!-- runnable: OLD => NEW; OLD2 => NEW2 -->``: its short form, the block with each OLD replaced by
  NEW (fewer games, a shipped model for a file that a long run would make). Every OLD must be in the block,
  so that a short form cannot drift from the command it shortens.

Blocks run in a copy of the checkout in a temporary directory (nothing of the repository is written), from
its root, with ``python`` and ``.venv/bin/python`` this interpreter. A ``bash`` block runs in one shell
(``set -e``), every command reading ``q`` lines on its standard input (the terminal game gives up at
once); a ``python`` block runs as a script. Blocks left unmarked are those expensive by nature (training
runs, servers, a Ray cluster) or those other tests run (the integration recipes, the RLlib recipe).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "agents/README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
#: What the checkout copy holds: what the documented commands read.
COPIED = [
    *["agents", "benchmarks", "cli", "envs", "parallel", "research", "training", "web", "docs"],
    *["train.py", "README.md", "pyproject.toml", "Makefile"],
]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
MARKER = re.compile(r"<!--\s*runnable(?::(.*?))?\s*-->\s*$")
#: Fewer runnable blocks than this means the markers were lost, not that the docs got shorter.
AT_LEAST = 8


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str  # "bash" or "python"
    code: str
    runnable: bool
    substitutions: tuple[tuple[str, str], ...]

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"

    def short_form(self) -> str:
        code = self.code
        for old, new in self.substitutions:
            assert old in code, f"{self.name}: the short form replaces {old!r}, which the block no longer holds"
            code = code.replace(old, new)
        return code


def blocks() -> list[Block]:
    """Every fenced shell or Python block of the pages, marked runnable or not."""
    found = []
    for page in PAGES:
        text = (ROOT / page).read_text()
        for fence in FENCE.finditer(text):
            language = {"bash": "bash", "sh": "bash", "shell": "bash", "python": "python"}.get(fence.group(1))
            before = text[: fence.start()].rstrip("\n").rpartition("\n")[2]
            marker = MARKER.search(before)
            if language is None:
                assert not marker, f"{page}: a runnable marker before a {fence.group(1) or 'plain'} block"
                continue
            pairs = []
            for pair in (marker.group(1) or "").split(";") if marker else []:
                if pair.strip():
                    old, arrow, new = pair.partition("=>")
                    assert arrow and old.strip(), f"{page}: a short form is OLD => NEW, got {pair!r}"
                    pairs.append((old.strip(), new.strip()))
            line = text.count("\n", 0, fence.start()) + 1
            found.append(Block(page, line, language, fence.group(2), marker is not None, tuple(pairs)))
    return found


BLOCKS = blocks()
RUNNABLE = [b for b in BLOCKS if b.runnable]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the checkout, where ``.venv`` is this interpreter's environment."""
    copy = tmp_path_factory.mktemp("checkout")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "runs"))
        else:
            shutil.copy2(source, copy / name)
    (copy / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    return copy


def test_the_runnable_blocks_are_counted():
    skipped = [b.name for b in BLOCKS if not b.runnable]
    print(
        f"\ndocs: {len(BLOCKS)} shell and Python blocks; {len(RUNNABLE)} runnable (each a test of its own), "
        f"{len(skipped)} not marked: {', '.join(skipped)}"
    )
    assert len(RUNNABLE) >= AT_LEAST, f"only {len(RUNNABLE)} runnable blocks: were the markers lost?"
    assert {b.page for b in RUNNABLE} >= {"README.md", "agents/README.md", "docs/training.md"}


@pytest.mark.slow
@pytest.mark.parametrize("block", RUNNABLE, ids=[b.name for b in RUNNABLE])
def test_a_runnable_block_runs_as_written(block, checkout):
    env = {**os.environ, "PYTHONPATH": str(checkout), "MPLBACKEND": "Agg"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    if block.language == "python":
        command, script = [sys.executable, "-"], block.short_form()
    else:  # every command reads q lines (the terminal game gives up at once), from one endless stream
        command, script = ["bash", "-c", "set -e\nexec < <(yes q)\n" + block.short_form()], None
    done = subprocess.run(command, input=script, cwd=checkout, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{block.name} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
