"""Which network can learn a heuristic's moves: train.py's MLP against the game's structured network
(Samurai: the hex graph; Wapi: the mine network).

Why: every two-player Samurai model trained so far loses to the heuristic,
and imitating it (the warm start) reaches only ~60% of its moves, however
much data is given. Samurai's heuristic reasons about settlements: the sum
of each player's influence over a settlement's neighbouring hexes, and
which empty hexes touch contested ones. A flat MLP over 174 x 21 hex
features must learn every neighbourhood separately; a network that passes
messages along the board's adjacency computes such sums with shared
weights. This benchmark measures the difference with the warm start's own
code (:func:`training.imitation.generate` and ``clone``: the same
games, masked cross-entropy, one game in ten held out whole) and reports
the held-out move accuracy.

The graph network is ``train.py --network samurai_graph``
(:mod:`agents.models.graph_network`), at its default size. ``--game wapi`` compares
four-player Wapi's MLP (the size of the model shipped before, 256 x 256) with
``--network wapi_mines`` (:mod:`agents.models.mine_network`): one network for every
mine, against an MLP that must learn each mine's slots on its own.

    python -m research.imitation_networks [--games 1500] [--epochs 8] [--out research/results/imitation_networks.md]
    python -m research.imitation_networks --game wapi --games 4000 --epochs 20 \
        --out research/results/imitation_networks_wapi.md
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import NamedTuple

import torch

#: The seeds of the deals played (never used by train.py's warm starts, which start at 1,000,000 + 100,000 * seed).
DEAL_SEED = 3_000_000


class Setting(NamedTuple):
    """What one game's comparison plays: its configuration, its title and its structured network in words,
    and the MLP's (layers, shared layers), or None for the game's training default."""

    config: dict
    title: str
    network: str
    mlp: tuple[list[int], list[int]] | None


#: Samurai's MLP is its training default; Wapi's the size of the model shipped before the mine network.
GAMES = {
    "samurai": Setting({"num_players": 2}, "two-player Samurai", "a hex-graph network", None),
    "wapi": Setting({"num_players": 4}, "four-player Wapi", "a network shared by the mines", ([256, 256], [])),
}


def candidates(game) -> dict:
    """train.py's MLP (``--network mlp``) and the game's structured network, each at its default size."""
    from agents.models.card import STRUCTURED_NETWORKS, network_description
    from agents.models.policies import structured
    from training.network import new_network
    from training.settings import game_training

    settings = game_training(game.name)
    layers, shared = GAMES[game.name].mlp or (settings["net_arch"], settings["shared_layers"])
    mlp = network_description(layers, shared=shared)
    (kind,) = (kind for kind in STRUCTURED_NETWORKS if STRUCTURED_NETWORKS[kind].game == game.name)
    return {"mlp": new_network(game, mlp, ""), kind: new_network(game, structured(kind).default_description(), "")}


def main(argv: list[str] | None = None) -> None:
    from benchmarks.core import records
    from cli import HelpFormatter, parse_command
    from envs.games import make_game
    from training.imitation import clone, generate

    parser = argparse.ArgumentParser(
        prog="python -m research.imitation_networks", description=__doc__.split("\n")[0], formatter_class=HelpFormatter
    )
    parser.add_argument("--game", choices=sorted(GAMES), default="samurai", help="the game whose heuristic is imitated")
    parser.add_argument("--games", type=int, default=1500, help="heuristic games imitated (one in ten held out)")
    parser.add_argument("--epochs", type=int, default=8, help="passes over the imitated moves, for each network")
    parser.add_argument("--processes", type=int, default=2, help="worker processes playing the heuristic games")
    parser.add_argument("--out", help="the results file (default runs/bench/imitation_networks-TIME.md)")
    args, argv = parse_command(parser, argv)
    torch.manual_seed(0)
    config = GAMES[args.game].config
    game = make_game(args.game, **config)
    started = time.time()
    data = generate(args.game, config, "heuristic", args.games, DEAL_SEED, processes=args.processes)
    print(f"{len(data['actions'])} moves in {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    rows = []
    for name, candidate in candidates(game).items():
        parameters = sum(p.numel() for p in candidate.module.parameters())
        started = time.time()
        report = clone(candidate, data, epochs=args.epochs, seed=0)  # the same held-out games for both
        print(f"{name}: held-out {report['held_out_accuracy']:.1%}", file=sys.stderr, flush=True)
        rows.append((name, parameters, report, time.time() - started))
    text = _report(rows, len(data["actions"]), args, argv)
    out = Path(args.out) if args.out else records.run_file("imitation_networks", ".md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)


def _report(rows, moves: int, args, argv: list[str]) -> str:
    lines = [
        f"# Imitating the {GAMES[args.game].title} heuristic: flat MLP against {GAMES[args.game].network}",
        "",
        f"Command: `python -m research.imitation_networks {shlex.join(argv)}`",
        "",
        f"{args.games} heuristic games (deal seeds from {DEAL_SEED:,}), {moves:,} moves with a choice; one game in "
        f"ten held out whole; masked cross-entropy, Adam 1e-3, batches of 256, {args.epochs} epochs "
        "(`training.imitation.clone`).",
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
