"""Samurai state as JSON-safe data, and back with every rule checked (issue 4, item 8 and "Bad input")."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Any

from envs.core.engine import as_list, check_keys, check_state_header, invalid_state, is_int
from envs.samurai.actions import FIGURE, HEX
from envs.samurai.board import CAPACITY, HEX_KIND, LAND, NUM_HEXES, SEA, SETTLEMENT, SETTLEMENTS
from envs.samurai.components import (
    FIGURE_SWAP, FIGURE_TYPES, HAND_SIZE, KIND_OF_NAME, MOVABLE, PLAYER_TILES, QUICK, SHIPS, TILE_NAMES, TILE_SWAP,
)  # fmt: skip
from envs.samurai.observation import set_tile
from envs.samurai.scoring import winners as winners_of
from envs.samurai.setup import figure_list

if TYPE_CHECKING:
    from envs.samurai.rules import SamuraiGame, SamuraiState

KEYS = {"game", "num_players", "current_player", "board", "figures", "captured", "set_aside", "hands", "piles",
        "turn", "terminal", "winners"}
TURN_KEYS = {"number", "phase", "played", "non_quick_used", "tile", "first_figure", "swap_from"}


def state_to_dict(state: SamuraiState) -> dict[str, Any]:
    first = state.first_figure
    return {
        "game": "samurai",
        "num_players": state.game.num_players,
        "current_player": state.current_player,
        "board": {str(h): {"tile": TILE_NAMES[state.tile[h]], "owner": state.owner[h]}
                  for h in range(NUM_HEXES) if state.tile[h] >= 0},
        "figures": {str(SETTLEMENTS[s]): [FIGURE_TYPES[t] for t in state.figures[s]] for s in state.layout.settlements},
        "captured": [dict(zip(FIGURE_TYPES, c)) for c in state.captured],
        "set_aside": dict(zip(FIGURE_TYPES, state.set_aside)),
        "hands": [[TILE_NAMES[k] for k in hand] for hand in state.hands],
        "piles": [[TILE_NAMES[k] for k in pile] for pile in state.piles],
        "turn": {
            "number": state.turn_number,
            "phase": state.phase,
            "played": [TILE_NAMES[k] for k in state.played],
            "non_quick_used": state.non_quick_used,
            "tile": None if state.pending < 0 else TILE_NAMES[state.pending],
            "first_figure": None if first is None else {"settlement": SETTLEMENTS[first[0]],
                                                        "type": FIGURE_TYPES[first[1]]},
            "swap_from": None if state.swap_from < 0 else state.swap_from,
        },
        "terminal": state.current_player is None,
        "winners": state.winners(),
    }


_fail = partial(invalid_state, "Samurai")
_list = partial(as_list, "Samurai")


def _tiles(value: Any, name: str) -> list[int]:
    for code in _list(value, name):
        if code not in KIND_OF_NAME:
            _fail(f"{name} holds {code!r}; tile names are {list(TILE_NAMES)}")
    return [KIND_OF_NAME[c] for c in value]


def _counts(value: Any, name: str) -> list[int]:
    check_keys(name, value, set(FIGURE_TYPES), set(FIGURE_TYPES))
    if not all(is_int(value[t]) and value[t] >= 0 for t in FIGURE_TYPES):
        _fail(f"{name} must map {list(FIGURE_TYPES)} to non-negative ints, got {value!r}")
    return [value[t] for t in FIGURE_TYPES]


def state_from_dict(game: SamuraiGame, data: dict[str, Any]) -> SamuraiState:
    from envs.samurai.rules import CHOOSE_HAND, DRAFT, PLAY, SamuraiState

    check_state_header(game, data, KEYS, "Samurai", ("num_players",))
    n = game.num_players
    turn = data["turn"]
    check_keys("state_dict['turn']", turn, TURN_KEYS, TURN_KEYS)
    phase = turn["phase"]
    allowed_phases = [PLAY] + [CHOOSE_HAND] * game.choose_hand + [DRAFT] * (game.figure_setup == "draft")
    if phase not in allowed_phases:
        _fail(f"turn.phase is {phase!r}; with this configuration it must be one of {allowed_phases}")
    state = SamuraiState(game)
    state.phase = phase
    state.hands = [_tiles(h, f"hands[{p}]") for p, h in enumerate(_list(data["hands"], "hands", n))]
    state.piles = [_tiles(q, f"piles[{p}]") for p, q in enumerate(_list(data["piles"], "piles", n))]
    _load_board(state, data["board"])
    _load_figures(state, data["figures"])
    state.captured = [_counts(c, f"captured[{p}]") for p, c in enumerate(_list(data["captured"], "captured", n))]
    state.set_aside = _counts(data["set_aside"], "set_aside")
    for t in range(3):
        state.supply_left[t] -= sum(c[t] for c in state.captured) + state.set_aside[t]
    _load_turn(state, turn)
    for p in range(n):
        state.sync_player(p)
    _check_tiles(state)
    _check_figures(state)
    _check_progress(state, data)
    if data["terminal"]:
        state.game_over()
    else:
        state.begin_phase()  # a forced pass, an automatic turn end, or the end when everyone would pass
    return state


def _load_board(state: SamuraiState, board: Any) -> None:
    if not isinstance(board, dict):
        _fail(f"board must be an object from hex id to {{'tile', 'owner'}}, got {board!r}")
    on = state.layout.on_board
    for key, cell in sorted(board.items(), key=lambda kv: str(kv[0])):
        h = int(key) if isinstance(key, str) and key.isdigit() else key
        if not is_int(h) or not 0 <= h < NUM_HEXES or not on[h]:
            _fail(f"board has a tile on hex {key!r}, which is off the board for {state.game.num_players} players")
        if HEX_KIND[h] == SETTLEMENT:
            _fail(f"board has a tile on hex {h}, a settlement: tiles never go on settlements")
        check_keys(f"board[{key!r}]", cell, {"tile", "owner"}, {"tile", "owner"})
        kind = _tiles([cell["tile"]], f"board[{key!r}].tile")[0]
        owner = cell["owner"]
        if not is_int(owner) or not 0 <= owner < state.game.num_players:
            _fail(f"board[{key!r}].owner must be a player index 0..{state.game.num_players - 1}, got {owner!r}")
        if kind == FIGURE_SWAP:
            _fail(f"board[{key!r}] holds a figure swap, which is discarded after use and never placed")
        if (kind in SHIPS) != (HEX_KIND[h] == SEA):
            _fail(f"board[{key!r}] holds {cell['tile']}: ships go only on sea, every other tile only on land")
        state.tile[h], state.owner[h] = kind, owner
        state.movable[owner] += MOVABLE[kind]
        if HEX_KIND[h] == LAND:
            state.empty_land.remove(h)
            for s in state.layout.settlements_near[h]:
                state.need[s] -= 1
        else:
            state.empty_sea.remove(h)
        set_tile(state.hex_block, h, kind, owner)


def _load_figures(state: SamuraiState, figures: Any) -> None:
    expected = {str(SETTLEMENTS[s]) for s in state.layout.settlements}
    if not isinstance(figures, dict) or set(map(str, figures)) != expected or len(figures) != len(expected):
        _fail(f"figures must give every settlement on the board exactly once: {sorted(map(int, expected))}")
    for key, types in figures.items():
        h = int(key)
        try:
            listed = figure_list(types, h, f"figures[{key!r}]")
        except ValueError as error:
            _fail(str(error))
        state.put_figures(SETTLEMENTS.index(h), listed)


def _load_turn(state: SamuraiState, turn: dict[str, Any]) -> None:
    if not is_int(turn["number"]) or turn["number"] < 0:
        _fail(f"turn.number must be a non-negative int, got {turn['number']!r}")
    if not isinstance(turn["non_quick_used"], bool):
        _fail(f"turn.non_quick_used must be true or false, got {turn['non_quick_used']!r}")
    state.turn_number = turn["number"]
    state.played = _tiles(turn["played"], "turn.played")
    state.non_quick_used = turn["non_quick_used"]
    if state.non_quick_used != any(not QUICK[k] for k in state.played):
        _fail("turn.non_quick_used must say whether turn.played holds a non-quick tile")
    if sum(not QUICK[k] for k in state.played) > 1:
        _fail("turn.played holds more than one non-quick tile: at most one a turn")
    if turn["tile"] is not None:
        state.pending = _tiles([turn["tile"]], "turn.tile")[0]
    first, swap_from = turn["first_figure"], turn["swap_from"]
    if first is not None:
        check_keys("turn.first_figure", first, {"settlement", "type"}, {"settlement", "type"})
        if first["settlement"] not in SETTLEMENTS or first["type"] not in FIGURE_TYPES:
            _fail(f"turn.first_figure must name a settlement id and a type from {list(FIGURE_TYPES)}")
        state.first_figure = (SETTLEMENTS.index(first["settlement"]), FIGURE_TYPES.index(first["type"]))
    if swap_from is not None:
        if not is_int(swap_from) or not 0 <= swap_from < NUM_HEXES:
            _fail(f"turn.swap_from must be a hex id or null, got {swap_from!r}")
        state.swap_from = swap_from
    if state.phase != "play" and (state.played or state.pending >= 0 or state.turn_number):
        _fail(f"during the {state.phase} phase turn.number is 0, turn.played empty and turn.tile null")


def _check_tiles(state: SamuraiState) -> None:
    """Each player's 20 tiles: hand + pile + own tiles on the board (+ a used figure swap)."""
    for p in range(state.game.num_players):
        held = state.hands[p] + state.piles[p] + [state.tile[h] for h in range(NUM_HEXES) if state.owner[h] == p]
        counted = Counter(held)
        if counted[FIGURE_SWAP] == 0:
            counted[FIGURE_SWAP] = 1  # used and discarded
        if counted != Counter(PLAYER_TILES):
            extra, missing = counted - Counter(PLAYER_TILES), Counter(PLAYER_TILES) - counted
            names = lambda c: {TILE_NAMES[k]: m for k, m in c.items()}  # noqa: E731
            _fail(f"player {p}'s tiles are not conserved: extra {names(extra) or 'none'}, "
                  f"missing {names(missing) or 'none'}")
        played = state.played if p == state.turn_number % state.game.num_players else []
        out_of_hand = Counter(state.tile[h] for h in range(NUM_HEXES) if state.owner[h] == p)
        if FIGURE_SWAP not in state.hands[p] + state.piles[p]:
            out_of_hand[FIGURE_SWAP] += 1
        if Counter(played) - out_of_hand:
            _fail(f"turn.played lists tiles that player {p} has not played: {[TILE_NAMES[k] for k in played]}")
        size = len(state.hands[p]) + len(played)
        if state.phase != "choose_hand" and size != min(HAND_SIZE, size + len(state.piles[p])):
            _fail(f"player {p} must hold {HAND_SIZE} tiles at the start of a turn while the pile lasts "
                  f"(hand {len(state.hands[p])}, played this turn {len(played)}, pile {len(state.piles[p])})")


