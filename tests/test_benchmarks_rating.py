"""The protocol's ratings (benchmarks/core/rating.py): known strengths recovered from simulated games, the
anchors, intervals clustered by deal, and win shares with shared wins counted 1/k."""

import numpy as np
import pytest

from benchmarks.core.rating import anchored_ratings, t975, tail_percent, win_shares

#: Log-strengths of the simulated agents: the anchors 1.0 apart, so that 1000 rating points = 1.0.
STRENGTH = {"random": 0.0, "heuristic": 1.0, "strong": 1.6, "middling": 0.4}


def _game(seed: int, seats: list[str], order: list[int], table: list[str]) -> dict:
    """A record game line: ``order`` lists the seats from first to last."""
    n = len(seats)
    scores = [float(n - order.index(seat)) for seat in range(n)]
    return {"game": "sim", "config": {}, "deal_set": "test", "deal": seed, "seed": seed, "seating": 0,
            "seats": seats, "table": table, "scores": scores, "winners": [order[0]], "cpu_us": [[1]] * n}  # fmt: skip


def plackett_luce_order(rng, strengths: list[float]) -> list[int]:
    """A finishing order drawn from Plackett–Luce with weights exp(strength)."""
    left, order = list(range(len(strengths))), []
    while left:
        w = np.exp([strengths[i] for i in left])
        order.append(left.pop(rng.choice(len(left), p=w / w.sum())))
    return order


def simulate(deals: int, players: int = 2, deal_effect: float = 0.0, seed: int = 0, replays: int = 1) -> list[dict]:
    """Every hero of STRENGTH against the heuristic and random at tables of ``players`` (hero + copies of
    the opponent), every rotation of every deal; ``deal_effect``: the sd of a per-deal boost of
    ``middling``, which makes the games of a deal correlated (some deals suit its style); each rotation
    is played ``replays`` times."""
    rng = np.random.default_rng(seed)
    tables = [("heuristic", "random"), ("strong", "heuristic"), ("middling", "heuristic"), ("strong", "random")]
    games = []
    for deal in range(deals):
        boost = rng.normal(0.0, deal_effect) if deal_effect else 0.0
        for hero, opponent in tables:
            for shift in [s for s in range(players) for _ in range(replays)]:
                seats = [opponent] * players
                seats[shift] = hero
                strengths = [STRENGTH[a] + (boost if a == "middling" else 0.0) for a in seats]
                games.append(_game(deal, seats, plackett_luce_order(rng, strengths), [hero, opponent]))
    return games


@pytest.mark.parametrize("players", [2, 3])
def test_known_strengths_are_recovered_on_the_anchored_scale(players):
    ratings = {r.name: r for r in anchored_ratings(simulate(800, players))}
    for name, strength in STRENGTH.items():
        r = ratings[name]
        assert r.low <= 1000 * strength <= r.high, (name, r)
        assert abs(r.value - 1000 * strength) < 120, (name, r)


def test_the_anchors_are_exact_and_the_scale_does_not_depend_on_units():
    games = simulate(60)
    ratings = {r.name: r for r in anchored_ratings(games)}
    assert (ratings["random"].value, ratings["random"].low, ratings["random"].high) == (0.0, 0.0, 0.0)
    assert (ratings["heuristic"].value, ratings["heuristic"].low, ratings["heuristic"].high) == (1000.0,) * 3
    assert ratings["random"].value < ratings["middling"].value < ratings["heuristic"].value < ratings["strong"].value


def test_anchors_are_required():
    games = [g for g in simulate(5) if "random" not in g["seats"]]
    with pytest.raises(ValueError, match="anchors"):
        anchored_ratings(games)


def test_the_interval_clustered_by_deal_is_wider_when_a_deals_games_are_correlated():
    games = simulate(100, deal_effect=2.0, replays=4)

    def width(cluster):
        r = next(r for r in anchored_ratings(games, cluster=cluster) if r.name == "middling")
        return r.high - r.low

    assert width("deal") > 1.3 * width("game")
    independent = simulate(100, replays=4)
    by_deal = next(r for r in anchored_ratings(independent, cluster="deal") if r.name == "middling")
    by_game = next(r for r in anchored_ratings(independent, cluster="game") if r.name == "middling")
    assert 0.7 < (by_deal.high - by_deal.low) / (by_game.high - by_game.low) < 1.4  # no correlation: alike


def test_the_same_games_give_the_same_ratings_in_any_order():
    games = simulate(40, 3)
    shuffled = [games[i] for i in np.random.default_rng(1).permutation(len(games))]
    assert anchored_ratings(games) == anchored_ratings(shuffled)


def test_a_shared_win_counts_one_over_k_and_the_interval_is_over_deal_means():
    games = []
    for deal, winners in enumerate([[0], [0, 1], [1], [0, 1, 2]]):
        for shift in range(3):
            seats = ["x", "x", "x"]
            seats[shift] = "hero"
            hero_won = 0 in winners  # the hero's result is the same in every rotation of a deal
            line = _game(deal, seats, [0, 1, 2], ["hero", "x"])
            line["winners"] = (
                [shift] + [s for s in range(3) if s != shift][: len(winners) - 1] if hero_won else [(shift + 1) % 3]
            )
            games.append(line)
    (share,) = win_shares(games)
    means = np.array([1.0, 0.5, 0.0, 1 / 3])
    assert share.value == pytest.approx(means.mean())
    half = t975(3) * means.std(ddof=1) / 2  # t with deals − 1 degrees of freedom
    assert (share.low, share.high) == pytest.approx((max(0, means.mean() - half), min(1, means.mean() + half)))
    assert (share.games, share.deals) == (12, 4)


def test_t_quantiles_match_the_published_table_beyond_it_too():
    for df, quantile in [(1, 12.706), (11, 2.201), (30, 2.042), (40, 2.021), (60, 2.000), (120, 1.980)]:
        assert t975(df) == pytest.approx(quantile, abs=6e-4)


def test_small_sample_intervals_are_wider_by_what_t_says_on_twelve_deals():
    """Issue 49: with 12 deals the normal quantile is too narrow (every report uses t and the expanded bootstrap)."""
    games = simulate(12, players=2, seed=3)
    checked = 0
    for plain, small in zip(win_shares(games, small_sample=False), win_shares(games)):
        ratio = (small.high - small.low) / (plain.high - plain.low)
        if 0 < plain.low and plain.high < 1:  # (an interval cut at 0 or 1 is not scaled)
            assert small.value == plain.value and ratio == pytest.approx(t975(11) / 1.959964, rel=1e-6)
            checked += 1
    assert checked
    assert tail_percent(12, True) == pytest.approx(1.076, abs=1e-3) and tail_percent(12, False) == 2.5
    plain = {r.name: r for r in anchored_ratings(games, small_sample=False)}
    small = {r.name: r for r in anchored_ratings(games)}
    strong = [name for name in small if name not in ("random", "heuristic")]
    assert all(small[n].low <= plain[n].low and small[n].high >= plain[n].high for n in strong)
    assert any(small[n].high - small[n].low > plain[n].high - plain[n].low for n in strong)
