"""``envs.<game>_v0.vector_env`` (a Gymnasium VectorEnv of the learner's seat) and the self-play
``BatchEnv``: Gymnasium's own checks where they apply, and game for game against ``env()`` on the
same seeds (the learner's observations, masks and rewards; the opponents' moves replayed)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from conftest import config_id, game_configs
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.utils.passive_env_checker import (
    _check_box_observation_space,
    check_obs,
    check_space,
    env_reset_passive_checker,
)
from gymnasium.vector import AutoresetMode
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from envs.core.batch import batch_games, new_game
from envs.core.engine import IllegalActionError
from envs.core.opponents import kth_legal, random_moves
from envs.core.vector import BatchEnv, GameVectorEnv

SAME, NEXT = AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP
CONFIGS = [pytest.param(name, config, id=config_id(name, config)) for name, config in game_configs()]
GAMES = [pytest.param(name, {}, id=name) for name in envs.GAMES]


def vector_env(name: str, num_envs: int, **options) -> GameVectorEnv:
    return importlib.import_module(f"envs.{name}_v0").vector_env(num_envs, **options)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


class Recorder:
    """A batch opponent that plays ``opponent`` and notes each game slot's moves in order."""

    def __init__(self, opponent, num_envs: int):
        self.opponent, self.moves = opponent, [[] for _ in range(num_envs)]

    def __call__(self, batch, where, rng):
        actions = np.asarray(self.opponent(batch, where, rng))
        for i in np.flatnonzero(where):
            self.moves[i].append(int(actions[i]))
        return actions


def record(name: str, config: dict, opponent, num_envs: int, steps: int, seed: int, reward="win", autoreset=SAME):
    """Play random learner moves in a vector env for ``steps`` steps and on until every slot has finished a
    game; per slot: the learner's views (observation, mask) and moves, each finished game's final
    observation, reward and learner's score, and the opponents' moves. Under next-step autoreset the step
    that ends a game shows its last observation, and the next step's action (ignored) deals the next game."""
    recorder = Recorder(opponent, num_envs)
    venv = vector_env(name, num_envs, opponents=recorder, seed=seed, reward=reward, autoreset_mode=autoreset, **config)
    obs, infos = venv.reset()
    views = [[(obs[i], infos["action_mask"][i])] for i in range(num_envs)]
    learner, finals = [[] for _ in range(num_envs)], [[] for _ in range(num_envs)]
    rng, ended, step = np.random.default_rng(seed), np.zeros(num_envs, dtype=bool), 0
    while step < steps or not all(finals):
        step += 1
        assert np.array_equal(venv.action_masks(), infos["action_mask"])
        actions = random_legal(infos["action_mask"], rng)
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert not truncated.any() and (rewards[~terminated] == 0).all()
        assert infos["_action_mask"].all() and infos["_seat"].all()
        for i in range(num_envs):
            if not ended[i]:
                learner[i].append(int(actions[i]))
            if terminated[i] and autoreset == SAME:
                assert infos["_final_obs"][i] and infos["_final_info"][i] and infos["final_info"]["_score"][i]
                finals[i].append((infos["final_obs"][i], rewards[i], infos["final_info"]["score"][i]))
            elif terminated[i]:
                assert infos["_score"][i] and infos["action_mask"][i].all(), "any action: it is ignored"
                finals[i].append((obs[i], rewards[i], infos["score"][i]))
            if not (terminated[i] and autoreset == NEXT):
                views[i].append((obs[i], infos["action_mask"][i]))
        ended = terminated if autoreset == NEXT else ended
        assert "final_obs" not in infos or autoreset == SAME
    return views, learner, finals, recorder.moves


def replay(name: str, config: dict, slot: int, num_envs: int, seed: int, record_of_slot, reward: str, check=None):
    """Replay one slot's finished games in ``env()`` and compare the learner's every view and reward."""
    views, learner, finals, opponents = record_of_slot
    views, learner, opponents = iter(views), iter(learner), iter(opponents)
    module = importlib.import_module(f"envs.{name}_v0")
    env = module.env(reward=reward, **config)
    num_players = envs.describe(name).make(**config).num_players
    for k, (final_obs, final_reward, final_score) in enumerate(finals):
        game_seed = seed + slot + k * num_envs
        env.reset(seed=game_seed)
        me = f"player_{game_seed % num_players}"
        for agent in env.agent_iter():
            observation, reward_now, terminated, truncated, info = env.last()
            if terminated or truncated:
                if agent == me:
                    assert np.array_equal(observation["observation"], final_obs)
                    assert np.float32(reward_now) == final_reward
                    assert info["score"] == final_score
                env.step(None)
                continue
            if agent == me:
                seen, mask = next(views)
                assert np.array_equal(observation["observation"], seen)
                assert np.array_equal(observation["action_mask"].astype(bool), mask)
                action = next(learner)
            else:
                action = next(opponents)
                if check is not None:
                    check(env, action)
                assert observation["action_mask"][action], "the opponents play legal moves"
            env.step(action)
    return len(finals)


