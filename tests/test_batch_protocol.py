"""The batch protocol (``envs/core/batch.py``) as every engine keeps it: the reference ``StateBatch``
and each game's fast engine (``batch_class``: it joins these tests when its module sets ``BATCH_CLASS``),
checked against the per-game engine, game by game, position by position."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import config_id, game_configs

import envs
from envs.core.batch import BatchGames, StateBatch, batch_class, batch_games, new_game
from envs.core.engine import IllegalActionError
from envs.core.uniform import kth_legal

CONFIGS = game_configs()
#: Every configuration with each engine it has: the reference, and the fast one where the game has one.
ENGINES = [
    pytest.param(name, config, cls, id=f"{config_id(name, config)}-{cls.__name__}")
    for name, config in CONFIGS
    for cls in dict.fromkeys((StateBatch, batch_class(envs.describe(name).make(**config))))
]


def make(name: str, config: dict):
    return envs.describe(name).make(**config)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per row of ``mask`` (0 where none is legal)."""
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


def assert_agrees(batch: BatchGames, states: list, observe_all: bool = False) -> None:
    """Every game of ``batch`` is its per-game state: player to act, mask, the observation of the player
    to act (of every seat with ``observe_all``, or where a game is over), scores, winners, both reward modes."""
    game = batch.game
    players = np.array([-1 if s.current_player is None else s.current_player for s in states])
    assert batch.current_player.tolist() == players.tolist()
    assert batch.terminated.tolist() == (players == -1).tolist()
    mask = batch.legal_mask()
    assert mask.dtype == bool and mask.shape == (len(states), game.num_actions)
    assert mask.astype(np.int8).tolist() == [s.legal_mask().tolist() for s in states]
    observed = batch.observe()
    assert observed.dtype == np.float32 and observed.shape == (len(states), game.observation_size)
    assert np.array_equal(observed, np.stack([s.observation(max(int(p), 0)) for s, p in zip(states, players)]))
    if observe_all or (players == -1).any():
        for seat in range(game.num_players):
            seats = np.full(len(states), seat)
            expected = np.stack([s.observation(seat) for s in states])
            assert np.array_equal(batch.observe(seats), expected), seat
    assert batch.scores().tolist() == [s.scores() for s in states]
    winners = batch.winners()
    assert [np.flatnonzero(row).tolist() for row in winners] == [s.winners() for s in states]
    for mode in game.reward_modes:
        expected = [s.rewards(mode) if s.current_player is None else [0.0] * game.num_players for s in states]
        assert np.array_equal(batch.rewards(mode), np.array(expected, dtype=np.float32)), mode


