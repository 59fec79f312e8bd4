"""The Wapi batch (``envs/wapi/batch.py``) plays exactly as the engine, the batch heuristic chooses
exactly as the heuristic, and ISMCTS with batch rollouts searches exactly as it does one by one."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from agents.heuristic import wapi as heuristic
from agents.ismcts import ISMCTSAgent
from agents.protocol import PlayerView
from envs.core import IllegalActionError
from envs.core.batch import new_game
from envs.samurai import SamuraiGame
from envs.wapi import WapiGame
from envs.wapi.batch import WapiBatch
from tests.conftest import assert_plays_out, config_id

CONFIGS = list(itertools.product((2, 3, 4, 5), ("full", "shared")))


def batch_facts(batch: WapiBatch, column: int) -> dict:
    """What one column of the batch says of its position, in the engine's terms."""
    going = not batch.terminated[column]
    return {
        "player": int(batch.player[column]) if going else None,
        "drawn": int(batch.drawn[column]) if going else None,
        "bag": [int(t) for t in batch.bag[column, batch.taken[column] :] if t >= 0],
        "bag_counts": batch.bag_counts[:, column].astype(int).tolist(),
        "coins": batch.coins[:, column].astype(int).tolist(),
        "silver": batch.silver[:, column].astype(int).tolist(),
        "masks": batch.masks[:, column].astype(int).tolist(),
        "poles": batch.poles[:, :, column].astype(int).tolist(),
        "totems_left": batch.totems_left[:, column].astype(int).tolist(),
        "coins_placed": int(batch.coins_placed[column]),
    }


def state_facts(state) -> dict:
    players = state.game.num_players
    return {
        "player": state.current_player,
        "drawn": state.drawn,
        "bag": list(state.bag),
        "bag_counts": list(state.bag_counts),
        "coins": [len(coins) for coins in state.silver],
        "silver": [sum(coins) for coins in state.silver],
        "masks": list(state.masks),
        "poles": [[poles.count(p) for poles in state.totems] for p in range(players)],
        "totems_left": list(state.totems_left),
        "coins_placed": state.coins_placed,
    }


def assert_same(batch: WapiBatch, states: list) -> None:
    """Every column is its state: facts, legal mask, and once over, scores and winners."""
    mask = batch.legal_mask()
    units, unit = batch.score_units()
    for column, state in enumerate(states):
        assert batch_facts(batch, column) == state_facts(state), column
        assert mask[column].astype(np.int8).tolist() == state.legal_mask().tolist(), column
        assert (units[:, column].tolist(), unit) == state.score_units(), column
        assert batch.scores()[column].tolist() == state.scores()
        assert np.flatnonzero(batch.winners()[column]).tolist() == state.winners()


@pytest.mark.parametrize("num_players,scoring", CONFIGS)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_in_a_batch_follow_the_rules_of_the_engine(num_players, scoring, seed):
    """Rules (docs/rules/wapi.md, "A turn", "The end", "Scoring"): 40 seeded games of random legal
    moves played on the engine and in one batch stay identical position by position to the end."""
    game = WapiGame(num_players, scoring)
    states = [game.new_state(np.random.default_rng([seed, k])) for k in range(40)]
    batch = WapiBatch.from_states(states)
    choose = random.Random(seed).choice
    while not batch.terminated.all():
        assert_same(batch, states)
        actions = np.full(len(states), -1)
        for column, state in enumerate(states):
            if state.current_player is not None:
                actions[column] = choose(state.legal_actions())
                state.apply(int(actions[column]))
        batch.step(actions)
    assert_same(batch, states)
    assert all(state.current_player is None for state in states)


