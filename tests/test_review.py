"""A game's review (``agents/review.py``) and the chance protocol it stands on (``envs/core/chance.py``).

On the duel (``duel_game.py``), whose luck and skill are known by hand: the decomposition sums to the
result, skill is the known loss, luck the known values, the residual 0 with exact values; over many seeded
games the luck-corrected mean (``benchmarks/core/luck_corrected.py``) agrees with the raw one and varies
less. On each real game (Wakanda, Samurai two players, Wapi four players), one short review: the sums, the
signs and the events' count; and the chance protocol's outcomes against the true draws.
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from duel_game import GAMBLE, SAFE, DuelGame, ExactValues, play_duel
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import make_agent, play_game
from agents.protocol import start_game
from agents.review import TERMS, corrected_result, main, review_game
from agents.review_values import RolloutValues, make_estimator
from benchmarks.core.luck_corrected import corrected_mean, corrected_shares
from envs.core import chance
from envs.games import make_game

DUEL = DuelGame()
EXACT = {"value": ExactValues(), "deals": 4}


def identity_gap(review) -> float:
    """The largest |result - (expected + luck + skill + opponents + residual)| over the seats."""
    return max(abs(p.result - p.expected - sum(getattr(p, t) for t in TERMS)) for p in review.players)


def test_multisets_are_the_hypergeometric_draws():
    """Two of the pool 1, 1, 2, 3: the multisets with C(have, take) ways out of C(4, 2) = 6."""
    got = {items: Fraction(p).limit_denominator(100) for items, p in chance.multisets([1, 2, 1, 3], 2)}
    assert got == {(1, 1): Fraction(1, 6), (1, 2): Fraction(2, 6), (1, 3): Fraction(2, 6), (2, 3): Fraction(1, 6)}


def test_a_safe_move_loses_exactly_an_eighth_and_the_draw_is_the_only_luck():
    """SAFE (2) against GAMBLE: value 3/8 against 1/2 for player 0, so skill -1/8 and player 1's decision-free
    share moves by +1/8 (``opponents``); the deal is worth nothing to either (no one sees the bag), player 1's
    draw of x against the safe 2 is the luck; the residual is 0 with exact values."""
    state, _ = start_game(DUEL, 5)
    drawn = state.bag[0]
    review = review_game(DUEL, [SAFE, 1], 5, **EXACT)
    p0, p1 = review.players
    assert p0.expected == pytest.approx(0.5) and p1.expected == pytest.approx(0.5)
    assert p0.skill == pytest.approx(-1 / 8) and p1.opponents == pytest.approx(1 / 8) and p1.skill == 0
    share = 1.0 if drawn < 2 else 0.5 if drawn == 2 else 0.0
    assert p0.result == share and p0.luck == pytest.approx(share - 3 / 8) and p1.luck == pytest.approx(3 / 8 - share)
    assert p0.residual == pytest.approx(0, abs=1e-12) and identity_gap(review) < 1e-12
    kinds = [(e["kind"], e["player"]) for e in review.events]
    assert kinds == [("chance", None), ("decision", 0), ("chance", 1)]
    assert review.events[1]["best"] == GAMBLE and review.events[0]["luck"] == [0.0, 0.0]


@pytest.mark.parametrize("seed", range(6))
def test_a_gamble_costs_nothing_and_its_draw_is_worth_the_known_luck(seed):
    """GAMBLE drawing x: skill 0, luck (x - 1)/3 - 1/2 to player 0 at its draw, the rest at player 1's."""
    state, _ = start_game(DUEL, seed)
    x = state.bag[0]
    review = review_game(DUEL, [GAMBLE, 1], seed, **EXACT)
    gamble_draw = review.events[2]
    assert review.events[1]["skill"] == 0 and gamble_draw["player"] == 0 and gamble_draw["draw"] == f"drew {x}"
    assert gamble_draw["luck"][0] == pytest.approx((x - 1) / 3 - 1 / 2)
    assert gamble_draw["outcomes"] == 4 and gamble_draw["sampled"] is None
    assert identity_gap(review) < 1e-12 and abs(review.players[0].residual) < 1e-12


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1), p=st.floats(0, 1), tiles=st.lists(st.integers(0, 6), min_size=3, max_size=6))
def test_the_decomposition_sums_to_the_result_for_any_duel(seed, p, tiles):
    """Any bag, any strategy, exact values: every seat's terms sum to its result, skill is at most 0, shares
    sum to 1 and each event's luck to 0 (a win share taken from one player goes to the other)."""
    game = DuelGame(tuple(tiles), safe=3)
    review = review_game(game, play_duel(game, seed, p), seed, **EXACT)
    assert identity_gap(review) < 1e-9
    assert sum(q.result for q in review.players) == pytest.approx(1)
    assert all(e["skill"] <= 0 for e in review.events if e["kind"] == "decision")
    assert all(abs(sum(e["luck"])) < 1e-6 for e in review.events if e["kind"] == "chance")
    assert all(abs(q.residual) < 1e-9 for q in review.players)


