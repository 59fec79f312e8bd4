"""The skill-curve report: ``best``'s anchored rating against log2(budget), fitted, and a test of whether it bends.

Per record (a configuration and its reference): the Bradley–Terry rating (:mod:`benchmarks.core.rating`: random 0,
the heuristic 1,000) of ``best`` at each budget and of the reference, every table's win share, weighted least
squares fits of the rating on log2(budget), linear and quadratic, and the gap from the top budget to the reference.
Every interval is a bootstrap over deals that refits the ratings on each resample, and the fits on each
resample's ratings (:func:`research.core.measures.bootstrap_draws`). The claim, one-sided, is "the curve bends":
the quadratic coefficient c < 0, Holm-corrected over the pre-registered records
(``research/preregistered/skill_curve.toml``, checked here against what the records played). The estimator is
validated on synthetic rungs of known strength (``tests/test_skill_curve.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.core import records
from benchmarks.core.rating import anchor, cluster_wins, strengths
from benchmarks.core.report import refuse_dirty
from research.core import measures as lm
from research.core import preregistration
from research.core.renamed import former_path, renamed


@dataclass
class Curve:
    """One record's fitted curve: ratings by label, the fits' coefficients (highest power first, as numpy's
    polyfit), the slope a doubling (linear fit), the curvature c (quadratic fit), the one-sided p of c < 0,
    the gap from ``best`` at the top budget to each reference, and each table's win share."""

    budgets: list[int]
    references: list[str]
    deals: int
    ratings: dict[str, lm.Estimate]
    linear: np.ndarray
    quadratic: np.ndarray
    slope: lm.Estimate
    curvature: lm.Estimate
    p_bends: float
    gaps: dict[str, lm.Estimate]
    shares: dict[tuple[str, str], lm.Estimate]


def labels(budgets: list[int], references: list[str]) -> list[str]:
    """The rated players, weakest first: the anchors, ``best`` at each budget, the references."""
    return ["random", "heuristic", *(f"best-{b}" for b in budgets), *references]


def table_shares(games: list[dict], tables: list[tuple[str, str]]) -> dict[tuple[str, str], lm.Estimate]:
    """Each table's mean win share of its hero, with a t interval over per-deal means."""
    out = {}
    for hero, opponent in tables:
        per_deal: dict[int, list[float]] = {}
        for g in games:
            if g["hero"] == hero and opponent in g["seats"]:
                per_deal.setdefault(g["deal"], []).append(g["result"])
        out[(hero, opponent)] = lm.mean_interval([np.mean(v) for _, v in sorted(per_deal.items())])
    return out