@pytest.mark.parametrize("num_players,scoring", CONFIGS)
def test_batch_heuristic_chooses_every_move_the_heuristic_chooses(num_players, scoring):
    """200 heuristic games per configuration: at every position of every game, the batch form of the
    strategy picks the scalar form's move (ties included), and the games end alike."""
    game = WapiGame(num_players, scoring)
    states = [game.new_state(np.random.default_rng(seed)) for seed in range(200)]
    batch = WapiBatch.from_states(states)
    while not batch.terminated.all():
        moves = heuristic.batch_policy(batch)
        for column, state in enumerate(states):
            if state.current_player is None:
                assert moves[column] == -1
            else:
                assert moves[column] == heuristic.policy(state), (column, state.to_dict())
                state.apply(int(moves[column]))
        batch.step(moves)
    assert_same(batch, states)


@pytest.mark.parametrize("coins", [{0: 6, 1: 6, 2: 6, 3: 6, 5: 6}, {1: 30}, {0: 100, 5: 60}])
def test_batch_plays_bags_of_other_coins_as_the_engine(coins):
    """Rules ("What is on the table": the ``coins`` option): bags of other splits and sizes, random
    and heuristic moves alike, stay identical in the batch and on the engine."""
    game = WapiGame(3, "full", coins=coins)
    states = [game.new_state(np.random.default_rng(seed)) for seed in range(30)]
    batch, choose = WapiBatch.from_states(states), random.Random(len(coins)).choice
    while not batch.terminated.all():
        assert_same(batch, states)
        moves = heuristic.batch_policy(batch)
        for column, state in enumerate(states):
            if state.current_player is not None:
                assert moves[column] == heuristic.policy(state)
                moves[column] = choose(state.legal_actions()) if column % 2 else moves[column]
                state.apply(int(moves[column]))
        batch.step(moves)
    assert_same(batch, states)


def test_batch_heuristic_agrees_off_its_own_play():
    """Positions that random moves lead to (odd pole placements, full mines, no poles left), with one
    player to act in all of them and with each its own: the batch form still picks the heuristic's move
    in every one of them."""
    game = WapiGame(4, "full")
    positions = []
    for seed in range(60):
        state, choose = game.new_state(np.random.default_rng(seed)), random.Random(seed).choice
        while state.current_player is not None:
            positions.append(state.clone())
            state.apply(choose(state.legal_actions()))
    seat_0 = [state for state in positions if state.current_player == 0]
    for chosen in (seat_0, positions):
        moves = heuristic.batch_policy(WapiBatch.from_states(chosen))
        assert moves.tolist() == [heuristic.policy(state) for state in chosen]


def test_play_out_plays_every_state_after_every_first_move():
    """Row i * moves + j is state i after move j, then the heuristic to the end; states untouched."""
    game = WapiGame(4, "full")
    state = game.new_state(np.random.default_rng(5))
    while len(state.legal_tuple()) < 3:
        state.apply(heuristic.policy(state))
    samples = [state.determinize(0, np.random.default_rng(k)) for k in range(3)]
    first = list(state.legal_tuple())
    assert_plays_out(heuristic, samples, first)


def test_an_illegal_action_is_refused_and_no_position_changes():
    game = WapiGame(3, "full")
    states = [game.new_state(np.random.default_rng(seed)) for seed in range(6)]
    batch = WapiBatch.from_states(states)
    legal = heuristic.batch_policy(batch)
    before = [batch_facts(batch, column) for column in range(len(batch))]
    for bad in (8, -1, 6 if states[2].drawn < 5 else 0, 2**40):
        actions = legal.copy()
        actions[2] = bad
        with pytest.raises(IllegalActionError, match=rf"action {bad} is not legal in game 2"):
            batch.step(actions)
        assert [batch_facts(batch, column) for column in range(len(batch))] == before
    for dtype, bad in ((np.uint64, 2**64 - 1), (np.uint64, 2**63 + 6), (np.int8, -128), (np.int32, 2**31 - 1)):
        actions = legal.astype(dtype)  # ints of any width: no action wraps to a legal one
        actions[2] = bad
        with pytest.raises(IllegalActionError, match=rf"action {bad} is not legal in game 2"):
            batch.step_where(actions, np.ones(6, dtype=bool))
        assert [batch_facts(batch, column) for column in range(len(batch))] == before
    with pytest.raises(ValueError, match=r"actions must be 6 ints, got float64 of shape \(6,\)"):
        batch.step(legal.astype(float))
    with pytest.raises(ValueError, match=r"shape \(5,\)"):
        batch.step(legal[:5])


