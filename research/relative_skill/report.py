"""The relative-skill report, ``research/results/relative_skill.md``, made from the study's records only.

Per configuration: each hero's mean result against the heuristic field, Borm and van der Genugten's relative skill
at each budget, the variance components of the honest ladder, the Elo spread from random to the clairvoyant,
upsets between adjacent rungs and N*, every figure with its interval (:mod:`research.core.measures`), the
claims of the pre-registration (``research/preregistered/relative_skill.toml``) tested with Holm's correction,
and what the games cost. Nothing here is written by hand: run the command at the top of the report.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.core import records
from benchmarks.core.rating import ahead, finishing_ranks
from benchmarks.core.report import refuse_dirty
from research.core import measures as lm
from research.core import preregistration
from research.core import variance_components as vc
from research.core.renamed import former_path, renamed
from research.relative_skill.method import INTRODUCTION, REFERENCES
from research.relative_skill.plot import Panel, plot


@dataclass
class Study:
    """One record's complete deals (``config``: the record's name, its configuration's unless a later study of it):
    ``outcomes[name][deal, seat, hero, replay]`` for each of ``OUTCOMES``,
    the heroes weakest first, the budgets and the CPU seconds."""

    config: str
    heroes: list[str]
    budgets: list[int]
    outcomes: dict[str, np.ndarray]
    cpu: dict[str, float]
    commands: list[str]

    @property
    def win(self) -> np.ndarray:
        return self.outcomes["win"]

    @property
    def pair(self) -> np.ndarray:
        return self.outcomes["pair"]


#: A game's outcomes for the hero: the win share (pre-registered), the share of the field finished ahead of (ties
#: half: Elo, upsets, N*) and the score margin over the best other player (a payoff that a weak field does not cap;
#: exploratory, added after Wakanda's first deals showed the cap).
OUTCOMES = ("win", "pair", "margin")


def pairwise_share(scores: list[float], winners: list[int], seat: int) -> float:
    """The share of the other players that ``seat`` finished ahead of (ties half)."""
    ranks = finishing_ranks(scores, winners)
    return float(np.mean([ahead(ranks, seat, other) for other in range(len(scores)) if other != seat]))


def outcomes_of(game: dict) -> tuple[float, float, float]:
    """One game's outcomes for its hero, in the order of ``OUTCOMES``."""
    seat, scores = game["hero_seat"], game["scores"]
    margin = scores[seat] - max(x for k, x in enumerate(scores) if k != seat)
    return game["result"], pairwise_share(scores, game["winners"], seat), float(margin)


def load(path: Path, allow_dirty: bool = False) -> Study:
    """A configuration's record as arrays, keeping only the deals every hero played in every seat and replay, and
    of a pre-registered configuration only its pre-registered deals. ``allow_dirty``: accept runs from a dirty
    checkout (a look, never to publish)."""
    record = records.read([path])
    if not allow_dirty:
        refuse_dirty(record, path, former_path(path))  # a published study rests on clean runs only
    header = record.runs[-1]
    heroes, replays = header["heroes"], header["replays"]
    seats = len(record.games[0]["seats"])
    by_deal: dict[int, dict] = {}
    for g in record.games:
        key = (heroes.index(g["hero"]), g["hero_seat"], g["replay"])
        by_deal.setdefault(g["deal"], {})[key] = outcomes_of(g)
    name = path.name.split(".")[0]  # the record's name: its configuration, or a later study of it (``wakanda_seer``)
    plan = planned(name)
    planned_deals = range(plan["first"], plan["first"] + plan["deals"]) if plan else by_deal
    full = sorted(
        d for d, games in by_deal.items() if len(games) == len(heroes) * seats * replays and d in planned_deals
    )
    values = np.zeros((len(OUTCOMES), len(full), seats, len(heroes), replays))
    for i, deal in enumerate(full):
        for (h, s, r), found in by_deal[deal].items():
            values[:, i, s, h, r] = found
    cpu = {h: float(np.mean([g["cpu_s"] for g in record.games if g["hero"] == h])) for h in heroes}
    budgets = sorted({int(h.split("-")[1]) for h in heroes if h.startswith("best-")})
    commands = list(dict.fromkeys(renamed(run["command"]) for run in record.runs))
    return Study(name, heroes, budgets, dict(zip(OUTCOMES, values)), cpu, commands)


