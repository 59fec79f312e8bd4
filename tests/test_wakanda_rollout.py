"""ISMCTS's Wakanda rollout in compiled code (``agents/heuristic/wakanda_rollout.py``) plays the per-game loop's game:
the same result and the same dice drawn, so a search rolling out either way chooses the same moves."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.evaluator import RolloutEvaluator
from agents.heuristic import wakanda
from agents.random_words import below, give_back, lend, uniform
from envs.games import make_game


def positions(advanced: bool, games: int) -> list:
    """Determinized positions at every stage: seeded games of random moves, cut after a random number of them."""
    game = make_game("wakanda", advanced=advanced)
    states = []
    for seed in range(games):
        rng = np.random.default_rng(seed)
        state = game.new_state(rng)
        for _ in range(int(rng.integers(0, 40))):
            if state.current_player is None:
                break
            legal = state.legal_tuple()
            state.apply(legal[int(rng.integers(len(legal)))])
        states.append(state.determinize(0, rng) if state.current_player is not None else state)
    return states


def test_the_lent_words_draw_what_the_random_draws():
    """``uniform`` and ``below`` over lent words are ``random()`` and ``randrange(n)``, and ``give_back`` leaves the
    Random where those draws would."""
    for seed in range(20):
        mine, theirs = random.Random(seed), random.Random(seed)
        luck, words = lend(mine, 64)
        at, drawn = 0, []
        for n in (2, 3, 5, 7, 30, 33, 2, 1):
            drawn.append(uniform(words, at))
            k, at = below(words, at + 2, n)
            drawn.append(k)
        give_back(mine, luck, at)
        assert drawn == [x for n in (2, 3, 5, 7, 30, 33, 2, 1) for x in (theirs.random(), theirs.randrange(n))]
        assert mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("advanced", [False, True])
@pytest.mark.parametrize("epsilon", [0.0, 0.1, 0.5, 1.0])
def test_the_compiled_rollout_plays_the_per_game_rollout(advanced, epsilon):
    """From positions at every stage: the same scores and winners as ``RolloutEvaluator.roll_out`` with the
    heuristic, and the search's Random left in the same state; the position itself unchanged."""
    for k, state in enumerate(positions(advanced, 40)):
        mine, theirs = random.Random(k), random.Random(k)
        played = state.clone()
        RolloutEvaluator(wakanda.policy, None, epsilon, None, 0.25, theirs).roll_out(played)
        before = state.to_dict()
        assert wakanda.roll_out(state, epsilon, mine) == (played.scores(), played.winners()), k
        assert mine.getstate() == theirs.getstate(), k
        assert state.to_dict() == before


def test_the_dice_run_out_and_are_lent_again(monkeypatch):
    """A rollout that needs more words than lent at first gets twice as many and still plays the same game."""
    from agents.heuristic import wakanda_rollout

    monkeypatch.setattr(wakanda_rollout, "WORDS", 1)
    state = positions(False, 1)[0]
    mine, theirs = random.Random(5), random.Random(5)
    played = state.clone()
    RolloutEvaluator(wakanda.policy, None, 0.5, None, 0.25, theirs).roll_out(played)
    assert wakanda.roll_out(state, 0.5, mine) == (played.scores(), played.winners())
    assert mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("advanced", [False, True])
def test_the_compiled_policy_chooses_as_the_policy(advanced):
    for state in positions(advanced, 60):
        if state.current_player is not None:
            assert wakanda.compiled_policy(state) == wakanda.policy(state)


@pytest.mark.parametrize("options", [{}, {"paired_root": True}, {"rollout_epsilon": 0.5, "tree_depth": 2}])
def test_a_search_rolling_out_in_compiled_code_is_the_same_search(options):
    """Plain ISMCTS with its compiled rollouts and tree policy, and with the per-game ones: every root edge's
    visits and sum equal, so the same move."""
    from agents import make_agent
    from agents.protocol import PlayerView

    game = make_game("wakanda")
    for k, state in enumerate(positions(False, 6)):
        if state.current_player is None or len(state.legal_tuple()) == 1:
            continue
        roots = []
        for compiled in (True, False):
            agent = make_agent("ismcts", game, iterations=60, seed=k, **options)
            if not compiled:
                agent.leaf.played_out, agent.leaf.policy, agent.rule.policy = None, wakanda.policy, wakanda.policy
            agent.act(PlayerView(state, np.random.default_rng(k)))
            roots.append({a: (e.visits, e.total) for a, e in agent.last_root.edges.items()})
        assert roots[0] == roots[1], k
