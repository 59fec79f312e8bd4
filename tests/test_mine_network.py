"""The Wapi mine network (``--network wapi_mines``): the same weights read every mine, so permuting
the mines permutes the coin logits and leaves the rest alone; its description is checked; its files
load like any other model and are refused for another game (train.py refuses it for another game:
tests/test_train.py); train.py trains it from the rollouts warm start."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import torch

import train
from agents import make_agent, play_game
from agents.models.card import check_card, game_card
from agents.models.files import read_card
from agents.models.mine_network import CONTEXT_INPUTS, MINE_INPUTS, mines_description
from agents.models.network import load_network
from envs.games import make_game
from envs.wapi.actions import DECLINE, NUM_ACTIONS, PLACE_TOTEM, coin_action
from envs.wapi.components import NUM_MINES
from envs.wapi.observation import OBSERVATION_SIZE
from tests.conftest import tiny_train_argv
from training.network import new_network, save_network


@pytest.fixture(scope="module")
def wapi():
    return make_game("wapi", num_players=4)


def observations_of_a_game(game, seed: int) -> torch.Tensor:
    """The observations of the player to act at every turn of one random game (real positions)."""
    rng = np.random.default_rng(seed)
    state, observer, rows = game.new_state(rng), game.observer(), []
    observer.follow(state)
    while state.current_player is not None:
        rows.append(observer.observe(state, state.current_player))
        action = int(rng.choice(state.legal_tuple()))
        state.apply(action)
        observer.applied(state, action)
    return torch.from_numpy(np.array(rows))


def permuted(observations: torch.Tensor, order: list[int]) -> torch.Tensor:
    """The same positions with mine ``order[k]`` put in mine k's place (all its entries move)."""
    out = observations.clone()
    for k, source in enumerate(order):
        out[:, MINE_INPUTS[k]] = observations[:, MINE_INPUTS[source]]
    return out


def test_every_entry_of_the_observation_is_read_once(wapi):
    assert sorted(sum(MINE_INPUTS, []) + CONTEXT_INPUTS) == list(range(OBSERVATION_SIZE))
    assert wapi.observation_size == OBSERVATION_SIZE


def test_permuting_the_mines_permutes_the_coin_logits_and_keeps_the_rest(wapi):
    """Rule (rules/wapi: the six mines follow the same rules): what the network learns about a mine
    holds for every mine, so relabelling them relabels the coin moves and changes nothing else."""
    torch.manual_seed(0)
    net = new_network(wapi, mines_description(width=16, head=16), "test")
    observations = observations_of_a_game(wapi, seed=3)
    order = [2, 0, 5, 1, 4, 3]
    with torch.no_grad():
        logits, values = net.logits_and_values(observations)
        moved, moved_values = net.logits_and_values(permuted(observations, order))
    coins = [coin_action(k) for k in range(NUM_MINES)]
    torch.testing.assert_close(moved[:, coins], logits[:, [coin_action(k) for k in order]])
    torch.testing.assert_close(moved[:, [PLACE_TOTEM, DECLINE]], logits[:, [PLACE_TOTEM, DECLINE]])
    torch.testing.assert_close(moved_values, values)
    assert logits.shape == (len(observations), NUM_ACTIONS)


@pytest.mark.parametrize(
    "network, message",
    [
        ({"kind": "wapi_mines", "width": 32}, "must have the keys kind, width, head"),
        ({"kind": "wapi_mines", "width": 32.0, "head": 8}, "network['width'] must be an int"),
        ({"kind": "wapi_mines", "width": 32, "head": True}, "network['head'] must be an int"),
        ({"kind": "wapi_mines", "width": 0, "head": 8}, "in 1..512, got 0"),
    ],
)
def test_a_bad_description_is_refused_by_name(wapi, network, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        new_network(wapi, network, "test")


def test_a_saved_mine_network_loads_and_is_refused_for_another_game(wapi, tmp_path):
    torch.manual_seed(2)
    net = new_network(wapi, mines_description(width=8, head=8), "test")
    path = save_network(net, str(tmp_path / "mines"))
    back = load_network(path, wapi)
    observations = observations_of_a_game(wapi, seed=5).numpy()
    masks = np.ones((len(observations), NUM_ACTIONS), bool)
    for got, want in zip(back.evaluate(observations, masks), net.evaluate(observations, masks)):
        np.testing.assert_array_equal(got, want)
    wakanda = make_game("wakanda")
    crafted = {**read_card(path), **game_card(wakanda)}  # a card claiming the mine network for Wakanda
    with pytest.raises(ValueError, match="a wapi_mines network reads Wapi observations only, not 'wakanda'"):
        check_card(crafted, wakanda, "crafted")


def test_train_py_trains_the_mine_network_from_the_rollouts_warm_start(tmp_path, capsys):
    """The shipped Wapi model's recipe in miniature: the mine network, the heuristic cloned and then fit
    to the moves' measured values (``--warm-start rollouts``), PPO, a model that plays whole games."""
    out = str(tmp_path / "run")
    results = train.main(tiny_train_argv("wapi", "wapi_mines", "rollouts", out))
    assert results["timesteps"] >= 256 and results["learner"]["network"]["kind"] == "wapi_mines"
    fit = results["warm_start"]["rollouts"]
    assert fit["samples"] == 8 and fit["measured_positions"] > 0 and fit["held_out_measured_games"] == 1
    assert f"held-out gain per decision over the heuristic's move {fit['held_out_gain_before']:+.4f}" in (
        capsys.readouterr().out
    )
    model = os.path.join(out, "model.zip")
    card = read_card(model)
    assert card["network"] == mines_description() and card["training"]["warm_start"]["agent"] == "rollouts"
    game = make_game("wapi", num_players=4)
    agents = [make_agent(f"ppo:{model}", game)] + [make_agent("random", game, seed=p) for p in range(1, 4)]
    assert play_game(game, agents, seed=4).moves > 0  # a whole game of legal moves


def test_a_tiny_wapi_imitation_benchmark_reports_both_networks(tmp_path):
    from research import imitation_networks

    out = tmp_path / "imitation.md"
    imitation_networks.main(["--game", "wapi", "--games", "3", "--epochs", "1", "--processes", "1", "--out", str(out)])
    text = out.read_text()
    assert text.startswith("# Imitating the four-player Wapi heuristic: flat MLP against a network shared by the mines")
    assert "| mlp | 181,513 |" in text and "| wapi_mines | 52,868 |" in text