def _check_figures(state: SamuraiState) -> None:
    """Figures conserved; none in a surrounded settlement; full settlements until surrounded."""
    supply = state.layout.supply
    for t, name in enumerate(FIGURE_TYPES):
        if state.supply_left[t] < 0:
            _fail(f"{name} figures are not conserved: more than the supply of {supply} on the board, "
                  f"captured and set aside")
    if state.phase == "play" and any(state.supply_left):
        _fail(f"figures are not conserved: on the board + captured + set aside must be {supply} of each type")
    if state.phase != "play" and (any(map(any, state.captured)) or any(state.set_aside)):
        _fail(f"nothing is captured or set aside during the {state.phase} phase")
    for s in state.layout.settlements:
        h, figs = SETTLEMENTS[s], state.figures[s]
        if state.need[s] == 0 and figs:
            _fail(f"settlement {h} is surrounded but figures still stand in it")
        if state.phase == "play" and state.need[s] and len(figs) != CAPACITY[h]:
            _fail(f"settlement {h} is not surrounded, so it must still hold its {CAPACITY[h]} figure(s)")
    if state.phase == "draft":
        cities_open = any(len(state.figures[s]) < CAPACITY[SETTLEMENTS[s]] and CAPACITY[SETTLEMENTS[s]] > 1
                          for s in state.layout.settlements)
        if cities_open and any(state.figures[s] and CAPACITY[SETTLEMENTS[s]] == 1 for s in state.layout.settlements):
            _fail("in the draft the cities are filled before the villages")
    if state.phase == "choose_hand":
        placed = sum(state.figures_on_board)
        if placed not in (0, 3 * supply) or (placed == 0) != (state.game.figure_setup == "draft"):
            _fail("while hands are chosen the figures are all placed (random set-up) or none (draft)")


