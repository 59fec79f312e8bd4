"""A policy-value network that reads the Samurai board as a graph (card network kind ``"samurai_graph"``).

Why: Samurai's decisions are about settlements, each decided by the sum of
the players' influence over its neighbouring hexes. A flat MLP over the 174 x
21 hex features must learn every neighbourhood on its own, and imitating the
heuristic it reaches only ~60% of its moves; this network passes messages
along the board's adjacency with weights shared by every hex, and reaches
~72% with a thirtieth of the parameters
(``benchmarks/results/imitation_networks.md``).

Layout (``width``, ``rounds``, ``head`` in the card's ``network``):

- each hex's features (Samurai's observation, ``envs/samurai/observation.py``:
  ``HEX_FEATURES`` per hex, first in the vector) together with an embedding
  of the rest of the observation (hand, phase, the tile in progress, seats)
  go through a per-hex layer to a ``width``-wide state;
- ``rounds`` times, every hex adds a transform of itself and of the sum of
  its neighbours' states (residual; hexes off the board stay zero, so only
  the hexes on the board are computed, which makes training 2-3x faster:
  ``docs/experiments/012-shipped-models-before-the-protocol.md``);
- the logits: one per hex for the hex actions, three per settlement (from
  its hex's state) for the figure actions, and the tile choices and the end
  of the turn from the pooled states (mean and max over hexes, and the
  embedding), which also feed the value head.

In Stable-Baselines3 terms the trunk is the features extractor; its output is
the logits followed by the pooled features, which the policy splits: the
logits are the action distribution's (``action_net`` is the identity) and the
pooled features go to the value head.
"""

from __future__ import annotations

from typing import Any

import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.models.card import STRUCTURED_NETWORKS, check_sizes
from agents.models.trunk_policy import TrunkPolicy
from envs.samurai.actions import HEX, NUM_ACTIONS
from envs.samurai.board import NEIGHBOURS, NUM_HEXES, SETTLEMENTS
from envs.samurai.observation import HEX_FEATURES, OBSERVATION_SIZE, PLAYERS

KIND = "samurai_graph"
#: The game it reads, and the sizes a description may take: the card's (agents.models.card), known without torch.
GAME, READS = STRUCTURED_NETWORKS[KIND].game, STRUCTURED_NETWORKS[KIND].reads
#: MaskablePPO's policy class for it.
POLICY = TrunkPolicy
#: The sizes a description may take: (low, high) per key.
LIMITS = STRUCTURED_NETWORKS[KIND].limits
#: The embedding of the observation's non-hex part.
CONTEXT = 64
#: How many boards (sets of hexes on the board) a network keeps its sub-graph for.
MAX_BOARDS = 16


def graph_description(width: int = 32, rounds: int = 2, head: int = 128) -> dict[str, Any]:
    """The card's ``network`` for this kind (checked)."""
    description = {"kind": KIND, "width": width, "rounds": rounds, "head": head}
    check_sizes(description, KIND, LIMITS, "network")
    return description


#: What train.py's ``--network samurai_graph`` builds.
default_description = graph_description