def per_deal(study: Study, labels: list[str], outcome: str = "win") -> np.ndarray:
    """``[deal, hero]`` means over seats and replays of the named heroes."""
    data = study.outcomes[outcome]
    return data[:, :, [study.heroes.index(label) for label in labels], :].mean(axis=(1, 3))


def hero_rows(study: Study) -> list[str]:
    rows = [
        "| hero | games | mean win share | share of the field beaten | Elo over the field | score margin | CPU s/game |"
    ]
    rows.append("|---|---:|---|---|---|---|---:|")
    games = study.win.shape[0] * study.win.shape[1] * study.win.shape[3]
    for h, label in enumerate(study.heroes):
        win, pair = lm.mean_interval(per_deal(study, [label])[:, 0]), study.pair[:, :, h, :]
        rating = lm.bootstrap(pair, lm.elo_of_results, seed=h)
        beaten = lm.mean_interval(pair.mean(axis=(1, 2)))
        margin = lm.mean_interval(per_deal(study, [label], "margin")[:, 0])
        elo = _bound(pair) + _elo(rating)
        rows.append(f"| {label} | {games} | {win} | {beaten} | {elo} | {margin} | {study.cpu[label]:.2f} |")
    return rows


def _elo(estimate: lm.Estimate) -> str:
    return f"{estimate.value:+.0f} [{estimate.low:+.0f}, {estimate.high:+.0f}]"


def _bound(results: np.ndarray) -> str:
    """``≤ `` for a player who beat no one of the field in any game, ``≥ `` for one who beat all of it in every
    game: its Elo over the field is then the continuity correction's, set by the number of games, a bound."""
    results = np.asarray(results)
    return "≤ " if not results.any() else "≥ " if (results == 1).all() else ""


def _claim(per_deal_difference: np.ndarray) -> tuple[float, float]:
    """A directional claim's test, as registered: the two-sided paired t test's p-value, and the mean difference
    whose sign the claim names."""
    return lm.paired_p_value(per_deal_difference), float(np.mean(per_deal_difference))


def _fieller(found: dict[str, lm.Estimate]) -> str:
    """RS with Fieller's interval, or "unbounded" where LE + RE is not shown away from 0 (the set is then the
    whole line, or the line less an interval, which is named)."""
    fieller = found["RS Fieller"]
    if math.isfinite(fieller.low):
        return str(fieller)
    if fieller.excluded is None:
        return f"{fieller.value:.3f} (unbounded)"
    return f"{fieller.value:.3f} (unbounded: all but ({fieller.excluded[0]:.3f}, {fieller.excluded[1]:.3f}))"


#: RS in win share by (reference, budget): what the figure draws of a study's relative-skill rows.
WinRS = dict[tuple[str, int], lm.Estimate]


