"""The Wakanda batch (``envs/wakanda/batch.py``) plays exactly as the per-game engine, observes exactly as
its observer, its heuristic chooses exactly as the per-game heuristic, and ISMCTS with batch rollouts
searches exactly as it does one rollout at a time. The reference is :class:`StateBatch` (the batch protocol
over per-game states, each observed from scratch by a fresh observer)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.heuristic import batch_play_out_for
from agents.heuristic import wakanda as heuristic
from agents.ismcts import ISMCTSAgent
from agents.protocol import PlayerView
from envs.core.batch import StateBatch, new_game
from envs.core.engine import IllegalActionError
from envs.wakanda import WakandaGame, batch
from envs.wakanda.actions import NUM_ACTIONS, build_action, finish_action
from envs.wakanda.batch import WakandaBatch
from envs.wakanda.components import HEADDRESSES, PIECE_COUNTS
from tests.conftest import assert_plays_out

ADVANCED = [False, True]


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game (0 where none is legal)."""
    pick = (rng.random(len(mask)) * mask.sum(axis=1)).astype(np.int64)
    return (mask.cumsum(axis=1) > pick[:, None]).argmax(axis=1)


def mixed_moves(fast: WakandaBatch, rng: np.random.Generator, heuristic_share: float) -> np.ndarray:
    """The heuristic's move in about ``heuristic_share`` of the games, a random legal one in the others."""
    chosen = heuristic.batch_policy(fast)
    return np.where(rng.random(len(fast)) < heuristic_share, chosen, random_legal(fast.legal_mask(), rng))


class Followed:
    """Per-game observers as ``env()`` keeps them: one per game of a reference batch, following its state
    and told of every move (incremental, unlike the reference's own observer, which encodes from scratch)."""

    def __init__(self, reference: StateBatch):
        self.reference = reference
        self.observers = [reference.game.observer() for _ in reference.states]
        self.dealt(range(len(reference.states)))

    def dealt(self, rows) -> None:
        for i in rows:
            self.observers[i].follow(self.reference.states[i])

    def applied(self, actions: np.ndarray, moved: np.ndarray) -> None:
        for i in moved:
            self.observers[i].applied(self.reference.states[i], int(actions[i]))

    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        if players is None:
            players = np.maximum(self.reference.current_player, 0)
        states = self.reference.states
        return np.stack([observer.observe(s, int(p)) for observer, s, p in zip(self.observers, states, players)])


def assert_same(fast: WakandaBatch, reference: StateBatch, views, every_seat: bool) -> None:
    """Player to act, seeds, masks, the observation of the player to act as ``views`` shows it (with
    ``every_seat``, of each seat, and the scores): all identical."""
    assert np.array_equal(fast.current_player, reference.current_player)
    assert np.array_equal(fast.seeds, reference.seeds)
    assert np.array_equal(fast.legal_mask(), reference.legal_mask())
    assert np.array_equal(fast.observe(), views.observe())
    if every_seat:  # (the views show the scores exactly: every step compares them too)
        for seat in (0, 1):
            seats = np.full(len(fast), seat)
            assert np.array_equal(fast.observe(seats), views.observe(seats)), seat
        assert np.array_equal(fast.scores(), reference.scores())


def assert_same_ends(fast: WakandaBatch, reference: StateBatch, views) -> None:
    """Where games have ended: final scores, winners, both reward modes (the reference read from those
    games' states alone), and each seat's last view."""
    over = np.flatnonzero(fast.terminated)
    assert np.array_equal(fast.terminated, reference.terminated)
    states = [reference.states[i] for i in over]
    assert fast.scores()[over].tolist() == [state.scores() for state in states]
    assert [np.flatnonzero(won).tolist() for won in fast.winners()[over]] == [state.winners() for state in states]
    for mode in ("win", "score"):
        assert fast.rewards(mode)[over].tolist() == [state.rewards(mode) for state in states], mode
    for seat in (0, 1):
        seats = np.full(len(fast), seat)
        assert np.array_equal(fast.observe(seats)[over], views.observe(seats)[over]), seat


def play_both(advanced: bool, num_games: int, games: int, seed: int, every_seat: int, followed: bool) -> int:
    """``num_games`` seeded games at once in the batch and in per-game states, with the same moves (half
    heuristic, half random in each game on average), reset in place as they end, until ``games`` have
    ended. Every step is compared (every ``every_seat`` steps, each seat's view too), every end, and the
    state dicts of a few games now and then; the views against fresh observers encoding from scratch, or
    (``followed``) against observers following the games as ``env()``'s do. Returns how many games ended."""
    game = WakandaGame(advanced)
    fast, reference = WakandaBatch(game, num_games, seed), StateBatch(game, num_games, seed)
    views = Followed(reference) if followed else reference
    rng, ended, steps = np.random.default_rng(seed), 0, 0
    while ended < games:
        assert_same(fast, reference, views, steps % every_seat == 0)
        if steps % 9 == 0:
            for i in rng.choice(num_games, size=min(8, num_games), replace=False):
                assert fast.state(i).to_dict() == reference.state(i).to_dict()
        actions, moved = mixed_moves(fast, rng, 0.5), np.flatnonzero(~fast.terminated)
        fast.step(actions)
        reference.step(actions)
        if followed:
            views.applied(actions, moved)
        if fast.terminated.any():
            assert_same_ends(fast, reference, views)
        done = fast.reset_done()
        assert np.array_equal(done, reference.reset_done())
        if followed:
            views.dealt(done)
        ended, steps = ended + len(done), steps + 1
    return ended


