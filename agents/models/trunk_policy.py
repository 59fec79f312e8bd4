"""MaskablePPO's policy around a trunk that computes the logits itself (the structured networks:
:mod:`agents.models.graph_network`, :mod:`agents.models.mine_network`).

Such a trunk is SB3's features extractor and returns each move's logit (one
per action, from the part of the board the move is about) followed by
pooled features. The policy splits them: the logits are the action
distribution's (``action_net`` is the identity), the pooled features go to
the value head. The trunk lists its ``output_layers`` so that they start
small, as SB3 starts its own action layer.
"""

from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


class SplitFeatures(nn.Module):
    """The policy's "MLP extractor": the trunk's first ``actions`` outputs to the policy, the rest to the value."""

    def __init__(self, actions: int, head: int):
        super().__init__()
        self.latent_dim_pi, self.latent_dim_vf = actions, head

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return features[:, : self.latent_dim_pi]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return features[:, self.latent_dim_pi :]


class TrunkPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy whose features extractor computes the logits (see the module docstring)."""

    def _build_mlp_extractor(self) -> None:
        actions = int(self.action_space.n)
        self.mlp_extractor = SplitFeatures(actions, self.features_dim - actions)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the trunk's logits are the distribution's
        if self.ortho_init:  # small initial logits, as SB3 gives its own action layer
            for layer in self.features_extractor.output_layers():
                nn.init.orthogonal_(layer.weight, gain=0.01)
                nn.init.zeros_(layer.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
