"""The Samurai batch engine (``envs/samurai/batch.py``) plays exactly as the per-game engine, the batch
heuristic chooses exactly as the heuristic, and ISMCTS with batch rollouts searches exactly as it does
one by one.

The reference is :class:`~envs.core.batch.StateBatch` (the batch protocol over per-game states). The
default tests play a few hundred games per configuration; the full differential run (10,000 seeded games
per configuration, a few minutes each) is a command:
``PYTHONPATH=. python tests/test_samurai_batch.py --games 10000``.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.heuristic import samurai as heuristic
from agents.ismcts import ISMCTSAgent
from agents.protocol import PlayerView
from envs.core import IllegalActionError
from envs.core.batch import StateBatch, new_game
from envs.samurai import SamuraiGame
from envs.samurai.batch import BATCH_CLASS, SamuraiBatch
from envs.samurai.batch_deal import _one_by_one, dealt
from tests.conftest import assert_plays_out

CONFIGS = list(itertools.product((2, 3, 4), (False, True), ("random", "draft")))
IDS = [f"{n}p-choose={c}-{f}" for n, c, f in CONFIGS]


def random_moves(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (0 where none is legal)."""
    k = (rng.random(len(mask)) * mask.sum(axis=1)).astype(np.int64)
    return (np.cumsum(mask, axis=1) > k[:, None]).argmax(axis=1)


def assert_same(fast: SamuraiBatch, reference: StateBatch, observe: bool, states: bool) -> None:
    """Player to act, masks, rewards, scores and winners; observations of every seat and whole states
    when asked."""
    np.testing.assert_array_equal(fast.current_player, reference.current_player)
    np.testing.assert_array_equal(fast.legal_mask(), reference.legal_mask())
    np.testing.assert_array_equal(fast.rewards("win"), reference.rewards("win"))
    np.testing.assert_array_equal(fast.scores(), reference.scores())
    np.testing.assert_array_equal(fast.winners(), reference.winners())
    if observe:
        for seat in range(fast.game.num_players):
            players = np.full(len(fast), seat)
            np.testing.assert_array_equal(fast.observe(players), reference.observe(players))
        np.testing.assert_array_equal(fast.observe(), reference.observe())
    if states:
        for i in range(len(fast)):
            assert fast.state(i).to_dict() == reference.states[i].to_dict(), i


def differential(config: tuple, games: int, seed: int, observe_every: int = 1, batch: int = 500) -> int:
    """Play ``games`` seeded games of ``config`` through the batch and through per-game states with the
    same moves (random legal moves from a seeded generator in half the games, the batch heuristic's in
    the other half, and a few random moves among them), comparing everything after every step (the
    observations every ``observe_every`` steps, whole states at the start, every 25 steps and the end).
    Returns the number of steps compared."""
    game = SamuraiGame(*config)
    compared = 0
    for start in range(seed, seed + games, batch):
        size = min(batch, seed + games - start)
        fast, reference = SamuraiBatch(game, size, start), StateBatch(game, size, start)
        rng = np.random.default_rng(start)
        wild = rng.random(size) < 0.5  # these games play random moves; the others mostly the heuristic
        step = 0
        while not reference.terminated.all():
            assert_same(fast, reference, step % observe_every == 0, step % 25 == 0)
            wild_now = wild | (rng.random(size) < 0.05)
            moves = random_moves(fast.legal_mask(), rng)
            if not wild_now.all():
                moves = np.where(wild_now, moves, heuristic.batch_policy(fast))
            fast.step(moves)
            reference.step(moves)
            step += 1
            compared += size
        assert_same(fast, reference, True, True)
    return compared


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_seeded_games_play_alike_in_the_batch_and_on_the_engine(config):
    """Rules (docs/rules/samurai.md, every section: set-up, a turn, captures, the end, the winner): 6
    seeded games per configuration, random and heuristic moves, identical masks, observations, rewards,
    scores and states step by step in the batch and on the per-game engine."""
    differential(config, games=6, seed=1000 * CONFIGS.index(config), observe_every=6)


