"""The luck measures recover what synthetic games are known to hold, within their intervals (issue 50, item 8),
and the clairvoyant player stays a research tool."""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from research.core import measures as lm
from research.core import synthetic_games as sg
from research.core import variance_components as vc

RESAMPLES = 400  # enough for a 95% interval in a test; the reports use lm.RESAMPLES
FACTORS = ("deal", "seat", "agent")  # the crossed model of the luck study's ladder


def rs_estimates(weight: float, deals: int = 200, seed: int = 0) -> dict[str, lm.Estimate]:
    per_deal = sg.guess_and_solve(weight, deals, seed=seed).mean(axis=1)
    return lm.relative_skill_estimates(per_deal, RESAMPLES, seed)


@pytest.mark.parametrize("weight", [0.0, 0.6, 1.0])
def test_relative_skill_recovers_the_known_weight(weight):
    found = rs_estimates(weight)
    assert found["RS"].contains(weight), found["RS"]
    assert found["LE"].contains(weight / 2), found["LE"]
    assert found["RE"].contains((1 - weight) / 2), found["RE"]


def test_relative_skill_interval_holds_the_truth_in_most_small_studies():
    """The small-sample correction at work: 30 deals, 40 games of the mixture, the truth inside nearly always."""
    covered = sum(rs_estimates(0.6, deals=30, seed=seed)["RS"].contains(0.6) for seed in range(40))
    assert covered >= 35, covered


@pytest.mark.parametrize("weight", [0.0, 0.6, 1.0])
def test_fieller_interval_of_relative_skill_recovers_the_known_weight(weight):
    found = rs_estimates(weight)["RS Fieller"]
    assert found.contains(weight) and math.isfinite(found.low) and math.isfinite(found.high), found


def test_fieller_interval_holds_the_truth_in_most_small_studies():
    """Exact for normal per-deal means: on 30 deals of the mixture the truth is inside in at least 35 of 40
    studies (a check against gross undercoverage; the level itself would need far more studies)."""
    covered = sum(rs_estimates(0.6, deals=30, seed=seed)["RS Fieller"].contains(0.6) for seed in range(40))
    assert covered >= 35, covered


def test_fieller_interval_is_unbounded_where_the_denominator_may_be_zero():
    """A ratio whose denominator's own t interval holds 0 is bounded by nothing the data show."""
    rng = np.random.default_rng(0)
    found = lm.fieller_ratio(rng.normal(1.0, 0.1, 20), rng.normal(0.0, 1.0, 20))
    assert (found.low, found.high) == (-math.inf, math.inf)
    low, high = found.excluded  # two rays: a clearly non-zero numerator rules out ratios near 0
    assert low < 0 < high and not found.contains(0.0) and found.contains(10 * high) and found.contains(10 * low)
    whole = lm.fieller_ratio(rng.normal(0.0, 1.0, 20), rng.normal(0.0, 1.0, 20))
    assert whole.excluded is None and whole.contains(0.0) and whole.contains(1e6)
    with pytest.raises(ValueError, match="at least 2 deals"):
        lm.fieller_ratio(np.ones(1), np.ones(1))


def test_relative_skill_is_undefined_where_nothing_is_decided():
    assert math.isnan(lm.relative_skill(np.full((5, 3), 0.5)))


@pytest.mark.parametrize("estimator", vc.ESTIMATORS)
def test_variance_components_of_pure_chance_are_all_the_deal(estimator):
    y = sg.ladder_game(0.0, deals=60, seats=2, agents=4, replays=2, interaction=0.0, noise=0.0)
    shares = vc.share_estimates(y, FACTORS, RESAMPLES, estimator=estimator)
    assert shares["deal"].value + shares["seat"].value + shares["deal x seat"].value == pytest.approx(1.0)
    assert shares["agent"].contains(0.0) and shares["agent"].high == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("estimator", vc.ESTIMATORS)
def test_variance_components_without_chance_are_all_skill(estimator):
    y = sg.ladder_game(1.0, deals=60, seats=2, agents=4, replays=2, interaction=0.0, noise=0.0)
    shares = vc.share_estimates(y, FACTORS, RESAMPLES, estimator=estimator)
    assert shares["agent"].value == pytest.approx(1.0)
    assert shares["deal"].contains(0.0) and shares["deal x seat"].contains(0.0)


