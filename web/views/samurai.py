"""What a Samurai player sees in the browser: the map with its tiles and figures, every
player's captures, hand and pile sizes and tiles not yet played, the turn in progress (all
public, ``samurai.md``, "Information"), and the player's own hand. Other hands and the
order of any pile are never read: only their sizes, and each player's unplayed tiles as a
multiset (hand and pile together)."""

from __future__ import annotations

from functools import cache
from typing import Any

from envs.samurai import SamuraiGame, SamuraiState
from envs.samurai.actions import END_TURN, figure_action, hex_action
from envs.samurai.board import (
    CAPACITY,
    HEX_KIND,
    HEX_X,
    HEX_Y,
    KIND_NAMES,
    LAYOUTS,
    NAMES,
    NUM_HEXES,
    SETTLEMENT,
    SETTLEMENTS,
)
from envs.samurai.components import CHOOSE_HAND, FIGURE_TYPES, QUICK, TILE_NAMES, describe_tile


def _tile(kind: int) -> dict[str, Any]:
    return {"kind": TILE_NAMES[kind], "text": describe_tile(kind), "quick": QUICK[kind], "action": kind}


def _map_hex(h: int) -> dict[str, Any]:
    """A hex of the map, with the action a click on it means (a settlement: on each of its figures)."""
    cell: dict[str, Any] = {
        "id": h,
        "x": HEX_X[h],
        "y": HEX_Y[h],
        "kind": KIND_NAMES[HEX_KIND[h]],
        "action": hex_action(h),
    }
    if HEX_KIND[h] == SETTLEMENT:
        cell["capacity"] = CAPACITY[h]
        cell["name"] = NAMES.get(h, "village" if CAPACITY[h] == 1 else "city")
        cell["figure_actions"] = {name: figure_action(h, t) for t, name in enumerate(FIGURE_TYPES)}
    return cell


@cache
def _map(num_players: int) -> tuple[dict[str, Any], ...]:
    on_board = LAYOUTS[num_players].on_board
    return tuple(_map_hex(h) for h in range(NUM_HEXES) if on_board[h])


def static(game: SamuraiGame) -> dict[str, Any]:
    """The map of this player count (never changes during a game)."""
    return {"hexes": list(_map(game.num_players)), "end_turn": END_TURN}


def _player(state: SamuraiState, p: int) -> dict[str, Any]:
    unplayed = [0] * len(TILE_NAMES)
    for kind in state.hands[p] + state.piles[p]:  # public as a multiset: the 20 tiles less those played
        unplayed[kind] += 1
    return {
        "captured": dict(zip(FIGURE_TYPES, state.captured[p])),
        "hand_size": len(state.hands[p]),
        "pile_size": len(state.piles[p]),
        "unplayed": {TILE_NAMES[k]: c for k, c in enumerate(unplayed) if c},
    }


def _turn(state: SamuraiState) -> dict[str, Any]:
    """The turn in progress: tiles played, the tile whose target is being chosen, the first
    figure of a figure swap and the tile a tile swap picked up (public, as in the observation)."""
    first = state.first_figure
    first_figure = None if first is None else {"settlement": SETTLEMENTS[first[0]], "type": FIGURE_TYPES[first[1]]}
    return {
        "played": [describe_tile(k) for k in state.played],
        "pending": None if state.pending < 0 else describe_tile(state.pending),
        "first_figure": first_figure,
        "swap_from": None if state.swap_from < 0 else state.swap_from,
        "non_quick_used": state.non_quick_used,
    }


def board(state: SamuraiState, seat: int) -> dict[str, Any]:
    """Tiles and figures on the map, players, the turn in progress and ``seat``'s own hand."""
    tiles = {
        h: {"kind": TILE_NAMES[k], "text": describe_tile(k), "owner": state.owner[h]}
        for h, k in enumerate(state.tile)
        if k >= 0
    }
    figures = {
        h: [FIGURE_TYPES[t] for t in state.figures[s]] for s, h in enumerate(SETTLEMENTS) if state.layout.on_board[h]
    }
    return {
        "phase": state.phase,
        "turn_number": state.turn_number,
        "tiles": tiles,
        "figures": figures,
        "players": [_player(state, p) for p in range(state.game.num_players)],
        "set_aside": dict(zip(FIGURE_TYPES, state.set_aside)),
        "on_board": dict(zip(FIGURE_TYPES, state.figures_on_board)),
        "supply": dict(zip(FIGURE_TYPES, state.figures_in_supply())),
        "turn": _turn(state),
        "hand": [_tile(k) for k in sorted(state.hands[seat])],
        # choosing the starting hand: the rest of one's own tiles, as a multiset (never their order)
        "pile": [_tile(k) for k in sorted(state.piles[seat])] if state.phase == CHOOSE_HAND else None,
    }


def move_text(state: SamuraiState, player: int, action: int, seat: int) -> str:
    """The engine's words, except for another player's choice of a starting tile: that is hidden."""
    if state.phase == CHOOSE_HAND and player != seat:
        return "take a tile into the starting hand"
    return state.describe_action(action)
