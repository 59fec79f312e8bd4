"""Reports of the luck study, made from its records only: ``luck.md`` with its plot, and ``duplicate.md``.

    python -m research.luck.report RECORD [RECORD...] --out FOLDER

A luck run (``python -m research.luck``) writes what it played as a record
(:mod:`benchmarks.core.records`, JSON Lines): the run header carries the study's
``settings``, the ``notes`` of the pairs it skipped, and the ``elapsed_s`` and
``ran_on`` the report quotes; each game line also carries ``study_config``
(``wapi3``), ``pair`` (the pair's position in that configuration's list),
``table`` (strong, weak) and ``replay``. The luck study plays through
:func:`benchmarks.core.matches.play_task`, which does not time moves, so its games
have no ``moves`` or ``cpu_us``.

Several records make one report, one part each: a configuration's rows come
from the latest run (by its start) that played it, so a part rerun alone
replaces its configurations and keeps the others'. The markdown files and the
plot are outputs only, a pure function of the records (nothing is read back
from them).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents import agent_kind
from benchmarks.core import records
from benchmarks.core.records import Record
from research.core.renamed import renamed
from research.core.shown_commands import NOTE, shown, with_values
from research.luck.records import pair_data

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


def _settings(s: dict, elapsed: float, ran_on: str) -> str:
    pairs = "" if s.get("pairs") is None else "pairs " + " ".join(",".join(p) for p in s["pairs"]) + "; "
    names = [s["filler"]] + [name for pair in s.get("pairs") or () for name in pair]
    ismcts = s.get("pairs") is None or "ismcts" in map(agent_kind, names)  # else the ISMCTS options played no part
    with_ismcts = f" ({s['ismcts_deals']} with ISMCTS at {s['ismcts_iterations']} iterations a move)" if ismcts else ""
    return (
        f"{pairs}{s['deals']} deals per pair{with_ismcts}, replayed {s['replays']} times; other seats: {s['filler']}; "
        f"seed {s['seed']}; "
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


def _config_of(note: str) -> str:
    """The configuration a note (``wapi3: ...``) is about."""
    return note.partition(":")[0]


@dataclass
class Part:
    """One run's share of the report: its command, the configurations it still gives, their statistics."""

    command: str
    configs: list[str]
    settings: str
    stats: list = field(default_factory=list)  # luck.PairStats, in the order of the configurations and pairs
    notes: list[str] = field(default_factory=list)


@dataclass
class Report:
    """The parts of a report (disjoint configurations) and the records it was made from."""

    parts: list[Part]
    sources: list[str] = field(default_factory=list)

    def _ordered(self, items: list, config_of) -> list:
        from research.luck.stats import CONFIGS_ORDER as order

        return sorted(items, key=lambda x: order.index(config_of(x)) if config_of(x) in order else len(order))

    @property
    def stats(self) -> list:
        return self._ordered([st for part in self.parts for st in part.stats], lambda st: st.data.config)

    @property
    def notes(self) -> list[str]:
        return self._ordered([note for part in self.parts for note in part.notes], _config_of)


def report_of(recs: Sequence[Record], sources: Sequence[str] = ()) -> Report:
    """The report of luck records: each configuration from the latest run (by its start) that played it."""
    from research.luck.stats import pair_stats

    runs = sorted(((run, rec) for rec in recs for run in rec.runs), key=lambda item: item[0]["started"])
    latest = {config: run["run"] for run, _ in runs for config in run["study"]["settings"]["configs"]}
    parts = []
    for run, rec in runs:
        study = run["study"]
        configs = [c for c in study["settings"]["configs"] if latest[c] == run["run"]]
        if not configs:
            continue
        games, failures = (
            [line for line in lines if line["run"] == run["run"] and line["study_config"] in configs]
            for lines in (rec.games, rec.failures)
        )
        data, failed = pair_data(games, failures)
        parts.append(
            Part(
                renamed(run["command"]),
                configs,
                _settings(study["settings"], study["elapsed_s"], study["ran_on"]),
                [pair_stats(d, seed=study["settings"]["seed"]) for d in data],
                [note for note in study["notes"] + failed if _config_of(note) in configs],
            )
        )
    return Report(parts, [str(s) for s in sources])