@pytest.mark.parametrize("estimator", vc.ESTIMATORS)
def test_variance_components_of_a_mixture_recover_each_known_share(estimator):
    y = sg.ladder_game(0.5, deals=200, seats=2, agents=5, replays=2, interaction=0.2, noise=0.3)
    truth = {"deal": 0.25, "deal x seat": 0.25, "agent": 0.5, "deal x agent": 0.2, "replay": 0.3}
    total = sum(truth.values())
    for name, estimate in vc.share_estimates(y, FACTORS, RESAMPLES, estimator=estimator).items():
        assert estimate.contains(truth.get(name, 0.0) / total), (name, estimate)


def fixed_deal_mean(seed: int = 3) -> np.ndarray:
    """A ladder whose every deal has (nearly) the same mean over its seats and agents, as one hero among
    deterministic heuristics has: the deal's effect and its interaction with the agent come out below 0."""
    y = sg.ladder_game(0.5, deals=80, seats=2, agents=4, replays=2, interaction=0.1, noise=0.3, seed=seed)
    return y - y.mean(axis=(1, 2), keepdims=True) + np.random.default_rng(seed).normal(0, 0.01, (80, 1, 1, 1))


def test_floored_anova_adds_up_to_more_than_the_models_variance_and_reml_does_not():
    """Flooring a negative component drops its negative part without refitting: the floored components sum to
    more than the unconstrained moments' (the model's total), and REML, refitted, stays near that total."""
    y = fixed_deal_mean()
    moments = vc.variance_components(y, FACTORS, floored=False)
    assert moments["deal"] < 0
    assert vc.flooring_inflation(y, FACTORS) > 1.1
    reml, total = vc.reml_components(y, FACTORS), sum(moments.values())
    assert sum(reml.values()) == pytest.approx(total, rel=0.05)


def test_one_replay_folds_the_replay_into_the_highest_interaction():
    y = sg.ladder_game(0.5, deals=100, seats=2, agents=3, replays=1, interaction=0.0, noise=0.3)
    components = vc.variance_components(y, ("deal", "seat", "agent"))
    assert math.isnan(components["replay"])
    assert components["deal x seat x agent"] == pytest.approx(0.3, abs=0.1)


def test_reml_is_anova_where_every_anova_component_is_positive():
    """With balanced data both solve E[MS] = MS when that solution is non-negative."""
    y = sg.ladder_game(0.5, deals=100, seats=2, agents=3, replays=1, interaction=0.0, noise=0.3)
    anova = vc.variance_components(y, FACTORS)
    assert all(v > 0 for v in anova.values() if not math.isnan(v))
    reml = vc.reml_components(y, FACTORS)
    assert {k: v for k, v in reml.items() if k != "replay"} == pytest.approx(
        {k: v for k, v in anova.items() if k != "replay"}, rel=1e-9, abs=1e-12
    )


def reml_gradient(y: np.ndarray, components: dict[str, float]) -> dict[str, float]:
    """The restricted log-likelihood's derivative in each component, by central differences of
    -1/2 sum df (log E[MS] + MS / E[MS]) with the mean squares computed here from the margins."""
    cells, total = y.mean(axis=-1), y.size
    rows = []
    for size in (3, 2, 1):
        for subset in itertools.combinations(range(3), size):
            others = tuple(a for a in range(3) if a not in subset)
            effect = cells.mean(axis=others, keepdims=True)
            for axis in subset:
                effect = effect - effect.mean(axis=axis, keepdims=True)
            df = math.prod(cells.shape[a] - 1 for a in subset)
            levels = math.prod(cells.shape[a] for a in subset)
            rows.append((subset, total / levels * float((effect**2).sum()) / df, df))
    within = float(((y - cells[..., None]) ** 2).sum())
    names = {subset: " x ".join(FACTORS[a] for a in subset) for subset, _, _ in rows}

    def likelihood(c: dict[str, float]) -> float:
        value = -0.5 * cells.size * (y.shape[-1] - 1) * math.log(c["replay"]) - 0.5 * within / c["replay"]
        for subset, ms, df in rows:
            theta = c["replay"] + sum(
                total / math.prod(y.shape[a] for a in g) * c[names[g]] for g, _, _ in rows if set(subset) <= set(g)
            )
            value -= 0.5 * df * (math.log(theta) + ms / theta)
        return value

    h = 1e-6
    return {
        k: (likelihood(components | {k: v + h}) - likelihood(components | {k: v - h})) / (2 * h)
        for k, v in components.items()
    }


GROUPS = {
    "luck": ("deal", "seat", "deal x seat"),
    "skill": ("agent", "seat x agent"),
    "interaction": ("deal x agent", "deal x seat x agent"),
    "replay": ("replay",),
}


