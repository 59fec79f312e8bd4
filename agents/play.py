"""Play a game in the terminal against agents.

    python -m agents.play wapi --level 2
    python -m agents.play wapi --level 1 3 5
    python -m agents.play wapi --num-players 3 --scoring shared --seat 1
    python -m agents.play wapi --opponents heuristic ismcts random
    python -m agents.play wakanda --advanced --opponents ismcts --think-time 2
    python -m agents.play samurai --opponents heuristic heuristic --figure-setup draft --choose-hand
    python -m agents.play samurai --num-players 2 --opponents best
    python -m agents.play wapi --coins '{"0": 6, "1": 6, "2": 6, "3": 6, "5": 6}'

The board is drawn as text after every move; on your turn the legal moves
are listed in words, numbered: type the number (``q`` gives up). Opponents are
chosen by level (``--level``, 1 a beginner to 5 the strongest agent, see
``agents/levels.py``; one level for every other seat or one per seat; level 3
by default) or, the advanced choice, by agent name (``--opponents``, with
``--think-time`` for the searches). Without ``--num-players`` the table has one
seat per opponent plus yours. Every option of every game has its flag
(``--help`` lists them with each game's values).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable

import envs
from agents import AGENT_NAMES, EPSILON_SPELLING, SEARCH_AGENTS, Agent, PlayerView, agent_kind, make_agent, play_game
from agents.levels import GAME_LEVELS, LEVELS, level
from cli import HelpFormatter
from envs.core.engine import GameState, shown
from envs.core.render import player_label
from envs.games import GAME_NAMES, add_game_options, game_config, make_game

#: A move number as typed: plain ASCII digits, short enough for int() ("²" is a digit to str.isdigit,
#: and int() refuses a string of more than 4,300 digits).
_MOVE_NUMBER = re.compile(r"[0-9]{1,6}")
#: The opponents' level when neither --level nor --opponents is given: the heuristic, as before levels.
DEFAULT_LEVEL = 3


class Resign(Exception):
    """The human typed q (a choice: exit status 0) or the input ended first (``ended``: status 1)."""

    def __init__(self, ended: bool = False):
        super().__init__("the input ended" if ended else "gave up")
        self.ended = ended


class HumanAgent(Agent):
    """A person at the terminal: the legal moves listed in words, a number typed in."""

    name = "you"

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print):
        self.read, self.write = read, write

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        self.write(f"\nYour move, {player_label(view.player)}:")
        for number, action in enumerate(legal, 1):
            self.write(f"  {number:>2}. {view.describe_action(action)}")
        while True:
            try:
                answer = self.read("> ").strip().lower()
            except EOFError:
                raise Resign(ended=True) from None
            if answer in ("q", "quit", "exit"):
                raise Resign
            if _MOVE_NUMBER.fullmatch(answer) and 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            self.write(
                f"{shown(answer)} is not one of the moves: type a number from 1 to {len(legal)} (or q to give up)."
            )


def board(state: GameState, seat: int) -> str:
    """The board as the person in ``seat`` may see it (their own hand, never an agent's)."""
    return state.render_text(perspective=seat)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agents.play", description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("game", choices=list(GAME_NAMES), help="the game to play")
    levels = "; ".join(f"{lv.number} {lv.title}: {lv.help}" for lv in LEVELS.values())
    levels += "".join(
        f"; in {game}: " + "; ".join(f"{lv.number} {lv.help}" for lv in own.values())
        for game, own in GAME_LEVELS.items()
    )
    who = parser.add_mutually_exclusive_group()
    who.add_argument(
        "--level",
        nargs="+",
        type=int,
        metavar="N",
        help=f"the opponents' level, one for every other seat or one per other seat ({levels}; default "
        f"{DEFAULT_LEVEL})",
    )
    who.add_argument(
        "--opponents",
        nargs="+",
        metavar="AGENT",
        help=f"advanced: one agent per other seat by name: {', '.join(AGENT_NAMES)}, or any as {EPSILON_SPELLING} "
        "(heuristic~0.25: ε-greedy)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 = first to move")
    parser.add_argument("--seed", type=int, default=None, help="fixes the deal and the agents (default: random)")
    parser.add_argument(
        "--think-time",
        type=float,
        default=None,
        help="with --opponents: CPU seconds per move for ismcts and best opponents, ε-greedy ones too (default: 1)",
    )
    add_game_options(parser)
    return parser


def _game_config(args: argparse.Namespace) -> dict:
    """The game options given; a game with a player count gets one seat per opponent plus yours."""
    config = game_config(args.game, args)
    seats = args.opponents or (args.level if args.level and len(args.level) > 1 else None)
    if seats and "num_players" in envs.describe(args.game).defaults():
        config.setdefault("num_players", len(seats) + 1)
    return config


def _opponent_names(args: argparse.Namespace, n: int) -> list[str]:
    """The ``make_agent`` name of each other seat: ``--opponents`` as given, else ``level:N``
    (one level for every seat, or one per seat); ValueError on a level that does not exist."""
    if args.opponents:
        return args.opponents
    levels = args.level or [DEFAULT_LEVEL]
    for number in levels:
        level(number)
    return [f"level:{number}" for number in (levels * (n - 1) if len(levels) == 1 else levels)]


def main(
    argv: list[str] | None = None, read: Callable[[str], str] = input, write: Callable[[str], None] = print
) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        game = make_game(args.game, **_game_config(args))
    except ValueError as error:
        parser.error(str(error))
    n = game.num_players
    try:
        opponents = _opponent_names(args, n)
    except ValueError as error:
        parser.error(f"--level: {error}")
    if len(opponents) != n - 1:
        parser.error(f"{args.game} with {n} players needs {n - 1} opponents, got {len(opponents)}")
    if not 0 <= args.seat < n:
        parser.error(f"--seat must be in 0..{n - 1}, got {args.seat}")
    try:
        kinds = [agent_kind(name) for name in opponents]  # a malformed NAME~EPS is refused here
    except ValueError as error:
        parser.error(f"--opponents: {error}")
    if args.think_time is not None and not args.opponents:
        parser.error("--think-time is for --opponents (the advanced choice): a level's thinking time is fixed")
    if args.think_time is not None and not set(kinds) & set(SEARCH_AGENTS):
        searchers = " and ".join(sorted(SEARCH_AGENTS))
        parser.error(f"--think-time is for {searchers} opponents; none of {opponents} searches")
    agents: list[Agent] = []
    names = iter(zip(opponents, kinds))
    for seat in range(n):
        if seat == args.seat:
            agents.append(HumanAgent(read, write))
            continue
        name, kind = next(names)
        options: dict = {"seed": None if args.seed is None else args.seed * 100 + seat}
        if kind in SEARCH_AGENTS:
            options["time_limit"] = 1.0 if args.think_time is None else args.think_time
        try:
            agents.append(make_agent(name, game, **options))
        except ValueError as error:
            parser.error(str(error))

    def show(state: GameState, player: int, action: int, description: str) -> None:
        who = "You" if player == args.seat else f"{player_label(player)} [{agents[player].name}]"
        write(f"\n{who}: {description}\n{board(state, args.seat)}")

    seats = ", ".join(f"{player_label(p)}: {'you' if p == args.seat else a.name}" for p, a in enumerate(agents))
    write(f"{args.game}: {seats}")
    try:
        result = play_game(game, agents, seed=args.seed, on_start=lambda s: write(board(s, args.seat)), on_move=show)
    except Resign as resign:
        write("\nThe input ended before the game. Game over." if resign.ended else "\nYou gave up. Game over.")
        return 1 if resign.ended else 0
    write("\nFinal scores: " + ", ".join(f"{player_label(p)} {s:g}" for p, s in enumerate(result.scores)))
    winners = ", ".join("you" if p == args.seat else player_label(p) for p in result.winners) or "nobody"
    write(f"Winner{'s' if len(result.winners) > 1 else ''}: {winners}")
    if args.seat in result.winners:
        write("Well played!" if len(result.winners) == 1 else "A shared win.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
