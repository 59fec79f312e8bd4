"""The human player's view of a game: what the page may show, built only from what that
player may see.

Each game has one small module here, ``web.views.<game>``, with three functions; the last
two read the engine state's public fields (and the player's own hand):

- ``static(game) -> dict``: what never changes in this configuration (Samurai's map), sent
  with each view but not with each move's frame;
- ``board(state, seat) -> dict``: the position as ``seat`` sees it;
- ``move_text(state, player, action, seat) -> str``: a move about to be played, in words
  fit for ``seat`` to read (a hidden choice is not named).

Between them they give the action each clickable thing on the board means, so that the
page never encodes actions itself.

:func:`public_view` adds what every game shares: whose turn, the legal moves in words
when it is the human's turn, and the result at the end.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import envs
from envs.core.engine import Game, GameState


def view_module(game_name: str) -> ModuleType:
    """The view module of ``game_name`` (ValueError naming the games if it is not one)."""
    envs.describe(game_name)
    return importlib.import_module(f"web.views.{game_name}")


def static_view(game: Game) -> dict[str, Any]:
    """What never changes during a game of this configuration."""
    return view_module(game.name).static(game)


def board_view(state: GameState, seat: int) -> dict[str, Any]:
    """The position as ``seat`` sees it (the board alone, as each move's frame shows it)."""
    return view_module(state.game.name).board(state, seat)


def public_view(state: GameState, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may see of ``state``: the board, whose turn, its legal moves, the result."""
    done = state.current_player is None
    your_turn = state.current_player == seat
    view: dict[str, Any] = {
        "to_act": state.current_player,
        "your_turn": your_turn,
        "board": board_view(state, seat),
        "legal": [{"action": a, "text": state.describe_action(a)} for a in state.legal_tuple()] if your_turn else [],
        "done": done,
    }
    if done:
        view["scores"] = state.scores()
        view["winners"] = state.winners()
    return view


def move_text(state: GameState, player: int, action: int, seat: int) -> str:
    """``player``'s ``action`` (about to be played on ``state``) in words for ``seat``."""
    return view_module(state.game.name).move_text(state, player, action, seat)