@pytest.mark.parametrize("estimator, recovers", [("moments", True), ("reml", True), ("anova", False)])
def test_the_study_design_shares_are_recovered_by_the_moments_and_reml_not_the_floored_anova(estimator, recovers):
    """One hero against a fixed field (a deal's luck only moves between its seats): the shares among these
    players are known; the moments (the study's estimator) and REML find each inside its interval, and the floored
    ANOVA, whose sum is inflated by the negative deal component it drops, misses them."""
    y, known = sg.field_ladder(1.0, 0.25, 0.25, deals=200, seats=2, agents=4, replays=2)
    found = vc.share_estimates(y, FACTORS, RESAMPLES, groups=GROUPS, estimator=estimator, fixed=("seat", "agent"))
    assert vc.variance_components(y, FACTORS, floored=False)["deal"] < 0
    inside = {group: found[group].contains(share) for group, share in known.items()}
    assert inside == dict.fromkeys(known, recovers), (found, known)


def test_reml_where_anova_floors_a_component_is_the_constrained_maximum():
    """A deal effect that a hero-against-a-fixed-field design drives below 0: ANOVA floors it and keeps the other
    solved components; REML's fit is the likelihood's maximum over components >= 0 (KKT: no slope in a free
    component, a slope pointing below 0 in one held at 0)."""
    y = fixed_deal_mean()
    anova, reml = vc.variance_components(y, FACTORS), vc.reml_components(y, FACTORS)
    assert anova["deal"] == 0.0 and reml["deal"] == pytest.approx(0.0, abs=1e-9)
    assert reml["deal x seat"] < anova["deal x seat"]  # REML refits it with the deal held at 0
    for name, slope in reml_gradient(y, {k: max(v, 1e-7) for k, v in reml.items()}).items():
        held = reml[name] < 1e-6
        assert slope < 1e-2 if held else abs(slope) < 1e-2, (name, reml[name], slope)


def test_fixed_factors_are_described_across_their_own_levels():
    """With the agents fixed, the agent component is the variance across these agents (divisor A): the skills'
    own spread, (A - 1) / A of the drawn-agent variance; components that involve the drawn deal are unchanged."""
    agents = 4
    y = sg.ladder_game(1.0, deals=40, seats=2, agents=agents, replays=2, interaction=0.0, noise=0.0)
    skill = y[0, 0, :, 0]  # without chance every deal and seat shows the skills themselves
    drawn = vc.component_shares(y, FACTORS)
    assert drawn["agent"] == pytest.approx(1.0)
    found = vc.finite(vc.variance_components(y, FACTORS, floored=False), y, FACTORS, ("seat", "agent"))
    assert found["agent"] == pytest.approx(skill.var(ddof=0))
    mixed = sg.ladder_game(0.5, deals=60, seats=2, agents=agents, replays=2, interaction=0.2, noise=0.3)
    moments = vc.variance_components(mixed, FACTORS, floored=False)
    fixed = vc.finite(moments, mixed, FACTORS, ("seat", "agent"))
    assert fixed["agent"] == pytest.approx(moments["agent"] * (agents - 1) / agents)
    assert fixed["seat x agent"] == pytest.approx(moments["seat x agent"] * (1 / 2) * (agents - 1) / agents)
    for drawn_deal in ("deal", "deal x agent", "deal x seat x agent", "replay"):
        assert fixed[drawn_deal] == moments[drawn_deal]
    with pytest.raises(ValueError, match="fixed must name factors"):
        vc.component_shares(mixed, FACTORS, fixed=("player",))


def test_an_unknown_estimator_is_refused_by_name():
    with pytest.raises(ValueError, match="estimator must be one of"):
        vc.component_shares(np.zeros((3, 2, 2, 1)), FACTORS, "ml")


def test_elo_spread_and_upsets_of_a_known_ladder():
    shares = [0.2, 0.5, 0.8]
    results = sg.rung_results(shares, deals=300, seats=2)
    spread = lm.bootstrap(results, lm.elo_spread, RESAMPLES)
    assert spread.contains(lm.elo(0.8) - lm.elo(0.2)), spread
    upset = lm.bootstrap(results, lambda r: lm.upset_frequency(r[:, :, 0], r[:, :, 1]), RESAMPLES)
    weak, strong = shares[:2]
    assert upset.contains(weak * (1 - strong) + (weak * strong + (1 - weak) * (1 - strong)) / 2), upset


