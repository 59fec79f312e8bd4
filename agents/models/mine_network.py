"""A policy-value network that reads Wapi mine by mine, with weights shared by the six mines
(card network kind ``"wapi_mines"``).

Why: Wapi's six mines follow the same rules, and a move is about one of
them (the coin goes into mine k; the pole goes on the drawn mask's mine).
A flat MLP over the 92 numbers must learn what makes a mine good for a coin
six times over, once per mine's slots; imitating the heuristic it reaches
about 86% of its moves. Here one small network reads each mine, so what is
learned about one mine holds for all of them, and permuting the mines
permutes the coin logits (``tests/test_mine_network.py``); it reaches about
92% with a third of the weights (``research/results/imitation_networks_wapi.md``).

Layout (``width``, ``head`` in the card's ``network``):

- each mine's input: its block of Wapi's observation (coins, silver, masks,
  the poles of each seat slot; ``envs/wapi/observation.py``), the masks of
  its symbol still in the bag, and whether the drawn tile is its mask;
- the context: the rest of the observation that no mine owns (the drawn
  coin, totems left, the bag's coins, scores, seats), embedded once;
- a per-mine layer on the mine and the context, then one round in which
  every mine also reads the mean and the maximum over all mines (a mine's
  worth to me depends on what the others offer);
- the logits: one per mine for its coin action; the pole and the decline
  from the drawn mask's mine together with the pooled mines, which also
  feed the value head.

As in :mod:`agents.models.graph_network`, the trunk is SB3's features extractor;
its output is the logits followed by the pooled features, which the
policy splits.
"""

from __future__ import annotations

from typing import Any

import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.models.card import STRUCTURED_NETWORKS, check_sizes
from agents.models.trunk_policy import TrunkPolicy
from envs.wapi.actions import NUM_ACTIONS, PLACE_TOTEM
from envs.wapi.components import FIRST_MASK, NUM_MINES, NUM_TILE_KINDS
from envs.wapi.observation import BAG, DRAWN, MINE_BLOCK, MINES, OBSERVATION_SIZE

KIND = "wapi_mines"
#: The game it reads, and the sizes a description may take: the card's (agents.models.card), known without torch.
GAME, READS = STRUCTURED_NETWORKS[KIND].game, STRUCTURED_NETWORKS[KIND].reads
#: MaskablePPO's policy class for it.
POLICY = TrunkPolicy
#: The sizes a description may take: (low, high) per key.
LIMITS = STRUCTURED_NETWORKS[KIND].limits
#: The observation's entries that belong to mine k: its block, its masks in the bag, its mask drawn.
MINE_INPUTS = [
    [*range(MINES + k * MINE_BLOCK, MINES + (k + 1) * MINE_BLOCK), BAG + FIRST_MASK + k, DRAWN + FIRST_MASK + k]
    for k in range(NUM_MINES)
]
#: The entries no mine owns.
CONTEXT_INPUTS = [i for i in range(OBSERVATION_SIZE) if all(i not in mine for mine in MINE_INPUTS)]
#: The width of the context's embedding.
CONTEXT = 64


def mines_description(width: int = 64, head: int = 128) -> dict[str, Any]:
    """The card's ``network`` for this kind (checked)."""
    description = {"kind": KIND, "width": width, "head": head}
    check_sizes(description, KIND, LIMITS, "network")
    return description


#: What train.py's ``--network wapi_mines`` builds.
default_description = mines_description


class MineTrunk(BaseFeaturesExtractor):
    """Observations ``(B, OBSERVATION_SIZE)`` to ``(B, NUM_ACTIONS + head)``: the logits, then the pooled features."""

    def __init__(self, observation_space, width: int, head: int):
        super().__init__(observation_space, NUM_ACTIONS + head)
        if observation_space.shape != (OBSERVATION_SIZE,):
            raise ValueError(f"the {KIND} network reads Wapi observations ({OBSERVATION_SIZE} numbers)")
        self.register_buffer("mine_inputs", torch.tensor(MINE_INPUTS))
        self.register_buffer("context_inputs", torch.tensor(CONTEXT_INPUTS))
        mine_size = len(MINE_INPUTS[0])
        self.context = nn.Sequential(nn.Linear(len(CONTEXT_INPUTS), CONTEXT), nn.ReLU())
        self.embed = nn.Sequential(nn.Linear(mine_size + CONTEXT, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.exchange = nn.Sequential(nn.Linear(3 * width, width), nn.ReLU(), nn.Linear(width, width))
        self.pooled = nn.Sequential(nn.Linear(2 * width + CONTEXT, head), nn.ReLU())
        self.coin_logit = nn.Linear(width, 1)
        self.totem_logits = nn.Linear(width + head, NUM_ACTIONS - PLACE_TOTEM)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        mines = observations[:, self.mine_inputs]  # (B, NUM_MINES, mine_size)
        context = self.context(observations[:, self.context_inputs])
        state = self.embed(torch.cat([mines, context[:, None, :].expand(-1, NUM_MINES, -1)], dim=-1))
        pools = [state.mean(dim=1, keepdim=True), state.max(dim=1, keepdim=True).values]
        together = torch.cat([state, *(p.expand_as(state) for p in pools)], dim=-1)
        state = torch.relu(state + self.exchange(together))
        pooled = self.pooled(torch.cat([state.mean(dim=1), state.max(dim=1).values, context], dim=-1))
        drawn_mask = observations[:, DRAWN + FIRST_MASK : DRAWN + NUM_TILE_KINDS]  # one-hot mine, or all 0
        mask_mine = (drawn_mask[:, :, None] * state).sum(dim=1)
        logits = [self.coin_logit(state).squeeze(-1), self.totem_logits(torch.cat([mask_mine, pooled], dim=-1))]
        return torch.cat([*logits, pooled], dim=1)

    def output_layers(self) -> list[nn.Linear]:
        return [self.coin_logit, self.totem_logits]


def policy_kwargs(network: dict[str, Any]) -> dict[str, Any]:
    """SB3's ``policy_kwargs`` for a description of this kind (the policy class is :data:`POLICY`)."""
    return {
        "features_extractor_class": MineTrunk,
        "features_extractor_kwargs": {k: network[k] for k in LIMITS},
        "net_arch": {"pi": [], "vf": []},
    }
