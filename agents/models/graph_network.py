"""A policy-value network that reads the Samurai board as a graph (card network kind ``"samurai_graph"``).

Why: Samurai's decisions are about settlements, each decided by the sum of
the players' influence over its neighbouring hexes. A flat MLP over the 174 x
21 hex features must learn every neighbourhood on its own, and imitating the
heuristic it reaches only ~60% of its moves; this network passes messages
along the board's adjacency with weights shared by every hex, and reaches
~72% with a thirtieth of the parameters
(``research/results/imitation_networks.md``).

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

How it is computed (the same function, cheaper: PPO's updates are most of a
Samurai training run): the states lie hex-major, ``(hexes, batch, width)``,
so the sparse neighbour sums read them without transposes; the activations
are applied in place; the multiplication by "on the board" is skipped where
every active hex is on the board in every observation (one board in the
batch, as in training); the maxima over hexes are taken without their
indices where no gradient is wanted; and an off-board hex's logits are the
output layers' biases, with no zero row appended. The outputs equal the
plain definition's (``tests/test_graph_network.py``) up to float rounding.

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
        # Hex-major states (hexes, batch, width): the neighbour sums multiply them as they lie, no transposes.
        hexes = observations[:, :PLAYERS].reshape(batch, NUM_HEXES, HEX_FEATURES).transpose(0, 1)
        active, position, adjacency, figure_rows, off_settlements = self._board_part(hexes[:, :, 0])
        hexes = hexes[active]
        on_board = hexes[:, :, :1]
        # Where every active hex is on the board in every observation (one board in the batch, as in training),
        # multiplying by it changes nothing: skipped.
        mask = None if bool((on_board == 1).all()) else on_board
        context = self.context(observations[:, PLAYERS:])
        state = self.embed[2](self._first_embedding(hexes, context).relu_()).relu_()  # self.embed, in place
        if mask is not None:
            state = state * mask
        for layer in self.rounds:
            incoming = torch.sparse.mm(adjacency, state.reshape(len(active), -1)).reshape(state.shape)
            # relu(state + layer(...)) in place: the last linear's output is kept by nothing else
            state = layer(torch.cat([state, incoming], dim=-1)).add_(state).relu_()
            if mask is not None:
                state = state * mask
        # Off-board hexes read a zero state (all states are >= 0, so a zero state changes no maximum): their
        # logits are the output layers' biases.
        # amax: the same maxima, much faster than max's (values, indices); training's gradient keeps max's rule
        # (all of it to the first maximal hex)
        maxima = state.max(dim=0).values if torch.is_grad_enabled() and state.requires_grad else state.amax(dim=0)
        pooled = self.pooled(torch.cat([state.sum(dim=0) / NUM_HEXES, maxima, context], dim=-1))
        hex_logits = torch.cat([self.hex_logit(state).squeeze(-1), self.hex_logit.bias.expand(1, batch)])
        figure_logits = self.figure_logits(state[figure_rows])
        if off_settlements is not None:
            figure_logits = torch.where(off_settlements[:, None, None], self.figure_logits.bias, figure_logits)
        logits = [
            self.choice_logits(pooled),
            hex_logits[position].t(),
            figure_logits.transpose(0, 1).reshape(batch, -1),
        ]
        return torch.cat([*logits, pooled], dim=1)

    def _board_part(self, on_board: torch.Tensor) -> tuple:
        """The hexes on the board in some observation, each hex's row among them (``len(active)`` for the
        others), their adjacency, each settlement's row (a valid one where it is off the board) and which
        settlements are off the board (None if none is); ``on_board`` is ``(hexes, batch)``.

        Why: hexes off the board stay zero and send nothing, so only these are
        computed (91 of 174 with two players); an off-board hex reads a zero
        state. Cached per board, as a batch's boards are few.
        """
        anywhere = on_board.any(dim=1)
        if not bool(anywhere.any()):  # no board at all: one hex computed (to a zero state: it is off the board)
            anywhere[0] = True
        key = (str(on_board.device), anywhere.cpu().numpy().tobytes())
        if key not in self._board_parts:
            if len(self._board_parts) >= MAX_BOARDS:
                self._board_parts.clear()
            active = anywhere.nonzero().squeeze(1)
            position = torch.full((NUM_HEXES,), len(active), dtype=torch.long, device=on_board.device)
            position[active] = torch.arange(len(active), device=on_board.device)
            off = position[self.settlements] == len(active)
            rows = position[self.settlements].clamp(max=len(active) - 1)
            adjacency = self.adjacency[active][:, active].to_sparse()
            self._board_parts[key] = (active, position, adjacency, rows, off if bool(off.any()) else None)
        return self._board_parts[key]

    def _first_embedding(self, hexes: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """The first embedding layer on each hex and the context, without copying the context to every hex."""
        layer = self.embed[0]
        from_hex = nn.functional.linear(hexes, layer.weight[:, :HEX_FEATURES], layer.bias)
        return from_hex + nn.functional.linear(context, layer.weight[:, HEX_FEATURES:])[None]

    def output_layers(self) -> list[nn.Linear]:
        return [self.hex_logit, self.figure_logits, self.choice_logits]


def policy_kwargs(network: dict[str, Any]) -> dict[str, Any]:
    """SB3's ``policy_kwargs`` for a description of this kind (the policy class is :data:`POLICY`)."""
    return {
        "features_extractor_class": HexGraphTrunk,
        "features_extractor_kwargs": {k: network[k] for k in LIMITS},
        "net_arch": {"pi": [], "vf": []},
    }
