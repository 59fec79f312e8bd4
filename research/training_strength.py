"""Strength of trained models on deals never used in training or tuning: seats swapped, 95% t intervals over deals.

Each model (by default every model shipped in ``agents/models``) plays
``--games`` games against each opponent kind in every other seat, through
:func:`training.win_rates.evaluate`: game ``i`` deals from seed
``--seed + i // n`` with the model in seat ``i % n``. The default seed,
9,000,000, is far from every seed training uses (evaluation 10,000 and
20,000 on; warm starts 1,000,000 + 100,000 x run seed, a few thousand games;
training deals come from per-slot generators, not from small integer seeds).
At an n-player table "vs heuristic" means n - 1 heuristics: a fair share of
the wins is 1/n.

    python -m research.training_strength [--models trained | PATH ...] [--games 1000] [--out FILE]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

from cli import HelpFormatter, parse_command

#: The target of each shipped configuration against the heuristic (issue 13), by game.
TARGETS = {"wakanda": 0.80, "samurai": 0.55, "wapi": 0.30}


def model_paths(names: list[str]) -> list[str]:
    from agents.models.files import SHIPPED_DIR

    if names == ["trained"]:
        return [str(path) for path in sorted(SHIPPED_DIR.glob("*.zip"))]
    return names


def measure(path: str, opponents: list[str], games: int, seed: int) -> dict:
    from agents.models.card import card_game
    from agents.models.files import read_card
    from agents.models.network import load_network

    card = read_card(path)
    game = card_game(card)
    network = load_network(path, game)
    rows = []
    for opponent in opponents:
        started = time.time()
        rows.append({**deal_evaluate(network, game, opponent, games, seed), "seconds": time.time() - started})
    return {"path": path, "card": card, "game": game, "rows": rows}


def deal_evaluate(network, game, opponent: str, games: int, seed: int) -> dict:
    """``training.win_rates.evaluate``'s games (game ``i``: deal ``seed + i // n``, the model in seat ``i % n``),
    played on the batched vector env as the trainer's evaluation plays them (hundreds of games a second, where
    the match runner plays one at a time), with the benchmarks' interval
    (:func:`benchmarks.core.rating.share_interval`: t over the per-deal means, since a deal's seat-swapped games
    share its luck; evaluate's Wilson interval, which training keeps for its own curves, takes them as
    independent)."""
    from benchmarks.core.rating import share_interval
    from training.league import baseline_spec
    from training.members import build_member
    from training.win_rates import seat_points

    member, n = build_member(baseline_spec(opponent), game, seed), game.num_players
    by_deal: dict[int, list[float]] = {}
    for seat in range(min(n, games)):
        deals = [seed + i // n for i in range(seat, games, n)]
        for deal, points in zip(deals, seat_points(network, game, member, seat, deals, "win")):
            by_deal.setdefault(deal, []).append(points)
    _, low, high = share_interval(list(by_deal.values()))
    return {"opponent": opponent, "games": games, "win_rate": sum(map(sum, by_deal.values())) / games} | {
        "ci_low": low,
        "ci_high": high,
    }


def check(paths: list[str], opponents: list[str], games: int) -> None:
    """Every model loads and every opponent sits at its table before the first game (ValueError naming
    what is wrong), so that a bad name does not end a long run half way."""
    from agents.models.card import card_game
    from agents.models.files import read_card
    from agents.models.network import load_network
    from training.league import baseline_spec
    from training.members import build_member

    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    for path in paths:
        game = card_game(read_card(path))
        load_network(path, game)
        for opponent in opponents:
            build_member(baseline_spec(opponent), game, 0)


def report(results: list[dict], argv: list[str]) -> str:
    lines = [
        f"Command: `python -m research.training_strength {shlex.join(argv)}`",
        "",
        "| model | configuration | opponent (every other seat) | games | win share | 95% interval (t over deals) "
        "| fair share "
        "| target | met |",
        "|---|---|---|---:|---:|---|---:|---:|---|",
    ]
    for result in results:
        game, card = result["game"], result["card"]
        for row in result["rows"]:
            target = TARGETS.get(game.name) if row["opponent"] == "heuristic" else None
            met = (
                "–"
                if target is None
                else ("yes" if row["ci_low"] >= target else "no" if row["ci_high"] < target else "within CI")
            )
            lines.append(
                f"| `{result['path']}` | {game.name} {card['config']} | {row['opponent']} | {row['games']} | "
                f"**{row['win_rate']:.1%}** | {row['ci_low']:.1%} – {row['ci_high']:.1%} | "
                f"{1 / game.num_players:.0%} | {'–' if target is None else f'{target:.0%}'} | {met} |"
            )
    lines += ["", "How each model was made (the `command` in its card):", ""]
    lines += [f"- `{result['path']}`: `{result['card']['command']}`" for result in results]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m research.training_strength", description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter
    )
    parser.add_argument("--models", nargs="+", default=["trained"], help="model files, or 'trained' (the shipped ones)")
    parser.add_argument(
        "--opponents", nargs="+", default=["random", "heuristic"], help="opponent kinds: random, heuristic, ismcts"
    )
    parser.add_argument("--games", type=int, default=1000, help="games per model and opponent kind, seats swapped")
    parser.add_argument("--seed", type=int, default=9_000_000, help="game i deals from seed --seed + i // players")
    parser.add_argument("--out", default=None, help="also write the table here, as markdown (default: printed only)")
    args, argv = parse_command(parser, argv)
    try:
        check(model_paths(args.models), args.opponents, args.games)
    except ValueError as error:
        parser.error(str(error))
    results = []
    for path in model_paths(args.models):
        results.append(measure(path, args.opponents, args.games, args.seed))
        print(
            f"{path}: "
            + ", ".join(f"{r['opponent']} {r['win_rate']:.1%} ({r['seconds']:.0f} s)" for r in results[-1]["rows"]),
            file=sys.stderr,
            flush=True,
        )
    text = report(results, argv)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