def _check_progress(state: SamuraiState, data: dict[str, Any]) -> None:
    """Whose turn it is, the action in progress, and the end of the game."""
    n = state.game.num_players
    terminal, current = data["terminal"], data["current_player"]
    if not isinstance(terminal, bool):
        _fail(f"terminal must be true or false, got {terminal!r}")
    ended = state.end_reached()
    if terminal:
        if current is not None:
            _fail("a finished game has current_player null")
        if not ended and state.phase == "play" and any(_can_play(state, p) for p in range(n)):
            _fail("terminal is true but no end condition holds and a player can still play")
        if state.phase != "play":
            _fail("terminal is true during the set-up")
        expected = winners_of(state.captured)
        if data["winners"] != expected:
            _fail(f"winners {data['winners']!r} disagree with the captures, which give {expected}")
        return
    if ended and state.phase == "play":
        _fail("terminal is false but an end condition holds (a type has left the board, or 4 figures set aside)")
    if data["winners"] != []:
        _fail("winners must be empty while the game is being played")
    if state.phase == "choose_hand":
        expected = next((p for p in range(n) if len(state.hands[p]) < HAND_SIZE), None)
        if expected is None or any(len(state.hands[p]) != (HAND_SIZE if p < expected else 0)
                                   for p in range(n) if p != expected):
            _fail("while hands are chosen, players before the chooser hold 5 tiles and players after hold none")
        if any(len(state.hands[p]) + len(state.piles[p]) != 20 for p in range(n)):
            _fail("while hands are chosen every tile is in a hand or a pile")
    elif state.phase == "draft":
        expected = sum(state.figures_on_board) % n
    else:
        expected = state.turn_number % n
    if current != expected:
        _fail(f"current_player must be {expected!r} in this position (turn.number, hands or figures placed)")
    state.current_player = current
    _check_action_in_progress(state)


