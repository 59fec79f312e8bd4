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

The graph network is ``train.py --network samurai_graph``
(:mod:`agents.graph_network`), at its default size.

    python -m benchmarks.imitation_networks [--games 1500] [--epochs 8] [--out benchmarks/results/imitation_networks.md]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

import torch

#: The seeds of the deals played (never used by train.py's warm starts, which start at 1,000,000 + 100,000 * seed).
DEAL_SEED = 3_000_000


def candidates(game) -> dict:
    """train.py's default two-player Samurai network (``--network mlp``), and ``--network samurai_graph``."""
    import envs
    from agents.graph_network import graph_description
    from agents.network import network_description, new_network

    settings = envs.describe("samurai").training
    mlp = network_description(settings["net_arch"], shared=settings["shared_layers"])
    return {"mlp": new_network(game, mlp, ""), "samurai_graph": new_network(game, graph_description(), "")}


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
