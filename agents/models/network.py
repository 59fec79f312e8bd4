"""The policy-value network a player runs (:class:`PolicyValueNet`), and loading one from a model file.

What loading does, and why it is safe: :func:`load_network` reads the card
(JSON) and refuses a file without one, or one made for another game,
configuration or shape, with a ValueError *before anything is built*; it then
builds the policy from the card's description (our code, never a class named
by the file) and reads ``policy.pth`` with ``torch.load(weights_only=True)``,
and loads it with ``load_state_dict(strict=True)``. Every entry point goes
through here: the ``ppo:PATH`` and ``trained`` agents, the guided search, the
terminal game, the benchmarks, self-play snapshot opponents and
``train.py --resume``. Writing a file is training's (``training.network``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.models.card import POLICY_NAME, check_card, game_card
from agents.models.files import find_model, read_card, read_tensors, shipped_model_path
from envs.core.engine import Game, shown


def load_weights(policy: torch.nn.Module, weights: dict[str, Any], where: str) -> None:
    """``load_state_dict(strict=True)``, a missing, extra or misshapen tensor refused as a ValueError."""
    if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in weights.items()):
        raise ValueError(f"{where}: the policy weights must map names to tensors")
    try:
        policy.load_state_dict(weights, strict=True)
    except RuntimeError as error:
        raise ValueError(
            f"{where}: the weights do not fit the network its card describes ({shown(str(error), 300)})"
        ) from None


@dataclass
class PolicyValueNet:
    """A trained policy and value for one game configuration, on the CPU, for play and search.

    Contract (kept stable for search and expert iteration):

    - ``game_name``, ``config``, ``observation_size``, ``num_actions``: what it was trained for;
      ``card``: the model file's whole card (``network``, ``command``, ``reward``, ``training``).
    - :meth:`evaluate` takes a batch of observations (``game.observer().observe(state, player)``
      for the player to act, float32 ``(B, observation_size)``) and their legal masks (bool
      ``(B, num_actions)``, at least one legal action per row) and returns the move
      probabilities ``(B, num_actions)`` float32 (0 off the mask, each row summing to 1) and
      the values ``(B,)`` float32: the expected final reward of the player to act, on the
      scale of the card's ``reward`` mode ("win": +1 win, -1 loss, clipped to -1..1). No
      gradient; it does not change the module's mode. :meth:`policy` gives the same
      probabilities without running the value head.
    - ``module`` is the policy (SB3's ``MaskableActorCriticPolicy``); :meth:`logits_and_values`
      is the differentiable forward pass for fine-tuning it (expert iteration), after which
      ``training.network.save_network`` writes it in the same safe format.
    """

    game_name: str
    config: dict[str, Any]
    observation_size: int
    num_actions: int
    module: torch.nn.Module
    card: dict[str, Any]

    def logits_and_values(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Raw action logits ``(B, A)`` (unmasked) and values ``(B,)``, with gradients."""
        policy = self.module
        features = policy.extract_features(observations)
        latent_pi, latent_vf = policy.mlp_extractor(features)
        return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)

    def policy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked move probabilities of :meth:`evaluate` alone (the value head is not run)."""
        observations, masks = self._check_batch(observations, masks)
        with torch.no_grad():
            features = self.module.extract_features(torch.from_numpy(observations))
            latent_pi = self.module.mlp_extractor.forward_actor(features)
            logits = self.module.action_net(latent_pi).masked_fill(~torch.from_numpy(masks), -math.inf)
            return torch.softmax(logits, dim=1).numpy()

    def _check_batch(self, observations, masks) -> tuple[np.ndarray, np.ndarray]:
        observations = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if observations.ndim != 2 or observations.shape[1] != self.observation_size:
            raise ValueError(f"observations must have shape (B, {self.observation_size}), got {observations.shape}")
        if masks.shape != (observations.shape[0], self.num_actions):
            raise ValueError(f"masks must have shape ({observations.shape[0]}, {self.num_actions}), got {masks.shape}")
        if not masks.any(axis=1).all():
            raise ValueError("every mask row needs at least one legal action")
        return observations, masks

    def evaluate(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masked move probabilities ``(B, A)`` and values ``(B,)`` for a batch (see the class contract)."""
        observations, masks = self._check_batch(observations, masks)
        with torch.no_grad():
            logits, values = self.logits_and_values(torch.from_numpy(observations))
            logits = logits.masked_fill(~torch.from_numpy(masks), -math.inf)
            probs = torch.softmax(logits, dim=1)
        values = values.numpy()
        if self.card["reward"] == "win":
            values = np.clip(values, -1.0, 1.0)
        return probs.numpy().astype(np.float32, copy=False), values.astype(np.float32, copy=False)


def network_from_policy(policy: torch.nn.Module, card: dict[str, Any]) -> PolicyValueNet:
    """Wrap a policy (a training learner's, say) and its card as a :class:`PolicyValueNet` (no copy)."""
    return PolicyValueNet(card["game"], card["config"], card["observation_size"], card["num_actions"], policy, card)


def learner_network(policy: torch.nn.Module, game: Game, reward: str) -> PolicyValueNet:
    """A policy being trained, as a :class:`PolicyValueNet` of ``game`` (no copy), to evaluate or warm-start it:
    its card says the game and the reward mode (the values' scale) only, not how the policy was made."""
    return network_from_policy(policy, {**game_card(game), "reward": reward})


def load_network(source: str, game: Game) -> PolicyValueNet:
    """The network of ``source`` ("ppo:PATH", a path, or "trained" for the shipped model of ``game``'s
    configuration), checked against ``game`` before anything is built; in eval mode, on the CPU."""
    from agents.models.policies import build_policy  # SB3, only once a network is built

    if not isinstance(source, str) or not source:
        raise ValueError(f"source must be 'trained', 'ppo:PATH' or a path, got {shown(source)}")
    path = shipped_model_path(game) if source == "trained" else source.removeprefix("ppo:")
    card = read_card(path)
    check_card(card, game, f"model file {find_model(path)}")
    policy = build_policy(card["network"], card["observation_size"], card["num_actions"])
    load_weights(policy, read_tensors(path, POLICY_NAME), f"model file {find_model(path)}")
    policy.eval()
    return network_from_policy(policy, card)
