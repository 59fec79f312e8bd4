"""Reports of the luck study: ``luck.md`` with its plot, and ``duplicate.md`` (what duplicate deals buy)."""

from __future__ import annotations

import math
from pathlib import Path

#: the number of games at which the two designs' interval widths are compared in duplicate.md
COMPARE_AT = 100


def _num(x: float, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if math.isinf(x):
        return "∞"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def _ci(stats, name: str, digits: int = 2) -> str:
    low, high = stats.intervals.get(name, (math.nan, math.nan))
    return f"[{_num(low, digits)}, {_num(high, digits)}]"


def _pair(stats) -> str:
    return f"{stats.data.strong} > {stats.data.weak}"


def luck_markdown(all_stats, plan, notes, command: str, elapsed: float, processes: int) -> str:
    s = plan.settings
    lines = [
        "# Luck versus skill",
        "",
        f"Regenerate: `{command}`",
        "",
        f"Settings: {s['deals']} deals per pair ({s['ismcts_deals']} with ISMCTS at {s['ismcts_iterations']} "
        f"iterations a move), every deal played in every rotation of the table and replayed {s['replays']} times with "
        f"fresh agent seeds; other seats: {s['filler']}; seed {s['seed']}. "
        f"Took {elapsed / 60:.1f} min on {processes} processes (the only line that changes between runs).",
        "",
        "Per game: d = +1 if the strong agent finished ahead of the weak one, -1 behind, 0 tie (with more than two "
        "players the pair sits with filler agents; 'ahead' is their head-to-head order). Columns:",
        "",
        "- **d**: the mean win-rate difference (the skill gap), with its 95% bootstrap interval over deals;",
        "- **outright wins**: share of games won by the strong / the weak agent;",
        "- **upset**: how often the weak agent finished ahead of the strong one;",
        "- **deal share**: the share of var(d) that comes from the deal (random-effects ANOVA of the replays of "
        "each deal, per seating): 1 = the deal decides, 0 = the agents' own chance does;",
        "- **N\\***: games after which skill outweighs luck, var(d) / mean(d)²: over N games the mean result is "
        "skill + luck with E[mean²] = skill² + var(d)/N (var(perf) = var(skill) + var(luck)); with a fresh deal "
        "each game, and with duplicate deals.",
        "",
        "| game | pair | games | d | outright wins | upset | deal share | N* independent | N* duplicate |",
        "|---|---|---:|---|---|---|---|---:|---:|",
    ]
    for st in all_stats:
        lines.append(
            f"| {st.data.config} | {_pair(st)} | {st.data.d.size} | {st.mean:+.2f} {_ci(st, 'mean')} "
            f"| {st.data.strong_wins:.2f} / {st.data.weak_wins:.2f} | {st.upset:.2f} {_ci(st, 'upset')} "
            f"| {_num(st.share)} {_ci(st, 'share')} | {_num(st.n_independent, 1)} {_ci(st, 'n_independent', 1)} "
            f"| {_num(st.n_duplicate, 1)} {_ci(st, 'n_duplicate', 1)} |"
        )
    if notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    lines += [
        "",
        "What duplicate deals buy (the variance-reduction factor of each pair): see [duplicate.md](duplicate.md).",
        "",
        "![luck versus skill](luck.png)",
        "",
    ]
    return "\n".join(lines)


def duplicate_markdown(all_stats, command: str) -> str:
    lines = [
        "# What duplicate deals buy",
        "",
        f"From the games of the luck study: `{command}`.",
        "",
        "For two agents, the confidence interval of their win-rate difference d after the same number of games, "
        "with independent deals (a fresh deal every game, the seats balanced) and with duplicate deals (every deal "
        "played in every rotation of the table). Both variances come from the same games: the per-seating "
        "variance across deals, and the variance of a deal's mean times the number of seatings. The factor is "
        "their ratio: how many times more games independent deals need for the same interval.",
        "",
        f"| game | pair | games | var(d)/game independent | var(d)/game duplicate | factor (95% CI) "
        f"| ± after {COMPARE_AT} games, independent | duplicate |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for st in all_stats:
        lines.append(
            f"| {st.data.config} | {_pair(st)} | {st.data.d.size} | {st.var_independent:.3f} | {st.var_duplicate:.3f} "
            f"| {_num(st.factor)} {_ci(st, 'factor')} | {1.96 * math.sqrt(st.var_independent / COMPARE_AT):.3f} "
            f"| {1.96 * math.sqrt(st.var_duplicate / COMPARE_AT):.3f} |"
        )
    lines += [
        "",
        "A factor above 1 means duplicate deals pay: the luck of the deal is cancelled between the seats. It "
        "is largest where the deal decides most (see luck.md's deal share) and the agents play the deal "
        "similarly. The tournament reports (`tournament_*.md`) give the same factor for each pairing they play.",
        "",
    ]
    return "\n".join(lines)


def plot(all_stats, path: Path) -> None:
    """Four panels, one group of bars per game and one bar per pair: deal share, upsets, N*, factor."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    configs = list(dict.fromkeys(st.data.config for st in all_stats))
    pairs = list(dict.fromkeys(_pair(st) for st in all_stats))
    width = 0.8 / max(1, len(pairs))
    fig, axes = plt.subplots(2, 2, figsize=(13, 8))
    panels = [
        (axes[0, 0], "share", "deal share of var(d)", False),
        (axes[0, 1], "upset", "upset rate (weak finishes ahead)", False),
        (axes[1, 0], "n_independent", "games until skill outweighs luck (N*, fresh deals)", True),
        (axes[1, 1], "factor", "variance-reduction factor of duplicate deals", True),
    ]
    for ax, name, title, log in panels:
        for k, pair in enumerate(pairs):
            xs, ys, lows, highs = [], [], [], []
            for c, config in enumerate(configs):
                st = next((s for s in all_stats if s.data.config == config and _pair(s) == pair), None)
                if st is None:
                    continue
                value = getattr(st, name)
                if not np.isfinite(value):
                    continue
                low, high = st.intervals.get(name, (value, value))
                low = value if not np.isfinite(low) else low
                high = value if not np.isfinite(high) else high
                xs.append(c + (k - (len(pairs) - 1) / 2) * width)
                ys.append(value)
                lows.append(max(0.0, value - low))
                highs.append(max(0.0, high - value))
            if xs:
                ax.bar(xs, ys, width, yerr=[lows, highs], capsize=3, label=pair)
        ax.set_xticks(range(len(configs)), configs)
        ax.set_title(title)
        if log:
            ax.set_yscale("log")
        ax.grid(axis="y", alpha=0.3)
    axes[0, 1].axhline(0.5, color="grey", lw=0.8, ls="--")
    axes[1, 1].axhline(1.0, color="grey", lw=0.8, ls="--")
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def write(all_stats, plan, notes, command: str, out: str, elapsed: float, processes: int) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "luck.md").write_text(luck_markdown(all_stats, plan, notes, command, elapsed, processes))
    (folder / "duplicate.md").write_text(duplicate_markdown(all_stats, command))
    plot(all_stats, folder / "luck.png")