def duel_reviews(games: int, value, max_outcomes: int = 32) -> tuple[list[float], list[float]]:
    """Player 0's result and luck in ``games`` seeded duels, player 0 gambling half the time."""
    results, lucks = [], []
    for seed in range(games):
        moves = play_duel(DUEL, seed, 0.5)
        review = review_game(DUEL, moves, seed, value=value, deals=4, max_outcomes=max_outcomes)
        results.append(review.players[0].result)
        lucks.append(review.players[0].luck)
        assert corrected_result(review)[0] == pytest.approx(results[-1] - lucks[-1])
    return results, lucks


@pytest.mark.parametrize(
    ("value", "max_outcomes", "ratio"), [("exact", 32, 0.5), ("rollouts", 32, 0.5), ("exact", 2, 0.8)]
)
def test_the_corrected_mean_is_the_raw_mean_with_less_variance(value, max_outcomes, ratio):
    """400 duels, player 0 gambling half the time (true share 7/16): the luck-corrected mean lies within the raw
    mean's interval (and the truth within both), its interval narrower by ``ratio``, whatever the values: exact
    ones, 8 rollouts a position by the gambler's own strategy (noisy values: the correction is still unbiased),
    or exact values with each draw's expectation taken over 2 sampled outcomes of its 4 (unbiased in
    expectation; the variance drops less)."""
    estimator = ExactValues() if value == "exact" else RolloutValues(DUEL, 8, policy=lambda s: GAMBLE)
    results, lucks = duel_reviews(400, estimator, max_outcomes)
    (raw, raw_low, raw_high), (mean, low, high) = corrected_mean(results, lucks)
    assert raw_low <= mean <= raw_high and low <= 7 / 16 <= high and raw_low <= 7 / 16 <= raw_high
    assert (high - low) <= ratio * (raw_high - raw_low)
    assert np.var(np.subtract(results, lucks)) < ratio**2 * np.var(results)


def test_corrected_shares_cluster_by_deal_and_name_every_agent():
    """Record lines of two deals played in both seatings: each label's raw share is its wins' mean, its corrected
    share the mean of share minus luck; the intervals count two deals (one degree of freedom)."""
    lines = []
    for (seed, seats), winners in zip(
        [(1, ["a", "b"]), (1, ["b", "a"]), (2, ["a", "b"]), (2, ["b", "a"])], [0, 0, 1, 0]
    ):
        lines.append({"game": "duel", "config": {}, "seed": seed, "seats": seats, "winners": [winners]})
    lucks = [[0.5, -0.5], [0.25, -0.25], [0.1, -0.1], [-0.3, 0.3]]
    a, b = corrected_shares(lines, lucks)
    assert (a.name, a.games, a.deals, a.raw, b.raw) == ("a", 4, 2, 0.25, 0.75)
    assert a.corrected == pytest.approx(np.mean([1 - 0.5, 0 + 0.25, 0 - 0.1, 0 - 0.3]))
    assert 0 <= a.raw_low <= a.raw <= a.raw_high <= 1 and math.isfinite(a.width_ratio)
    with pytest.raises(ValueError, match="one luck list per game"):
        corrected_shares(lines, lucks[:3])


REAL = [("wakanda", {}), ("samurai", {"num_players": 2}), ("wapi", {"num_players": 4})]


