"""Which network can learn the Samurai heuristic's moves: train.py's MLP against a hex-graph network.

Why: every two-player Samurai model trained so far loses to the heuristic,
and imitating it (the warm start) reaches only ~60% of its moves, however
much data is given. Samurai's heuristic reasons about settlements: the sum
of each player's influence over a settlement's neighbouring hexes, and
which empty hexes touch contested ones. A flat MLP over 174 x 21 hex
features must learn every neighbourhood separately; a network that passes
messages along the board's adjacency computes such sums with shared
weights. This benchmark measures the difference with the warm start's own
code (:func:`agents.training.imitation.generate` and ``clone``: the same
games, masked cross-entropy, one game in ten held out whole) and reports
the held-out move accuracy.

The graph network (:class:`HexGraphNet`): each hex's 21 features and the
global features (hand, phase, the tile in progress, seats) go through a
per-hex layer; ``rounds`` times, every hex adds a transform of the sum of
its neighbours' states (residual); then one logit per hex for the hex
actions, three per settlement for the figure actions, and the tile choices,
end of turn and value from the pooled hex states.

    python -m benchmarks.imitation_networks [--games 1500] [--epochs 8] [--out benchmarks/results/imitation_networks.md]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

import torch
from torch import nn

from envs.samurai.actions import HEX
from envs.samurai.board import NEIGHBOURS, NUM_HEXES, SETTLEMENTS
from envs.samurai.observation import HEX_FEATURES, PLAYERS

#: The seeds of the deals played (never used by train.py's warm starts, which start at 1,000,000 + 100,000 * seed).
DEAL_SEED = 3_000_000


class HexGraphNet(nn.Module):
    """Message passing over the Samurai board (see the module docstring); logits ``(B, 294)`` and values ``(B,)``."""

    def __init__(self, width: int = 32, rounds: int = 2, head: int = 128):
        super().__init__()
        adjacency = torch.zeros(NUM_HEXES, NUM_HEXES)
        for h, neighbours in enumerate(NEIGHBOURS):
            adjacency[h, list(neighbours)] = 1.0
        self.register_buffer("adjacency", adjacency)
        self.register_buffer("settlements", torch.tensor(SETTLEMENTS))
        global_size = 64
        self.globals = nn.Sequential(nn.LazyLinear(global_size), nn.ReLU())
        self.embed = nn.Sequential(
            nn.Linear(HEX_FEATURES + global_size, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU()
        )
        self.rounds = nn.ModuleList(
            nn.Sequential(nn.Linear(2 * width, width), nn.ReLU(), nn.Linear(width, width)) for _ in range(rounds)
        )
        self.hex_logit = nn.Linear(width, 1)
        self.figure_logits = nn.Linear(width, 3)
        self.pooled = nn.Sequential(nn.Linear(2 * width + global_size, head), nn.ReLU())
        self.choice_logits = nn.Linear(head, HEX)  # the tile choices and the end of the turn
        self.value = nn.Linear(head, 1)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch = observations.shape[0]
        hexes = observations[:, :PLAYERS].reshape(batch, NUM_HEXES, HEX_FEATURES)
        on_board = hexes[:, :, :1]
        context = self.globals(observations[:, PLAYERS:])
        state = self.embed(torch.cat([hexes, context[:, None, :].expand(batch, NUM_HEXES, -1)], dim=-1)) * on_board
        for layer in self.rounds:
            incoming = torch.matmul(self.adjacency, state)
            state = torch.relu(state + layer(torch.cat([state, incoming], dim=-1))) * on_board
        pooled = self.pooled(torch.cat([state.mean(dim=1), state.max(dim=1).values, context], dim=-1))
        logits = torch.cat(
            [
                self.choice_logits(pooled),
                self.hex_logit(state).squeeze(-1),
                self.figure_logits(state[:, self.settlements]).reshape(batch, -1),
            ],
            dim=1,
        )
        return logits, self.value(pooled).squeeze(-1)


class Candidate:
    """A network as the warm start's ``clone`` expects it: ``module`` and ``logits_and_values``."""

    def __init__(self, module: nn.Module):
        self.module = module

    def logits_and_values(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.module(observations)


def candidates(game) -> dict:
    """train.py's default two-player Samurai network, and the graph network."""
    import envs
    from agents.network import network_description, new_network

    settings = envs.describe("samurai").training
    mlp = new_network(game, network_description(settings["net_arch"], shared=settings["shared_layers"]), "")
    graph = HexGraphNet()
    graph(torch.zeros(1, game.observation_size))  # sizes the lazy layer
    return {"mlp": mlp, "graph": Candidate(graph)}


def main(argv: list[str] | None = None) -> None:
    from agents.games import make_game
    from agents.training.imitation import clone, generate

    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m benchmarks.imitation_networks", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1500, help="heuristic games imitated (one in ten held out)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", default="benchmarks/results/imitation_networks.md")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    game = make_game("samurai", num_players=2)
    started = time.time()
    data = generate("samurai", {"num_players": 2}, "heuristic", args.games, DEAL_SEED, processes=args.processes)
    print(f"{len(data['actions'])} moves in {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    rows = []
    for name, candidate in candidates(game).items():
        parameters = sum(p.numel() for p in candidate.module.parameters())
        started = time.time()
        report = clone(candidate, data, epochs=args.epochs, seed=0)  # the same held-out games for both
        print(f"{name}: held-out {report['held_out_accuracy']:.1%}", file=sys.stderr, flush=True)
        rows.append((name, parameters, report, time.time() - started))
    text = _report(rows, len(data["actions"]), args, argv)
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


def _report(rows, moves: int, args, argv: list[str]) -> str:
    lines = [
        "# Imitating the two-player Samurai heuristic: flat MLP against a hex-graph network",
        "",
        f"Command: `python -m benchmarks.imitation_networks {shlex.join(argv)}`",
        "",
        f"{args.games} heuristic games (deal seeds from {DEAL_SEED:,}), {moves:,} moves with a choice; one game in "
        f"ten held out whole; masked cross-entropy, Adam 1e-3, batches of 256, {args.epochs} epochs "
        "(`agents.training.imitation.clone`).",
        "",
        "| network | parameters | held-out move accuracy | training accuracy | held-out policy loss | seconds |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, parameters, report, seconds in rows:
        lines.append(
            f"| {name} | {parameters:,} | **{report['held_out_accuracy']:.1%}** | {report['train_accuracy']:.1%} "
            f"| {report['held_out_policy_loss']:.3f} | {seconds:.0f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