#: Every configuration under same-step autoreset, each game's default one under next-step autoreset too.
AUTORESETS = [pytest.param(*p.values, SAME, id=p.id) for p in CONFIGS] + [
    pytest.param(*p.values, NEXT, id=f"{p.id}-next-step") for p in GAMES
]


@pytest.mark.parametrize("name,config,autoreset", AUTORESETS)
def test_the_learner_sees_and_earns_what_env_shows_on_the_same_seeds(name, config, autoreset):
    """Every learner observation, mask and final reward (and the last observation and score of each
    game, where the autoreset mode puts them) is env()'s for the game of that seed, the learner in seat
    seed % players, the opponents' moves replayed; games end at different steps and are dealt anew in place."""
    modes = envs.describe(name).game_class.reward_modes
    num_envs, seed, reward = 5, 30, modes[len(config) % len(modes)]
    records = record(name, config, random_moves, num_envs, steps=40, seed=seed, reward=reward, autoreset=autoreset)
    games = sum(
        replay(name, config, slot, num_envs, seed, [r[slot] for r in records], reward) for slot in range(num_envs)
    )
    assert games >= num_envs


@pytest.mark.parametrize("name", ["wapi", "wakanda", "samurai"])
def test_heuristic_opponents_play_the_heuristics_moves_batched(name):
    """Heuristic opponents move through the game's batch heuristic (over the games where it is their turn):
    every move is the per-game heuristic's in that position of env()'s game (its strategy reads only what
    its player may see)."""
    from agents.heuristic import heuristic_module
    from agents.opponents import batch_opponent

    game = envs.describe(name).make()
    heuristic = heuristic_module(game)
    records = record(name, {}, batch_opponent("heuristic", game), 4, steps=40, seed=5)

    def same_as_heuristic(env, action):
        assert action == heuristic.policy(env.unwrapped.game_state)

    for slot in range(4):
        replay(name, {}, slot, 4, 5, [r[slot] for r in records], "win", check=same_as_heuristic)


@pytest.mark.parametrize("name", ["wapi", "wakanda", "samurai"])
def test_the_batch_heuristic_over_some_games_is_its_move_there(name):
    """``batch_policy(batch, where)`` (the opponents' pass): the heuristic's move in the games ``where`` (the
    same as over the whole batch), -1 in the others; at every step of seeded games."""
    from agents.heuristic import heuristic_module

    game = envs.describe(name).make()
    batch_policy = heuristic_module(game).batch_policy
    batch, rng = batch_games(game, 16, 3), np.random.default_rng(3)
    while not batch.terminated.all():
        where = rng.random(16) < 0.5
        everywhere = batch_policy(batch)
        np.testing.assert_array_equal(batch_policy(batch, where), np.where(where & ~batch.terminated, everywhere, -1))
        batch.step(np.maximum(everywhere, 0))


@pytest.mark.parametrize("name,config", GAMES)
def test_heuristic_opponents_play_every_game(name, config):
    """Heuristic opponents (batched where the game's heuristic plays batches, else game by game on a
    determinization) play legal moves that env() accepts, game after game."""
    from agents.opponents import batch_opponent

    game = envs.describe(name).make()
    records = record(name, config, batch_opponent("heuristic", game), 3, steps=25, seed=8)
    for slot in range(3):
        replay(name, config, slot, 3, 8, [r[slot] for r in records], "win")