def test_a_batch_of_positions_with_shorter_bags_deals_whole_bags():
    """``from_states`` of positions in play holds their bags as left (shorter than a deal's): a deal into it
    is the seed's whole game all the same, and plays on as the engine's."""
    game = WapiGame(4, "shared")
    states = [new_game(game, seed) for seed in (1, 2)]
    for state, moves in zip(states, (9, 3)):
        for _ in range(moves):
            state.apply(heuristic.policy(state))
    batch = WapiBatch.from_states(states)
    assert batch.bag.shape == (2, len(game.tiles) - 4)
    batch.deal(np.array([0, 1]), np.array([5, 6]))
    dealt = [new_game(game, 5), new_game(game, 6)]
    assert [batch.state(i).to_dict() for i in range(2)] == [s.to_dict() for s in dealt]
    while not batch.terminated.all():
        moves = heuristic.batch_policy(batch)
        batch.step(moves)
        for state, move in zip(dealt, moves):
            if state.current_player is not None:
                state.apply(int(move))
        assert_same(batch, dealt)


def test_from_states_refuses_what_one_batch_cannot_hold():
    game = WapiGame(4, "full")
    first = game.new_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="a non-empty list of WapiStates"):
        WapiBatch.from_states([])
    with pytest.raises(ValueError, match="one configuration"):
        WapiBatch.from_states([first, WapiGame(4, "shared").new_state(np.random.default_rng(0))])


def test_finished_positions_stay_as_they_are():
    """A column whose game is over ignores its action entry while the others play on."""
    game = WapiGame(4, "full")
    done = game.new_state(np.random.default_rng(1))
    while done.current_player is not None:
        done.apply(heuristic.policy(done))
    going = game.new_state(np.random.default_rng(2))
    while going.current_player != 0:
        going.apply(heuristic.policy(going))
    batch = WapiBatch.from_states([done, going])
    finished = batch_facts(batch, 0)
    while not batch.terminated.all():
        batch.step(heuristic.batch_policy(batch))
        assert batch_facts(batch, 0) == finished
    assert (batch.current_player == -1).all() and not batch.legal_mask().any()


def search_positions(game, games: int):
    """The heuristic's positions of choice in seeded games (several legal moves)."""
    for seed in range(games):
        state = game.new_state(np.random.default_rng(seed))
        while state.current_player is not None:
            if len(state.legal_tuple()) > 1:
                yield seed, state.clone()
            state.apply(heuristic.policy(state))


@pytest.mark.parametrize("num_players,scoring", [(4, "full"), (3, "shared"), (5, "full"), (2, "full")])
def test_batch_search_finds_what_the_search_finds_one_by_one(num_players, scoring):
    """Wapi's flat paired ISMCTS with batch rollouts: the same samples, the same value of every move
    (to the last bit) and the same choice as one rollout at a time, on an iteration budget."""
    game = WapiGame(num_players, scoring)
    for seed, state in itertools.islice(search_positions(game, 2), 0, None, 3):
        one, many = (ISMCTSAgent(game, seed=seed, iterations=90, batch_rollouts=b) for b in (False, True))
        views = [PlayerView(state, np.random.default_rng(seed)) for _ in range(2)]
        assert one.action_values(views[0], 12) == many.action_values(views[1], 12)
        assert one.act(views[0]) == many.act(views[1])
        assert one.last_iterations == many.last_iterations