def test_game_i_of_a_batch_is_the_deal_of_seed_plus_i():
    """The batch contract: game i of a batch seeded s is ``new_game(game, s + i)``; the engine is
    BATCH_CLASS for the vector env."""
    assert BATCH_CLASS is SamuraiBatch
    game = SamuraiGame(3, True, "draft")
    batch = SamuraiBatch(game, 5, 42)
    assert batch.seeds.tolist() == [42, 43, 44, 45, 46]
    for i in range(5):
        assert batch.state(i).to_dict() == new_game(game, 42 + i).to_dict()


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_the_deal_over_arrays_of_seeds_is_the_engines_deal(config):
    """Set-up (docs/rules/samurai.md, "Set-up"): for many seeds at once the vectorised deal draws exactly the
    piles and figures that ``new_state``'s own code draws from each seed's generator."""
    game = SamuraiGame(*config)
    seeds = np.arange(300, dtype=np.int64) * 7919 + (2**33 if config[0] == 3 else 0)
    for mine, theirs in zip(dealt(game, seeds), _one_by_one(game, seeds.tolist())):
        np.testing.assert_array_equal(mine, theirs)


def test_a_large_batch_deals_and_deals_again_the_engines_games():
    """A batch of more games than the arrays' threshold: its first deals, and the next ones ``reset_done``
    makes ahead for the whole batch, are ``new_game``'s states of seeds s + i and s + i + N; the masks of some
    games (``legal_mask_where``) and a game's final observation read alone (``observe_rows``) are the batch's."""
    game, size = SamuraiGame(2, False, "random"), 70
    batch, rng = SamuraiBatch(game, size, 9), np.random.default_rng(0)
    assert [batch.state(i).to_dict() for i in (0, 69)] == [new_game(game, s).to_dict() for s in (9, 78)]
    while not batch.terminated.any():
        where = rng.random(size) < 0.3
        some = batch.legal_mask_where(where)  # computed for those games alone, before the whole mask
        np.testing.assert_array_equal(some, batch.legal_mask() & where[:, None])
        batch.step(random_moves(batch.legal_mask(), rng))
    ended = np.flatnonzero(batch.terminated)
    seats = rng.integers(0, 2, size)
    np.testing.assert_array_equal(batch.observe_rows(ended, seats), batch.observe(seats)[ended])
    assert batch.reset_done().tolist() == ended.tolist()
    for i in ended.tolist():
        assert batch.state(i).to_dict() == new_game(game, 9 + i + size).to_dict()


@pytest.mark.parametrize("config", [(2, False, "random"), (4, True, "draft")])
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_games_ending_at_different_steps_reset_in_place_as_the_engine_deals(config, data):
    """Property: games of different lengths, each reset in place whenever the test says (reset_done at
    random steps), stay the per-game engine's games of seeds s + i, s + i + N, ... at every step."""
    game = SamuraiGame(*config)
    size = data.draw(st.integers(1, 12), label="games")
    seed = data.draw(st.integers(0, 2**20), label="seed")
    fast, reference = SamuraiBatch(game, size, seed), StateBatch(game, size, seed)
    rng = np.random.default_rng(seed)
    for step in range(data.draw(st.integers(100, 300), label="steps")):
        if data.draw(st.booleans(), label=f"reset {step}"):
            np.testing.assert_array_equal(fast.reset_done(), reference.reset_done())
            np.testing.assert_array_equal(fast.seeds, reference.seeds)
        moves = random_moves(fast.legal_mask(), rng)
        fast.step(moves)
        reference.step(moves)
        assert_same(fast, reference, step % 50 == 0, step % 50 == 0)
    assert_same(fast, reference, True, True)


