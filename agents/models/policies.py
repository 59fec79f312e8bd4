"""The torch module a card's ``network`` describes: Stable-Baselines3's maskable actor-critic policy.

Why SB3's policy class even to play: a model file's ``policy.pth`` is that
policy's ``state_dict``, and the learner (``training.model_files``) builds the
same class from the same description, so a file loads with
``load_state_dict(strict=True)`` into exactly what trained it. Only our code
builds it, from the card's description (never a class named by the file).
SB3 is imported here and only here on the read side, when a network is built.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.models.card import STRUCTURED_NETWORKS, check_network

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
#: The module of each structured network kind: its ``POLICY``, ``policy_kwargs`` and ``default_description``.
STRUCTURED_MODULES = {"samurai_graph": "agents.models.graph_network", "wapi_mines": "agents.models.mine_network"}


def structured(kind: str):
    """The module of a structured network kind (imported when first needed: it pulls in its game)."""
    return importlib.import_module(STRUCTURED_MODULES[kind])


class SharedLayers(BaseFeaturesExtractor):
    """The ``shared`` layers of a network description, as SB3's features extractor."""

    def __init__(self, observation_space, layers: list[int], activation: str):
        super().__init__(observation_space, layers[-1])
        modules: list[torch.nn.Module] = []
        width = int(observation_space.shape[0])
        for units in layers:
            modules += [torch.nn.Linear(width, units), ACTIVATIONS[activation]()]
            width = units
        self.layers = torch.nn.Sequential(*modules)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.layers(observations)


def policy_class(network: dict[str, Any]) -> type:
    """SB3's policy class for a network description (the learner and :func:`build_policy` share it)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    check_network(network, "network")
    if network["kind"] in STRUCTURED_NETWORKS:
        return structured(network["kind"]).POLICY
    return MaskableActorCriticPolicy


def policy_kwargs(network: dict[str, Any]) -> dict[str, Any]:
    """SB3's ``policy_kwargs`` for a network description (the learner and :func:`build_policy` share them)."""
    check_network(network, "network")
    if network["kind"] in STRUCTURED_NETWORKS:
        return structured(network["kind"]).policy_kwargs(network)
    kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(network["pi"]), "vf": list(network["vf"])},
        "activation_fn": ACTIVATIONS[network["activation"]],
    }
    if network["shared"]:
        kwargs["features_extractor_class"] = SharedLayers
        kwargs["features_extractor_kwargs"] = {"layers": list(network["shared"]), "activation": network["activation"]}
    return kwargs


def build_policy(network: dict[str, Any], observation_size: int, num_actions: int, learning_rate: float = 0.0):
    """SB3's ``MaskableActorCriticPolicy`` built from a card's ``network`` description (our code only)."""
    from gymnasium import spaces

    return policy_class(network)(
        spaces.Box(0.0, 1.0, (observation_size,), np.float32),
        spaces.Discrete(num_actions),
        lambda _: learning_rate,
        **policy_kwargs(network),
    )