def _check_action_in_progress(state: SamuraiState) -> None:
    if state.pending < 0:
        if state.first_figure is not None or state.swap_from >= 0:
            _fail("turn.first_figure and turn.swap_from need turn.tile (figure_swap, tile_swap)")
        return
    chosen, state.pending = state.pending, -1
    first, swap_from = state.first_figure, state.swap_from
    state.first_figure, state.swap_from = None, -1
    if chosen not in state.tile_choices():
        _fail(f"turn.tile {TILE_NAMES[chosen]!r} cannot be played now by player {state.current_player}")
    state.pending = chosen
    if first is not None:
        if chosen != FIGURE_SWAP or FIGURE + 3 * first[0] + first[1] not in state.legal_actions():
            _fail("turn.first_figure must be a figure a figure swap can move, with turn.tile 'figure_swap'")
        state.first_figure = first
    if swap_from >= 0:
        if chosen != TILE_SWAP or HEX + swap_from not in state.legal_actions():
            _fail("turn.swap_from must be the hex of an own helmet/buddha/rice/samurai tile, "
                  "with turn.tile 'tile_swap'")
        state.swap_from = swap_from
    state._legal = state._mask = None


def _can_play(state: SamuraiState, p: int) -> bool:
    saved = state.current_player, state.non_quick_used, state.pending
    state.current_player, state.non_quick_used, state.pending = p, False, -1
    result = bool(state.tile_choices())
    state.current_player, state.non_quick_used, state.pending = saved
    return result
