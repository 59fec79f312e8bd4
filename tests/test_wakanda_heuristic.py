"""The Wakanda strategy's shortcut (a build never changes its valuation) picks what its definition picks."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heuristic import wakanda
from envs.games import make_game
from envs.wakanda.actions import decode


def by_definition(state) -> int:
    """The strategy as its docstring states it: every reply of the opponent played out and valued."""
    me = state.current_player
    legal = state.legal_tuple()
    if len(legal) == 1:
        return legal[0]
    position = wakanda._Position(state)
    best, best_value = legal[0], -float("inf")
    for action in legal:
        after = position.after(me, decode(action))
        replies = after.moves(1 - me)
        value = min((after.after(1 - me, r).value(me) for r in replies), default=after.value(me))
        if value > best_value:
            best, best_value = action, value
    return best


@pytest.mark.parametrize("advanced", [False, True])
def test_the_strategy_chooses_as_its_definition_in_every_position_of_many_games(advanced):
    """60 seeded games (half the moves the strategy's own, half random, so that odd positions
    come up too): in every position the fast policy and the definition choose the same move."""
    game = make_game("wakanda", advanced=advanced)
    positions = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        state = game.new_state(rng)
        while state.current_player is not None:
            chosen = wakanda.policy(state)
            assert chosen == by_definition(state), (seed, state.to_dict())
            positions += 1
            legal = state.legal_tuple()
            state.apply(chosen if rng.random() < 0.5 else legal[int(rng.integers(len(legal)))])
    assert positions > 1500


@pytest.mark.parametrize("advanced", [False, True])
def test_the_compiled_batch_strategy_chooses_as_the_strategy_in_loaded_positions(advanced):
    """The batch form (``wakanda_batch.py``, a compiled kernel) on positions copied into a batch from per-game
    states (``from_states``: every kept count derived afresh) picks ``policy``'s move in each, ties included;
    the positions come from 80 seeded games of strategy and random moves, at every stage of a game."""
    from envs.wakanda.batch import WakandaBatch

    game = make_game("wakanda", advanced=advanced)
    states = []
    for seed in range(80):
        rng = np.random.default_rng(seed)
        state = game.new_state(rng)
        while state.current_player is not None:
            if rng.random() < 0.3:
                states.append(state.clone())
            legal = state.legal_tuple()
            state.apply(wakanda.policy(state) if rng.random() < 0.5 else legal[int(rng.integers(len(legal)))])
        states.append(state)  # over: no move
    chosen = wakanda.batch_policy(WakandaBatch.from_states(states)).tolist()
    assert chosen == [-1 if s.current_player is None else wakanda.policy(s) for s in states]
    assert len(states) > 500
