"""Exporting an RLlib-trained policy in the safe form that :mod:`agents.models.rllib_policy` reads back.

The trainer calls :func:`export_policy` with the learning module's state: the
policy path of RLlib's default PPO module (its actor encoder, then the policy
head) is renamed ``layers.i.weight``/``bias`` and written beside the card, so
that a checkpoint is played without unpickling anything of RLlib's. Nothing
here imports Ray.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.models.rllib_policy import CARD_FILE, WEIGHTS_FILE, array, check_shapes, game_card
from envs.core.engine import Game

#: Where RLlib's default PPO module keeps the policy's linear layers, in order: the actor's encoder
#: (its own, or the one shared with the value function), then the policy head.
ENCODER_PREFIXES = ("encoder.actor_encoder.net.mlp.", "encoder.encoder.net.mlp.")
HEAD_PREFIX = "pi.net.mlp."


def policy_layers(module_state: dict[str, Any]) -> list[tuple[Any, Any]]:
    """The (weight, bias) pairs of the policy path of an RLlib default PPO module's state dict, in order."""
    encoder = next((p for p in ENCODER_PREFIXES if p + "0.weight" in module_state), None)
    if encoder is None:
        raise ValueError(f"not an RLlib default PPO module: no policy encoder among {sorted(module_state)[:8]}")
    layers = []
    for prefix in (encoder, HEAD_PREFIX):
        indices = sorted(
            int(k[len(prefix) :].split(".")[0]) for k in module_state if k.startswith(prefix) and k.endswith(".weight")
        )
        layers += [(module_state[f"{prefix}{i}.weight"], module_state[f"{prefix}{i}.bias"]) for i in indices]
    return layers


def policy_state(module_state: dict[str, Any]) -> dict[str, np.ndarray]:
    """The policy's weights in the exported naming (``layers.i.weight``/``bias``, float32 arrays) from an RLlib
    default PPO module's state dict (tensors or arrays)."""
    state = {}
    for i, (w, b) in enumerate(policy_layers(module_state)):
        state[f"layers.{i}.weight"], state[f"layers.{i}.bias"] = array(w), array(b)
    return state


def export_policy(module_state: dict[str, Any], game: Game, directory: str | Path, activation: str = "tanh") -> Path:
    """Write the card and the weights of the policy in ``module_state`` (an RLlib module's state dict,
    tensors or arrays) into ``directory``; returns the directory."""
    import torch

    weights = {k: torch.from_numpy(v) for k, v in policy_state(module_state).items()}
    hidden = [int(weights[f"layers.{i}.weight"].shape[0]) for i in range(len(weights) // 2 - 1)]
    card = game_card(game, hidden, activation)
    check_shapes(card, {k: tuple(v.shape) for k, v in weights.items()}, "the exported module")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    torch.save(weights, directory / WEIGHTS_FILE)
    (directory / CARD_FILE).write_text(json.dumps(card, indent=1) + "\n")
    return directory
