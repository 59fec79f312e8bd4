"""The heuristic as a search's guide (agents/heuristic_evaluator.py, ``evaluator="heuristic"``): its prior
is the heuristic's move mixed with the uniform one, its values the game's evaluation on the win scale, the
search it guides reproduces from its seed, and it never reads what the searcher cannot see."""

from __future__ import annotations

import numpy as np
import pytest
from test_agents_protocol import ANTI_CHEAT, mid_game_state, twin_positions
from test_guided import search_trace

from agents import PlayerView, make_agent
from agents.guided import GuidedISMCTSAgent
from agents.heuristic import rollout_policy_for
from agents.heuristic_evaluator import HeuristicEvaluator
from envs.games import make_game

GAMES = [("wakanda", {}), ("samurai", {"num_players": 3}), ("wapi", {"num_players": 4})]
IDS = [name for name, _ in GAMES]


@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_the_prior_is_the_heuristics_move_mixed_with_the_uniform_and_values_are_on_the_win_scale(name, config):
    game = make_game(name, **config)
    states = [mid_game_state(game, seed=s, moves=4 + 5 * s) for s in range(6)]
    states = [s for s in states if s.current_player is not None]
    weight, before = 0.3, [s.to_dict() for s in states]
    priors, values = HeuristicEvaluator(game, weight=weight, seed=1).evaluate(states)
    assert [s.to_dict() for s in states] == before  # the positions are left as they were
    assert priors.shape == (len(states), game.num_actions) and values.shape == (len(states), game.num_players)
    for state, prior, value in zip(states, priors, values):
        legal = list(state.legal_tuple())
        expected = np.zeros(game.num_actions)
        expected[legal] = (1 - weight) / len(legal)
        expected[rollout_policy_for(game)(state.clone())] += weight
        assert np.allclose(prior, expected) and np.isclose(prior.sum(), 1)
        assert np.all(np.abs(value) <= 1)


def test_the_weight_is_checked():
    game = make_game("samurai", num_players=3)
    for weight in (0, 1, True, "0.5", 1.5):
        with pytest.raises(ValueError, match=r"^weight must be a number in \(0, 1\)"):
            HeuristicEvaluator(game, weight=weight)


def test_evaluator_heuristic_builds_the_guided_search_and_other_words_are_refused():
    game = make_game("samurai", num_players=3)
    agent = make_agent("ismcts", game, evaluator="heuristic", iterations=5, seed=3)
    assert isinstance(agent, GuidedISMCTSAgent) and isinstance(agent.evaluator, HeuristicEvaluator)
    with pytest.raises(ValueError, match=r"^evaluator must be 'heuristic' or an object with evaluate"):
        make_agent("ismcts", game, evaluator="trained")


@pytest.mark.parametrize("name,config", GAMES, ids=IDS)
def test_the_guided_search_reproduces_from_its_seed(name, config):
    """Budgeted in iterations, the same seed gives the same moves and visits over a game's first 16 moves;
    another seed other visits."""
    game = make_game(name, **config)

    def run(agent_seed: int):
        return search_trace(
            game, 16, lambda p: make_agent("ismcts", game, evaluator="heuristic", iterations=16, seed=agent_seed + p)
        )

    first = run(1)
    assert first == run(1) and first != run(2)


@pytest.mark.parametrize("name,config", ANTI_CHEAT)
def test_heuristic_guided_choices_do_not_depend_on_hidden_information(name, config):
    """The same choice in two states that differ only in what the searcher cannot see (fresh agents)."""
    game = make_game(name, **config)
    checked = 0
    for seed, state, twin, _ in twin_positions(game):
        a, b = (
            make_agent("ismcts", game, evaluator="heuristic", iterations=30, seed=42).act(
                PlayerView(s, np.random.default_rng(k))
            )
            for k, s in enumerate((state, twin))
        )
        assert a == b, f"seed {seed}: {state.describe_action(a)} vs {twin.describe_action(b)}"
        checked += 1
    assert checked >= 3
