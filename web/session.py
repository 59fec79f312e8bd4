"""One game played in the browser, and the replay of a downloaded one.

The server holds the true state, played again from the game's record (seed and moves,
``web.database``) whenever the game comes into memory; the page gets only
:func:`web.views.public_view` of it for the human's seat. The other seats are agents that
think in the worker pool (``web.thinking``) through ``agents.PlayerView``, never the true
state; their turns come back as actions, which are checked here like the human's.

A seed the server draws is kept out of every view until the game is over (it would
reveal the deal); the finished game's record holds it, so the game can be replayed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import envs
from envs.core.engine import GameState, IllegalActionError, is_int, shown
from web.bodies import SEED_LIMIT, BadRequest, brief, check_int, check_object, check_size, make_game, parse_config
from web.database import GameRecord
from web.opponents import OpponentChoice
from web.thinking import TurnResult, TurnTask, new_state, previous_turn_length
from web.views import board_view, move_text, public_view, static_view

RECORD_FORMAT = "drawluck-web-game"
#: The longest game a record may hold (the longest real games have a few hundred moves).
MAX_RECORD_MOVES = 5000


def frame(state: GameState, seat: int, player: int | None, text: str) -> dict[str, Any]:
    """The position after one move, as ``seat`` sees it (the page shows them one by one)."""
    return {"player": player, "text": text, "to_act": state.current_player, "board": board_view(state, seat)}


class GameSession:
    """A game between one person (``record.seat``) and agents, rebuilt from its record.

    ``thinking`` is set by the server while an opponent's turn is in the pool; ``failure``
    says why an opponent could not play (the game then waits; a restart tries again)."""

    def __init__(self, record: GameRecord, offered: Mapping[str, OpponentChoice]):
        self.record = record
        description = envs.describe(record.game)
        self.config = parse_config(description, record.config)
        self.game = description.make(**self.config)
        self.seat = record.seat
        self.state, _ = new_state(self.game, record.seed)
        self.opponents: dict[int, tuple[OpponentChoice | None, dict[str, Any]]] = {}
        self.players = []
        others = iter(record.opponents)
        for seat in range(self.game.num_players):
            if seat == self.seat:
                self.players.append("you")
                continue
            entry = next(others)
            self.opponents[seat] = (offered.get(entry["name"]), entry["options"])
            self.players.append(entry["name"])
        self.moves: list[tuple[int, int]] = []
        self.log: list[dict[str, Any]] = []
        self.frames: list[tuple[int, dict[str, Any]]] = []  # (move number, frame) since the human's last move
        for player, action in record.moves:
            self._apply(player, action, with_frame=False)
        self.saved = len(self.moves)  # moves already in the database
        self.thinking = False
        self.failure: str | None = None

    @property
    def done(self) -> bool:
        return self.state.current_player is None

    @property
    def opponent_to_act(self) -> bool:
        return not self.done and self.state.current_player != self.seat

    def _apply(self, player: int, action: int, with_frame: bool = True) -> None:
        if player != self.state.current_player or not is_int(action) or action not in self.state.legal_tuple():
            raise IllegalActionError(f"move {len(self.moves)} ({player}, {action!r}) is not legal in this game")
        text = move_text(self.state, player, action, self.seat)
        self.state.apply(action)
        self.moves.append((player, action))
        self.log.append({"player": player, "text": text})
        if with_frame:
            self.frames.append((len(self.moves) - 1, frame(self.state, self.seat, player, text)))

    def unsaved(self) -> tuple[int, list[tuple[int, int]]]:
        """The moves not yet in the database, with the number of the first."""
        return self.saved, self.moves[self.saved :]

    def mark_saved(self) -> None:
        """Every move is now in the database."""
        self.saved = len(self.moves)

    def play(self, action: int) -> None:
        """The human's move; 400 (nothing changed) unless it is legal now."""
        if self.done:
            raise BadRequest("the game is over: no move is legal", status=400)
        if self.state.current_player != self.seat:
            reason = "the opponents are thinking" if self.thinking else f"seat {self.state.current_player} is to move"
            raise BadRequest(f"it is not your turn: {reason}", status=400)
        if action not in self.state.legal_tuple():
            try:
                self.state.check_action(action)
                reason = f"action {action} is not legal now"
            except (IllegalActionError, ValueError) as error:
                reason = str(error)
            raise BadRequest(f"refused: {brief(reason)}", status=400)
        self.frames = []
        self._apply(self.seat, action)

    def turn_task(self) -> TurnTask:
        """The opponent to act, and what a worker needs to play its turn."""
        choice, options = self.opponents[self.state.current_player]
        if choice is None:
            raise ValueError(f"opponent {self.players[self.state.current_player]!r} is no longer offered")
        actions = tuple(action for _, action in self.moves)
        agent = choice.for_game(self.game.name)[0]
        per_move = choice.group == "level"
        cost = float(options.get("time_limit", 0.0))
        if per_move:  # each move's time: the turn thinks it about as often as this seat moved last turn
            cost *= previous_turn_length([player for player, _ in self.moves], self.state.current_player)
        return TurnTask(self.game.name, self.config, self.record.seed, actions, agent, options, per_move, cost)

    def apply_turn(self, result: TurnResult) -> None:
        """An opponent's turn from a worker, checked move by move like the human's."""
        if not result.actions:
            raise IllegalActionError(f"seat {result.player}'s turn came back without a move")
        trial = self.state.clone()  # all or nothing: every action is checked before one is applied
        for action in result.actions:
            if trial.current_player != result.player or not is_int(action) or action not in trial.legal_tuple():
                raise IllegalActionError(f"seat {result.player}'s turn {result.actions} is not legal here")
            trial.apply(action)
        for action in result.actions:
            self._apply(result.player, action)

    def view(self, since: int | None = None, static: bool = True) -> dict[str, Any]:
        """The view of the human's seat; with ``since``, the frames of the moves from that
        number on that the server still holds (those since the human's last move).
        ``static`` (what never changes, such as Samurai's map) may be left out: the page keeps
        it from the game's first view."""
        view = public_view(self.state, self.seat)
        view.update(
            game=self.game.name,
            config=self.game.config(),
            seat=self.seat,
            players=self.players,
            log=list(self.log),
            seed=self.record.seed if self.record.seed_given or self.done else None,
            thinking=self.thinking,
        )
        if self.failure is not None:
            view["error"] = self.failure
        if static:
            view["static"] = static_view(self.game)
        if since is not None:
            view["frames"] = [f for number, f in self.frames if number >= since]
        if self.done:
            view["record"] = self.to_record()
        return view

    def to_record(self) -> dict[str, Any]:
        """The finished game as JSON: seed, configuration and moves (what :func:`replay` reads)."""
        return {
            "format": RECORD_FORMAT,
            "game": self.game.name,
            "config": self.game.config(),
            "seat": self.seat,
            "players": self.players,
            "seed": self.record.seed,
            "moves": [{"player": p, "action": a, "text": entry["text"]} for (p, a), entry in zip(self.moves, self.log)],
            "scores": self.state.scores(),
            "winners": self.state.winners(),
        }


