"""The command line of a game's review (``python -m agents.review``): its options, the game it reads or plays,
and the readable table it prints (the costliest moves, the luckiest and unluckiest draws).

A game comes from a record: the web page's downloaded game (JSON, ``"format": "drawluck-web-game"``: game,
config, seed and moves) or a benchmark record (JSON Lines, gzip-compressed when the name ends in ``.gz``;
its ``--index``-th ``game`` line: game, config, seed, actions); or it is played here, ``--game`` with the
game's options, ``--seed`` and one ``--play`` agent per seat (``make_agent`` names, each seeded from
``--seed`` and its seat).
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np

import envs
from agents import make_agent, play_game
from agents.review_values import ESTIMATORS, OUTCOMES
from cli import HelpFormatter
from envs.core.engine import Game
from envs.core.render import player_label
from envs.games import GAME_NAMES, add_game_options, game_config, make_game

WEB_FORMAT = "drawluck-web-game"


def build_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agents.review", description=description, formatter_class=HelpFormatter
    )
    parser.add_argument(
        "record", nargs="?", help="a game to review: a web page's download (.json) or a record (.jsonl)"
    )
    parser.add_argument("--index", type=int, default=0, help="which game line of a JSON Lines record, from 0")
    parser.add_argument("--game", choices=list(GAME_NAMES), help="play a game to review (with --seed and --play)")
    parser.add_argument("--seed", type=int, default=0, help="with --game: the deal's seed (the agents' seeds follow)")
    parser.add_argument(
        "--play",
        nargs="+",
        metavar="AGENT",
        help="with --game: one make_agent name per seat (a search on a time budget plays each run anew)",
    )
    parser.add_argument("--value", default="rollouts", help=f"the value estimator: one of {', '.join(ESTIMATORS)}")
    parser.add_argument("--outcome", default="win", choices=list(OUTCOMES), help="win shares, or score margins")
    parser.add_argument("--rollouts", type=int, default=32, help="--value rollouts: playouts a position")
    parser.add_argument("--iterations", type=int, default=200, help="--value search: iterations a position")
    parser.add_argument("--deals", type=int, default=16, help="fresh deals that estimate the deal's expectation")
    parser.add_argument("--max-outcomes", type=int, default=32, help="a draw with more outcomes is sampled this often")
    parser.add_argument("--review-seed", type=int, default=0, help="the seed of the estimator's samples")
    parser.add_argument("--json", action="store_true", help="print the review as JSON (players and events)")
    parser.add_argument("--top", type=int, default=3, help="how many moves and draws the table lists")
    add_game_options(parser)
    return parser


def parse_arguments(description: str, argv: list[str] | None) -> argparse.Namespace:
    """The options, checked: a record or ``--game`` (not both), and with ``--game`` one agent a seat."""
    parser = build_parser(description)
    args = parser.parse_args(argv)
    if (args.record is None) == (args.game is None):
        parser.error("give a record to review, or --game with --seed and --play to play one (not both)")
    if args.game is not None and not args.play:
        parser.error("--game needs --play: one agent per seat (make_agent names: heuristic, random, best...)")
    if args.game is None and args.play:
        parser.error("--play is for --game: a record's game was played already")
    for flag in ("rollouts", "iterations", "deals", "max_outcomes", "top"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1, got {getattr(args, flag)}")
    args.parser = parser
    return args


def read_game(args: argparse.Namespace) -> tuple[Game, int, list[int]]:
    """The game, its seed and its moves: read from ``args.record``, or played with ``--game``."""
    try:
        return _played(args) if args.game is not None else _recorded(Path(args.record), args.index)
    except (ValueError, KeyError, TypeError, OSError) as error:
        args.parser.error(f"{args.record or '--game'}: {error}")


def _played(args: argparse.Namespace) -> tuple[Game, int, list[int]]:
    config = game_config(args.game, args)
    if "num_players" in envs.describe(args.game).defaults():
        config.setdefault("num_players", len(args.play))
    game = make_game(args.game, **config)
    if len(args.play) != game.num_players:
        raise ValueError(f"--play needs one agent per seat: {game.num_players} for {args.game}, got {len(args.play)}")
    seeds = np.random.SeedSequence(args.seed).generate_state(game.num_players)
    agents = [make_agent(name, game, seed=int(s)) for name, s in zip(args.play, seeds)]
    return game, args.seed, [action for _, action in play_game(game, agents, seed=args.seed, record=True).actions]


def _recorded(path: Path, index: int) -> tuple[Game, int, list[int]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as stream:
        text = stream.read()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()] if "\n" in text.strip() else []
    if not lines:
        lines = [json.loads(text)]
    games = [line for line in lines if line.get("format") == WEB_FORMAT or line.get("kind") == "game"]
    if not games:
        raise ValueError(f"holds no game: a web download ('format': {WEB_FORMAT!r}) or record game lines expected")
    if not 0 <= index < len(games):
        raise ValueError(f"--index must be in 0..{len(games) - 1} (the games it holds), got {index}")
    line = games[index]
    game = envs.describe(line["game"]).make_from_json(line["config"])
    if line.get("format") == WEB_FORMAT:
        return game, line["seed"], [move["action"] for move in line["moves"]]
    if "actions" not in line:
        raise ValueError("the game line holds no actions (records before schema v2 kept only results)")
    return game, line["seed"], list(line["actions"])


def _signed(x: float) -> str:
    return f"{x:+.3f}"


def text_report(review: dict[str, Any], top: int = 3) -> str:
    """A review (its JSON form) as a readable table: each seat's decomposition, the ``top`` costliest moves,
    the luckiest and the unluckiest draws (by the drawer's luck; a reveal's by its largest)."""
    out = [f"Review of {review['game']} {json.dumps(review['config'])}, seed {review['seed']}"]
    out.append(f"value: {review['value']}; outcome: {review['outcome']}")
    out.append("result = expected + luck + skill + opponents + residual")
    out.append(f"{'seat':<16}{'result':>8}{'expected':>10}{'luck':>8}{'skill':>8}{'opponents':>11}{'residual':>10}")
    for p in review["players"]:
        terms = [_signed(p[t]) for t in ("luck", "skill", "opponents", "residual")]
        out.append(f"{player_label(p['seat']):<16}{p['result']:>8.3f}{p['expected']:>10.3f}" + "".join(
            f"{t:>{w}}" for t, w in zip(terms, (8, 8, 11, 10))))  # fmt: skip
    decisions = sorted((e for e in review["events"] if e["kind"] == "decision"), key=lambda e: e["skill"])
    out.append(f"\nCostliest moves (of {len(decisions)} decisions):")
    for e in decisions[:top]:
        out.append(f"  move {e['move']}, {player_label(e['player'])}: {e['text']} lost {-e['skill']:.3f}"
                   f" (best found: {e['best_text']})")  # fmt: skip
    draws = [(_drawer_luck(e), e) for e in review["events"] if e["kind"] == "chance"]
    draws.sort(key=lambda item: -item[0])
    for title, chosen in (("Luckiest draws", draws[:top]), ("Unluckiest draws", draws[::-1][:top])):
        out.append(f"\n{title}:")
        out += [f"  {_draw_line(e)}" for _, e in chosen]
    return "\n".join(out)


def _drawer_luck(event: dict[str, Any]) -> float:
    """The luck of a draw for whoever drew it; the deal's and a reveal's largest for anyone."""
    if event["player"] is not None:
        return event["luck"][event["player"]]
    return max(event["luck"], key=abs)


def _draw_line(event: dict[str, Any]) -> str:
    """A draw in words with its luck: the drawer's, or every seat's for the deal and a reveal."""
    where = "the deal" if event["move"] is None else f"after move {event['move']}: {event['draw']}"
    if event["player"] is not None:
        return f"{where} {_signed(event['luck'][event['player']])} for {player_label(event['player'])}"
    return f"{where}: " + ", ".join(f"{player_label(p)} {_signed(x)}" for p, x in enumerate(event["luck"]))
