"""The tournament's markdown report and PNG plot (kept apart from the running of it).

Nothing in the report depends on timing, on the number of processes or on
the backend, except the line that says where it ran, so the same command and
seed write the same file (the same games on any backend).
"""

from __future__ import annotations

import math
from pathlib import Path

MAX_FAILURES_LISTED = 20


def _fmt(x: float, digits: int = 0) -> str:
    return "∞" if math.isinf(x) else f"{x:,.{digits}f}"


def markdown(summary, command: str, png_name: str, ran_on: str = "local backend") -> str:
    plan = summary.plan
    labels = [spec.label for spec in plan.agents]
    index = {label: i for i, label in enumerate(labels)}
    options = {spec.label: dict(spec.options) for spec in plan.agents if spec.options}
    per_table = plan.deals * len(plan.seatings)
    lines = [
        f"# Tournament: {plan.game_name} {plan.config or ''}".rstrip(),
        "",
        f"Command: `{command}`",
        "",
        f"- {plan.num_players} players; agents: {', '.join(labels)}" + (f" (options: {options})" if options else ""),
        f"- {len(plan.tables)} table(s) x {plan.deals} duplicate deals x {len(plan.seatings)} seatings "
        f"= {per_table} games per table, {len(summary.games)} games played, {len(summary.failures)} failed",
        f"- seed {plan.seed}; every table plays the same deals, each deal in every seating",
        f"- ran on the {ran_on}",
        "",
        "## Ratings",
        "",
        f"{summary.rating_kind}; 95% intervals.",
        "",
        "| rank | agent | rating | 95% interval | games | win share | mean score |",
        "|---:|---|---:|---|---:|---:|---:|",
    ]
    ranked = sorted(summary.ratings, key=lambda r: -r.value)
    for place, r in enumerate(ranked, 1):
        share = summary.win_share.get(r.name)
        score = summary.mean_score.get(r.name)
        lines.append(
            f"| {place} | {r.name} | {_fmt(r.value)} | [{_fmt(r.low)}, {_fmt(r.high)}] "
            f"| {r.games} | {'-' if share is None else f'{share:.3f}'} | {'-' if score is None else f'{score:.1f}'} |"
        )
    lines += [
        "",
        "## Cross-table",
        "",
        "Row agent's rate of finishing ahead of the column agent (ties count half)"
        + (": its win rate." if plan.num_players == 2 else ", over the games where both sat at the table."),
        "",
        "| | " + " | ".join(labels) + " |",
        "|---|" + "---:|" * len(labels),
    ]
    for a in labels:
        cells = []
        for b in labels:
            i, j = index[a], index[b]
            n = summary.played[i, j]
            cells.append("" if a == b else ("-" if n == 0 else f"{summary.wins[i, j] / n:.2f} ({n:.0f})"))
        lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
    lines += _duplicate_section(summary)
    lines += _failure_section(summary)
    lines += ["", f"![ratings and cross-table]({png_name})", ""]
    return "\n".join(lines)


def _duplicate_section(summary) -> list[str]:
    if not summary.duplicate:
        return []
    lines = [
        "",
        "## What the duplicate deals bought",
        "",
        "For each pair, the win-rate difference d (+1 ahead, -1 behind, 0 tie) and the half-width of its 95% "
        "interval after these games: with independent deals (a fresh deal each game, seats balanced) and with "
        "the duplicate deals played. The factor is the ratio of the variances: how many times more games "
        "independent deals need for the same interval.",
        "",
        "| pair | games | d | ± independent | ± duplicate | factor |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for (a, b), e in summary.duplicate.items():
        lines.append(
            f"| {a} vs {b} | {e.games} | {e.mean:+.3f} | {e.half_width(e.games, False):.3f} "
            f"| {e.half_width(e.games, True):.3f} | {_fmt(e.factor, 2)} |"
        )
    return lines


def _failure_section(summary) -> list[str]:
    if not summary.failures:
        return []
    by_agent: dict[str, int] = {}
    for f in summary.failures:
        by_agent[f.agent] = by_agent.get(f.agent, 0) + 1
    lines = [
        "",
        "## Failures",
        "",
        "Games that could not be finished; each failed deal is left out at its table (all its seatings, "
        "so the table stays balanced), the rest of the tournament counts. Replay one with "
        "`agents.play_game(game, agents, seed=GAME_SEED)` and the seats shown.",
        "",
        "Per agent: " + ", ".join(f"{agent} {count}" for agent, count in sorted(by_agent.items())),
        "",
        "| agent | game seed | seats | error |",
        "|---|---:|---|---|",
    ]
    for f in summary.failures[:MAX_FAILURES_LISTED]:
        message = f.message.replace("|", "\\|").replace("\n", " ")[:200]
        lines.append(f"| {f.agent} | {f.game_seed} | {', '.join(f.seats)} | {message} |")
    if len(summary.failures) > MAX_FAILURES_LISTED:
        lines.append(f"| ... | | | {len(summary.failures) - MAX_FAILURES_LISTED} more |")
    return lines


def plot(summary, path: Path) -> None:
    """Ratings with their intervals, and the cross-table as a heat map."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = [spec.label for spec in summary.plan.agents]
    ranked = sorted(summary.ratings, key=lambda r: r.value)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.5 * len(labels) + 2.5))
    y = np.arange(len(ranked))
    values = np.array([r.value for r in ranked])
    errors = np.array([[r.value - r.low for r in ranked], [r.high - r.value for r in ranked]])
    left.errorbar(values, y, xerr=errors, fmt="o", capsize=4)
    left.set_yticks(y, [r.name for r in ranked])
    left.set_xlabel("rating (95% interval)")
    left.set_title(f"{summary.plan.game_name}: ratings")
    left.grid(axis="x", alpha=0.3)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(summary.played > 0, summary.wins / np.maximum(summary.played, 1), np.nan)
    image = right.imshow(rate, vmin=0, vmax=1, cmap="RdYlGn")
    right.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    right.set_yticks(range(len(labels)), labels)
    for i in range(len(labels)):
        for j in range(len(labels)):
            if not np.isnan(rate[i, j]):
                right.text(j, i, f"{rate[i, j]:.2f}", ha="center", va="center", fontsize=9)
    right.set_title("row finishes ahead of column")
    fig.colorbar(image, ax=right, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