def play_alongside(cls, game, num_games: int, seed: int, games: int, observe_all: bool = False) -> int:
    """Play ``cls(game, num_games, seed)`` and the per-game games of the same seeds with the same random
    moves, a random part of the games waiting in each step (``step_where``), until ``games`` have ended;
    compare everything after every step, and the deals ``reset_done`` makes. Returns the games ended."""
    rng = np.random.default_rng(seed)
    batch = cls(game, num_games, seed)
    states = [new_game(game, seed + i) for i in range(num_games)]
    ended = 0
    while ended < games:
        assert_agrees(batch, states, observe_all)
        actions = random_legal(batch.legal_mask(), rng)
        where = rng.random(num_games) < 0.9
        batch.step_where(actions, where)
        for i in np.flatnonzero(where):
            if states[i].current_player is not None:
                states[i].apply(int(actions[i]))
        assert_agrees(batch, states, observe_all)
        dealt = batch.reset_done()
        assert dealt.tolist() == [i for i, s in enumerate(states) if s.current_player is None]
        for i in dealt:
            states[i] = new_game(game, seed + int(i) + num_games * (int(batch.seeds[i] - seed - i) // num_games))
            assert batch.seeds[i] == seed + i + num_games * ((batch.seeds[i] - seed - i) // num_games)
        ended += len(dealt)
    return ended


@pytest.mark.parametrize("name,config,cls", ENGINES)
def test_engine_plays_every_game_as_the_per_game_engine(name, config, cls):
    """Games of random moves, a tenth of them waiting in each step, dealt anew as they end: every mask,
    observation (every seat's once a game ends), score, winner and reward is the per-game engine's."""
    ended = play_alongside(cls, make(name, config), num_games=12, seed=100, games=24)
    assert ended >= 24


@pytest.mark.parametrize("name,config,cls", ENGINES[:: max(1, len(ENGINES) // 6)])
def test_every_seat_observes_as_in_the_per_game_engine(name, config, cls):
    play_alongside(cls, make(name, config), num_games=4, seed=7, games=4, observe_all=True)


@pytest.mark.parametrize("name,config,cls", ENGINES)
def test_game_i_has_seed_s_plus_i_and_its_next_game_s_plus_i_plus_n(name, config, cls):
    """The contract's seeds: game i of a batch seeded s is ``env().reset(seed=s + i)``'s deal; once it ends,
    ``reset_done`` deals it seed s + i + N (every game ended together here: all dealt at once)."""
    game, rng = make(name, config), np.random.default_rng(0)
    batch = cls(game, 3, 40)
    assert batch.seeds.tolist() == [40, 41, 42]
    assert [batch.state(i).to_dict() for i in range(3)] == [new_game(game, 40 + i).to_dict() for i in range(3)]
    while not batch.terminated.all():
        batch.step(random_legal(batch.legal_mask(), rng))
    assert batch.reset_done().tolist() == [0, 1, 2]
    assert batch.seeds.tolist() == [43, 44, 45]
    assert [batch.state(i).to_dict() for i in range(3)] == [new_game(game, 43 + i).to_dict() for i in range(3)]
    assert batch.reset_done().size == 0, "nothing is dealt while every game is going"


@pytest.mark.parametrize("name,config,cls", ENGINES)
def test_an_illegal_action_raises_and_changes_no_game(name, config, cls):
    game, rng = make(name, config), np.random.default_rng(1)
    batch = cls(game, 5, 3)
    for _ in range(3):
        batch.step(random_legal(batch.legal_mask(), rng))
    before = [batch.state(i).to_dict() for i in range(5)]
    mask = batch.legal_mask()
    illegal = [a for a in range(game.num_actions) if not mask[2, a]]
    for bad in [-1, game.num_actions, *illegal[:2]]:
        actions = random_legal(mask, rng)
        actions[2] = bad
        with pytest.raises(IllegalActionError, match=f"action {bad} is not legal in game 2"):
            batch.step(actions)
        with pytest.raises(IllegalActionError, match="in game 2"):
            batch.step_where(actions, np.arange(5) >= 1)
        assert [batch.state(i).to_dict() for i in range(5)] == before
    waiting = np.arange(5) != 2
    batch.step_where(actions, waiting)  # game 2 waits: its entry is not read
    assert batch.state(2).to_dict() == before[2]
    for bad_actions in (actions.astype(float), actions[:4], actions.astype(bool)):
        with pytest.raises(ValueError, match="actions must be 5 ints"):
            batch.step(bad_actions)
    with pytest.raises(ValueError, match="where must be 5 bools"):
        batch.step_where(actions, waiting.astype(int))


@pytest.mark.parametrize("name,config,cls", ENGINES)
def test_a_finished_game_stays_finished_until_reset_done(name, config, cls):
    game, rng = make(name, config), np.random.default_rng(2)
    batch = cls(game, 4, 9)
    while not batch.terminated.any():
        batch.step(random_legal(batch.legal_mask(), rng))
    done = np.flatnonzero(batch.terminated)
    finished = {int(i): batch.state(int(i)).to_dict() for i in done}
    rewards = batch.rewards("win")[done]
    for _ in range(5):
        actions = random_legal(batch.legal_mask(), rng)
        actions[done] = -1  # ignored where a game is over
        batch.step(actions)
        assert batch.terminated[done].all() and (batch.current_player[done] == -1).all()
        assert not batch.legal_mask()[done].any()
        assert np.array_equal(batch.rewards("win")[done], rewards)
        assert {i: batch.state(i).to_dict() for i in finished} == finished
    assert set(done) <= set(batch.reset_done().tolist())
    assert not batch.terminated[done].any()


@pytest.mark.parametrize("name,config,cls", ENGINES[:: max(1, len(ENGINES) // 6)])
def test_from_states_plays_given_positions_and_deals_none(name, config, cls):
    game, rng = make(name, config), np.random.default_rng(4)
    states = [new_game(game, 60 + i) for i in range(4)]
    for k, state in enumerate(states):
        for _ in range(k):
            state.apply(int(rng.choice(state.legal_actions())))
    before = [s.to_dict() for s in states]
    batch = cls.from_states(states)
    assert batch.seeds.tolist() == [-1] * 4
    assert [batch.state(i).to_dict() for i in range(4)] == before
    while not batch.terminated.all():
        batch.step(random_legal(batch.legal_mask(), rng))
    assert [s.to_dict() for s in states] == before, "from_states copies: the given states never change"
    with pytest.raises(ValueError, match="made from_states"):
        batch.reset_done()


@pytest.mark.parametrize("name,config,cls", ENGINES)
def test_play_kth_legal_plays_what_the_mask_the_choice_and_step_where_play(name, config, cls):
    """An engine's random move in one call (``play_kth_legal``, fused in Samurai's) is the k-th legal action of
    the mask of the games moving, played by ``step_where``: two batches, one each way, stay the same game for
    game, through games that end (their entries ignored) and are dealt anew."""
    game, rng = make(name, config), np.random.default_rng(5)
    fused, reference = cls(game, 6, 11), cls(game, 6, 11)
    for _ in range(60):
        where, draws = rng.random(6) < 0.7, rng.random(6)
        fused.play_kth_legal(where, draws)
        reference.step_where(kth_legal(np.ascontiguousarray(reference.legal_mask_where(where)), draws), where)
        assert [fused.state(i).to_dict() for i in range(6)] == [reference.state(i).to_dict() for i in range(6)]
        assert np.array_equal(fused.legal_mask(), reference.legal_mask())
        assert fused.reset_done().tolist() == reference.reset_done().tolist()
    with pytest.raises(ValueError, match="draws must be 6 float64s"):
        fused.play_kth_legal(where, draws[:5])


@pytest.mark.parametrize("name,config,cls", ENGINES)
def test_play_random_opponents_plays_the_passes_of_play_kth_legal(name, config, cls):
    """An engine's random opponents in one call (Samurai's: every pass in one kernel, drawing from the same
    generator) play what the protocol's pass-by-pass loop plays, and leave the generator where it does."""
    game = make(name, config)
    fused, reference = cls(game, 6, 21), cls(game, 6, 21)
    rngs, seats = [np.random.default_rng(6), np.random.default_rng(6)], np.arange(6) % game.num_players
    for _ in range(20):
        fused.play_random_opponents(seats, rngs[0])
        BatchGames.play_random_opponents(reference, seats, rngs[1])
        assert [fused.state(i).to_dict() for i in range(6)] == [reference.state(i).to_dict() for i in range(6)]
        assert rngs[0].random() == rngs[1].random()
        going = ~fused.terminated
        assert (fused.current_player[going] == seats[going]).all()
        draws = rngs[0].random(6)
        rngs[1].random(6)
        fused.play_kth_legal(going, draws)  # the learner's move
        reference.play_kth_legal(going, draws)
        assert fused.reset_done().tolist() == reference.reset_done().tolist()


def test_bad_batch_arguments_are_refused_by_name():
    game = make("wapi", {})
    for bad in (0, -2, 1.0, True, np.int64(3)):
        with pytest.raises(ValueError, match="num_games must be a positive int"):
            batch_games(game, bad, 0)
    for bad in (-1, 2.0, None, np.int64(3)):
        with pytest.raises(ValueError, match="seed must be a non-negative int"):
            StateBatch(game, 2, bad)


def test_batch_games_is_the_fast_engine_where_a_game_has_one():
    """``batch_games`` gives ``BATCH_CLASS`` of ``envs/<game>/batch.py`` (Wapi's WapiBatch), else StateBatch."""
    from envs.wapi.batch import WapiBatch

    assert type(batch_games(make("wapi", {}), 2, 0)) is WapiBatch
    for name in envs.GAMES:
        game = make(name, {})
        try:
            module = __import__(f"envs.{name}.batch", fromlist=["BATCH_CLASS"])
        except ModuleNotFoundError:
            module = None
        expected = getattr(module, "BATCH_CLASS", StateBatch)
        assert type(batch_games(game, 2, 0)) is expected, name


def test_many_seeds_get_the_generators_np_random_gives_them():
    """envs.core.seeding (the batch engines' deals): every seed's generator state, and its draws, are
    gymnasium's ``np_random(seed)``'s, for small and huge seeds, one at a time or many together."""
    from gymnasium.utils import seeding as gym_seeding

    from envs.core.seeding import pcg64_states, seeded

    rng = np.random.default_rng(0)
    seeds = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64, 2**96 + 7, 2**200 + 1]
    seeds += [int(s) for s in rng.integers(0, 2**62, 500)] + list(range(2, 300))
    expected = [gym_seeding.np_random(seed)[0] for seed in seeds]
    assert pcg64_states(seeds) == [generator.bit_generator.state for generator in expected]
    assert pcg64_states(seeds[3:4]) == [expected[3].bit_generator.state]
    for few in (seeds, seeds[:3], seeds[3:8]):  # many seeds: hashed together; a few: numpy's own seeding
        for generator, reference in zip(seeded(few), [gym_seeding.np_random(seed)[0] for seed in few], strict=True):
            assert generator.permutation(75).tolist() == reference.permutation(75).tolist()
            assert generator.random() == reference.random()