def test_batch_rollouts_are_the_wapi_default_and_refused_where_they_cannot_apply():
    wapi = WapiGame(4, "full")
    assert ISMCTSAgent(wapi)._play_out is not None, "Wapi's default search plays its rollouts in batches"
    assert ISMCTSAgent(wapi, tree_depth=None)._play_out is None, "a tree search rolls out one by one"
    for refused in ({"tree_depth": None}, {"rollout_epsilon": 0.1}, {"rollout": "random"}):
        with pytest.raises(ValueError, match="batch_rollouts=True needs"):
            ISMCTSAgent(wapi, batch_rollouts=True, **refused)
    with pytest.raises(ValueError, match="batch_rollouts=True needs"):  # Samurai's search values its leaves
        ISMCTSAgent(SamuraiGame(), batch_rollouts=True, paired_root=True, tree_depth=1, rollout_epsilon=0.0)
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match="batch_rollouts must be 'auto', True or False"):
            ISMCTSAgent(wapi, batch_rollouts=bad)


@pytest.mark.alone  # it asserts CPU time
def test_a_batch_search_on_a_time_budget_sizes_its_batches_to_the_time_left():
    """On a CPU-time budget the batches are sized from the last one's pace: the search runs more
    than its first small batch, and stops near its budget (loosely: the budget is CPU time)."""
    import gc
    import time

    from agents.ismcts import FIRST_BATCH

    game = WapiGame(4, "full")
    _, state = next(search_positions(game, 1))
    search = ISMCTSAgent(game, seed=0, time_limit=0.3)
    view = PlayerView(state, np.random.default_rng(0))
    gc.collect()
    gc.freeze()  # the collector's passes over earlier tests' objects are not the search's time
    try:
        for _ in range(2):  # the second move starts from the first one's pace
            start = time.process_time()
            search.act(view)
            spent = time.process_time() - start
            assert search.last_iterations > FIRST_BATCH * len(view.legal_actions)
            assert spent < 3 * 0.3, spent  # loosely: a busy sibling core's caches can double a CPU second
    finally:
        gc.unfreeze()


# --- the differential test: the batch engine against the per-game engine, game for game ---------------
def differential(game, num_games: int, games: int, seed: int) -> int:
    """Seeded games of random moves in a :class:`WapiBatch` of ``num_games`` (a tenth waiting each step,
    dealt anew as they end) and on per-game states followed by their own observers, as ``env()`` keeps
    them: after every step every player to act, mask and observation; as each game ends its final scores,
    winners, both reward modes and every seat's observation; then the deal of the next. Returns the games ended."""
    rng = np.random.default_rng(seed)
    batch = WapiBatch(game, num_games, seed)
    states = [new_game(game, seed + i) for i in range(num_games)]
    observers = [game.observer() for _ in states]
    for state, observer in zip(states, observers):
        observer.follow(state)
    ended = 0
    while ended < games:
        players = [-1 if s.current_player is None else s.current_player for s in states]
        assert batch.current_player.tolist() == players
        where = rng.random(num_games) < 0.9
        some = batch.legal_mask_where(where)  # an opponents' pass: the games where only
        mask = batch.legal_mask()
        assert np.array_equal(mask, np.stack([s.legal_mask() for s in states]).astype(bool))
        assert np.array_equal(some, mask & where[:, None])
        seen = [o.observe(s, max(p, 0)) for s, o, p in zip(states, observers, players)]
        assert np.array_equal(batch.observe(), np.stack(seen))
        rows = np.flatnonzero(where)
        assert np.array_equal(batch.observe_rows(rows), np.stack(seen)[rows])
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        batch.step_where(actions, where)
        for i in np.flatnonzero(where & (np.array(players) >= 0)):
            states[i].apply(int(actions[i]))
            observers[i].applied(states[i], int(actions[i]))
        done = np.flatnonzero(batch.terminated)
        assert done.tolist() == [i for i, s in enumerate(states) if s.current_player is None]
        if done.size:
            assert batch.scores()[done].tolist() == [states[i].scores() for i in done]
            assert [np.flatnonzero(w).tolist() for w in batch.winners()[done]] == [states[i].winners() for i in done]
            for mode in game.reward_modes:
                expected = np.array([states[i].rewards(mode) for i in done], dtype=np.float32)
                assert np.array_equal(batch.rewards(mode)[done], expected)
            for seat in range(game.num_players):
                seen = np.stack([observers[i].observe(states[i], seat) for i in done])
                assert np.array_equal(batch.observe(np.full(num_games, seat))[done], seen)
        assert batch.reset_done().tolist() == done.tolist()
        for i in done:
            states[i] = new_game(game, int(batch.seeds[i]))
            observers[i].follow(states[i])
        ended += done.size
    return ended