def relative_skill_rows(study: Study) -> tuple[list[str], dict[str, tuple[float, float]], WinRS]:
    """A row per budget (LE, RE, RS with intervals), the p-values of the pre-registered claims (high budget) and
    RS in win share by (reference, budget), for the figure."""
    rows = [
        "| outcome | budget (iterations) | LE = best - random | RE = clairvoyant - best | RS = LE / (LE + RE) "
        "| RS, Fieller's interval |"
    ]
    rows.append("|---|---:|---|---|---|---|")
    claims, win_rs = {}, {}
    for outcome, budget, top in itertools.product(("win", "margin"), study.budgets, ("clairvoyant", "seer")):
        if f"{top}-{budget}" not in study.heroes:  # the seer (rollouts on the truth) plays only where asked
            continue
        data = per_deal(study, ["random", f"best-{budget}", f"{top}-{budget}"], outcome)
        found = lm.relative_skill_estimates(data)
        if outcome == "win":
            win_rs[(top, budget)] = found["RS"]
        name = "win share" if outcome == "win" else "score margin (exploratory)"
        name += ", the seer as reference" if top == "seer" else ""
        rows.append(f"| {name} | {budget} | {found['LE']} | {found['RE']} | {found['RS']} | {_fieller(found)} |")
        if outcome == "win" and budget == max(study.budgets) and planned(study.config) is not None:
            if top == "clairvoyant":
                claims[f"{study.config} LE > 0"] = _claim(data[:, 1] - data[:, 0])
            name = "RE > 0" if top == "clairvoyant" else "RE (seer) > 0"
            claims[f"{study.config} {name}"] = _claim(data[:, 2] - data[:, 1])
    return rows, claims, win_rs


def honest_ladder(study: Study) -> list[str]:
    """The players of the variance components, weakest first: random, the heuristic, best at each budget."""
    return ["random", "heuristic", *(f"best-{b}" for b in study.budgets)]


#: The crossed model's factors (the replays are its last axis).
FACTORS = ("deal", "seat", "agent")
#: The factors whose levels are all there is to describe: these seats and these four agents (deals are drawn).
FIXED = ("seat", "agent")
#: The variance components grouped by what they say: the cards, the players, their interplay.
GROUPS = {
    "luck (deal, seat, deal x seat)": ("deal", "seat", "deal x seat"),
    "skill (agent, seat x agent)": ("agent", "seat x agent"),
    "interaction (deal x agent, deal x seat x agent)": ("deal x agent", "deal x seat x agent"),
    "replay (the agents' own chance)": ("replay",),
}


#: Each estimator's column in the components' table, the study's (the unconstrained moments) first.
ESTIMATOR_COLUMNS = {
    "moments": "share of the variance (moments, unconstrained)",
    "reml": "share of the variance (REML)",
    "anova": "share of the variance (ANOVA, floored)",
}


def component_rows(study: Study) -> list[str]:
    """Shares of the win share's variance over the honest ladder: each component of the crossed model (deal,
    seat, agent, interactions, replay) and their groups, with cluster-bootstrap intervals, by each estimator of
    :mod:`research.core.variance_components`, and how far the floored ANOVA's sum exceeds the model's total."""
    ladder = [study.heroes.index(label) for label in honest_ladder(study)]
    y = study.win[:, :, ladder, :]
    found = {e: vc.share_estimates(y, FACTORS, groups=GROUPS, estimator=e, fixed=FIXED) for e in ESTIMATOR_COLUMNS}
    rows = [f"| component | {' | '.join(ESTIMATOR_COLUMNS.values())} |", "|---" * (len(ESTIMATOR_COLUMNS) + 1) + "|"]
    for name in found["moments"]:
        shares = " | ".join(str(found[e][name]) for e in ESTIMATOR_COLUMNS)
        rows.append(f"| {f'**{name}**' if name in GROUPS else name} | {shares} |")
    inflation = vc.flooring_inflation(y, FACTORS)
    return rows + [
        "",
        f"The floored ANOVA's components add up to {inflation:.2f} times the model's total variance "
        "(the unconstrained moments' sum).",
    ]


