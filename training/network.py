"""Writing model files, and new networks to train: the training side of :mod:`agents.models`' format.

A model file is a zip that Stable-Baselines3 can also read, with our card
(:mod:`agents.models.card`) and the policy's tensors beside SB3's own entries;
the players read it (:mod:`agents.models.network`, weights only). Here: a
fresh network, :func:`save_network`, which writes the card next to what SB3's
own ``save`` writes, and :func:`save_learner`, a learner being trained with its card.
"""

from __future__ import annotations

import json
import zipfile
from typing import Any

import numpy as np

from agents.models.card import (
    CARD_NAME,
    check_card_fields,
    game_card,
    make_card,
)
from agents.models.network import PolicyValueNet, network_from_policy
from agents.models.policies import build_policy, policy_class, policy_kwargs
from envs.core.engine import Game


def _sb3_shell(net: PolicyValueNet):
    """A MaskablePPO around ``net``'s policy, only to write SB3's own entries next to ours."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    class Spaces(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(0.0, 1.0, (net.observation_size,), np.float32)
        action_space = gymnasium.spaces.Discrete(net.num_actions)

        def reset(self, seed=None, options=None):
            return np.zeros(net.observation_size, np.float32), {}

        def step(self, action):
            return np.zeros(net.observation_size, np.float32), 0.0, True, False, {}

    network = net.card["network"]
    shell = MaskablePPO(
        policy_class(network), Spaces(), n_steps=8, batch_size=8, device="cpu", policy_kwargs=policy_kwargs(network)
    )
    shell.policy.load_state_dict(net.module.state_dict(), strict=True)
    return shell


def save_network(net: PolicyValueNet, path: str, learner: Any = None) -> str:
    """Write ``net`` (its module's weights and its card) to ``path`` (``.zip`` added if missing).

    ``learner``: the MaskablePPO being trained whose policy ``net.module`` is; its own save
    then also records the optimizer for ``train.py --resume``. Without it, a MaskablePPO shell
    writes SB3's entries. Returns the path written.
    """
    check_card_fields(net.card, "card")
    model = learner if learner is not None else _sb3_shell(net)
    if learner is not None and learner.policy is not net.module:
        raise ValueError("save_network: learner.policy must be net.module")
    return _write(model, path, net.card)


def _write(model, path: str, card: dict[str, Any]) -> str:
    """SB3's own save of ``model`` to ``path`` (``.zip`` added if missing), then ``card`` beside its entries."""
    if not path.endswith(".zip"):
        path += ".zip"
    model.save(path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(CARD_NAME, json.dumps(card, indent=1))
    return path


def new_network(
    game: Game, network: dict[str, Any], command: str, reward: str = "win", training: dict[str, Any] | None = None
) -> PolicyValueNet:
    """A freshly initialised network for ``game`` (``network`` from :func:`network_description`)."""
    card = make_card(game, network, command, reward, training)
    return network_from_policy(build_policy(network, game.observation_size, game.num_actions), card)


def transferred_network(path: str, game: Game, command: str) -> PolicyValueNet:
    """The network of model file ``path``, made for another configuration of ``game``'s game whose observations
    and actions have the same sizes (every configuration of a game does), as a new network of ``game``: its
    weights, a card of ``game``'s configuration that says where they came from. Why: a network that has learnt
    one configuration (two-player Samurai) starts another (three players, drafted figures) far above a fresh
    one; the distillation then fits it to the new configuration's games."""
    from agents.models.files import find_model, read_card, read_tensors
    from agents.models.network import load_weights

    where = f"model file {find_model(path)}"
    card = read_card(path)
    check_card_fields(card, where)
    want = game_card(game)
    for key in ("game", "observation_size", "num_actions"):
        if card[key] != want[key]:
            raise ValueError(f"{where}: its {key} is {card[key]!r}, not {want[key]!r}: no transfer to {game.name}")
    network = new_network(game, card["network"], command, card["reward"], {"transferred_from": card["config"]})
    load_weights(network.module, read_tensors(path), where)
    return network


def save_learner(model, path: str, game: Game, command: str, reward: str, training: dict[str, Any]) -> str:
    """Write the learner to ``path`` with its card (``training`` gets the learner's step count): its own save,
    so that the optimizer is kept for ``train.py --resume``; :func:`make_card` checks the card it makes."""
    network, steps = training["hyperparameters"]["network"], int(model.num_timesteps)
    return _write(model, path, make_card(game, network, command, reward, {**training, "num_timesteps": steps}))