def fits(x: np.ndarray, y: np.ndarray, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares of ``y`` (a column per curve) on ``x``, linear and quadratic, weights 1 / sigma²."""
    return np.polyfit(x, y, 1, w=1 / sigma), np.polyfit(x, y, 2, w=1 / sigma)


def analyse(
    games: list[dict],
    budgets: list[int],
    references: list[str],
    tables: list[tuple[str, str]],
    resamples: int | None = None,
) -> Curve:
    """The curve of ``games`` (every table of every deal): ratings refitted on each resample of the deals, then the
    fits refitted on each resample's ratings, weighted by the ratings' bootstrap variances."""
    names = labels(budgets, references)
    wins = cluster_wins(games, names)
    values, draws = lm.bootstrap_draws(wins, lambda w: anchor(names, strengths(names, w.sum(axis=0))), resamples)
    draws = draws[np.isfinite(draws).all(axis=1)]  # a resample whose anchors are out of order places no one
    best = slice(2, 2 + len(budgets))
    x = np.log2(budgets)
    sigma = np.maximum(draws[:, best].std(axis=0), 1e-6)
    linear, quadratic = fits(x, values[best], sigma)
    linear_draws, quadratic_draws = fits(x, draws[:, best].T, sigma)
    top, refs = 1 + len(budgets), list(range(2 + len(budgets), len(names)))
    stats = np.array([linear[0], quadratic[0], *(values[refs] - values[top]), *values])
    gap_draws = draws[:, refs] - draws[:, [top]]
    stat_draws = np.column_stack([linear_draws[0], quadratic_draws[0], gap_draws, draws])
    slope, curvature, *found = lm.percentile_estimates(stats, stat_draws, len(wins))
    bent = lm.widened(quadratic[0], quadratic_draws[0], len(wins)) >= 0
    return Curve(
        budgets,
        references,
        len(wins),
        dict(zip(names, found[len(refs) :])),
        linear,
        quadratic,
        slope,
        curvature,
        float((1 + bent.sum()) / (1 + len(bent))),
        dict(zip(references, found[: len(refs)])),
        table_shares(games, tables),
    )


def _preregistration() -> dict:
    return preregistration.read("skill_curve")


def planned(name: str) -> dict | None:
    """The pre-registered plan of a record (by its name: the configuration's, or the entry's ``record``), the
    study's settings under the entry's own, or None for a record that was not pre-registered."""
    return preregistration.entry(_preregistration(), name, ("first", "deals", "budgets", "references"))


@dataclass
class Loaded:
    """A record's complete deals and what the report says of it."""

    name: str
    games: list[dict]
    budgets: list[int]
    references: list[str]
    tables: list[tuple[str, str]]
    commands: list[str]
    plan_note: str
    registered: bool


def load(path: Path, allow_dirty: bool = False) -> Loaded:
    """A record's games of the deals it played at every table in every seat (of a record that played what its
    pre-registration says, only the pre-registered deals), and whether it did. ``allow_dirty``: accept runs
    from a dirty checkout (a look, never to publish)."""
    record = records.read([path])
    if not allow_dirty:
        refuse_dirty(record, path, former_path(path))  # a published study rests on clean runs only
    header = record.runs[-1]
    budgets, kinds = header["iterations"], header["references"]
    tables = [tuple(t) for t in header["tables"]]
    name = path.name.split(".")[0]
    plan = planned(name)
    per_deal: dict[int, list[dict]] = {}
    for g in record.games:
        per_deal.setdefault(g["deal"], []).append(g)
    full = len(tables) * len(record.games[0]["seats"]) * header["replays"]
    registered = plan is not None and plan["budgets"] == budgets and plan["references"] == kinds
    deals = range(plan["first"], plan["first"] + plan["deals"]) if registered else per_deal
    games = [g for d in sorted(per_deal) if d in deals and len(per_deal[d]) == full for g in per_deal[d]]
    if plan is None:
        note = "NOT pre-registered (an exploratory row, outside the claims)."
    elif not registered:
        note = f"does NOT match its pre-registration ({plan['budgets']}, {plan['references']}): outside the claims."
    else:
        note = f"pre-registered: test deals {plan['first']} on, {plan['deals']} planned."
    commands = list(dict.fromkeys(renamed(run["command"]) for run in record.runs))
    references = [f"{kind}-{budgets[-1]}" for kind in kinds]
    return Loaded(name, games, budgets, references, tables, commands, note, registered)


def _rating(estimate: lm.Estimate) -> str:
    return f"{estimate.value:,.0f} [{estimate.low:,.0f}, {estimate.high:,.0f}]"


def separated_note(games: list[dict]) -> list[str]:
    """A note where the heuristic won every game against random (two-player Samurai): the scale's unit then rests
    on the rating's prior, which an affine map of the strengths carries, so the claim's sign does not depend on
    it but every size on the scale does (the pre-registration says so)."""
    anchors = [g for g in games if g["hero"] == "heuristic" and "random" in g["seats"]]
    if not anchors or any(g["winners"] != [g["hero_seat"]] for g in anchors):
        return []
    return [
        "",
        f"Note: the heuristic won all {len(anchors)} of its games against random, so the scale's unit rests on the "
        "rating's prior (`benchmarks/core/rating.py`). The anchoring is an affine map of the strengths: the sign "
        "of c (the claim) does not depend on it; the sizes of c, the slope and the gaps do.",
    ]


def section(loaded: Loaded, curve: Curve, plot: str | None) -> list[str]:
    """A record's part of the report."""
    hours = sum(g["cpu_s"] for g in loaded.games) / 3600
    lines = [f"## {loaded.name}", "", f"Deals: {curve.deals} complete; {loaded.plan_note} CPU: {hours:.2f} h."]
    lines += ["", "Commands:", ""]
    lines += [f"    {command}" for command in loaded.commands] + [""]
    lines += [f"![rating against log2(budget), {loaded.name}]({plot})", ""] if plot else []
    lines += ["| player | budget (iterations) | rating (random 0, heuristic 1,000) |", "|---|---:|---|"]
    for label, estimate in curve.ratings.items():
        lines.append(f"| {label} | {label.partition('-')[2] or '-'} | {_rating(estimate)} |")
    lines += separated_note(loaded.games)
    a1, b1 = curve.linear
    c2, b2, a2 = curve.quadratic
    lines += ["", f"Linear fit: rating = {b1:,.0f} {a1:+,.0f} log2(budget); per doubling {_rating(curve.slope)}."]
    lines += [f"Quadratic fit: rating = {a2:,.0f} {b2:+,.0f} log2(budget) + c log2(budget)², c = "]
    lines[-1] += f"{curve.curvature.value:,.1f} [{curve.curvature.low:,.1f}, {curve.curvature.high:,.1f}]; "
    lines[-1] += f"one-sided p (c < 0) = {curve.p_bends:.3g}."
    lines += [f"Gap from best-{curve.budgets[-1]} to {ref}: {_rating(gap)}." for ref, gap in curve.gaps.items()]
    lines += [""]
    lines += ["| hero | opponent | hero's win share |", "|---|---|---|"]
    lines += [f"| {hero} | {opponent} | {share} |" for (hero, opponent), share in curve.shares.items()]
    return [*lines, ""]


def claim_name(config: str) -> str:
    return f"{config}: the curve bends (c < 0)"


def claim_rows(p_values: dict[str, float]) -> list[str]:
    """The pre-registered claims, Holm-corrected together over the whole registered family: a configuration not
    played yet counts at p = 1, so that a claim made early is adjusted as strictly as it will be at the end."""
    registered = [claim_name(entry["config"]) for entry in _preregistration()["configs"]]
    pending = [name for name in registered if name not in p_values]
    adjusted = lm.holm(p_values | dict.fromkeys(pending, 1.0))
    rows = ["| claim | one-sided bootstrap p | Holm-adjusted p | holds at 0.05 |", "|---|---|---|---|"]
    for name, p in p_values.items():
        rows.append(f"| {name} | {p:.3g} | {adjusted[name]:.3g} | {'yes' if adjusted[name] < 0.05 else 'no'} |")
    return rows + [f"| {name} | no registered record yet (counted at p = 1) | - | - |" for name in pending]


def _shown(path: Path) -> str:
    """A path as the report's command names it: relative to the repository where it lies in it."""
    resolved = path.resolve()
    return str(resolved.relative_to(records.ROOT)) if resolved.is_relative_to(records.ROOT) else path.name


def write(paths: list[Path], out: Path, allow_dirty: bool = False) -> None:
    """The report of every record in ``paths``, with a plot of each curve beside it."""
    shown = " ".join(map(_shown, paths))  # the committed report's command, wherever this copy is written
    command = f"python -m research.skill_curve report {shown} --out research/results/skill_curve.md"
    out.parent.mkdir(parents=True, exist_ok=True)  # the report and its plots
    lines = ["# Skill ceiling: best's rating against log2(budget)", "", f"Generated by `{command}`, never by hand."]
    lines += ["", INTRODUCTION, ""]
    p_values = {}
    for path in paths:
        loaded = load(path, allow_dirty)
        if len({g["deal"] for g in loaded.games}) < 2:
            lines += [f"## {loaded.name}", "", f"Fewer than 2 complete deals; {loaded.plan_note}", ""]
            continue
        curve = analyse(loaded.games, loaded.budgets, loaded.references, loaded.tables)
        plot = out.with_name(f"{out.stem}_{loaded.name}.png")
        lines += section(loaded, curve, plot.name if write_plot(loaded.name, curve, plot) else None)
        if loaded.registered:
            p_values[claim_name(loaded.name)] = curve.p_bends
    lines += ["## Pre-registered claims, Holm-corrected together", "", *claim_rows(p_values), ""]
    out.write_text("\n".join(lines), encoding="utf-8")


def write_plot(name: str, curve: Curve, path: Path) -> bool:
    """Rating against log2(budget) with 95% intervals, both fits and the references, into ``path`` (whose folder
    exists); False without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.log2(curve.budgets)
    found = [curve.ratings[f"best-{b}"] for b in curve.budgets]
    fig, ax = plt.subplots(figsize=(6, 4))
    err = [[e.value - e.low for e in found], [e.high - e.value for e in found]]
    ax.errorbar(x, [e.value for e in found], yerr=err, fmt="o", capsize=3, label="best")
    grid = np.linspace(x[0], x[-1], 50)
    ax.plot(grid, np.polyval(curve.linear, grid), ":", label="linear fit")
    ax.plot(grid, np.polyval(curve.quadratic, grid), "--", label="quadratic fit")
    for k, (label, marker) in enumerate(zip(curve.references, "s^"), 1):
        ref = curve.ratings[label]
        ax.errorbar([x[-1] + 0.08 * k], [ref.value], yerr=[[ref.value - ref.low], [ref.high - ref.value]], fmt=marker,
                    capsize=3, label=label)  # fmt: skip
    ax.set_xticks(x, [str(b) for b in curve.budgets])
    ax.set(xlabel="iterations a move (log2 scale)", ylabel="rating (random 0, heuristic 1,000)", title=name)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return True


INTRODUCTION = """\
Each budget's `best` (iterations a move) plays the heuristic field and `best` at the budget below it; the
reference (the clairvoyant or the seer, `research/core/clairvoyant.py`, research only) plays `best` at the top
budget; the heuristic plays random (the anchors). A table is its hero in each seat in turn against copies of its
opponent, every deal in every rotation, the same agent seeds whoever sits (common random numbers). Ratings:
Bradley–Terry on every pair of seats held by different players, anchored at random 0 and the heuristic 1,000
(`benchmarks/core/rating.py`). Intervals: percentile bootstrap over deals (every game of a deal together), 2,000
resamples, the ratings refitted on each and the fits refitted on each resample's ratings, widened by
sqrt(n/(n-1)); 95%. Fits: weighted least squares of the rating on log2(budget), weights 1 / the rating's bootstrap
variance. The claim "the curve bends" is c < 0 for the quadratic coefficient c, tested one-sided by the share of
the (widened) bootstrap draws at or above 0, Holm-corrected over the pre-registered records
(`research/preregistered/skill_curve.toml`). A win share is 1 for an outright win, 1/k for a win shared by k;
its interval is a t interval over per-deal means. The estimator is checked on synthetic rungs of known strength
(exactly linear: no claim; concave: claimed, c recovered) in `tests/test_skill_curve.py`."""