@pytest.mark.parametrize("name,config", GAMES)
def test_gymnasium_checks_spaces_resets_and_determinism(name, config):
    venv = vector_env(name, 4, seed=3)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert isinstance(venv, gymnasium.vector.VectorEnv) and venv.num_envs == 4
    game = envs.describe(name).make()
    assert venv.single_observation_space.shape == (game.observation_size,)
    assert venv.single_action_space == gymnasium.spaces.Discrete(game.num_actions)
    assert venv.action_space == gymnasium.spaces.MultiDiscrete([game.num_actions] * 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every complaint of Gymnasium's checker fails the test
        for space in (venv.observation_space, venv.single_observation_space):
            check_space(space, "observation", _check_box_observation_space)
        first, infos = env_reset_passive_checker(venv, seed=11)
        rng = np.random.default_rng(0)
        for _ in range(30):
            obs, rewards, terminated, truncated, infos = venv.step(random_legal(venv.action_masks(), rng))
            check_obs(obs, venv.observation_space, "step")
            for row in obs:
                check_obs(row, venv.single_observation_space, "step")
            assert rewards.shape == terminated.shape == truncated.shape == (4,)
    again, infos_again = venv.reset(seed=11)
    assert data_equivalence(first, again, exact=True), "the same seed, the same games"
    assert data_equivalence(infos, infos) and np.array_equal(
        infos_again["seat"], (11 + np.arange(4)) % game.num_players
    )
    other, _ = venv.reset(seed=12)
    assert not np.array_equal(other, first), "another seed, other games"


def test_seats_rotate_with_the_seed_or_stay_fixed():
    venv = vector_env("wapi", 8, seed=0)
    _, infos = venv.reset()
    assert infos["seat"].tolist() == [i % 4 for i in range(8)]
    _, infos = vector_env("wapi", 8, seed=0, seat=2).reset()
    assert infos["seat"].tolist() == [2] * 8
    _, infos = venv.reset()  # a reset without a seed deals the next games: seeds 8..15
    assert venv.batch.seeds.tolist() == list(range(8, 16))


@pytest.mark.parametrize("autoreset", [SAME, NEXT])
def test_dealt_opponents_move_in_their_own_games_and_the_last_info_names_them(autoreset):
    """With ``deal``, every game gets its opponent when it is dealt (resets and autoresets alike); each
    opponent is asked only for its own games, and a game's last info names the opponent that played it."""
    asked = []

    def moves(batch, where, rng):  # a dealt opponent: asked only for the games it was dealt
        me = next(o for o in venv.dealt[where])
        assert all(o is me for o in venv.dealt[where]) and (venv.dealt[~where] != None).all()  # noqa: E711
        asked.append(me)
        return random_moves(batch, where, rng)

    a, b, dealt = lambda *args: moves(*args), lambda *args: moves(*args), []

    def deal(games, rng):
        dealt.append(games.tolist())
        return [a if rng.random() < 0.5 else b for _ in games]

    venv = vector_env("wapi", 6, deal=deal, seed=3, autoreset_mode=autoreset)
    _, infos = venv.reset()
    assert dealt == [list(range(6))]
    rng, ended = np.random.default_rng(0), 0
    for _ in range(80):
        before = venv.dealt.copy()
        _, _, terminated, _, infos = venv.step(random_legal(infos["action_mask"], rng))
        final = infos.get("final_info", {}) if autoreset == SAME else infos
        for i in np.flatnonzero(terminated).tolist():
            assert final["opponent"][i] is before[i] and final["_opponent"][i]
            assert final["winners"][i].any() and final["_winners"][i]
            ended += 1
    assert {id(o) for o in asked} == {id(a), id(b)} and ended > 5 and len(dealt) > 1
    with pytest.raises(ValueError, match="deal must be a callable"):
        vector_env("wapi", 2, deal=deal, opponents=a)


def test_an_illegal_learner_action_raises_and_changes_nothing():
    venv = vector_env("wapi", 3, seed=1)
    obs, infos = venv.reset()
    before = [venv.batch.state(i).to_dict() for i in range(3)]
    actions = random_legal(infos["action_mask"], np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~infos["action_mask"][1])[0])
    with pytest.raises(IllegalActionError, match="in game 1"):
        venv.step(actions)
    assert [venv.batch.state(i).to_dict() for i in range(3)] == before


def test_bad_arguments_are_refused_by_name():
    for bad, match in [
        ({"reward": "points"}, "reward must be one of"),
        ({"seat": 4}, "seat must be None"),
        ({"seat": 1.0}, "seat must be None"),
        ({"opponents": "ismcts"}, "opponents must be one of"),
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"num_players": 7}, "num_players must be one of"),
        ({"colour": "red"}, "wapi has no options"),
    ]:
        with pytest.raises(ValueError, match=match):
            vector_env("wapi", 2, **bad)
    for bad in (0, 2.0, True):
        with pytest.raises(ValueError, match="num_games must be a positive int"):
            vector_env("wapi", bad)
    with pytest.raises(ValueError, match="options must be None"):
        vector_env("wapi", 2).reset(options={"seat": 1})
    with pytest.raises(RuntimeError, match="reset"):
        vector_env("wapi", 2).step(np.zeros(2, dtype=int))