@pytest.mark.parametrize(("name", "config"), REAL, ids=[f"{n} {c}" for n, c in REAL])
def test_a_real_game_review_sums_and_counts_its_events(name, config):
    """A heuristic game reviewed with few rollouts: the identity per seat; win shares summing to 1 (expected 1;
    the luck, the decisions' effects and the residual 0 over the seats); skill at most 0; one decision per move
    with a choice, one chance event per move that draws plus the deal; the result the game's."""
    game = make_game(name, **config)
    agents = [make_agent("heuristic", game, seed=s) for s in range(game.num_players)]
    actions = [a for _, a in play_game(game, agents, seed=11, record=True).actions]
    review = review_game(game, actions, 11, rollouts=2, deals=2, max_outcomes=3)
    state, _ = start_game(game, 11)
    choices = draws = 0
    for action in actions:
        choices += len(state.legal_tuple()) > 1
        draws += bool(state.chance_draws(action))
        state.apply(action)
    assert [e["kind"] for e in review.events].count("decision") == choices
    assert [e["kind"] for e in review.events].count("chance") == draws + 1
    assert identity_gap(review) < 1e-9
    assert sum(p.expected for p in review.players) == pytest.approx(1)
    for terms in (["luck"], ["skill", "opponents"], ["residual"]):  # what a decision takes from one, others get
        assert sum(getattr(p, t) for p in review.players for t in terms) == pytest.approx(0, abs=1e-9), terms
    assert all(p.skill <= 0 for p in review.players) and review.players[0].result == state_result_share(state, 0)


def state_result_share(state, seat: int) -> float:
    winners = state.winners()
    return 1 / len(winners) if seat in winners else 0.0


@pytest.mark.parametrize(("name", "config"), [*REAL, ("wakanda", {"advanced": True})])
def test_every_draws_outcomes_sum_to_one_and_hold_the_true_draw(name, config):
    """Random games: each draw's outcome probabilities sum to 1, hold the outcome the true orders bring, and
    that outcome forced (``play_outcome``) is the true game's next position."""
    game = make_game(name, **config)
    state, _ = start_game(game, 4)
    rnd = random.Random(4)
    while state.current_player is not None:
        action = rnd.choice(state.legal_actions())
        listed = chance.outcomes(state, action)
        if listed:
            assert sum(p for _, p in listed) == pytest.approx(1)
            forced = state.clone()
            chance.play_outcome(forced, action, chance.drawn(state, action))
            truth = state.clone()
            truth.apply(action)
            assert forced.to_dict() == truth.to_dict()
        state.apply(action)


def test_bad_settings_are_refused_by_name():
    """The estimator's name and outcome, the counts, an illegal or missing move: errors that name them."""
    with pytest.raises(ValueError, match=r"value must be one of \['rollouts', 'search', 'trained', 'ppo:PATH'\]"):
        make_estimator("oracle", make_game("wakanda"))
    with pytest.raises(ValueError, match=r"outcome must be one of \['win'\] for samurai"):
        make_estimator("rollouts", make_game("samurai"), outcome="score")
    with pytest.raises(ValueError, match="value='search' needs a two-player game"):
        make_estimator("search", make_game("wapi", num_players=4))
    with pytest.raises(ValueError, match="deals must be a positive int"):
        review_game(DUEL, [SAFE, 1], 0, value=ExactValues(), deals=0)
    with pytest.raises(ValueError, match="move 0"):
        review_game(DUEL, [5, 1], 0, value=ExactValues())
    with pytest.raises(ValueError, match="before the game does"):
        review_game(DUEL, [SAFE], 0, value=ExactValues())


def test_the_command_reviews_a_played_game_and_a_record_alike(tmp_path, capsys):
    """``--game --seed --play`` and the same game as a benchmark record line give the same JSON review; the
    table names the costliest move; a wrong --index is refused naming the games the record holds."""
    argv = ["--game", "wakanda", "--seed", "2", "--play", "heuristic", "random", "--rollouts", "2", "--deals", "2"]
    assert main([*argv, "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert {"seat", "result", "expected", "luck", "skill"} <= set(played["players"][0])
    game = make_game("wakanda")
    seeds = np.random.SeedSequence(2).generate_state(2)
    agents = [make_agent(n, game, seed=int(s)) for n, s in zip(["heuristic", "random"], seeds)]
    actions = [a for _, a in play_game(game, agents, seed=2, record=True).actions]
    record = tmp_path / "games.jsonl"
    line = {"kind": "game", "game": "wakanda", "config": game.config(), "seed": 2, "actions": actions}
    record.write_text(json.dumps({"kind": "run"}) + "\n" + json.dumps(line) + "\n")
    assert main([str(record), "--rollouts", "2", "--deals", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == played
    assert main([str(record), "--rollouts", "2", "--deals", "2"]) == 0
    assert "Costliest moves" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([str(record), "--index", "3"])
    assert "--index must be in 0..0" in capsys.readouterr().err
