"""One game played in the browser, and the replay of a downloaded one.

The server holds the true state; the page gets only :func:`web.views.public_view` of it
for the human's seat. The other seats are agents that act through ``agents.PlayerView``
(never the true state), exactly as in ``agents.play_game``: the same seed deals the same
game here, in ``python -m agents.play`` and in ``play_game``.

A seed the server draws is kept out of every view until the game is over (it would
reveal the deal); the finished game's record holds it, so the game can be replayed.
"""

from __future__ import annotations

import secrets
import threading
from typing import Any

import numpy as np

import envs
from agents import Agent, PlayerView
from envs.core.engine import GameState, IllegalActionError, is_int, shown
from web.bodies import SEED_LIMIT, BadRequest, NewGame, check_int, check_object, parse_config
from web.views import board_view, move_text, public_view, static_view

RECORD_FORMAT = "drawluck-web-game"
#: The longest game a record may hold (the longest real games have a few hundred moves).
MAX_RECORD_MOVES = 5000


def new_state(game, seed: int) -> tuple[GameState, np.random.Generator]:
    """The deal and the generator of the agents' views, from one seed, as ``play_game`` draws them."""
    game_seq, view_seq = np.random.SeedSequence(seed).spawn(2)
    return game.new_state(np.random.default_rng(game_seq)), np.random.default_rng(view_seq)


def frame(state: GameState, seat: int, player: int | None, text: str) -> dict[str, Any]:
    """The position after one move, as ``seat`` sees it (the page shows them one by one)."""
    return {"player": player, "text": text, "to_act": state.current_player, "board": board_view(state, seat)}


class GameSession:
    """A game between one person (``seat``) and agents; ``lock`` serialises its requests."""

    def __init__(self, request: NewGame):
        description = envs.describe(request.game)
        self.game = description.make(**request.config)
        self.seat = request.seat
        self.seed_given = request.seed is not None
        self.seed = request.seed if request.seed is not None else secrets.randbelow(SEED_LIMIT)
        self.state, self.view_rng = new_state(self.game, self.seed)
        others = iter(request.opponents)
        self.agents: dict[int, Agent] = {}
        self.players = []
        for seat in range(self.game.num_players):
            if seat == self.seat:
                self.players.append("you")
                continue
            choice, options = next(others)
            self.agents[seat] = choice.build(self.game, self.seed * 100 + seat, options)  # as agents.play seeds them
            self.agents[seat].reset()
            self.players.append(choice.name)
        self.moves: list[tuple[int, int]] = []
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    @property
    def done(self) -> bool:
        return self.state.current_player is None

    def _apply(self, player: int, action: int) -> dict[str, Any]:
        text = move_text(self.state, player, action, self.seat)
        self.state.apply(action)
        self.moves.append((player, action))
        self.log.append({"player": player, "text": text})
        return frame(self.state, self.seat, player, text)

    def advance(self) -> list[dict[str, Any]]:
        """The agents play until it is the human's turn or the game is over; their moves as frames."""
        frames = []
        while self.state.current_player is not None and self.state.current_player != self.seat:
            player = self.state.current_player
            view = PlayerView(self.state, self.view_rng)
            action = self.agents[player].act(view)
            if action not in view.legal_actions:
                raise IllegalActionError(f"{self.players[player]} in seat {player} chose the illegal action {action!r}")
            frames.append(self._apply(player, int(action)))
        return frames

    def play(self, action: int) -> list[dict[str, Any]]:
        """The human's move, then the agents' answers; 400 (nothing changed) unless it is legal now."""
        if self.done:
            raise BadRequest("the game is over: no move is legal", status=400)
        if self.state.current_player != self.seat:  # only after an opponent failed to answer
            raise BadRequest(f"it is not your turn: seat {self.state.current_player} is to move", status=400)
        if action not in self.state.legal_tuple():
            try:
                self.state.check_action(action)
                reason = f"action {action} is not legal now"
            except (IllegalActionError, ValueError) as error:
                reason = str(error)
            raise BadRequest(f"refused: {reason if len(reason) <= 300 else reason[:296] + ' ...'}", status=400)
        return [self._apply(self.seat, action)] + self.advance()

    def view(self, frames: list[dict[str, Any]] | None = None, static: bool = True) -> dict[str, Any]:
        """The view of the human's seat, with the moves just played as ``frames`` when given.
        ``static`` (what never changes, such as Samurai's map) may be left out of a move's
        answer: the page keeps it from the game's first view."""
        view = public_view(self.state, self.seat)
        view.update(
            game=self.game.name,
            config=self.game.config(),
            seat=self.seat,
            players=self.players,
            log=list(self.log),
            seed=self.seed if self.seed_given or self.done else None,
        )
        if static:
            view["static"] = static_view(self.game)
        if frames is not None:
            view["frames"] = frames
        if self.done:
            view["record"] = self.record()
        return view

    def record(self) -> dict[str, Any]:
        """The finished game as JSON: seed, configuration and moves (what :func:`replay` reads)."""
        return {
            "format": RECORD_FORMAT,
            "game": self.game.name,
            "config": self.game.config(),
            "seat": self.seat,
            "players": self.players,
            "seed": self.seed,
            "moves": [{"player": p, "action": a, "text": entry["text"]} for (p, a), entry in zip(self.moves, self.log)],
            "scores": self.state.scores(),
            "winners": self.state.winners(),
        }


