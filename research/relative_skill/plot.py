"""The relative-skill report's figure, ``research/results/relative_skill.png``: per configuration, relative
skill with its interval at each budget, and the win share's variance split into luck, skill and their interplay.

Drawn from :class:`Panel` rows that the report makes with the estimators of its tables, so the figure shows the
tables' numbers; the bars are the point estimates (their intervals are in the report).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the backend that needs no display)

from research.core import measures as lm  # noqa: E402

#: The variance groups drawn, bottom to top, and their colours.
BARS = (("luck", "#4c72b0"), ("skill", "#55a868"), ("interaction", "#c44e52"), ("replay", "#8c8c8c"))


@dataclass(frozen=True)
class Panel:
    """One configuration's column: RS in win share at each budget (the clairvoyant as reference, and the seer where
    a seer record exists), and the variance groups' shares by their first word (``luck``, ``skill``, ...)."""

    config: str
    relative_skill: list[tuple[int, lm.Estimate]]
    shares: dict[str, float]
    seer: list[tuple[int, lm.Estimate]] = field(default_factory=list)


def plot(panels: list[Panel], path: Path) -> None:
    """RS at each budget on the left, the variance groups stacked on the right, a column per configuration."""
    names = [panel.config for panel in panels]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for k, panel in enumerate(panels):
        points = [(b, rs, "o") for b, rs in panel.relative_skill] + [(b, rs, "^") for b, rs in panel.seer]
        for j, (budget, rs, marker) in enumerate(points):
            x = k + (j - (len(points) - 1) / 2) * 0.18
            left.errorbar(x, rs.value, yerr=[[rs.value - rs.low], [rs.high - rs.value]], fmt=marker, capsize=3,
                          color="#4c72b0" if budget == min(b for b, _, _ in points) else "#dd8452")  # fmt: skip
            left.annotate(str(budget), (x, rs.high), textcoords="offset points", xytext=(0, 3), ha="center", size=7)
    left.axhline(1.0, color="grey", lw=0.5)
    left.plot([], [], "ko", label="the clairvoyant as reference")
    left.plot([], [], "k^", label="the seer as reference")
    left.legend(loc="upper right", fontsize=8)
    left.set(xticks=range(len(names)), ylabel="relative skill RS (win share)",
             title="RS = LE / (LE + RE), 95% interval, at each budget (iterations)")  # fmt: skip
    left.set_xticklabels(names, rotation=30)
    bottom = [0.0] * len(panels)
    for group, colour in BARS:
        heights = [panel.shares.get(group, 0.0) for panel in panels]
        right.bar(range(len(names)), heights, bottom=bottom, color=colour, label=group)
        bottom = [b + h for b, h in zip(bottom, heights)]
    right.set(xticks=range(len(names)), ylabel="share of the variance of the win share", ylim=(0, 1),
              title="Variance components over the honest ladder")  # fmt: skip
    right.set_xticklabels(names, rotation=30)
    right.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
