"""``BatchGames.deal`` (envs/core/batch.py), for every engine: given games start afresh from given seeds,
mid-batch, and everything after is the per-game engine's (training's dealer deals this way)."""

from __future__ import annotations

import numpy as np
import pytest
from test_batch_protocol import ENGINES, assert_agrees, make, random_legal

from envs.core.batch import new_game


@pytest.mark.parametrize("name,config,cls", ENGINES)
def test_dealt_games_are_their_seeds_deals_and_play_on_as_the_per_game_engine(name, config, cls):
    """Deal seeds into some games of a batch in play (one of them over, one mid-game): those are
    ``env().reset(seed)``'s deals, the others unchanged; then random play agrees game by game (the
    observations kept up to date included), and ``reset_done`` goes on N seeds after a dealt seed."""
    game, rng = make(name, config), np.random.default_rng(5)
    batch = cls(game, 4, 10)
    states = [new_game(game, 10 + i) for i in range(4)]
    batch.observe()  # an engine that keeps observations up to date does so from here on
    while not batch.terminated[1]:
        actions = random_legal(batch.legal_mask(), rng)
        batch.step(actions)
        for state, action in zip(states, actions):
            if state.current_player is not None:
                state.apply(int(action))
    seeds = [2**62 + 3, 77]
    batch.deal(np.array([1, 3]), np.array(seeds))
    states[1], states[3] = new_game(game, seeds[0]), new_game(game, seeds[1])
    assert batch.seeds[[1, 3]].tolist() == seeds
    assert [batch.state(i).to_dict() for i in range(4)] == [s.to_dict() for s in states]
    for _ in range(30):
        assert_agrees(batch, states)
        actions = random_legal(batch.legal_mask(), rng)
        batch.step(actions)
        for state, action in zip(states, actions):
            if state.current_player is not None:
                state.apply(int(action))
    while not batch.terminated[3]:
        batch.step(random_legal(batch.legal_mask(), rng))
    batch.reset_done()
    assert batch.seeds[3] == 77 + 4 and batch.state(3).to_dict() == new_game(game, 81).to_dict()


@pytest.mark.parametrize("name,config,cls", ENGINES[:: max(1, len(ENGINES) // 3)])
def test_bad_deals_are_refused_by_name_and_change_nothing(name, config, cls):
    game = make(name, config)
    batch = cls(game, 3, 0)
    before = [batch.state(i).to_dict() for i in range(3)]
    bad = [
        ([0, 3], [1, 2], "where must hold distinct game indices in 0..2"),
        ([1, 1], [1, 2], "where must hold distinct game indices"),
        ([-1], [1], "where must hold distinct game indices"),
        ([0, 1], [1], "seeds must be 2 ints"),
        ([0], [1.0], "seeds must be 1 ints"),
        ([0.0], [1], "where must be a vector of game indices"),
        ([0], [-5], "seeds must be non-negative"),
    ]
    for where, seeds, message in bad:
        with pytest.raises(ValueError, match=message):
            batch.deal(np.array(where), np.array(seeds))
    assert [batch.state(i).to_dict() for i in range(3)] == before
    batch.deal(np.array([], dtype=np.int64), np.array([], dtype=np.int64))  # nothing to deal
    assert batch.seeds.tolist() == [0, 1, 2]


def test_a_wapi_batch_of_positions_without_placements_deals_too():
    """A search's batch (``from_states(placements=False)``) records no placements, and a deal writes none."""
    from envs.wapi.batch import WapiBatch

    game = make("wapi", {"num_players": 3})
    batch = WapiBatch.from_states([new_game(game, 1), new_game(game, 2)], placements=False)
    batch.deal(np.array([1]), np.array([9]))
    assert batch.seeds.tolist() == [-1, 9]
    assert np.array_equal(
        batch.observe(), np.stack([new_game(game, 1).observation(0), new_game(game, 9).observation(0)])
    )
