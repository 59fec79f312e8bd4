"""The shipped model as an opponent of many games (issue 62): ``agents.opponents.batch_opponent("trained", game)``
answers every game where it is to move with one forward pass and plays ``make_agent("trained")``'s moves; the
vector env takes it by name (``opponents="trained"``, through the ``drawluck.opponents`` entry points, since
``envs`` imports no agent); training's league takes it as a baseline (``--opponents trained``); a configuration
without a shipped model is refused before any game is played, naming those that have one.

The entry points are read from the installed metadata, which is this checkout's only after ``pip install -e``
(``make setup``): the tests that need them name the ones pyproject.toml declares (:func:`declared`), so they
check the declarations themselves wherever the package was installed from.
"""

from __future__ import annotations

import shutil
import tomllib
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import numpy as np
import pytest

import envs.wakanda_v0
import envs.wapi_v0
from agents import make_agent
from agents.models.card import card_game
from agents.models.files import shipped_models
from agents.opponents import NetworkOpponent, batch_opponent, heuristic_opponent, trained_opponent
from agents.protocol import PlayerView
from envs.core import opponents as env_opponents
from envs.core.batch import batch_games
from envs.games import make_game
from training.league import League, baseline_spec
from training.league_games import league_games
from training.members import SharedMember, build_member

ROOT = Path(__file__).resolve().parent.parent
#: Three shipped configurations (agents/models/README.md); a configuration without a model in a package that ships
#: only those three (:func:`three_shipped`: every configuration has its model in ours).
SHIPPED = [("wakanda", {"advanced": False}), ("samurai", {"num_players": 2}), ("wapi", {"num_players": 4})]
SHIPPED_FILES = ("wakanda.zip", "samurai2.zip", "wapi4.zip")
UNSHIPPED = ("wapi", {"num_players": 3})
REFUSAL = r"opponents 'trained': no trained model is shipped for wapi \{'num_players': 3.*trained models exist for: "


