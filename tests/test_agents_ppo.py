"""The trained-model agent (``ppo:PATH``, ``trained``) and the network behind it (:mod:`agents.models.network`):
a saved network plays legal moves with the mask; a missing file, a file that is not one of ours, or a
model for another game, configuration or shape is refused with a clear ValueError before anything is built."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
import torch

from agents import make_agent, play_game
from agents.models.card import CARD_NAME, POLICY_NAME, network_description
from agents.models.files import read_card
from agents.models.network import load_network
from envs.games import available_games, make_game
from training.network import new_network, save_network


def save_model(path, game, net_arch=(16, 16)) -> str:
    """A freshly initialised network for ``game``, saved in our format."""
    torch.manual_seed(0)
    net = new_network(game, network_description(list(net_arch)), command="tests/test_agents_ppo.py")
    return save_network(net, str(path))


def rewrite(path, replace: dict[str, bytes], drop: tuple[str, ...] = ()) -> None:
    """Rewrite a model zip with some entries replaced or removed."""
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    entries = {name: data for name, data in entries.items() if name not in drop} | replace
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


@pytest.fixture(scope="module")
def wapi_model(tmp_path_factory):
    return save_model(tmp_path_factory.mktemp("model") / "wapi.zip", make_game("wapi", num_players=3))


def test_a_saved_model_plays_legal_games_deterministically(wapi_model):
    game = make_game("wapi", num_players=3)
    for seed in range(3):
        agents = [
            make_agent(f"ppo:{wapi_model}", game),
            make_agent("random", game, seed=seed),
            make_agent("heuristic", game),
        ]
        first = play_game(game, agents, seed=seed, record=True)
        again = play_game(
            game,
            [make_agent(f"ppo:{wapi_model}", game), make_agent("random", game, seed=seed), agents[2]],
            seed=seed,
            record=True,
        )
        assert first.actions == again.actions, "deterministic by default"


def test_a_sampling_agent_is_reproducible_from_its_seed_and_varies_across_seeds(wapi_model):
    game = make_game("wapi", num_players=3)

    def moves(seed):
        agents = [make_agent(f"ppo:{wapi_model}", game, deterministic=False, seed=seed) for _ in range(3)]
        return play_game(game, agents, seed=0, record=True).actions

    assert moves(1) == moves(1)
    assert moves(1) != moves(2)


def test_evaluate_masks_normalises_and_matches_the_module(wapi_model):
    """The network contract: probabilities 0 off the mask and summing to 1, values in -1..1, one per row."""
    game = make_game("wapi", num_players=3)
    net = load_network(f"ppo:{wapi_model}", game)
    rng = np.random.default_rng(0)
    states = [game.new_state(rng) for _ in range(5)]
    observer = game.observer()
    obs = np.stack([observer.observe(s, s.current_player) for s in states])
    masks = np.stack([s.legal_mask().astype(bool) for s in states])
    masks[0, :] = False
    masks[0, np.flatnonzero(states[0].legal_mask())[0]] = True  # a single legal move: probability 1
    probs, values = net.evaluate(obs, masks)
    assert probs.shape == (5, game.num_actions) and values.shape == (5,)
    assert probs.dtype == np.float32 and values.dtype == np.float32
    assert np.all(probs[~masks] == 0) and np.allclose(probs.sum(axis=1), 1) and probs[0].max() == 1
    assert np.all(np.abs(values) <= 1)
    logits, raw_values = net.logits_and_values(torch.from_numpy(obs))
    assert np.allclose(values, np.clip(raw_values.detach().numpy(), -1, 1), atol=1e-6)
    expected = torch.softmax(logits.detach().masked_fill(~torch.from_numpy(masks), -torch.inf), 1).numpy()
    assert np.allclose(probs, expected, atol=1e-6)
    assert np.allclose(net.policy(obs, masks), probs, atol=1e-6)  # the policy head alone gives the same
    with pytest.raises(ValueError, match="masks must have shape"):
        net.evaluate(obs, masks[:, :3])
    with pytest.raises(ValueError, match="at least one legal action"):
        net.evaluate(obs, np.zeros_like(masks))


def test_a_saved_network_loads_back_with_the_same_weights_and_card(wapi_model, tmp_path):
    game = make_game("wapi", num_players=3)
    net = load_network(wapi_model, game)
    again = load_network(save_network(net, str(tmp_path / "again")), game)
    for (name, a), (_, b) in zip(net.module.state_dict().items(), again.module.state_dict().items()):
        assert torch.equal(a, b), name
    assert again.card == net.card and again.card["command"] == "tests/test_agents_ppo.py"


def test_the_zip_suffix_may_be_left_out(wapi_model):
    game = make_game("wapi", num_players=3)
    assert make_agent(f"ppo:{wapi_model[:-4]}", game, deterministic=False).deterministic is False


def test_missing_and_foreign_files_are_clear_errors(tmp_path, wapi_model):
    game = make_game("wapi", num_players=3)
    with pytest.raises(ValueError, match="model file not found"):
        make_agent(f"ppo:{tmp_path / 'nothing.zip'}", game)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="is not a model zip"):
        make_agent(f"ppo:{junk}", game)
    bare = tmp_path / "bare.zip"
    bare.write_bytes(open(wapi_model, "rb").read())
    rewrite(bare, {}, drop=(CARD_NAME,))
    with pytest.raises(ValueError, match="has no drawluck.json card: it was not saved by drawluck"):
        make_agent(f"ppo:{bare}", game)


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda card: card.update(format_version=2), "format_version 2 is not 1"),
        (lambda card: card.update(observation_size=92.0), "'observation_size' must be a int"),
        (lambda card: card.pop("command"), r"the card lacks \['command'\]"),
        (lambda card: card["network"].update(pi=[10**6]), r"network\['pi'\] must be at most 8 layer sizes"),
        (lambda card: card["network"].update(pi=[]), r"at least one hidden layer before each head"),
        (lambda card: card["network"].update(activation="os.system"), "activation must be one of"),
        (lambda card: card["network"].update(pi=[32, 32]), "the weights do not fit the network its card describes"),
    ],
)
def test_a_broken_card_is_refused(wapi_model, tmp_path, change, message):
    path = tmp_path / "broken.zip"
    path.write_bytes(open(wapi_model, "rb").read())
    card = read_card(str(path))
    change(card)
    rewrite(path, {CARD_NAME: json.dumps(card).encode()})
    with pytest.raises(ValueError, match=message):
        make_agent(f"ppo:{path}", make_game("wapi", num_players=3))


def test_corrupt_weights_are_refused(wapi_model, tmp_path):
    path = tmp_path / "corrupt.zip"
    path.write_bytes(open(wapi_model, "rb").read())
    rewrite(path, {POLICY_NAME: b"\x00" * 100})
    with pytest.raises(ValueError, match="policy.pth is not a plain tensor file"):
        make_agent(f"ppo:{path}", make_game("wapi", num_players=3))


def test_a_model_for_another_configuration_is_refused_by_its_card(wapi_model):
    with pytest.raises(ValueError, match="trained for wapi configuration .*num_players.: 3.*not .*num_players.: 4"):
        make_agent(f"ppo:{wapi_model}", make_game("wapi", num_players=4))


def test_a_model_for_another_game_is_refused(wapi_model):
    assert "wakanda" in available_games()
    with pytest.raises(ValueError, match="trained for game 'wapi', not 'wakanda'"):
        make_agent(f"ppo:{wapi_model}", make_game("wakanda"))


def test_trained_loads_the_shipped_model_of_the_configuration_and_names_the_others(wapi_model, tmp_path, monkeypatch):
    import agents.models.files

    (tmp_path / "wapi_3p.zip").write_bytes(open(wapi_model, "rb").read())
    monkeypatch.setattr(agents.models.files, "SHIPPED_DIR", tmp_path)
    game = make_game("wapi", num_players=3)
    assert make_agent("trained", game).name == "trained"
    with pytest.raises(
        ValueError,
        match=r"no trained model is shipped for wapi \{'num_players': 4.*trained models "
        r"exist for: wapi \{'num_players': 3",
    ):
        make_agent("trained", make_game("wapi", num_players=4))