@pytest.mark.parametrize("name,config", GAMES)
def test_self_play_batch_env_gives_every_seat_its_per_game_reward(name, config):
    """BatchEnv: the player to act, observation and mask of every game are the per-game state's;
    when a game ends, every seat's reward is the per-game reward, and its next game is dealt at once."""
    game = envs.describe(name).make()
    mode = game.reward_modes[-1]
    batch_env, rng = BatchEnv(game, 4, seed=20, reward=mode), np.random.default_rng(3)
    obs, masks, players = batch_env.reset()
    states, ended = [new_game(game, 20 + i) for i in range(4)], 0
    while ended < 6:
        assert players.tolist() == [s.current_player for s in states]
        assert np.array_equal(obs, np.stack([s.observation(s.current_player) for s in states]))
        assert np.array_equal(masks, np.stack([s.legal_mask() for s in states]).astype(bool))
        actions = random_legal(masks, rng)
        obs, masks, players, rewards, terminated, infos = batch_env.step(actions)
        for i, state in enumerate(states):
            state.apply(int(actions[i]))
            if terminated[i]:
                assert rewards[i].tolist() == np.float32(state.rewards(mode)).tolist()
                assert infos["final_scores"][i].tolist() == state.scores()
                states[i] = new_game(game, int(batch_env.batch.seeds[i]))
                ended += 1
            else:
                assert not rewards[i].any() and state.current_player is not None


def test_envs_imports_no_agents():
    """envs knows nothing of the agents: making and stepping a vector env imports no agent module, nor does
    listing the opponents installed packages name or refusing a name none offers; a player comes in as a callable
    or by an entry point's name (tests/test_trained_opponent.py), loaded only when named."""
    code = (
        "import sys, numpy as np, envs.wapi_v0 as w\n"
        "from envs.core.opponents import opponent_names\n"
        "v = w.vector_env(2, seed=0); v.reset(); v.step(v.action_masks().argmax(1))\n"
        "assert 'random' in opponent_names()\n"
        "try:\n    w.vector_env(2, opponents='grandmaster', seed=0)\nexcept ValueError as e:\n"
        "    assert 'drawluck.opponents entry points' in str(e)\nelse:\n    raise AssertionError('accepted')\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'agents'], 'agents imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_ppo_example_trains_evaluates_logs_and_saves_a_playable_agent(monkeypatch, tmp_path):
    """examples/ppo_batch.py (docs/batch.md's PPO loop) runs a tiny training end to end: every step is a
    learner step, games end with env()'s win rewards, the run is named game__algo__seed__time; each evaluation
    gives win rates against random and heuristic opponents inside their intervals; TensorBoard's event file
    is written; the saved model plays as an agent (built as benchmarks.rate builds a user's agent), its
    greedy legal move; CleanRL's switches turn off by name."""
    import importlib.util
    from pathlib import Path

    from agents.protocol import PlayerView
    from benchmarks.core.user_agents import build

    path = Path(__file__).parent.parent / "examples" / "ppo_batch.py"
    spec = importlib.util.spec_from_file_location("ppo_batch", path)
    example = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "ppo_batch", example)  # dataclasses look their module up there
    spec.loader.exec_module(example)
    small = ["--total-timesteps", "512", "--num-envs", "32", "--num-steps", "8", "--update-epochs", "1"]
    switches = ["--no-norm-adv", "--no-clip-vloss", "--no-anneal-lr"]
    assert not any(vars(example.parse_args(switches))[k] for k in ("norm_adv", "clip_vloss", "anneal_lr"))
    evaluation = ["--eval-every", "1", "--eval-games", "12", "--out", str(tmp_path)]
    run = example.main([*small, "--game", "wapi", "--opponents", "random", *evaluation])
    assert run["steps"] == 512 and run["games"] > 0 and set(run["rewards"]) <= {-1.0, 0.0, 1.0}
    assert run["run_name"].startswith("wapi__ppo_batch__1__")
    assert [e["opponent"] for e in run["evaluations"]] == ["random", "heuristic"] * 2
    assert all(0 <= e["low"] <= e["win_rate"] <= e["high"] <= 1 and e["games"] == 12 for e in run["evaluations"])
    assert list((tmp_path / run["run_name"]).glob("events.out.tfevents.*"))
    player = build("examples/ppo_batch.py:BatchPPOAgent", envs.describe("wapi").make(), 0, {"model": run["model"]})
    state = new_game(envs.describe("wapi").make(), 3)
    view = PlayerView(state, np.random.default_rng(0))
    player.reset()  # the agent protocol's call before each game
    move = player.act(view)
    assert move in view.legal_actions


def test_the_python_blocks_of_docs_batch_md_run():
    """docs/batch.md's examples run as they are (its ```python blocks; the ```text excerpt is not code)."""
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "batch.md").read_text()
    blocks = [block.split("```")[0] for block in text.split("```python\n")[1:]]
    assert len(blocks) == 4
    for block in blocks:
        exec(compile(block, "docs/batch.md", "exec"), {})