def spread_rows(study: Study) -> list[str]:
    """The Elo spread from random to the clairvoyant, and for each adjacent pair of rungs the upset frequency
    and N* (fresh deals, duplicate deals) on the share of the field beaten."""
    top = f"clairvoyant-{max(study.budgets)}"
    rungs = [*honest_ladder(study), top]
    pair = study.pair[:, :, [study.heroes.index(label) for label in rungs], :]
    flat = pair.transpose(0, 1, 3, 2).reshape(len(pair), -1, len(rungs))  # [deal, seat x replay, rung]
    spread = lm.bootstrap(flat, lm.elo_spread)
    bounded = _bound(flat[..., 0]) == "≤ " or _bound(flat[..., -1]) == "≥ "
    rows = [f"Elo spread, random to {top}: {'≥ ' if bounded else ''}{_elo(spread)}."]
    if bounded:
        rows += ["(A lower bound: an end rung's Elo rests on the continuity correction, set by the number of games.)"]
    rows += ["", "| weaker | stronger | upset frequency (ties half) | ties | N* fresh deals | N* duplicate deals |"]
    rows.append("|---|---|---|---:|---|---|")
    for k in range(len(rungs) - 1):
        pairs = flat[:, :, k : k + 2]
        upset = lm.bootstrap(pairs, lambda x: lm.upset_frequency(x[:, :, 0], x[:, :, 1]))
        ties = float((pairs[:, :, 0] == pairs[:, :, 1]).mean())
        fresh = lm.field_lead_estimate(pairs[:, :, 1], pairs[:, :, 0], duplicate=False)
        duplicate = lm.field_lead_estimate(pairs[:, :, 1], pairs[:, :, 0], duplicate=True)
        rows.append(f"| {rungs[k]} | {rungs[k + 1]} | {upset} | {ties:.3f} | {_games(fresh)} | {_games(duplicate)} |")
    return rows


def _games(estimate: lm.Estimate) -> str:
    def count(x: float) -> str:
        return f"{x:,.0f}" if math.isfinite(x) else "∞"

    return f"{count(estimate.value)} [{count(estimate.low)}, {count(estimate.high)}]"


def _preregistration() -> dict:
    return preregistration.read("relative_skill")


def planned(name: str) -> dict | None:
    """The pre-registered plan of a record (by its name: the configuration's, or the entry's ``record``), or None
    for one that was not pre-registered; an entry's own ``first`` deal overrides the study's."""
    return preregistration.entry(_preregistration(), name, ("first",))


def cost_lines(study: Study) -> list[str]:
    """What the deals played cost and what the rest of the pre-registered deals would."""
    plan = planned(study.config)
    seats, replays = study.win.shape[1], study.win.shape[3]
    per_deal_s = sum(study.cpu.values()) * seats * replays
    done = study.win.shape[0]
    if plan is None:
        return [f"Deals: {done}, NOT pre-registered (an exploratory row). CPU: {per_deal_s:.1f} s a deal."]
    left = max(0, plan["deals"] - done)
    return [
        f"Deals: {done} of the {plan['deals']} pre-registered (test deals {plan['first']} on), every hero in each of "
        f"{seats} seats, {replays} replay(s). CPU: {per_deal_s:.1f} s a deal, {per_deal_s * done / 3600:.2f} h "
        f"played; the {left} deals left would take {per_deal_s * left / 3600:.2f} h on one core."
    ]


def section(study: Study) -> tuple[list[str], dict[str, tuple[float, float]], WinRS]:
    rs_rows, claims, win_rs = relative_skill_rows(study)
    lines = [f"## {study.config}", "", *cost_lines(study), "", "Commands:", ""]
    lines += [f"    {command}" for command in study.commands] + ["", *hero_rows(study), ""]
    lines += ["Relative skill (Borm and van der Genugten):", "", *rs_rows, ""]
    lines += ["Variance components of the win share over the honest ladder:", ""]
    lines += [*component_rows(study), "", *spread_rows(study), ""]
    return lines, claims, win_rs