def declared() -> list[EntryPoint]:
    """The ``drawluck.opponents`` entry points pyproject.toml declares, as the installed metadata would list them."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    group = env_opponents.ENTRY_POINT_GROUP
    return [EntryPoint(name, value, group) for name, value in table[group].items()]


@pytest.fixture
def named(monkeypatch):
    """The environments find the opponents pyproject.toml declares (whichever checkout was installed)."""
    points = {point.name: point for point in declared()}
    monkeypatch.setattr(env_opponents, "named_opponents", lambda: points)
    return points


@pytest.fixture
def three_shipped(tmp_path, monkeypatch):
    """A package that ships the three models of SHIPPED only."""
    from agents.models import files

    for name in SHIPPED_FILES:
        shutil.copy(files.SHIPPED_DIR / name, tmp_path)
    monkeypatch.setattr(files, "SHIPPED_DIR", tmp_path)


def where_to_move(batch) -> np.ndarray:
    return batch.current_player >= 0


# --- the batched trained opponent ------------------------------------------------------------------
@pytest.mark.parametrize("name,config", SHIPPED)
def test_the_batched_trained_opponent_plays_the_trained_agents_moves(name, config):
    """On the same positions (every game of a seeded batch, every seat, 25 rounds), one forward pass for the
    batch gives the move ``make_agent("trained", game)`` chooses game by game: the most probable legal one.
    Where moves tie (Wapi's mine network scores equivalent moves alike: about 1 decision in 30), a batch and
    a single row are computed by different kernels whose rounding breaks the tie differently: there the
    agent's move must be one of the batch's most probable."""
    game = make_game(name, **config)
    batch, opponent = batch_games(game, 4, 11), batch_opponent("trained", game)
    agent, rng = make_agent("trained", game), np.random.default_rng(0)
    for _ in range(25):
        where = where_to_move(batch)
        moves, rows = opponent(batch, where, rng), np.flatnonzero(where)
        probs = opponent.network.policy(batch.observe_rows(rows), batch.legal_mask_where(where)[rows])
        for row, i in enumerate(rows.tolist()):
            move = agent.act(PlayerView(batch.state(i), rng))
            assert move == moves[i] or probs[row, move] == probs[row].max(), f"game {i}: {move} != {moves[i]}"
        batch.step(np.where(where, moves, 0))
        batch.reset_done()


def test_one_forward_pass_answers_every_game_where_it_is_to_move(monkeypatch):
    """The network is asked once per call, with the rows of the games ``where`` alone."""
    game = make_game("wapi", num_players=4)
    opponent, calls = batch_opponent("trained", game), []
    real = opponent.network.policy
    monkeypatch.setattr(opponent.network, "policy", lambda obs, masks: calls.append(len(obs)) or real(obs, masks))
    batch = batch_games(game, 8, 3)
    where = where_to_move(batch) & (np.arange(8) % 2 == 0)
    opponent(batch, where, np.random.default_rng(0))
    assert calls == [int(where.sum())]


def test_ppo_path_is_a_batched_network_opponent_of_the_file():
    """``ppo:PATH`` is the same network opponent, of the file named: on the shipped file, the trained moves."""
    game = make_game("wakanda")
    path = ROOT / "agents" / "models" / "wakanda.zip"
    by_file, trained = batch_opponent(f"ppo:{path}", game), batch_opponent("trained", game)
    batch, rng = batch_games(game, 6, 2), np.random.default_rng(0)
    where = where_to_move(batch)
    assert isinstance(by_file, NetworkOpponent)
    assert np.array_equal(by_file(batch, where, rng)[where], trained(batch, where, rng)[where])


def test_an_unshipped_configuration_is_refused_naming_those_with_a_model(three_shipped):
    """No model for three-player Wapi: the agents' batch opponent says so, and which configurations have one."""
    with pytest.raises(ValueError, match=REFUSAL + r".*wakanda \{'advanced': False\}"):
        batch_opponent("trained", make_game(UNSHIPPED[0], **UNSHIPPED[1]))


def test_an_unknown_name_is_refused_with_the_names_the_agents_know():
    with pytest.raises(ValueError, match=r"opponents must be one of \['random', 'heuristic', 'trained', 'ppo:PATH'\]"):
        batch_opponent("ismcts", make_game("wapi"))


# --- the vector env by name ---------------------------------------------------------------------------
@pytest.mark.parametrize("name,config", [("wakanda", {}), ("wapi", {"num_players": 4})])
def test_the_vector_env_plays_whole_games_against_the_trained_model_by_name(name, config, named, monkeypatch):
    """``vector_env(n, opponents="trained")``: the shipped network plays the other seats, legal moves only, one
    call for all the games where it is to move, until games end (and are dealt anew)."""
    calls, real = [], NetworkOpponent.__call__

    def checked(self, batch, where, rng):
        moves = real(self, batch, where, rng)
        legal = batch.legal_mask_where(where)
        assert legal[where, moves[where]].all(), "the trained opponent plays legal moves"
        calls.append(int(where.sum()))
        return moves

    monkeypatch.setattr(NetworkOpponent, "__call__", checked)
    venv = {"wakanda": envs.wakanda_v0, "wapi": envs.wapi_v0}[name].vector_env(4, opponents="trained", seed=7, **config)
    assert isinstance(venv.opponent, NetworkOpponent)
    _, infos = venv.reset()
    rng, ended = np.random.default_rng(1), 0
    for _ in range(400):
        masks = venv.action_masks()
        actions = np.where(masks, rng.random(masks.shape), -1).argmax(axis=1)
        _, _, terminated, _, infos = venv.step(actions)
        ended += int(terminated.sum())
        if ended >= 4:
            break
    assert ended >= 4 and calls and max(calls) > 1


def test_the_vector_env_refuses_an_unshipped_configuration_before_any_game(named, three_shipped):
    """The refusal comes at construction, naming the argument (opponents) and the configurations with a model."""
    with pytest.raises(ValueError, match=REFUSAL):
        envs.wapi_v0.vector_env(2, num_players=3, opponents="trained")


def test_the_vector_env_takes_the_heuristic_by_name(named):
    """``opponents="heuristic"`` is the same heuristic as ``agents.opponents.batch_opponent("heuristic", game)``:
    the same moves on the same batch."""
    game = make_game("wakanda")
    venv = envs.wakanda_v0.vector_env(2, opponents="heuristic", seed=0)
    batch = batch_games(game, 6, 4)
    where = where_to_move(batch)
    by_name = venv.opponent(batch, where, np.random.default_rng(0))
    assert np.array_equal(by_name[where], heuristic_opponent(game)(batch, where, np.random.default_rng(0))[where])


def test_an_unknown_name_is_refused_with_random_and_the_installed_names(named):
    with pytest.raises(
        ValueError, match=r"opponents must be one of \['heuristic', 'random', 'trained'\].*got 'ismcts'"
    ):
        envs.wapi_v0.vector_env(2, opponents="ismcts")


# --- the entry points ---------------------------------------------------------------------------------------
def test_pyproject_declares_the_named_opponents_and_each_loads_a_factory_of_a_batch_opponent():
    """Each declared target imports and, given a game, makes a batch opponent: the players' own factories."""
    points = {point.name: point for point in declared()}
    assert sorted(points) == ["heuristic", "trained"]
    assert points["heuristic"].load() is heuristic_opponent and points["trained"].load() is trained_opponent
    game = make_game("wakanda")
    assert all(callable(point.load()(game)) for point in points.values())


def test_the_installed_metadata_lists_the_declared_entry_points():
    """The installed package's metadata (``make setup``: pip install -e .) lists what pyproject.toml declares:
    else ``vector_env(opponents="trained")`` would not find it."""
    installed = entry_points(group=env_opponents.ENTRY_POINT_GROUP)
    assert sorted((p.name, p.value) for p in installed) == sorted((p.name, p.value) for p in declared()), (
        "the installed entry points are stale: run make setup (pip install -e .) again"
    )


# --- the league ---------------------------------------------------------------------------------------------
def test_the_league_plays_the_shipped_model_as_a_batched_member():
    """``train.py --opponents trained``: the league's member is the opponent home's network opponent of the
    shipped model (one forward pass for its games), and the games it plays are recorded against it."""
    game = make_game("wakanda")
    member = build_member(baseline_spec("trained"), game, 0)
    assert isinstance(member, SharedMember) and isinstance(member.opponent, NetworkOpponent)
    league = League(["trained"])
    env = league_games(game, 4, league, seed=3, reward="win")
    env.reset()
    rng, finished = np.random.default_rng(0), 0
    for _ in range(200):
        masks = env.env_method("action_masks")
        _, _, dones, infos = env.step(np.where(masks, rng.random(masks.shape), -1).argmax(axis=1))
        finished += int(dones.sum())
        if finished >= 4:
            break
    assert finished >= 4 and [m.label for m in league.members.values()] == ["trained"]
    assert league.members[0].games == finished


def test_train_refuses_trained_where_no_model_is_shipped(three_shipped):
    """``--opponents trained`` for a configuration without a shipped model fails before anything is trained."""
    from training.train_command import check_opponents, parse_args

    args = parse_args(["--game", "wapi", "--num-players", "3", "--opponents", "trained", "self"])
    with pytest.raises(ValueError, match=r"--opponents trained: no trained model is shipped for wapi"):
        check_opponents(args, make_game("wapi", num_players=3))


# --- the page ---------------------------------------------------------------------------------------------------
def test_the_page_offers_the_trained_model_for_every_shipped_configuration(three_shipped):
    """The page's ``trained`` is checked against the shipped models' cards (no list of its own): it plays every
    configuration that has one, and is refused, naming them, for one that has none."""
    from web.opponents import offered_opponents

    choice = offered_opponents(ratings={})["trained"]
    shipped = [card_game({"game": name, "config": c}) for name, configs in shipped_models().items() for c in configs]
    assert len(shipped) >= 3
    for game in shipped:
        choice.check_game(game)
    with pytest.raises(ValueError, match="trained models exist for"):
        choice.check_game(make_game(UNSHIPPED[0], **UNSHIPPED[1]))
