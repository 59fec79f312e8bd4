"""Where a record comes from: the commit taken when the run starts, whether the checkout was clean, the
versions of Python, numpy and torch, and the CPU. A v2 run header holds them (``provenance``), so a figure
can be traced to the code and the machine that made it; a run from a dirty checkout is marked, and the
reports and the leaderboard refuse it (``--allow-dirty`` to look at one anyway, never to publish)."""

from __future__ import annotations

import hashlib
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def checkout(own: Path | None = None) -> dict[str, Any]:
    """The commit (None outside a git checkout) and whether the checkout differs from it: tracked changes or
    files git does not ignore; a dirty checkout's ``diff`` is the SHA-256 of its ``git status`` and diff.

    ``own``: the run's own record while it is played (a resumable study appends to it a deal at a time): it is
    the run's output, not a change to the code, so its untracked file does not make the checkout dirty."""
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": True, "diff": None}
    own_line = own_status_line(own) if own is not None else None  # None: nothing to leave out
    status = "".join(line for line in (_git("status", "--porcelain") or "").splitlines(True) if line != own_line)
    diff = (_git("diff", "HEAD") or "") if status else ""
    digest = hashlib.sha256((status + diff).encode()).hexdigest() if status else None
    return {"commit": commit.strip(), "dirty": bool(status), "diff": digest}


def own_status_line(own: Path) -> str | None:
    """The line ``git status --porcelain`` gives the untracked record ``own``; None outside the checkout."""
    resolved = Path(own).resolve()
    return f"?? {resolved.relative_to(ROOT).as_posix()}\n" if resolved.is_relative_to(ROOT) else None


def dirty_by_own_record_only(origin: dict[str, Any], source: Path) -> bool:
    """Whether a run marked dirty was dirty only through its own record, untracked while it was played: runs made
    before :func:`checkout` left that file out are told by their ``diff``, the digest of exactly that status.
    ``source``: the record file (``.jsonl`` or, committed, ``.jsonl.gz``)."""
    played = Path(source).with_suffix("") if Path(source).suffix == ".gz" else Path(source)
    line = own_status_line(played)  # None: a record outside the checkout was never its untracked file
    return (
        line is not None
        and bool(origin.get("dirty"))
        and origin.get("diff") == hashlib.sha256(line.encode()).hexdigest()
    )


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what the platform says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def provenance(own: Path | None = None) -> dict[str, Any]:
    """The provenance block of a run header (torch's version read from its metadata, without importing it);
    ``own``: the run's record while it is played (:func:`checkout`)."""
    return checkout(own) | {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": _version("torch"),
        "cpu": cpu_model(),
        "platform": platform.platform(),
    }
