"""Reports of the luck study: ``luck.md`` with its plot, and ``duplicate.md`` (what duplicate deals buy)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

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


def _settings(plan, elapsed: float, ran_on: str) -> str:
    s = plan.settings
    pairs = "" if s.get("pairs") is None else "pairs " + " ".join(",".join(p) for p in s["pairs"]) + "; "
    return (
        f"{pairs}{s['deals']} deals per pair ({s['ismcts_deals']} with ISMCTS at {s['ismcts_iterations']} "
        f"iterations a move), replayed {s['replays']} times; other seats: {s['filler']}; seed {s['seed']}; "
        f"took {elapsed / 60:.1f} min on the {ran_on} (the only figures that change between runs)"
    )


def luck_row(st) -> str:
    return (
        f"| {st.data.config} | {_pair(st)} | {st.data.d.size} | {st.mean:+.2f} {_ci(st, 'mean')} "
        f"| {st.data.strong_wins:.2f} / {st.data.weak_wins:.2f} | {st.upset:.2f} {_ci(st, 'upset')} "
        f"| {_num(st.share)} {_ci(st, 'share')} | {_num(st.n_independent, 1)} {_ci(st, 'n_independent', 1)} "
        f"| {_num(st.n_duplicate, 1)} {_ci(st, 'n_duplicate', 1)} |"
    )


def duplicate_row(st) -> str:
    return (
        f"| {st.data.config} | {_pair(st)} | {st.data.d.size} | {st.var_independent:.3f} | {st.var_duplicate:.3f} "
        f"| {_num(st.factor)} {_ci(st, 'factor')} | {1.96 * math.sqrt(st.var_independent / COMPARE_AT):.3f} "
        f"| {1.96 * math.sqrt(st.var_duplicate / COMPARE_AT):.3f} |"
    )


@dataclass
class Report:
    """What the two markdown files hold, by configuration, so that a run can replace its own part.

    ``parts``: (command, configurations, settings) of each run that made rows.
    """

    parts: list[tuple[str, list[str], str]] = field(default_factory=list)
    luck_rows: list[str] = field(default_factory=list)
    duplicate_rows: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def merge(self, new: Report, configs: list[str]) -> Report:
        """This report with ``configs``' rows, notes and commands replaced by ``new``'s."""

        def mine(line: str) -> bool:
            return _config_of(line) not in configs

        # a part keeps only the configurations whose rows it still gave
        parts = [
            (command, kept, settings)
            for command, done, settings in self.parts
            if (kept := [c for c in done if c not in configs])
        ]
        return Report(
            parts + new.parts,
            _by_config([r for r in self.luck_rows if mine(r)] + new.luck_rows),
            _by_config([r for r in self.duplicate_rows if mine(r)] + new.duplicate_rows),
            _by_config([n for n in self.notes if mine(n)] + new.notes),
        )


def _config_of(line: str) -> str:
    """The configuration a table row (``| wapi3 | ...``) or a note (``- wapi3: ...``) is about."""
    return re.split(r"[ |:]+", line.lstrip("|- "), maxsplit=1)[0]


def _by_config(lines: list[str]) -> list[str]:
    """Lines in the order of the configurations (stable within one)."""
    from benchmarks.luck import CONFIGS_ORDER as order

    return sorted(lines, key=lambda line: order.index(_config_of(line)) if _config_of(line) in order else len(order))


PART = re.compile(r"^- `(?P<command>[^`]+)`: configs (?P<configs>[\w ]+?); (?P<settings>.*)$")


def read(folder: Path) -> Report:
    """The parts, rows and notes of the reports in ``folder`` (empty if there are none).

    Also reads the single-command reports written before the study could be
    run in parts (one ``Regenerate:`` line and one ``Settings:`` line).
    """
    from benchmarks.luck import CONFIGS

    report = Report()
    luck, duplicate = folder / "luck.md", folder / "duplicate.md"
    if not luck.exists():
        return report
    old_command = old_settings = None
    for line in luck.read_text().splitlines():
        if match := PART.match(line):
            report.parts.append((match["command"], match["configs"].split(), match["settings"]))
        elif line.startswith("Regenerate: `"):
            old_command = line.split("`")[1]
        elif line.startswith("Settings: "):
            old_settings = line[len("Settings: ") :].rstrip(".")
        elif line.startswith("| ") and _config_of(line) in CONFIGS:
            report.luck_rows.append(line)
        elif line.startswith("- ") and _config_of(line) in CONFIGS:
            report.notes.append(line[2:])
    if old_command:
        configs = list(dict.fromkeys(_config_of(r) for r in report.luck_rows))
        report.parts.append((old_command, configs, old_settings or ""))
    if duplicate.exists():
        report.duplicate_rows = [
            line for line in duplicate.read_text().splitlines() if line.startswith("| ") and _config_of(line) in CONFIGS
        ]
    return report


def luck_markdown(report: Report) -> str:
    lines = [
        "# Luck versus skill",
        "",
        "Regenerate, one command per part (a run with `--merge` replaces the rows of its configurations and keeps "
        "the others; the parts together give this report). A row depends only on its configuration's settings (every "
        "deal and agent seed is fixed by the run seed and the deal number), so a part's configurations may be rerun "
        "alone with `--configs ... --merge`, whatever else its command ran:",
        "",
    ]
    lines += [f"- `{command}`: configs {' '.join(configs)}; {settings}" for command, configs, settings in report.parts]
    lines += [
        "",
        "Every deal is played in every rotation of the table and replayed with fresh agent seeds. Per game: d = +1 "
        "if the strong agent finished ahead of the weak one, -1 behind, 0 tie (with more than two players the pair "
        "sits with filler agents; 'ahead' is their head-to-head order). `NAME~EPS` is an ε-greedy agent: NAME's "
        "move with probability 1 - EPS, a uniformly random legal move otherwise (`agents/epsilon_greedy.py`); on "
        "Samurai, where the heuristic beats random in every game, these rungs give pairs with real upsets. Columns:",
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
    lines += report.luck_rows
    if report.notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in report.notes]
    lines += [
        "",
        "What duplicate deals buy (the variance-reduction factor of each pair): see [duplicate.md](duplicate.md).",
        "",
        "![luck versus skill](luck.png)",
        "",
    ]
    return "\n".join(lines)


def duplicate_markdown(report: Report) -> str:
    lines = [
        "# What duplicate deals buy",
        "",
        "From the games of the luck study; regenerate with the commands listed in [luck.md](luck.md):",
        "",
    ]
    lines += [f"- `{command}`" for command, _, _ in report.parts]
    lines += [
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
    lines += report.duplicate_rows
    lines += [
        "",
        "A factor above 1 means duplicate deals pay: the luck of the deal is cancelled between the seats. It "
        "is largest where the deal decides most (see luck.md's deal share) and the agents play the deal "
        "similarly. The tournament reports (`tournament_*.md`) give the same factor for each pairing they play.",
        "",
    ]
    return "\n".join(lines)


def _value(text: str) -> float:
    """A number as ``_num`` wrote it: ``-`` (undefined), ``∞`` or digits with thousands commas."""
    text = text.strip().replace(",", "")
    return {"-": math.nan, "∞": math.inf}[text] if text in ("-", "∞") else float(text)


def _cell(text: str) -> tuple[float, tuple[float, float]]:
    """``"0.05 [0.00, 0.25]"`` -> (0.05, (0.0, 0.25))."""
    value, _, interval = text.strip().partition(" [")
    low, _, high = interval.rstrip("]").partition(", ")
    return _value(value), (_value(low), _value(high))


def plotted(report: Report) -> list[SimpleNamespace]:
    """The figures the plot shows, read back from the tables (so a merged report's plot covers every part)."""
    factors = {}
    for row in report.duplicate_rows:
        cells = row.strip("| ").split(" | ")
        factors[(cells[0], cells[1])] = _cell(cells[5])
    out = []
    for row in report.luck_rows:
        cells = row.strip("| ").split(" | ")
        strong, _, weak = cells[1].partition(" > ")
        st = SimpleNamespace(data=SimpleNamespace(config=cells[0], strong=strong, weak=weak), intervals={})
        for name, k in (("upset", 5), ("share", 6), ("n_independent", 7)):
            setattr(st, name, _cell(cells[k])[0])
            st.intervals[name] = _cell(cells[k])[1]
        st.factor, st.intervals["factor"] = factors.get((cells[0], cells[1]), (math.nan, (math.nan, math.nan)))
        out.append(st)
    return out


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


def write(all_stats, plan, notes, command: str, out: str, elapsed: float, ran_on: str, merge: bool = False) -> None:
    """Write luck.md, duplicate.md and luck.png; with ``merge``, the other configurations' rows already
    in ``out`` are kept, so that each game can be regenerated on its own."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    configs = plan.settings["configs"]
    report = Report(
        [(command, list(configs), _settings(plan, elapsed, ran_on))],
        [luck_row(st) for st in all_stats],
        [duplicate_row(st) for st in all_stats],
        list(notes),
    )
    if merge:
        report = read(folder).merge(report, configs)
    (folder / "luck.md").write_text(luck_markdown(report))
    (folder / "duplicate.md").write_text(duplicate_markdown(report))
    plot(plotted(report), folder / "luck.png")
