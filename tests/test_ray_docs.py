"""docs/ray.md's RLlib recipe runs as written (one PPO iteration of pure self-play on a local Ray)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def recipe() -> str:
    text = (ROOT / "docs" / "ray.md").read_text()
    section = text[text.index("## The RLlib recipe") :]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.slow
def test_the_rllib_recipe_trains_one_iteration():
    done = subprocess.run([sys.executable, "-c", recipe()], cwd=ROOT, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stderr[-3000:]
    steps = int(float(re.search(r"([\d.]+) steps sampled", done.stdout).group(1)))
    assert steps >= 1000, "one train batch of the wrapped PettingZoo env was sampled"
