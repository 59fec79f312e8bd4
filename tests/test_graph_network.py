"""The Samurai graph network (``--network samurai_graph``): its logits sit on their actions and see only
the board's neighbourhoods; its description is checked; its files load like any other model and are
refused for another game; train.py trains it; the imitation benchmark runs."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import train
from agents import make_agent, play_game
from agents.models.card import check_card, make_card
from agents.models.files import read_card
from agents.models.graph_network import graph_description
from agents.models.network import load_network
from envs.games import make_game
from envs.samurai.actions import FIGURE, NUM_ACTIONS, hex_action
from envs.samurai.board import NEIGHBOURS, NUM_HEXES, NUM_SETTLEMENTS
from envs.samurai.observation import HEX_FEATURES, OBSERVATION_SIZE, PLAYERS
from research import imitation_networks
from tests.conftest import tiny_train_argv
from training.network import new_network, save_network


@pytest.fixture(scope="module")
def samurai():
    return make_game("samurai", num_players=2)


def board_observation(game) -> torch.Tensor:
    observation = torch.zeros(1, game.observation_size)
    observation[0, : NUM_HEXES * HEX_FEATURES : HEX_FEATURES] = 1.0  # every hex on the board
    return observation


def test_one_hex_moves_only_the_hex_logits_within_its_reach(samurai):
    """With one round of messages a hex logit depends on its own hex and its neighbours (the pooled
    heads aside): changing hex 80 moves its logit and some neighbours', no farther hex's."""
    torch.manual_seed(0)
    net = new_network(samurai, graph_description(rounds=1), "test")
    base = board_observation(samurai)
    changed = base.clone()
    changed[0, 80 * HEX_FEATURES + 12] = 1.0  # a tile's helmet influence on hex 80
    with torch.no_grad():
        before, _ = net.logits_and_values(base)
        after, _ = net.logits_and_values(changed)
    assert before.shape == (1, NUM_ACTIONS) and NUM_ACTIONS == FIGURE + 3 * NUM_SETTLEMENTS
    moved = {h for h in range(NUM_HEXES) if not torch.isclose(before[0, hex_action(h)], after[0, hex_action(h)])}
    assert 80 in moved and moved <= {80, *NEIGHBOURS[80]} and moved & set(NEIGHBOURS[80])


def plain_trunk(trunk, observations: torch.Tensor) -> torch.Tensor:
    """The trunk's definition computed plainly: every hex, the dense adjacency, the context copied to each hex."""
    batch = observations.shape[0]
    hexes = observations[:, :PLAYERS].reshape(batch, NUM_HEXES, HEX_FEATURES)
    on_board = hexes[:, :, :1]
    context = trunk.context(observations[:, PLAYERS:])
    state = trunk.embed(torch.cat([hexes, context[:, None, :].expand(batch, NUM_HEXES, -1)], dim=-1)) * on_board
    for layer in trunk.rounds:
        incoming = torch.matmul(trunk.adjacency, state)
        state = torch.relu(state + layer(torch.cat([state, incoming], dim=-1))) * on_board
    pooled = trunk.pooled(torch.cat([state.mean(dim=1), state.max(dim=1).values, context], dim=-1))
    settlements = trunk.figure_logits(state[:, trunk.settlements]).reshape(batch, -1)
    return torch.cat([trunk.choice_logits(pooled), trunk.hex_logit(state).squeeze(-1), settlements, pooled], dim=1)


def played_observations(num_players: int, seed: int) -> np.ndarray:
    """Every observation of one game of random moves."""
    game = make_game("samurai", num_players=num_players)
    rng = np.random.default_rng(seed)
    state, observer, seen = game.new_state(rng), game.observer(), []
    while state.current_player is not None:
        seen.append(observer.observe(state, state.current_player))
        state.apply(int(rng.choice(state.legal_actions())))
    return np.array(seen, dtype=np.float32)


