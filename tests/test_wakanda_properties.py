"""Property tests over thousands of seeded random Wakanda games (basic and advanced rules)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from envs.core import IllegalActionError
from envs.wakanda import WakandaGame
from envs.wakanda.actions import NUM_ACTIONS
from envs.wakanda.components import ALL_PIECES, PIECES

ALL = Counter(PIECES[k] for k in ALL_PIECES)
POINTS = {"eagle": 8, "chief": 5, "tomahawk": 4, "skin": 3, "tipi": 2, "sun": 1}
CHUNKS = [(advanced, first) for advanced in (False, True) for first in (0, 500)]  # 4 x 500 = 2,000 games


def scores_from_dict(data) -> list[int]:
    """Scores recomputed from state_dict() alone, straight from the scoring table of the rules."""
    scores = []
    for player in (0, 1):
        owned = [v for v in data["villages"] if v["owner"] == player]
        pieces = Counter(p for v in owned for p in v["totem"])
        kinds = {v["kind"] for v in owned}
        score = 0
        for kind in kinds:
            if kind == "variety":
                score += 2 * len(pieces)
            elif kind == "height":
                score += 2 * max(len(v["totem"]) for v in owned)
            else:
                score += POINTS[kind] * pieces[kind]
        if "sun" not in kinds:
            score -= pieces["sun"]
        scores.append(score)
    return scores


def check_mask(state, before: dict, masked_off: bool = True) -> None:
    """Every action the mask offers applies (on a clone); with ``masked_off``, every other one
    raises and changes nothing (``before`` is ``state.to_dict()``)."""
    mask = state.legal_mask()
    assert np.flatnonzero(mask).tolist() == state.legal_actions() and state.legal_actions()
    for action in range(NUM_ACTIONS):
        if mask[action]:
            state.clone().apply(action)
        elif masked_off:
            try:  # (pytest.raises costs more than the engine here, a million times over)
                state.apply(action)
            except IllegalActionError:
                continue
            raise AssertionError(f"masked-off action {action} was applied")
    assert state.to_dict() == before


def check_round_trip(game, state) -> None:
    """load_state_dict(state_dict()) gives the same observations, masks and data."""
    again = game.state_from_dict(state.to_dict())
    assert again.to_dict() == state.to_dict()
    assert np.array_equal(again.legal_mask(), state.legal_mask())
    for player in (0, 1):
        assert np.array_equal(again.observation(player), state.observation(player))


@pytest.mark.slow
@pytest.mark.parametrize("advanced,first", CHUNKS)
def test_random_games_keep_every_invariant(advanced, first):
    """2,000 games: termination, at most 3 villages each, 6 finished totems unless neither player
    could act, pieces conserved, a mask whose every action applies (and, in every other game,
    whose every masked-off action raises: 1,000 games, for time), scores recomputed from
    state_dict() equal to the reported ones, and exact round trips."""
    game = WakandaGame(advanced)
    for seed in range(first, first + 500):
        state = game.new_state(np.random.default_rng(seed))
        choose = random.Random(seed).choice
        actions = 0
        while not state.is_terminal():
            data = state.to_dict()
            check_mask(state, data, masked_off=seed % 2 == 0)
            if seed % 10 == 0:
                check_round_trip(game, state)
            owners = [v["owner"] for v in data["villages"]]
            assert owners.count(0) <= 3 and owners.count(1) <= 3
            held = Counter(p for s in data["supplies"] for p in s)
            assert Counter(data["bag"]) + held + Counter(p for v in data["villages"] for p in v["totem"]) == ALL
            state.apply(choose(state.legal_actions()))
            actions += 1
            assert actions <= 21 + 6, "every action places one of 21 pieces or one of 6 headdresses"
        data = state.to_dict()
        assert data["terminal"] and data["current_player"] is None and state.legal_actions() == []
        finished = sum(v["owner"] is not None for v in data["villages"])
        if finished < 6:
            assert data["bag"] == [] and not state.can_act(0) and not state.can_act(1), "ended early only if stuck"
        else:
            assert [v["owner"] for v in data["villages"]].count(0) == 3
        assert scores_from_dict(data) == data["scores"] == state.int_scores()
        scores = data["scores"]
        expected = 0 if scores[0] > scores[1] else 1 if scores[1] > scores[0] else data["third_headdress_first"]
        assert data["winner"] == expected
        check_round_trip(game, state)


@pytest.mark.parametrize("advanced", [False, True])
def test_seeds_deal_different_games_and_the_draws_never_depend_on_the_actions(advanced):
    """Setup: the bag and the villages are shuffled once from the seed; the draw order is fixed
    from then on and does not depend on the actions."""
    game = WakandaGame(advanced)
    deals = set()
    for seed in range(200):
        deal = game.new_state(np.random.default_rng(seed)).to_dict()
        assert deal == game.new_state(np.random.default_rng(seed)).to_dict()
        deals.add(repr((deal["bag"], deal["villages"])))
        order = deal["supplies"][0] + deal["bag"]  # player 0 has drawn the first piece
        for policy in range(3):
            state = game.new_state(np.random.default_rng(seed))
            choose = random.Random(policy).choice
            drawn = 1
            while not state.is_terminal():
                left = len(state.bag)
                state.apply(choose(state.legal_actions()))
                if len(state.bag) < left:  # the next turn drew the next piece of the fixed order
                    supply = state.supplies[state.current_player]
                    assert supply[PIECES.index(order[drawn])] > 0
                    drawn += 1
            assert drawn == 21 - len(state.bag)
            assert state.to_dict()["bag"] == order[drawn:]
    assert len(deals) == 200
