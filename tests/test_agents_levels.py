"""Levels 1 to 5 (``agents/levels.py``, ``make_agent("level:N", game)``): built for every configuration,
refused with the allowed values otherwise, each a move within its promise."""

from __future__ import annotations

import time

import numpy as np
import pytest

import envs
from agents import PlayerView, make_agent, play_game
from agents.best import BestAgent
from agents.epsilon_greedy import EpsilonGreedy
from agents.heuristic import HeuristicAgent
from agents.levels import GAME_LEVELS, LEVELS, level, levels_of, parse_level_name
from envs.games import make_game

CONFIGURATIONS = [(name, config) for name in envs.GAMES for config in envs.describe(name).configurations()]


def first_view(game, seed: int) -> PlayerView:
    rng = np.random.default_rng(seed)
    return PlayerView(game.new_state(rng), rng)


def test_the_levels_run_from_a_beginner_to_the_best_agent():
    """Level 1 is the heuristic with many random moves, each level up fewer, then the best agent
    with more thinking time: ordered by construction (the measurement is research/results/levels.md)."""
    assert list(LEVELS) == [1, 2, 3, 4, 5]
    epsilons = [float(LEVELS[n].agent.partition("~")[2] or 0) for n in (1, 2, 3)]
    assert [LEVELS[n].agent.partition("~")[0] for n in (1, 2, 3)] == ["heuristic"] * 3
    assert epsilons == sorted(epsilons, reverse=True) and epsilons[0] <= 0.5, "a beginner still plays sensibly"
    assert LEVELS[4].agent == LEVELS[5].agent == "best"
    assert 0 < LEVELS[4].seconds < LEVELS[5].seconds < 2


@pytest.mark.parametrize("name,config", CONFIGURATIONS, ids=lambda x: str(x))
def test_every_level_is_built_for_every_configuration(name, config):
    """Each level is its game's agent: the heuristic ones play a legal first move here, the searching
    ones are the best agent with their thinking time."""
    game = make_game(name, **config)
    view = first_view(game, 7)
    for number, lv in levels_of(name).items():
        agent = make_agent(f"level:{number}", game, seed=3)
        assert agent.name == f"level {number}"
        if lv.seconds is None:
            assert isinstance(agent, EpsilonGreedy if "~" in lv.agent else HeuristicAgent)
            assert agent.act(view) in view.legal_actions
        else:
            assert isinstance(agent, BestAgent) and agent.agent.time_limit == lv.seconds


def order_key(lv) -> tuple[float, float]:
    """A level's place by construction: fewer random moves, then more thinking time (every level is the
    heuristic, ε-greedy or not, or the best agent)."""
    name, _, epsilon = lv.agent.partition("~")
    assert name in ("heuristic", "best"), lv
    return -float(epsilon or 0), lv.seconds or 0.0


@pytest.mark.parametrize("game", list(envs.GAMES))
def test_every_games_levels_order_by_construction(game):
    """In every game (its own levels included) each level has fewer random moves than the one below
    or, past the heuristic, more thinking time; level 1 is the heuristic with at most half its moves
    random, level 5 the best agent, and every level thinks less than 2 s a move."""
    levels = list(levels_of(game).values())
    keys = [order_key(lv) for lv in levels]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert levels[0].agent.startswith("heuristic~") and float(levels[0].agent.partition("~")[2]) <= 0.5
    assert levels[-1].agent == "best" and all((lv.seconds or 0) < 2 for lv in levels)


def test_a_game_has_levels_of_its_own_only_where_a_measurement_asked_for_them():
    """Wakanda (experiment 010): level 2 is the heuristic, level 3 a search of 0.01 s. Wapi (experiment
    015): levels 1 to 4 are the heuristic with fewer and fewer random moves, level 5 the best agent at
    0.1 s. Samurai plays the common levels."""
    assert set(GAME_LEVELS) == {"wakanda", "wapi"}
    wakanda, wapi = levels_of("wakanda"), levels_of("wapi")
    assert (wakanda[2].agent, wakanda[3].agent, wakanda[3].seconds) == ("heuristic", "best", 0.01)
    assert [wapi[n].agent for n in (1, 2, 3, 4)] == ["heuristic~0.5", "heuristic~0.3", "heuristic~0.15", "heuristic"]
    assert (wapi[5].agent, wapi[5].seconds) == ("best", 0.1)
    assert 0 < wakanda[3].seconds < wakanda[4].seconds < wakanda[5].seconds
    assert all(levels_of(game) == LEVELS for game in envs.GAMES if game not in GAME_LEVELS)
    assert make_agent("level:3", make_game("wakanda"), seed=1).agent.time_limit == 0.01
    assert isinstance(make_agent("level:4", make_game("wapi")), HeuristicAgent)
    assert isinstance(make_agent("level:3", make_game("samurai")), HeuristicAgent)


def test_a_level_is_reproducible_from_its_seed():
    game = make_game("wapi", num_players=3)
    agents = [make_agent(f"level:{n}", game, seed=4 + n) for n in (1, 2, 3)]
    again = [make_agent(f"level:{n}", game, seed=4 + n) for n in (1, 2, 3)]
    assert play_game(game, agents, seed=11).scores == play_game(game, again, seed=11).scores


@pytest.mark.parametrize(
    "name", ["level:0", "level:6", "level:", "level:3.0", "level:+3", "level: 3", "level:٣", "level:1~x"]
)
def test_a_level_that_does_not_exist_is_refused_naming_the_allowed_ones(name):
    with pytest.raises(ValueError, match=r"level:N with N one of \[1, 2, 3, 4, 5\]|NAME~EPS"):
        make_agent(name, make_game("wakanda"))


@pytest.mark.parametrize("number", [0, 6, True, 3.0, "3", np.int64(3), None])
def test_level_numbers_are_ints_from_one_to_five(number):
    with pytest.raises(ValueError, match=r"level must be an int, one of \[1, 2, 3, 4, 5\]"):
        level(number)
    assert level(3) is LEVELS[3] is parse_level_name("level:3")


def test_a_level_fixes_its_options_but_the_seed():
    game = make_game("samurai")
    with pytest.raises(ValueError, match=r"unknown options \['time_limit'\] for level:5.*available: \['seed'\]"):
        make_agent("level:5", game, time_limit=5.0)
    assert make_agent("level:2~0.5", game, seed=1).epsilon == 0.5, "a level may itself be made ε-greedy"


@pytest.mark.alone
def test_the_strongest_level_moves_in_under_two_seconds():
    """Level 5's promise, on the configuration whose moves cost the most (Samurai: a network-guided search)."""
    game = make_game("samurai")
    agent = make_agent("level:5", game, seed=1)
    view = first_view(game, 2)
    start = time.process_time()
    agent.act(view)
    assert time.process_time() - start < 2.0