WAPI_CONFIGS = [pytest.param(config, id=config_id("wapi", config)) for config in envs.describe("wapi").configurations()]


@pytest.mark.parametrize("config", WAPI_CONFIGS)
def test_batch_engine_plays_seeded_games_as_the_engine(config):
    """The differential test, short: 600 seeded games per configuration (the full count below)."""
    assert differential(WapiGame(**config), num_games=200, games=600, seed=1) >= 600


@pytest.mark.alone
@pytest.mark.parametrize("config", WAPI_CONFIGS)
def test_batch_engine_plays_ten_thousand_seeded_games_as_the_engine(config):
    """The differential test, full: at least 10,000 seeded games per configuration."""
    assert differential(WapiGame(**config), num_games=1000, games=10_000, seed=2) >= 10_000


def test_repeat_copies_every_game_and_plays_each_copy_alike():
    """``repeat(k)``: game c's copies at c*k ...; each copy shows, and plays on, as its original."""
    batch, rng = WapiBatch(WapiGame(3, "shared"), 4, 8), np.random.default_rng(0)
    for _ in range(7):
        batch.step(np.where(batch.legal_mask(), rng.random((4, 8)), -1).argmax(axis=1))
    copies = batch.repeat(3)
    assert len(copies) == 12 and copies.seeds.tolist() == [-1] * 12
    for field in ("legal_mask", "observe", "scores"):
        assert np.array_equal(getattr(copies, field)(), np.repeat(getattr(batch, field)(), 3, axis=0)), field
    assert [copies.state(i).to_dict() for i in range(12)] == [batch.state(i // 3).to_dict() for i in range(12)]
    while not batch.terminated.all():
        moves = heuristic.batch_policy(batch)
        batch.step(moves)
        copies.step(np.repeat(moves, 3))
    assert np.array_equal(copies.scores(), np.repeat(batch.scores(), 3, axis=0))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("scoring", ["full", "shared"])
def test_the_compiled_play_out_plays_the_per_game_strategy_at_every_stage(players, scoring):
    """``play_out`` (a compiled kernel, ``wapi_play_out.py``) from positions at every stage of seeded games of
    random moves, each after every legal first move: the per-game strategy's scores and winners, ties included."""
    game = WapiGame(players, scoring)
    for seed in range(8):
        rng = np.random.default_rng(seed)
        state = game.new_state(rng)
        for _ in range(int(rng.integers(0, 60))):
            if state.current_player is None:
                break
            legal = state.legal_tuple()
            state.apply(legal[int(rng.integers(len(legal)))])
        if state.current_player is not None:
            samples = [state.determinize(0, np.random.default_rng(seed * 10 + k)) for k in range(3)]
            assert_plays_out(heuristic, samples, list(state.legal_tuple()))


@pytest.mark.parametrize("players", [2, 4])
def test_determinizations_at_once_are_the_determinizations_one_by_one(players):
    """``WapiBatch.determinizations``: the batch ``from_states`` makes of ``count`` determinizations drawn one by
    one, every array equal, and the generator left where those draws leave it."""
    game = WapiGame(players, "shared")
    state = game.new_state(np.random.default_rng(players))
    for _ in range(9):
        state.apply(heuristic.policy(state))
    one, many = np.random.default_rng(7), np.random.default_rng(7)
    expected = WapiBatch.from_states([state.determinize(1, one) for _ in range(5)], placements=False)
    batch = WapiBatch.determinizations(state, 1, many, 5)
    for name in ("player", "taken", "bag", "drawn", "bag_counts", "coins", "silver", "masks", "poles", "totems_left"):
        assert np.array_equal(getattr(batch, name), getattr(expected, name)), name
    assert one.integers(1 << 30) == many.integers(1 << 30)