def _shown(part: Part) -> str:
    """A part's command as it runs from a clean clone and plays only the configurations it still gives: a
    configuration a later run replaced may no longer play what it played (a level's agent changes)."""
    return shown(with_values(part.command, "--configs", part.configs))


def _commands(report: Report, settings: bool) -> list[str]:
    """The parts' commands as a list (with ``settings``, each part's configurations and settings), then the
    note when a command is shown other than as typed."""
    lines = [
        f"- `{_shown(part)}`" + (f": configs {' '.join(part.configs)}; {part.settings}" if settings else "")
        for part in report.parts
    ]
    if all(_shown(part) == part.command for part in report.parts):
        return lines
    narrowed = "; a part's `--configs` lists only the configurations whose rows it gives"
    return lines + ["", NOTE[:-1] + narrowed + "."]


def luck_markdown(report: Report) -> str:
    lines = [
        "# Luck versus skill",
        "",
        "Generated from the records "
        + ", ".join(f"`{s}`" for s in report.sources)
        + " by `python -m research.luck.report RECORD... --out FOLDER`; never edited by hand. Each part's "
        "command played its record (`--records FOLDER` adds a run's record to that folder and remakes the report "
        "from every record there). A configuration's rows come from the latest run that played it, and depend "
        "only on its configuration's settings (every deal and agent seed is fixed by the run seed and the deal "
        "number), so a part's configurations may be rerun alone with `--configs ...`, whatever else its command ran:",
        "",
    ]
    lines += _commands(report, settings=True)
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
        "each deal, per seating): 1 = the deal decides, 0 = the agents' own chance does. A measure of this pair, "
        "not of the game: its denominator is the pair's own randomness (a deterministic pair scores 1), and skill "
        "that depends on the deal counts as luck (the game's measures: `research/results/relative_skill.md`);",
        "- **N\\***: games after which the strong agent's total leads with probability 0.95, z² var(d) / mean(d)² "
        "with z = 1.645 (the mean of N games is close to normal, mean(d) and var(d)/N; var(d) / mean(d)² alone is "
        "where the lead is only Phi(1) = 0.84 likely); with a fresh deal each game, and with duplicate deals, and "
        "its 95% bootstrap interval over deals.",
        "",
        "| game | pair | games | d | outright wins | upset | deal share | N* independent | N* duplicate |",
        "|---|---|---:|---|---|---|---|---:|---:|",
    ]
    lines += [luck_row(st) for st in report.stats]
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
    lines += _commands(report, settings=False)
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
    lines += [duplicate_row(st) for st in report.stats]
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

    configs = list(dict.fromkeys(st.data.config for st in all_stats))
    pairs = list(dict.fromkeys(_pair(st) for st in all_stats))
    width = 0.8 / max(1, len(pairs))
    fig, axes = plt.subplots(2, 2, figsize=(13, 8))
    panels = [
        (axes[0, 0], "share", "deal share of var(d)", False),
        (axes[0, 1], "upset", "upset rate (weak finishes ahead)", False),
        (axes[1, 0], "n_independent", "games until the strong leads with probability 0.95 (N*, fresh deals)", True),
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
    if axes[0, 0].get_legend_handles_labels()[0]:  # no bars when no pair has a deal share (a single replay)
        axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def write(paths: Sequence[str | Path], out: str | Path) -> Report:
    """Write luck.md, duplicate.md and luck.png into ``out`` from the luck records at ``paths``."""
    from benchmarks.core.report import shown_path

    recs = []
    for path in paths:
        rec = records.read([path])
        if not rec.runs or any("study" not in run for run in rec.runs):
            raise ValueError(f"{path} is not a luck record (a run without the study's settings)")
        recs.append(rec)
    if not recs:
        raise ValueError("no luck records given")
    report = report_of(recs, [shown_path(p) for p in paths])
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "luck.md").write_text(luck_markdown(report))
    (folder / "duplicate.md").write_text(duplicate_markdown(report))
    plot(report.stats, folder / "luck.png")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.luck.report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("records", nargs="+", type=Path, metavar="RECORD", help="luck records (.jsonl or .jsonl.gz)")
    parser.add_argument("--out", required=True, type=Path, help="folder for luck.md, duplicate.md and luck.png")
    args = parser.parse_args(argv)
    try:
        report = write(args.records, args.out)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    print(f"wrote {args.out}/luck.md, duplicate.md and luck.png from {len(report.stats)} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