def replay(record: Any) -> dict[str, Any]:
    """A downloaded record played again on the engine: every position as the recorded seat
    saw it, as frames. Each move must be legal and by the player to act (422 if not)."""
    keys = {"format", "game", "config", "seat", "players", "seed", "moves", "scores", "winners"}
    check_object("the record", record, keys, {"format", "game", "config", "seat", "seed", "moves"})
    if record["format"] != RECORD_FORMAT:
        raise BadRequest(f"the record's format must be {RECORD_FORMAT!r}, got {shown(record['format'])}")
    if not isinstance(record["game"], str) or record["game"] not in envs.GAMES:
        raise BadRequest(f"the record's game must be one of {list(envs.GAMES)}, got {shown(record['game'])}")
    description = envs.describe(record["game"])
    config = parse_config(description, record["config"])
    try:
        game = description.make(**config)
    except ValueError as error:
        raise BadRequest(str(error)) from None
    seat = check_int("the record's seat", record["seat"], 0, game.num_players)
    seed = check_int("the record's seed", record["seed"], 0, SEED_LIMIT)
    players = record.get("players", [f"player_{p}" for p in range(game.num_players)])
    if not isinstance(players, list) or len(players) != game.num_players or any(type(p) is not str for p in players):
        raise BadRequest(f"the record's players must be a list of {game.num_players} names, got {shown(players)}")
    moves = record["moves"]
    if not isinstance(moves, list) or len(moves) > MAX_RECORD_MOVES:
        raise BadRequest(f"the record's moves must be a list of at most {MAX_RECORD_MOVES}, got {shown(moves)}")
    state, _ = new_state(game, seed)
    frames = [frame(state, seat, None, "the deal")]
    for i, move in enumerate(moves):
        check_object(f"moves[{i}]", move, {"player", "action", "text"}, {"player", "action"})
        player, action = move["player"], move["action"]
        if not (is_int(player) and player == state.current_player and is_int(action) and action in state.legal_tuple()):
            raise BadRequest(
                f"moves[{i}] ({shown(move)}) is not a legal move of the player to act "
                f"({state.current_player}) in the replayed game"
            )
        text = move_text(state, player, action, seat)
        state.apply(action)
        frames.append(frame(state, seat, player, text))
    result = {
        "game": game.name,
        "config": game.config(),
        "seat": seat,
        "players": players,
        "static": static_view(game),
        "frames": frames,
        "done": state.current_player is None,
    }
    if result["done"]:
        result.update(scores=state.scores(), winners=state.winners())
    return result