def replay(record: Any, max_bytes: int, max_config_bytes: int) -> bytes:
    """A downloaded record played again on the engine: every position as the recorded seat
    saw it, as frames, in the JSON answer (bytes). Each move must be legal and by the player to
    act (422 if not); a configuration over ``max_config_bytes`` or an answer over ``max_bytes``
    is refused (413), the latter as soon as the frames so far pass it. The server runs it in a
    worker (issue 48: 23 ms of replay on the event loop per request slowed every GET)."""
    keys = {"format", "game", "config", "seat", "players", "seed", "moves", "scores", "winners"}
    check_object("the record", record, keys, {"format", "game", "config", "seat", "seed", "moves"})
    if record["format"] != RECORD_FORMAT:
        raise BadRequest(f"the record's format must be {RECORD_FORMAT!r}, got {shown(record['format'])}")
    if not isinstance(record["game"], str) or record["game"] not in envs.GAMES:
        raise BadRequest(f"the record's game must be one of {list(envs.GAMES)}, got {shown(record['game'])}")
    description = envs.describe(record["game"])
    check_size("the record's config", record["config"], max_config_bytes, "--max-config-bytes")
    game = make_game(description, parse_config(description, record["config"]))
    seat = check_int("the record's seat", record["seat"], 0, game.num_players)
    seed = check_int("the record's seed", record["seed"], 0, SEED_LIMIT)
    players = record.get("players", [f"player_{p}" for p in range(game.num_players)])
    if not isinstance(players, list) or len(players) != game.num_players or any(type(p) is not str for p in players):
        raise BadRequest(f"the record's players must be a list of {game.num_players} names, got {shown(players)}")
    moves = record["moves"]
    if not isinstance(moves, list) or len(moves) > MAX_RECORD_MOVES:
        raise BadRequest(f"the record's moves must be a list of at most {MAX_RECORD_MOVES}, got {shown(moves)}")
    state, _ = new_state(game, seed)
    frames = [json.dumps(frame(state, seat, None, "the deal"))]
    size = len(frames[0])
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
        frames.append(json.dumps(frame(state, seat, player, text)))
        size += len(frames[-1]) + 1
        if size > max_bytes:
            raise BadRequest(f"the replay would take more than {max_bytes} bytes (--max-replay-bytes)", status=413)
    result = {"game": game.name, "config": game.config(), "seat": seat, "players": players, "static": static_view(game)}
    result["done"] = state.current_player is None
    if result["done"]:
        result.update(scores=state.scores(), winners=state.winners())
    head = json.dumps(result)  # the frames, already JSON, go in as they are
    return (head[:-1] + ', "frames": [' + ", ".join(frames) + "]}").encode()