@pytest.mark.parametrize("advanced", ADVANCED)
def test_seeded_games_in_the_batch_are_the_per_game_engines_games(advanced):
    """Rules (docs/rules/wakanda.md, "Turn", "End", "Scoring", "Information"): 500 seeded games per
    configuration, random and heuristic moves, stay identical to the per-game engine's at every step:
    masks, both seats' observations, scores, winners, rewards and state dicts; deals in place from seed s+i+N."""
    assert play_both(advanced, num_games=250, games=500, seed=17, every_seat=4, followed=False) >= 500


@pytest.mark.alone
@pytest.mark.parametrize("advanced", ADVANCED)
def test_ten_thousand_seeded_games_in_the_batch_are_the_per_game_engines_games(advanced):
    """The same as the test above on 10,000 games per configuration (the issue's count), in batches of
    2,500, the views compared with per-game observers that follow each game as env()'s do (the observation
    of the player to act at every step, of each seat every tenth step and at every end)."""
    assert play_both(advanced, num_games=2500, games=10_000, seed=1_000, every_seat=10, followed=True) >= 10_000


@pytest.mark.parametrize("advanced", ADVANCED)
@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    num_games=st.integers(1, 9),
    resets=st.lists(st.booleans(), min_size=40, max_size=120),
)
def test_games_that_end_at_different_steps_mix_with_resets_at_any_time(advanced, seed, num_games, resets):
    """A few games of random moves, reset only on the steps ``resets`` says (so a finished game may wait,
    ignoring whatever action it is given, its mask empty): the batch stays the reference at every step,
    and the pieces and headdresses are conserved (Components: 21 pieces, 3 headdresses each)."""
    game = WakandaGame(advanced)
    fast, reference = WakandaBatch(game, num_games, seed), StateBatch(game, num_games, seed)
    rng = np.random.default_rng(seed)
    for reset in resets:
        actions = random_legal(fast.legal_mask(), rng)
        actions[fast.terminated] = rng.integers(-5, 50, size=int(fast.terminated.sum()))  # ignored
        fast.step(actions)
        reference.step(actions)
        pieces = fast.bag_counts + fast.supplies.sum(axis=1) + fast.totem_counts.sum(axis=1)
        assert (pieces == PIECE_COUNTS).all()
        owned = (fast.owner[:, None, :] == np.arange(2)[:, None]).sum(axis=2)
        assert (fast.headdresses + owned == HEADDRESSES).all()
        assert not fast.legal_mask()[fast.terminated].any()
        if reset:
            assert np.array_equal(fast.reset_done(), reference.reset_done())
        assert_same(fast, reference, reference, every_seat=True)
        assert_same_ends(fast, reference, reference)
    for i in range(num_games):
        assert fast.state(i).to_dict() == reference.state(i).to_dict()


def test_observations_asked_for_mid_game_are_the_ones_kept_up_to_date():
    """A batch first observed after 15 steps (encoded from scratch then) and one observed from the start
    (kept up to date move by move) show the same, through more moves and new deals."""
    game = WakandaGame(True)
    early, late = WakandaBatch(game, 200, 3), WakandaBatch(game, 200, 3)
    rng = np.random.default_rng(3)
    for step in range(60):
        seen = early.observe(np.full(200, step % 2))
        if step >= 15:
            assert np.array_equal(late.observe(np.full(200, step % 2)), seen)
        actions = mixed_moves(early, rng, 0.5)
        early.step(actions)
        late.step(actions)
        early.reset_done()
        late.reset_done()