def panel(study: Study, win_rs: WinRS, seer_rs: WinRS | None = None) -> Panel:
    """The figure's column of a configuration: RS in win share at each budget, as its rows gave it, with the
    clairvoyant as reference (and the seer, from ``seer_rs``, the rows of the configuration's seer record, where
    there is one), and the point estimates of the variance groups over the honest ladder."""
    ladder = [study.heroes.index(label) for label in honest_ladder(study)]
    shares = vc.component_shares(study.win[:, :, ladder, :], FACTORS, fixed=FIXED)
    grouped = {group.split()[0]: sum(shares.get(name, 0.0) for name in members) for group, members in GROUPS.items()}
    points = [(budget, rs) for (top, budget), rs in win_rs.items() if top == "clairvoyant"]
    seer = [(budget, rs) for (top, budget), rs in (seer_rs or {}).items() if top == "seer"]
    return Panel(study.config, points, grouped, seer)


def pooled_rows(studies: dict[str, Study]) -> list[str]:
    """RS on the union of a configuration's records' deals, for each ``[[pooled]]`` entry of the pre-registration
    (amendment 9): the same estimators over more deals, an estimate and no new claim."""
    lines = []
    for entry in _preregistration().get("pooled", []):
        lines += [f"## {entry['config']}, pooled over {', '.join(entry['records'])}", ""]
        missing = [name for name in entry["records"] if name not in studies]
        if missing:
            lines += [f"Not reported yet: no record of {', '.join(missing)}.", ""]
            continue
        chosen = [studies[name] for name in entry["records"]]
        rows = [
            "| outcome | budget (iterations) | deals | LE = best - random | RE = clairvoyant - best | RS "
            "| RS, Fieller's interval |"
        ]
        rows.append("|---|---:|---:|---|---|---|---|")
        for budget in chosen[0].budgets:
            labels = ["random", f"best-{budget}", f"clairvoyant-{budget}"]
            data = np.concatenate([per_deal(study, labels) for study in chosen])
            found = lm.relative_skill_estimates(data)
            found_rs = f"{found['RS']} | {_fieller(found)}"
            rows.append(f"| win share | {budget} | {len(data)} | {found['LE']} | {found['RE']} | {found_rs} |")
        lines += [*rows, ""]
    return lines


def claim_rows(claims: dict[str, tuple[float, float]]) -> list[str]:
    """The claims' table: a claim holds when its Holm-adjusted p is below 0.05 and its estimate has the sign it
    names (the registered test is two-sided; the claims are directional)."""
    adjusted = lm.holm({name: p for name, (p, _) in claims.items()})
    rows = ["| claim | mean difference | p (two-sided paired t over deals) | Holm-adjusted p | holds at 0.05 |"]
    rows.append("|---|---|---|---|---|")
    for name, (p, mean) in claims.items():
        holds = adjusted[name] < 0.05 and mean > 0
        rows.append(f"| {name} | {mean:+.3f} | {p:.2g} | {adjusted[name]:.2g} | {'yes' if holds else 'no'} |")
    return rows


def write(paths: list[Path], out: Path, allow_dirty: bool = False) -> None:
    """The report of every configuration's record in ``paths``, and its figure beside it (``.png``)."""
    lines = ["# Relative skill against a heuristic field", ""]
    command = "python -m research.relative_skill report --out research/results/relative_skill.md"
    lines += [f"Generated by `{command}` from the study's records, never by hand."]
    lines += ["", INTRODUCTION, "", f"![relative skill and variance components]({out.with_suffix('.png').name})", ""]
    claims: dict[str, tuple[float, float]] = {}
    studies, win_rs = {}, {}
    for path in paths:
        study = load(path, allow_dirty)
        studies[study.config] = study
        study_lines, found, win_rs[study.config] = section(study)
        lines += study_lines
        claims |= found
    lines += pooled_rows(studies)
    lines += ["## Pre-registered claims, Holm-corrected together", "", *claim_rows(claims), ""]
    lines += ["## References", "", *(f"- {reference}" for reference in REFERENCES), ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    firsts = [study for name, study in studies.items() if "_" not in name]  # a later study joins its first's column
    panels = [panel(study, win_rs[study.config], win_rs.get(f"{study.config}_seer")) for study in firsts]
    plot(panels, out.with_suffix(".png"))
