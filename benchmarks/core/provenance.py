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


def checkout() -> dict[str, Any]:
    """The commit (None outside a git checkout) and whether the checkout differs from it: tracked changes or
    files git does not ignore; a dirty checkout's ``diff`` is the SHA-256 of its ``git status`` and diff."""
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": True, "diff": None}
    status = _git("status", "--porcelain") or ""
    diff = (_git("diff", "HEAD") or "") if status else ""
    digest = hashlib.sha256((status + diff).encode()).hexdigest() if status else None
    return {"commit": commit.strip(), "dirty": bool(status), "diff": digest}


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


def provenance() -> dict[str, Any]:
    """The provenance block of a run header (torch's version read from its metadata, without importing it)."""
    return checkout() | {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": _version("torch"),
        "cpu": cpu_model(),
        "platform": platform.platform(),
    }