@pytest.mark.parametrize("advanced", ADVANCED)
def test_observations_never_depend_on_what_no_player_sees(advanced):
    """Information: the bag's order and (advanced) which kinds lie face down or in the box are hidden from
    both players. Positions re-dealt in what is hidden (fresh states, through state dicts) are observed
    alike by both seats in the batch, as a fresh per-game observer observes each; the heuristic's move is
    the same in all of them."""
    game = WakandaGame(advanced)
    positions = 0
    for seed in range(40):
        state = new_game(game, seed)
        rng = np.random.default_rng(seed)
        while state.current_player is not None:
            if rng.random() < 0.2:
                twins = [state] + [state.determinize(0, np.random.default_rng(k)) for k in range(6)]
                twins = [game.state_from_dict(twin.to_dict()) for twin in twins]
                fast = WakandaBatch.from_states(twins)
                for seat in (0, 1):
                    seen = fast.observe(np.full(len(twins), seat))
                    assert (seen == seen[0]).all()
                    assert np.array_equal(seen[0], game.observer().observe(twins[-1], seat))
                assert len(set(heuristic.batch_policy(fast).tolist())) == 1
                positions += 1
            state.apply(heuristic.policy(state))
    assert positions > 100


def test_an_illegal_action_is_refused_and_no_game_changes():
    """Turn: build only a piece of your supply on an open village; finish only an open totem with a piece,
    with a headdress left. Each breach (and an action outside 0..41, or a float) raises naming the game, and
    no game of the batch changes; a finished game's entry is ignored."""
    game = WakandaGame()
    fast = WakandaBatch(game, 6, 40)
    arrays = [name for name, value in vars(fast).items() if isinstance(value, np.ndarray) and name[0] != "_"]
    before = {name: getattr(fast, name).copy() for name in arrays}
    legal = random_legal(fast.legal_mask(), np.random.default_rng(0))
    missing = int(np.flatnonzero(fast.supplies[2, 0] == 0)[0])
    for bad in (NUM_ACTIONS, -1, build_action(missing, 0), build_action(int(fast.bag[2, 0]), 4), finish_action(0)):
        actions = legal.copy()
        actions[2] = bad
        with pytest.raises(IllegalActionError, match="game 2"):
            fast.step(actions)
        for name in arrays:
            assert np.array_equal(getattr(fast, name), before[name]), name
    with pytest.raises(ValueError, match="actions must be 6 ints"):
        fast.step(legal.astype(float))
    with pytest.raises(ValueError, match="actions must be 6 ints"):
        fast.step(legal[:5])
    while not fast.terminated[0]:
        fast.step(heuristic.batch_policy(fast))
    finished = fast.state(0).to_dict()
    fast.step(np.where(fast.terminated, 99, heuristic.batch_policy(fast)))
    assert fast.state(0).to_dict() == finished


def test_bad_arguments_are_refused_by_name():
    for bad in (0, -3, 2.0, True):
        with pytest.raises(ValueError, match="num_games"):
            WakandaBatch(WakandaGame(), bad, 0)
    for bad in (-1, 1.5, np.int64(3)):
        with pytest.raises(ValueError, match="seed"):
            WakandaBatch(WakandaGame(), 4, bad)
    with pytest.raises(ValueError, match="game must be a WakandaGame"):
        WakandaBatch("wakanda", 4, 0)
    with pytest.raises(ValueError, match="states must be a non-empty list"):
        WakandaBatch.from_states([])
    with pytest.raises(ValueError, match="one configuration"):
        WakandaBatch.from_states([new_game(WakandaGame(False), 0), new_game(WakandaGame(True), 0)])
    fast = WakandaBatch(WakandaGame(), 3, 0)
    for bad in (np.array([0, 1, 2]), np.array([0.0, 1.0, 0.0]), np.array([0, 1])):
        with pytest.raises(ValueError, match="players must be 3 seats"):
            fast.observe(bad)
    assert batch.BATCH_CLASS is WakandaBatch