def test_an_engine_that_cannot_let_games_wait_is_replaced_by_state_batch_with_a_warning(monkeypatch):
    """The vector env needs step_where; a fast engine without it (yet) is not used: StateBatch is, and a
    warning says so (the protocol tests fail for such an engine, so it gets one)."""
    import envs.core.vector as vector
    from envs.core.batch import BatchGames, StateBatch

    class NoWaiting(StateBatch):
        step_where = BatchGames.step_where

    monkeypatch.setattr(vector, "batch_class", lambda game: NoWaiting)
    with pytest.warns(UserWarning, match="NoWaiting has no step_where yet: the vector env plays wapi on StateBatch"):
        venv = vector_env("wapi", 2, seed=0)
    venv.reset()
    assert type(venv.batch) is StateBatch
    monkeypatch.setattr(vector, "batch_class", lambda game: StateBatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert vector.waiting_engine(envs.describe("wapi").make()) is StateBatch


def test_gymnasium_vector_wrappers_see_each_games_return():
    """Gymnasium's RecordEpisodeStatistics on the vector env: each ended game's return is its final reward.
    (Its lengths count a game's first step only when it follows a reset() - its bookkeeping is next-step
    autoreset's - so they are not checked here.)"""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    venv = RecordEpisodeStatistics(vector_env("wapi", 3, seed=1))
    venv.reset(seed=2)
    ended = 0
    while ended < 6:
        _, rewards, terminated, _, infos = venv.step(venv.env.action_masks().argmax(axis=1))
        if terminated.any():
            assert infos["episode"]["r"][terminated].tolist() == rewards[terminated].tolist()
            ended += int(terminated.sum())


@pytest.mark.parametrize("name,config", CONFIGS)
def test_random_opponents_play_as_random_moves_called_as_any_opponent(name, config):
    """``opponents="random"`` moves by the engine's ``play_kth_legal`` (one call a pass); an opponent that calls
    ``random_moves`` goes through the mask and ``step_where``: the same draws, so the same games, step by step."""
    fused = vector_env(name, 5, seed=8, **config)
    called = vector_env(name, 5, seed=8, opponents=lambda *args: random_moves(*args), **config)
    (seen, infos), (expected, expected_infos) = fused.reset(), called.reset()
    rng, ended = np.random.default_rng(8), 0
    while ended < 8:
        assert np.array_equal(seen, expected) and np.array_equal(infos["action_mask"], expected_infos["action_mask"])
        actions = random_legal(infos["action_mask"], rng)
        seen, rewards, terminated, _, infos = fused.step(actions)
        expected, expected_rewards, expected_terminated, _, expected_infos = called.step(actions)
        assert np.array_equal(rewards, expected_rewards) and np.array_equal(terminated, expected_terminated)
        ended += int(terminated.sum())


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(1, 60), st.floats(0.0, 0.5), st.integers(0, 2**32 - 1))
def test_random_opponents_pick_the_kth_legal_action_for_k_uniform(games, actions, density, seed):
    """The random opponent's move in a game is its k-th legal action (in action order), k = floor(draw * legal
    count), and 0 where nothing is legal: the compiled pick equals that definition on generated masks."""
    rng = np.random.default_rng(seed)
    mask = rng.random((games, actions)) < density
    draws = rng.random(games)
    expected = [int(np.flatnonzero(row)[int(draw * row.sum())]) if row.any() else 0 for row, draw in zip(mask, draws)]
    assert kth_legal(mask, draws).tolist() == expected


def test_a_kernel_whose_cache_cannot_be_written_still_compiles_and_runs():
    """``envs.core.compiled.kernel`` where numba has no cache folder it may write (here a function without a
    source file; a sealed agent's host, running as ``nobody`` in a read-only tree, is the case in use): the
    kernel compiles in memory at its first call and computes what the function does."""
    from envs.core.compiled import kernel

    namespace: dict = {}
    exec(compile("def twice(x):\n    return 2 * x\n", "<no source file>", "exec"), namespace)
    assert kernel(namespace["twice"])(21) == 42


def test_a_cached_kernel_is_stamped_with_every_kernel_file():
    """A kernel's machine code holds the kernels it calls from other files (Wakanda's rollout calls the rules, the
    heuristic and the dice): its cache is checked against a hash of every kernel file, not its own file's alone."""
    from agents.heuristic import wakanda_rollout
    from envs.core import compiled

    assert wakanda_rollout._play_out._cache._cache_file._source_stamp[1] == compiled.kernel_sources()