def test_an_illegal_action_is_refused_and_no_game_changes():
    game = SamuraiGame(3)
    batch = SamuraiBatch(game, 6, 0)
    for _ in range(7):  # into play, mid-turn in some games
        batch.step(heuristic.batch_policy(batch))
    before = [batch.state_dict(i) for i in range(6)]
    legal = heuristic.batch_policy(batch)
    illegal = int(np.flatnonzero(~batch.legal_mask()[2])[0])
    for bad in (illegal, -1, 294):
        actions = legal.copy()
        actions[2] = bad
        with pytest.raises(IllegalActionError, match="game 2"):
            batch.step(actions)
        assert [batch.state_dict(i) for i in range(6)] == before
    with pytest.raises(ValueError, match="actions must be 6 ints"):
        batch.step(legal.astype(float))
    with pytest.raises(ValueError, match="actions must be 6 ints"):
        batch.step(legal[:5])
    with pytest.raises(ValueError, match="players must be 6 ints"):
        batch.observe(np.zeros(6))
    with pytest.raises(ValueError, match=r"players must be seats in 0\.\.2"):
        batch.observe(np.full(6, 3))
    assert [batch.state_dict(i) for i in range(6)] == before


def test_from_states_holds_given_positions_without_seeds():
    game = SamuraiGame(2)
    states = [new_game(game, seed) for seed in range(3)]
    for _ in range(9):
        states[1].apply(heuristic.policy(states[1]))
    batch = SamuraiBatch.from_states(states)
    assert batch.seeds.tolist() == [-1, -1, -1]
    assert [batch.state(i).to_dict() for i in range(3)] == [s.to_dict() for s in states]
    while not batch.terminated.all():
        batch.step(heuristic.batch_policy(batch))
    with pytest.raises(ValueError, match="no seeds"):
        batch.reset_done()
    with pytest.raises(ValueError, match="non-empty list of SamuraiStates"):
        SamuraiBatch.from_states([])
    with pytest.raises(ValueError, match="one configuration"):
        SamuraiBatch.from_states([states[0], new_game(SamuraiGame(3), 0)])


def test_observations_never_depend_on_hidden_facts():
    """Information: other hands and every pile's order are re-dealt (``determinize``) in copies of
    positions; each player's observation of them is unchanged, and equals a fresh per-game observer's."""
    game = SamuraiGame(4, True, "random")
    positions = []
    for seed in range(12):
        state, rng = new_game(game, seed), np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 160))):
            if state.current_player is None:
                break
            state.apply(int(rng.choice(state.legal_actions())))
        positions.append(state)
    for seat in range(4):
        rng = np.random.default_rng(seat)
        redealt = [state.determinize(seat, rng) for state in positions]
        assert any(a.hands != b.hands for a, b in zip(positions, redealt))
        players = np.full(len(positions), seat)
        seen = SamuraiBatch.from_states(positions).observe(players)
        np.testing.assert_array_equal(SamuraiBatch.from_states(redealt).observe(players), seen)
        fresh = np.stack([game.observer().observe(state.clone(), seat) for state in positions])
        np.testing.assert_array_equal(seen, fresh)


@pytest.mark.parametrize("config", CONFIGS[::3], ids=IDS[::3])
def test_batch_heuristic_chooses_every_move_the_heuristic_chooses(config):
    """At every position of seeded games (the heuristic's own play, with one random move in five to
    reach odd positions: open figure swaps, picked tile swaps), the batch form picks the per-game
    heuristic's move, ties included."""
    game = SamuraiGame(*config)
    batch, reference = SamuraiBatch(game, 8, 7), StateBatch(game, 8, 7)
    rng = np.random.default_rng(7)
    while not reference.terminated.all():
        moves = heuristic.batch_policy(batch)
        expected = [-1 if s.current_player is None else heuristic.policy(s) for s in reference.states]
        assert moves.tolist() == expected
        moves = np.where(rng.random(len(batch)) < 0.2, random_moves(batch.legal_mask(), rng), moves)
        moves[batch.terminated] = 0
        batch.step(moves)
        reference.step(moves)