def test_from_states_plays_given_positions_and_deals_none():
    """A batch of given positions (copied: the states are not changed) is those positions, has no seeds,
    plays them out and refuses to deal; so does a batch repeating each game of another."""
    game = WakandaGame(True)
    states = []
    for seed in range(12):
        state, rng = new_game(game, seed), np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 30))):
            if state.current_player is not None:
                state.apply(heuristic.policy(state))
        states.append(state)
    before = [state.to_dict() for state in states]
    fast = WakandaBatch.from_states(states)
    assert (fast.seeds == -1).all()
    assert [fast.state(i).to_dict() for i in range(len(states))] == before
    while not fast.terminated.all():
        fast.step(heuristic.batch_policy(fast))
    assert [state.to_dict() for state in states] == before
    with pytest.raises(ValueError, match="no seeds"):
        fast.reset_done()
    twice = WakandaBatch(game, 3, 0).repeat(2)
    assert (twice.seeds == -1).all() and len(twice) == 6
    assert [twice.state(i).to_dict() for i in range(6)] == [new_game(game, i // 2).to_dict() for i in range(6)]


@pytest.mark.parametrize("advanced", ADVANCED)
def test_batch_heuristic_chooses_every_move_the_heuristic_chooses(advanced):
    """200 games per configuration, moves half the heuristic's and half random (odd positions too): at
    every position the batch form picks the per-game policy's move, ties included."""
    game = WakandaGame(advanced)
    fast, reference = WakandaBatch(game, 200, 5), StateBatch(game, 200, 5)
    rng, positions = np.random.default_rng(5), 0
    while not fast.terminated.all():
        moves = heuristic.batch_policy(fast)
        for i, state in enumerate(reference.states):
            if state.current_player is not None:
                assert moves[i] == heuristic.policy(state), state.to_dict()
                positions += 1
        actions = np.where(rng.random(200) < 0.5, moves, random_legal(fast.legal_mask(), rng))
        fast.step(actions)
        reference.step(actions)
    assert (heuristic.batch_policy(fast) == -1).all()
    assert positions > 4000


def test_play_out_plays_every_state_after_every_first_move():
    """Row i * moves + j is state i after move j, then the heuristic in both seats to the end; states untouched."""
    game = WakandaGame(True)
    state = new_game(game, 8)
    while len(state.legal_tuple()) < 6:
        state.apply(heuristic.policy(state))
    samples = [state.determinize(state.current_player, np.random.default_rng(k)) for k in range(3)]
    first = list(state.legal_tuple())
    assert batch_play_out_for(game) is heuristic.play_out
    assert_plays_out(heuristic, samples, first)


def search_positions(game: WakandaGame, seeds: range):
    """Positions of choice (several legal moves) in seeded heuristic games."""
    for seed in seeds:
        state = new_game(game, seed)
        while state.current_player is not None:
            if len(state.legal_tuple()) > 1:
                yield seed, state.clone()
            state.apply(heuristic.policy(state))


@pytest.mark.parametrize("advanced", ADVANCED)
def test_batch_search_finds_what_the_search_finds_one_by_one(advanced):
    """Wakanda's flat paired ISMCTS with exact heuristic rollouts: with batch rollouts, the same samples,
    the same value of every move (to the last bit) and the same choice as one rollout at a time."""
    game = WakandaGame(advanced)
    options = dict(paired_root=True, tree_depth=1, rollout_epsilon=0.0, iterations=60)
    for seed, state in itertools.islice(search_positions(game, range(1)), 2, None, 9):
        one, many = (ISMCTSAgent(game, seed=seed, batch_rollouts=b, **options) for b in (False, True))
        assert one._play_out is None and many._play_out is heuristic.play_out
        views = [PlayerView(state, np.random.default_rng(seed)) for _ in range(2)]
        assert one.action_values(views[0], 12) == many.action_values(views[1], 12)
        assert one.act(views[0]) == many.act(views[1])
        assert one.last_iterations == many.last_iterations


@pytest.mark.parametrize("advanced", ADVANCED)
def test_some_games_move_while_the_others_wait(advanced):
    """step_where (the vector env's opponents' pass): only the games ``where`` move, exactly as the reference's
    do; ``legal_mask_where`` is the mask in those games alone; an illegal action among them raises naming the
    game and changes nothing, while any entry outside them is ignored."""
    game = WakandaGame(advanced)
    fast, reference = WakandaBatch(game, 40, 9), StateBatch(game, 40, 9)
    rng = np.random.default_rng(9)
    for _ in range(120):
        where = rng.random(40) < 0.5
        assert np.array_equal(fast.legal_mask_where(where), fast.legal_mask() & where[:, None])
        actions = np.where(where, mixed_moves(fast, rng, 0.5), -7)
        if where.any() and rng.random() < 0.2:
            bad = actions.copy()
            row = int(np.flatnonzero(where & ~fast.terminated)[0]) if (where & ~fast.terminated).any() else None
            if row is not None:
                bad[row] = NUM_ACTIONS
                before = fast.state(row).to_dict()
                with pytest.raises(IllegalActionError, match=f"game {row}"):
                    fast.step_where(bad, where)
                assert fast.state(row).to_dict() == before
        fast.step_where(actions, where)
        reference.step_where(actions, where)
        assert_same(fast, reference, reference, every_seat=True)
        assert np.array_equal(fast.reset_done(), reference.reset_done())


def test_observing_some_rows_is_observing_all_then_taking_them():
    """observe_rows (the vector env's last views of ended games) gathers those rows alone, the same floats;
    bad seats are refused by name there too."""
    fast = WakandaBatch(WakandaGame(True), 30, 2)
    rng = np.random.default_rng(2)
    for _ in range(25):
        players, rows = rng.integers(0, 2, size=30), np.flatnonzero(rng.random(30) < 0.3)
        assert np.array_equal(fast.observe_rows(rows, players), fast.observe(players)[rows])
        assert np.array_equal(fast.observe_rows(rows), fast.observe()[rows])
        fast.step(mixed_moves(fast, rng, 0.5))
        fast.reset_done()
    with pytest.raises(ValueError, match="players must be 30 seats"):
        fast.observe_rows(np.arange(3), np.full(30, 2))