def test_the_trunk_computes_its_plain_definition_on_every_board():
    """The trunk computes only the hexes on the board in its batch, with a sparse adjacency: on the
    boards of 2, 3 and 4 players, a batch mixing them and an empty observation it equals the plain
    computation over all 174 hexes, gradients included."""
    torch.manual_seed(1)
    net = new_network(make_game("samurai", num_players=3), graph_description(width=16, head=32), "test")
    trunk = net.module.features_extractor
    boards = {n: torch.from_numpy(played_observations(n, seed=n)) for n in (2, 3, 4)}
    mixed = torch.cat([boards[2][:5], boards[4][:5], boards[3][:5]])
    for observations in [*boards.values(), mixed, torch.zeros(2, OBSERVATION_SIZE)]:
        fast, plain = trunk(observations), plain_trunk(trunk, observations)
        torch.testing.assert_close(fast, plain, rtol=1e-5, atol=1e-5)
        weight = trunk.rounds[0][0].weight
        fast_grad = torch.autograd.grad(fast.square().sum(), weight)[0]
        plain_grad = torch.autograd.grad(plain.square().sum(), weight)[0]
        torch.testing.assert_close(fast_grad, plain_grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "network,expected",
    [
        ({"kind": "samurai_graph", "width": 32, "rounds": 2}, "must have the keys kind, width, rounds, head"),
        ({"kind": "samurai_graph", "width": 32.0, "rounds": 2, "head": 8}, "network['width'] must be an int"),
        ({"kind": "samurai_graph", "width": 32, "rounds": True, "head": 8}, "network['rounds'] must be an int"),
        ({"kind": "samurai_graph", "width": 32, "rounds": 0, "head": 8}, "in 1..8, got 0"),
        ({"kind": "samurai_graph", "width": 32, "rounds": 2, "head": 10**9}, "in 1..1024"),
        ({"kind": "convolution"}, "network must be {'kind': one of ['mlp_actor_critic', 'samurai_graph', 'wapi"),
    ],
)
def test_bad_descriptions_are_refused_by_name(samurai, network, expected):
    with pytest.raises(ValueError, match=None) as error:
        make_card(samurai, network, "test")
    assert expected in str(error.value)


def test_a_saved_graph_network_loads_with_the_same_outputs_and_only_for_samurai(samurai, tmp_path):
    net = new_network(samurai, graph_description(width=8, head=16), "test")
    path = save_network(net, str(tmp_path / "graph"))
    back = load_network(path, samurai)
    observations = board_observation(samurai).numpy().repeat(2, axis=0)
    masks = np.zeros((2, samurai.num_actions), bool)
    masks[:, hex_action(0) : hex_action(40)] = True
    for got, want in zip(back.evaluate(observations, masks), net.evaluate(observations, masks)):
        np.testing.assert_array_equal(got, want)
    card = {**read_card(path), "game": "wakanda"}  # a card claiming the graph for another game
    with pytest.raises(ValueError, match="trained for game 'wakanda'"):
        check_card(card, samurai, "crafted")
    wakanda = make_game("wakanda")
    with pytest.raises(ValueError, match="reads Samurai boards only"):
        check_card({**card, "observation_size": wakanda.observation_size}, wakanda, "crafted")


def test_train_py_trains_the_graph_network_into_a_playable_model(tmp_path):
    out = str(tmp_path / "run")
    results = train.main(tiny_train_argv("samurai", "samurai_graph", "heuristic", out))
    assert results["timesteps"] >= 256 and results["learner"]["network"]["kind"] == "samurai_graph"
    model = os.path.join(out, "model.zip")
    assert read_card(model)["network"] == graph_description()
    game = make_game("samurai", num_players=2)
    agents = [make_agent(f"ppo:{model}", game), make_agent("random", game, seed=1)]
    assert play_game(game, agents, seed=4).moves > 0  # a whole game of legal moves


def test_a_tiny_imitation_benchmark_reports_both_networks(tmp_path):
    out = tmp_path / "imitation.md"
    imitation_networks.main(["--games", "4", "--epochs", "1", "--processes", "1", "--out", str(out)])
    text = out.read_text()
    assert "| mlp |" in text and "| samurai_graph |" in text
    assert "Command: `python -m research.imitation_networks --games 4 --epochs 1" in text


def test_the_search_is_guided_by_a_graph_network_as_by_its_own_forward_pass(samurai):
    """The guided search's evaluator answers for a graph network what the network itself answers
    (priors over the legal moves, the mover's value and its negation), and the search plays legal moves."""
    from agents.network_evaluator import NetworkEvaluator
    from agents.protocol import PlayerView

    torch.manual_seed(1)
    net = new_network(samurai, graph_description(width=8, head=16), "test")
    evaluator = NetworkEvaluator(net, samurai)
    rng = np.random.default_rng(2)
    state = samurai.new_state(rng)
    for _ in range(6):
        state.apply(state.legal_tuple()[int(rng.integers(len(state.legal_tuple())))])
    priors, values = evaluator.evaluate([state])
    mask = np.zeros((1, samurai.num_actions), bool)
    mask[0, list(state.legal_tuple())] = True
    want_priors, want_value = net.evaluate(samurai.observer().observe(state, state.current_player)[None], mask)
    np.testing.assert_allclose(priors, want_priors, atol=1e-6)
    mover = state.current_player
    assert values[0, mover] == pytest.approx(want_value[0]) and values[0, 1 - mover] == pytest.approx(-want_value[0])
    agent = make_agent("ismcts", samurai, network=net, iterations=16, seed=0)
    assert agent.act(PlayerView(state, rng)) in state.legal_tuple()