def test_games_to_lead_means_a_lead_with_probability_095():
    mean, variance = 0.2, 1.0
    n = math.ceil(lm.games_to_lead(mean, variance))
    assert stats.norm.cdf(mean * math.sqrt(n / variance)) >= 0.95 > stats.norm.cdf(mean * math.sqrt((n - 1) / variance))
    totals = np.random.default_rng(0).normal(mean, 1.0, (20000, n)).sum(axis=1)
    assert (totals > 0).mean() == pytest.approx(0.95, abs=0.01)
    assert lm.games_to_lead(mean, variance) / (variance / mean**2) == pytest.approx(1.6449**2, rel=1e-3)


@pytest.mark.parametrize("duplicate, variance", [(False, 2 * (1.0 + 0.5)), (True, 2 * 0.5)])
def test_games_to_lead_recovers_fresh_and_duplicate_deals(duplicate, variance):
    """Two players on the same deals and seats, each game's luck shared: on fresh deals it adds to both players'
    variance, on duplicate deals it cancels; the report's N* finds each."""
    results = sg.field_results([0.0, 0.2], luck=1.0, noise=0.5, deals=400, seats=2)
    found = lm.field_lead_estimate(results[:, :, 1], results[:, :, 0], duplicate)
    assert found.contains(lm.games_to_lead(0.2, variance)), found


def test_games_to_lead_against_a_field_adds_the_variances_of_independent_players():
    shares = [0.4, 0.6]
    results = sg.rung_results(shares, deals=400, seats=2)
    truth = lm.games_to_lead(0.2, 0.4 * 0.6 * 2)
    for paired in (False, True):  # independent games: pairing them changes nothing
        found = lm.field_lead_estimate(results[:, :, 1], results[:, :, 0], paired)
        assert found.value == lm.field_lead_games(results[:, :, 1], results[:, :, 0], paired)
        assert found.contains(truth), (paired, found)


def test_games_to_lead_of_equal_players_is_unbounded_and_never_below_zero():
    """Two players of equal strength: the mean difference's interval holds 0, so N*'s interval is unbounded above
    (no number of games separates equals), and no end of it is negative (a percentile bootstrap of N* itself,
    whose resamples cross 0, gave negative and inverted ends)."""
    results = sg.rung_results([0.5, 0.5], deals=60, seats=2)
    for paired in (False, True):
        found = lm.field_lead_estimate(results[:, :, 1], results[:, :, 0], paired)
        assert found.high == math.inf and 0 < found.low <= found.value, found
    assert lm.games_to_lead(0.0, 1.0) == math.inf


def test_holm_adjusts_step_down():
    assert lm.holm({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "b": 0.06, "c": 0.06})


def test_the_clairvoyant_is_never_offered_to_players():
    from agents import AGENT_NAMES, make_agent

    assert not any("clairvoyant" in name or "seer" in name for name in AGENT_NAMES)
    for name in ("clairvoyant", "seer"):
        with pytest.raises(ValueError):
            make_agent(name)
    root = Path(__file__).resolve().parent.parent
    offered = [*root.glob("agents/**/*.py"), *(p for p in root.glob("web/**/*") if p.suffix in (".py", ".js", ".html"))]
    offered += [*root.glob("benchmarks/core/**/*.py")]  # the protocol, the referee and the arena
    offered += [root / "benchmarks" / f"{name}.py" for name in ("rate", "leaderboard")]
    offered.append(root / "research" / "levels.py")
    texts = {str(p): p.read_text(encoding="utf-8").lower() for p in offered}  # a moved module fails, not skips
    assert {str(root / "benchmarks" / "core" / f"{name}.py") for name in ("protocol", "arena")} <= texts.keys()
    assert not [p for p, text in texts.items() if "clairvoyant" in text or "seeragent" in text]


def test_the_clairvoyant_searches_the_true_state():
    """Its determinizations are copies of the true state (draw order and every hand), where an honest view's
    are not: the whole state compared through ``to_dict``."""
    from agents import make_agent
    from envs.games import make_game
    from research.core.clairvoyant import ClairvoyantAgent, TrueView, play_clairvoyant

    game = make_game("wapi", num_players=2)
    seen = []

    class Spy(ClairvoyantAgent):
        def act(self, view):
            rng = np.random.default_rng(0)
            drawn = TrueView(view, self.truth).sample_determinization(rng)
            honest = view.sample_determinization(rng)
            truth = self.truth.to_dict()
            seen.append((drawn is not self.truth and drawn.to_dict() == truth, honest.to_dict() == truth))
            return super().act(view)

    play_clairvoyant(game, [Spy(game, seed=0, iterations=4), make_agent("heuristic", game, seed=1)], seed=3)
    assert seen and all(true for true, _ in seen)
    assert not any(honest for _, honest in seen)