class HexGraphTrunk(BaseFeaturesExtractor):
    """Observations ``(B, OBSERVATION_SIZE)`` to ``(B, NUM_ACTIONS + head)``: the logits, then the pooled features."""

    def __init__(self, observation_space, width: int, rounds: int, head: int):
        super().__init__(observation_space, NUM_ACTIONS + head)
        if observation_space.shape != (OBSERVATION_SIZE,):
            raise ValueError(f"the {KIND} network reads Samurai observations ({OBSERVATION_SIZE} numbers)")
        adjacency = torch.zeros(NUM_HEXES, NUM_HEXES)
        for h, neighbours in enumerate(NEIGHBOURS):
            adjacency[h, list(neighbours)] = 1.0
        self.register_buffer("adjacency", adjacency)
        self.register_buffer("settlements", torch.tensor(SETTLEMENTS))
        self._board_parts: dict[tuple[str, bytes], tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}
        self.context = nn.Sequential(nn.Linear(OBSERVATION_SIZE - PLAYERS, CONTEXT), nn.ReLU())
        self.embed = nn.Sequential(
            nn.Linear(HEX_FEATURES + CONTEXT, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU()
        )
        self.rounds = nn.ModuleList(
            nn.Sequential(nn.Linear(2 * width, width), nn.ReLU(), nn.Linear(width, width)) for _ in range(rounds)
        )
        self.pooled = nn.Sequential(nn.Linear(2 * width + CONTEXT, head), nn.ReLU())
        self.hex_logit = nn.Linear(width, 1)
        self.figure_logits = nn.Linear(width, 3)
        self.choice_logits = nn.Linear(head, HEX)  # the tile choices and the end of the turn

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        batch = observations.shape[0]
        hexes = observations[:, :PLAYERS].reshape(batch, NUM_HEXES, HEX_FEATURES)
        active, position, adjacency = self._board_part(hexes[:, :, 0])
        hexes = hexes[:, active]
        on_board = hexes[:, :, :1]
        context = self.context(observations[:, PLAYERS:])
        state = self.embed[1:](self._first_embedding(hexes, context)) * on_board
        for layer in self.rounds:
            incoming = neighbour_sums(adjacency, state)
            state = torch.relu(state + layer(torch.cat([state, incoming], dim=-1))) * on_board
        # Off-board hexes read a zero state: one zero row after the active hexes.
        state = torch.cat([state, state.new_zeros(batch, 1, state.shape[-1])], dim=1)
        pooled = self.pooled(torch.cat([state.sum(dim=1) / NUM_HEXES, state.max(dim=1).values, context], dim=-1))
        logits = [
            self.choice_logits(pooled),
            self.hex_logit(state).squeeze(-1)[:, position],
            self.figure_logits(state[:, position[self.settlements]]).reshape(batch, -1),
        ]
        return torch.cat([*logits, pooled], dim=1)

    def _board_part(self, on_board: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The hexes on the board in some observation, each hex's row among them, and their adjacency.

        Why: hexes off the board stay zero and send nothing, so only these are
        computed (91 of 174 with two players); an off-board hex reads the zero
        row after them. Cached per board, as a batch's boards are few.
        """
        anywhere = on_board.any(dim=0)
        key = (str(on_board.device), anywhere.cpu().numpy().tobytes())
        if key not in self._board_parts:
            if len(self._board_parts) >= MAX_BOARDS:
                self._board_parts.clear()
            active = anywhere.nonzero().squeeze(1)
            position = torch.full((NUM_HEXES,), len(active), dtype=torch.long, device=on_board.device)
            position[active] = torch.arange(len(active), device=on_board.device)
            self._board_parts[key] = (active, position, self.adjacency[active][:, active].to_sparse())
        return self._board_parts[key]

    def _first_embedding(self, hexes: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """The first embedding layer on each hex and the context, without copying the context to every hex."""
        layer = self.embed[0]
        from_hex = nn.functional.linear(hexes, layer.weight[:, :HEX_FEATURES], layer.bias)
        return from_hex + nn.functional.linear(context, layer.weight[:, HEX_FEATURES:])[:, None, :]

    def output_layers(self) -> list[nn.Linear]:
        return [self.hex_logit, self.figure_logits, self.choice_logits]


def neighbour_sums(adjacency: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
    """Each hex's sum of its neighbours' states: ``state`` ``(B, H, W)`` by the sparse ``(H, H)`` ``adjacency``."""
    batch, hexes, width = state.shape
    by_hex = state.transpose(0, 1).reshape(hexes, batch * width)
    return torch.sparse.mm(adjacency, by_hex).reshape(hexes, batch, width).transpose(0, 1)


def policy_kwargs(network: dict[str, Any]) -> dict[str, Any]:
    """SB3's ``policy_kwargs`` for a description of this kind (the policy class is :data:`POLICY`)."""
    return {
        "features_extractor_class": HexGraphTrunk,
        "features_extractor_kwargs": {k: network[k] for k in LIMITS},
        "net_arch": {"pi": [], "vf": []},
    }
