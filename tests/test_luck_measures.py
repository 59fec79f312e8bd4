"""The luck measures recover what synthetic games are known to hold, within their intervals (issue 50, item 8),
and the clairvoyant player stays a research tool."""

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from benchmarks import luck_measures as lm
from benchmarks import synthetic_games as sg

RESAMPLES = 400  # enough for a 95% interval in a test; the reports use lm.RESAMPLES


def rs_estimates(weight: float, deals: int = 200, seed: int = 0) -> dict[str, lm.Estimate]:
    per_deal = sg.guess_and_solve(weight, deals, seed=seed).mean(axis=1)
    return lm.relative_skill_estimates(per_deal, RESAMPLES, seed)


@pytest.mark.parametrize("weight", [0.0, 0.6, 1.0])
def test_relative_skill_recovers_the_known_weight(weight):
    found = rs_estimates(weight)
    assert found["RS"].contains(weight), found["RS"]
    assert found["LE"].contains(weight / 2), found["LE"]
    assert found["RE"].contains((1 - weight) / 2), found["RE"]


def test_relative_skill_interval_covers_the_truth_at_its_level_on_small_samples():
    """The small-sample correction at work: 30 deals, 40 games of the mixture, the truth inside nearly always."""
    covered = sum(rs_estimates(0.6, deals=30, seed=seed)["RS"].contains(0.6) for seed in range(40))
    assert covered >= 35, covered


def test_relative_skill_is_undefined_where_nothing_is_decided():
    assert math.isnan(lm.relative_skill(np.full((5, 3), 0.5)))


def test_variance_components_of_pure_chance_are_all_the_deal():
    y = sg.ladder_game(0.0, deals=60, seats=2, agents=4, replays=2, interaction=0.0, noise=0.0)
    shares = lm.share_estimates(y, ("deal", "seat", "agent"), RESAMPLES)
    assert shares["deal"].value + shares["deal x seat"].value == pytest.approx(1.0)
    assert shares["agent"].contains(0.0) and shares["agent"].high == pytest.approx(0.0, abs=1e-9)


def test_variance_components_without_chance_are_all_skill():
    y = sg.ladder_game(1.0, deals=60, seats=2, agents=4, replays=2, interaction=0.0, noise=0.0)
    shares = lm.share_estimates(y, ("deal", "seat", "agent"), RESAMPLES)
    assert shares["agent"].value == pytest.approx(1.0)
    assert shares["deal"].contains(0.0) and shares["deal x seat"].contains(0.0)


def test_variance_components_of_a_mixture_recover_each_known_share():
    y = sg.ladder_game(0.5, deals=200, seats=2, agents=5, replays=2, interaction=0.2, noise=0.3)
    truth = {"deal": 0.25, "deal x seat": 0.25, "agent": 0.5, "deal x agent": 0.2, "replay": 0.3}
    total = sum(truth.values())
    shares = lm.share_estimates(y, ("deal", "seat", "agent"), RESAMPLES)
    for name, estimate in shares.items():
        assert estimate.contains(truth.get(name, 0.0) / total), (name, estimate)


def test_one_replay_folds_the_replay_into_the_highest_interaction():
    y = sg.ladder_game(0.5, deals=100, seats=2, agents=3, replays=1, interaction=0.0, noise=0.3)
    components = lm.variance_components(y, ("deal", "seat", "agent"))
    assert math.isnan(components["replay"])
    assert components["deal x seat x agent"] == pytest.approx(0.3, abs=0.1)


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


@pytest.mark.parametrize("duplicate, variance", [(False, 1.0 * (1 - 1 / 2) + 0.5), (True, 0.5)])
def test_games_to_lead_recovers_fresh_and_duplicate_deals(duplicate, variance):
    d = sg.paired_differences(0.2, luck=1.0, noise=0.5, deals=400, seats=2)
    found = lm.bootstrap(d, lambda x: lm.lead_games(x, duplicate), RESAMPLES)
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
    offered += [root / "benchmarks" / f"{name}.py" for name in ("rate", "protocol", "levels", "leaderboard", "arena")]
    texts = {str(p): p.read_text(encoding="utf-8").lower() for p in offered if p.exists()}
    assert not [p for p, text in texts.items() if "clairvoyant" in text or "seeragent" in text]


def test_the_clairvoyant_searches_the_true_state():
    """Its determinizations are copies of the true state (draw order and every hand), where an honest view's
    are not: the whole state compared through ``to_dict``."""
    from agents import make_agent
    from benchmarks.clairvoyant import ClairvoyantAgent, TrueView, play_clairvoyant
    from envs.games import make_game

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
