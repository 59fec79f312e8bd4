"""The rating model's check on games whose answer is known: a Bradley–Terry world passes, a cyclic one fails."""

import math

import numpy as np

from research.rating_fit.fit import fit, merged_labels, relabelled


def games_from(beats: dict[tuple[str, str], float], deals: int, seed: int = 0) -> list[dict]:
    """Two-player games: in each deal every pair plays once per seating; ``beats[(a, b)]`` is P(a wins)."""
    rng = np.random.default_rng(seed)
    games = []
    for deal in range(deals):
        for (a, b), p in beats.items():
            for seats in ([a, b], [b, a]):
                a_wins = rng.random() < p
                winner = seats.index(a) if a_wins else seats.index(b)
                scores = [1.0 if k == winner else 0.0 for k in range(2)]
                games.append({"game": "toy", "config": {}, "seed": deal, "seats": seats} | {"scores": scores})
                games[-1]["winners"] = [winner]
    return games


def bt(a: float, b: float) -> float:
    return 1.0 / (1.0 + math.exp(b - a))


def test_a_bradley_terry_world_is_not_rejected():
    strength = {"x": 0.0, "y": 0.7, "z": 1.5, "w": 0.3}
    beats = {(a, b): bt(strength[a], strength[b]) for a in strength for b in strength if a < b}
    f = fit(games_from(beats, deals=300))
    assert f.df == 6 - 3
    assert f.p > 0.01
    assert all(abs(pf.observed - pf.predicted) < 0.05 for pf in f.pairs)


def test_a_cyclic_world_is_rejected():
    beats = {("a", "b"): 0.8, ("b", "c"): 0.8, ("a", "c"): 0.2}  # a > b > c > a
    f = fit(games_from(beats, deals=200))
    assert f.df == 1
    assert f.p < 1e-6 and f.p_naive < 1e-6


def test_a_tree_has_no_test_and_a_separated_pair_is_left_out():
    tree = fit(games_from({("a", "b"): 0.7, ("b", "c"): 0.6}, deals=50))
    assert tree.df == 0 and math.isnan(tree.p)
    separated = fit(games_from({("a", "b"): 1.0, ("b", "c"): 0.6, ("a", "c"): 0.7}, deals=50))
    pair = next(pf for pf in separated.pairs if (pf.a, pf.b) == ("a", "b"))
    assert pair.observed == 1.0 and math.isnan(pair.z)
    assert separated.df == 0  # the triangle less its separated side is a tree


def test_labels_playing_one_agent_are_merged_into_the_anchor():
    agents = {
        "heuristic": {"name": "heuristic", "options": {}},
        "level:4": {"name": "heuristic", "options": {}},
        "level:3": {"name": "heuristic", "options": {"epsilon": 0.15}},
        "heuristic#2": {"name": "heuristic", "options": {}},
        "random": {"name": "random", "options": {}},
    }
    assert merged_labels(agents) == {"level:4": "heuristic", "heuristic#2": "heuristic"}
    game = {"seats": ["level:4", "level:3"], "seed": 1}
    assert relabelled([game], {"level:4": "heuristic"})[0]["seats"] == ["heuristic", "level:3"]
    assert game["seats"] == ["level:4", "level:3"]  # the record's line is not touched