def test_play_out_plays_every_state_after_every_first_move():
    """Row i * moves + j is state i after move j, then the heuristic in every seat to the end; the
    given states are not changed."""
    game = SamuraiGame(3)
    state = new_game(game, 5)
    while len(state.legal_tuple()) < 3 or state.pending >= 0:
        state.apply(heuristic.policy(state))
    samples = [
        state.determinize(0 if state.current_player is None else state.current_player, np.random.default_rng(k))
        for k in range(2)
    ]
    first = list(state.legal_tuple())[:4]
    scores, winners = assert_plays_out(heuristic, samples, first)
    assert scores.shape == winners.shape == (len(samples) * len(first), 3)


def search_positions(game, games: int):
    """Positions with several legal moves from seeded heuristic games."""
    for seed in range(games):
        state = new_game(game, seed)
        while state.current_player is not None:
            if 2 < len(state.legal_tuple()) < 8:
                yield seed, state.clone()
            state.apply(heuristic.policy(state))


@pytest.mark.parametrize("num_players", [2])
def test_batch_search_finds_what_the_search_finds_one_by_one(num_players):
    """Samurai's flat paired ISMCTS with exact heuristic rollouts to the end: with batch rollouts the same
    samples, the same value of every move (to the last bit) and the same choice as one rollout at a time."""
    game = SamuraiGame(num_players)
    flat = dict(paired_root=True, tree_depth=1, rollout_depth=None, rollout_epsilon=0.0)
    positions = list(itertools.islice(search_positions(game, 3), 45, 76, 30))
    assert len(positions) == 2
    for seed, state in positions:
        one, many = (ISMCTSAgent(game, seed=seed, iterations=24, batch_rollouts=b, **flat) for b in (False, True))
        assert many._play_out is not None
        views = [PlayerView(state, np.random.default_rng(seed)) for _ in range(2)]
        assert one.action_values(views[0], 6) == many.action_values(views[1], 6)
        assert one.act(views[0]) == many.act(views[1])
        assert one.last_iterations == many.last_iterations


def main() -> None:
    """The full differential run: ``--games`` seeded games per configuration, every step compared."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--games", type=int, default=10_000, help="games per configuration")
    parser.add_argument("--observe-every", type=int, default=1, help="compare observations every k steps")
    args = parser.parse_args()
    for config in CONFIGS:
        start = time.perf_counter()
        steps = differential(
            config, args.games, seed=10**6 * (1 + CONFIGS.index(config)), observe_every=args.observe_every
        )
        print(
            f"{config}: {args.games} games, {steps} game-steps identical ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()


@pytest.mark.parametrize("num_players,choose_hand,figure_setup", CONFIGS, ids=IDS)
def test_one_position_loaded_field_by_field_and_the_compiled_policy_on_it(num_players, choose_hand, figure_setup):
    """``load_one`` (a search's single positions) fills row 0 exactly as ``_load`` does, in positions of every
    phase (seeded games, half the heuristic's moves, half random), and ``compiled_policy`` there is ``policy``."""
    from envs.samurai.batch_arrays import GAME_FIELDS

    game = SamuraiGame(num_players, choose_hand, figure_setup)
    one, many = None, None
    for seed in range(4):
        rng = np.random.default_rng(seed)
        state = new_game(game, seed)
        while state.current_player is not None:
            if one is None:
                one, many = SamuraiBatch.from_states([state]), SamuraiBatch.from_states([state])
            one.load_one(state)
            many._load(np.zeros(1, dtype=np.int64), [state])
            for name in GAME_FIELDS:
                assert np.array_equal(getattr(one, name), getattr(many, name)), name
            assert heuristic.compiled_policy(state) == heuristic.policy(state)
            legal = state.legal_actions()
            state.apply(heuristic.policy(state) if rng.random() < 0.5 else legal[int(rng.integers(len(legal)))])
