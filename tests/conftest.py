"""Shared test helpers."""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

import envs

# Ray in the tests (read when ray is first imported, so set before any test module imports it): every node
# on the loopback address, no usage reports sent anywhere, and a temporary directory of this run's own, so
# that no cluster of another run on this machine is found or disturbed.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
_RAY_TMPDIR = None
if "RAY_TMPDIR" not in os.environ:
    _RAY_TMPDIR = os.environ["RAY_TMPDIR"] = tempfile.mkdtemp(prefix="drl-ray-")


def pytest_unconfigure(config) -> None:
    if _RAY_TMPDIR is not None:
        shutil.rmtree(_RAY_TMPDIR, ignore_errors=True)


@pytest.fixture(autouse=True)
def torch_threads_given_back():
    """A test that changes torch's threads (a distillation run sets one) gives them back. Why: float rounding
    depends on the threads, and a network's exact ties (Wapi 4p's shipped model at its first move) go the way
    it falls, so a later test in the same worker (the v2 records' replay) would see another move."""
    import torch

    before = torch.get_num_threads()
    yield
    if torch.get_num_threads() != before:
        torch.set_num_threads(before)


@pytest.fixture
def open_tmp():
    """A temporary folder anyone may enter, read and write. A sealed agent under a root referee runs as nobody
    (benchmarks/core/sealed/isolation.py), which cannot enter pytest's ``tmp_path`` (its base is mode 0700): an
    agent's file, and the notes a cheat writes, go here."""
    folder = Path(tempfile.mkdtemp(prefix="drl-open-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def game_configs(reward_modes: bool = False) -> list[tuple[str, dict]]:
    """(game, env kwargs) for every configuration of every game (``GameDescription.configurations``:
    each player count and variant once), from the descriptions; with ``reward_modes``, each game's
    last configuration again under each other reward mode it has."""
    configs = []
    for name in envs.GAMES:
        description = envs.describe(name)
        own = description.configurations()
        configs += [(name, config) for config in own]
        if reward_modes:
            configs += [(name, {**own[-1], "reward": mode}) for mode in description.game_class.reward_modes[1:]]
    return configs


def config_id(name: str, config: dict) -> str:
    """A test id: the configuration's label, plus a reward mode other than the default."""
    game = {k: v for k, v in config.items() if k != "reward"}
    label = envs.describe(name).label(game).replace(" ", "-")
    return label + (f"-reward={config['reward']}" if "reward" in config else "")


def play_random(state, seed: int, check_mask: bool = False):
    """Play random legal actions on an engine state until the end; yields each state before a move.

    With ``check_mask``, verify at each step that the mask equals the legal actions.
    """
    choose = random.Random(seed).choice
    while state.current_player is not None:
        if check_mask:
            assert np.flatnonzero(state.legal_mask()).tolist() == state.legal_actions()
        yield state
        state.apply(choose(state.legal_actions()))
    yield state


def aec_trace(env, seed: int, policy_seed: int = 0, max_steps: int = 100_000) -> list:
    """Drive an AEC env with random legal moves and record everything the agents get."""
    env.reset(seed=seed)
    choose = random.Random(policy_seed).choice
    trace = []
    for agent in env.agent_iter(max_steps):
        obs, reward, termination, truncation, info = env.last()
        seen = (obs["observation"].tobytes(), obs["action_mask"].tobytes())
        trace.append((agent, *seen, reward, termination, truncation, repr(info)))
        env.step(None if termination or truncation else choose(np.flatnonzero(obs["action_mask"]).tolist()))
    return trace


def replay_game(env, seed: int, actions: list[int] | None, seen_infos) -> tuple[list[int], str]:
    """Play one game through an AEC ``env``: the given actions, or random legal ones (seeded by ``seed``)
    when None. Returns the actions played and a digest of everything the agents got: the observation,
    mask, reward and end flags at every turn, ``seen_infos(info, done)`` (what of the infos a recording
    holds) and the final ``state_dict``. The recorded-game tests compare it with their recordings."""
    import hashlib
    import json

    env.reset(seed=seed)
    choose, played, digest = random.Random(seed).choice, [], hashlib.sha256()
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        done = termination or truncation
        digest.update(repr((agent, reward, termination, truncation, seen_infos(info, done))).encode())
        digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
        if done:
            env.step(None)
            continue
        action = actions[len(played)] if actions is not None else choose(np.flatnonzero(obs["action_mask"]).tolist())
        played.append(action)
        env.step(action)
    digest.update(json.dumps(env.unwrapped.state_dict(), sort_keys=True).encode())
    return played, digest.hexdigest()


def assert_plays_out(module, samples: list, first: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """A heuristic module's batch ``play_out(samples, first)``: row ``i * len(first) + j`` holds the final
    scores and winners of ``samples[i]`` after ``first[j]``, then ``module.policy`` in every seat, and the
    samples are left as they were. Returns the two arrays."""
    before = [sample.to_dict() for sample in samples]
    scores, winners = module.play_out(samples, first)
    assert [sample.to_dict() for sample in samples] == before
    for i, sample in enumerate(samples):
        for j, move in enumerate(first):
            played = sample.clone()
            played.apply(move)
            while played.current_player is not None:
                played.apply(module.policy(played))
            assert scores[i * len(first) + j].tolist() == played.scores()
            assert np.flatnonzero(winners[i * len(first) + j]).tolist() == played.winners()
    return scores, winners


def assert_refused(env, call, match: str) -> None:
    """Bad input: ``call()`` raises a ValueError matching ``match`` and the game is untouched."""
    import pytest

    before = env.state_dict()
    with pytest.raises(ValueError, match=match):
        call()
    assert env.state_dict() == before, "a refused call leaves the game untouched"


def assert_reset_refused(env, options, message: str) -> None:
    """``reset(options=options)`` after a seeded deal raises a ValueError matching ``message``; nothing changes."""
    env.reset(seed=1)
    assert_refused(env, lambda: env.reset(options=options), message)


def assert_steps_refused(env, cases) -> None:
    """Each ``(action, error, match)`` of ``cases`` raises ``error`` (its message matching ``match``; None: any)
    and leaves the game and the player to act as they were."""
    import pytest

    before, agent = env.state_dict(), env.agent_selection
    for action, error, match in cases:
        with pytest.raises(error, match=match):
            env.step(action)
        assert env.state_dict() == before and env.agent_selection == agent


def assert_layout_table(layout, names: str) -> list[tuple[int, int]]:
    """An observation module's layout table (its docstring's ``| offset | size |`` rows; a size may read
    ``174 x 21``) states the module's blocks ``names`` (space-separated) at their real offsets, each ending
    where the next starts. Returns the rows as (offset, size)."""
    found = re.findall(r"^\| (\d+)\s+\| ([\d x]+?)\s+\|", layout.__doc__, re.M)
    rows = [(int(offset), math.prod(int(n) for n in size.split("x"))) for offset, size in found]
    assert [offset for offset, _ in rows] == [getattr(layout, name) for name in names.split()]
    assert all(a + n == b for (a, n), (b, _) in zip(rows, rows[1:]))
    return rows


def assert_reloads_finished(module, **config) -> dict:
    """A game of ``module.raw_env(**config)`` played to its end (seed 2, the first legal move each turn),
    loaded from its ``state_dict`` into a fresh env: over there too, with the same infos and rewards.
    Returns the state_dict, for the game's own checks."""
    env = module.raw_env(**config)
    env.reset(seed=2)
    while not env.terminations[env.agent_selection]:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    data = env.state_dict()
    other = module.raw_env(**config)
    other.load_state_dict(data)
    assert all(other.terminations.values())
    assert other.infos == env.infos and other._cumulative_rewards == env._cumulative_rewards
    return data


def random_positions(make_env, configs, keep, max_steps: int = 3_000) -> list[tuple[dict, dict]]:
    """(config, state_dict) of seeded games of random legal moves (seeds 0 to 2, moves drawn with
    ``random.Random(seed)``): at each step ``keep(step)`` chooses, and at the end."""
    out = []
    for config in configs:
        for seed in range(3):
            env = make_env(**config)
            env.reset(seed=seed)
            choose = random.Random(seed).choice
            for step in range(max_steps):
                ended = env.terminations[env.agent_selection]
                if keep(step) or ended:
                    out.append((config, env.state_dict()))
                if ended:
                    break
                env.step(choose(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()))
    return out


def mutation_settings(examples: int):
    """The Hypothesis settings of the state_dict mutation tests: reproducible (derandomized, no example
    database), untimed, and quiet about slow or large draws (a game's state is large by nature)."""
    from hypothesis import HealthCheck, settings

    too_slow, too_large = HealthCheck.too_slow, HealthCheck.data_too_large
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[too_slow, too_large],
    )


def places(node, prefix=()):
    """Every place inside a state_dict: (path, value) for each key and list item, depth first."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield prefix + (key,), value
        yield from places(value, prefix + (key,))


def parent_of(data, path):
    """The dict or list that holds the place ``path`` (a path of :func:`places`)."""
    for key in path[:-1]:
        data = data[key]
    return data


def tiny_train_argv(game: str, network: str, warm_start: str, out: str) -> list[str]:
    """``train.py`` options for a run of seconds: 256 steps of ``network`` on ``game``, a two-game
    ``warm_start``, two-game evaluations against random, written to ``out``."""
    argv = ["--game", game, "--network", network, "--timesteps", "256", "--n-envs", "4"]
    argv += ["--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--opponents", "random"]
    argv += ["--warm-start", warm_start, "--warm-start-games", "2", "--warm-start-epochs", "1"]
    argv += ["--eval-opponents", "random", "--eval-freq", "256", "--eval-freq-games", "2", "--eval-games", "2"]
    return argv + ["--progress-bar", "false", "--out", out]


def documented_keys(env_card: str) -> set[str]:
    """The ``state_dict`` keys an env card (a ``*_v0`` module's docstring) lists, ``(keys: ``a``, ``b``, ...)``:
    written for readers, so a test holding the serializer to them checks it against an independent list."""
    listed = re.search(r"\(keys: ([^)]*)\)", env_card)
    assert listed, "the env card lists the state_dict keys as (keys: ``a``, ``b``, ...)"
    return set(re.findall(r"``(\w+)``", listed.group(1)))


def recipe(name: str) -> dict:
    """The code block of ``docs/integrations.md`` marked ``<!-- recipe: NAME -->``, run as it is: its
    functions by name. The integration tests call these, so the page's recipes are what CI runs."""
    import pathlib
    import re

    page = (pathlib.Path(__file__).parent.parent / "docs" / "integrations.md").read_text()
    found = re.search(rf"<!-- recipe: {re.escape(name)} -->\n```python\n(.*?)```", page, re.S)
    assert found, f"docs/integrations.md has no recipe {name!r}"
    namespace: dict = {}
    exec(compile(found.group(1), f"docs/integrations.md ({name} recipe)", "exec"), namespace)  # our own page
    return namespace


def game_modules() -> list[tuple[str, object]]:
    """(game, its PettingZoo module ``envs.<game>_v0``) for every game."""
    import importlib

    return [(name, importlib.import_module(envs.describe(name).env_module)) for name in envs.GAMES]


#: The AgileRL recipe runs in its own virtual environment (``make test-agilerl``): AgileRL pins
#: ``pettingzoo<1.27`` and ``tensordict==0.13.0``, which clash with TorchRL's, so it cannot be
#: installed beside the rest. Where AgileRL is absent its test module is not collected, and the
#: header of the run says so; where it is present (that venv), the module must import and pass.
collect_ignore = []


def _agilerl_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("agilerl") is not None


if not _agilerl_installed():
    collect_ignore.append("test_integrations_agilerl.py")


def pytest_report_header(config) -> str:
    if _agilerl_installed():
        return "AgileRL recipe: run here (tests/test_integrations_agilerl.py)"
    return "AgileRL recipe: not collected here (AgileRL is not installed); `make test-agilerl` runs it in .venv-agilerl"
