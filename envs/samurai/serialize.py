"""Samurai state as JSON-safe data, and back with every field and rule checked.

Loading never half-succeeds: each field is parsed and checked (types are
checked, not compared: ``1.0``, ``True`` and numpy scalars are not ints;
integers are refused by range), the position is built through
``SamuraiState``'s constructor on a fresh object and its consistency
checked, and only then settled and returned. Every refusal is a ValueError
naming the field and quoting the value cut short (``envs.core.engine.shown``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from envs.core.engine import check_keys, is_int, shown
from envs.core.fields import FieldReader
from envs.samurai import figure_moves
from envs.samurai.actions import settlement_figure_action
from envs.samurai.board import CAPACITY, HEX_KIND, NUM_HEXES, SEA, SETTLEMENT, SETTLEMENTS
from envs.samurai.components import (
    CHOOSE_HAND,
    DRAFT,
    DRAFT_SETUP,
    FIGURE_SWAP,
    FIGURE_TYPES,
    HAND_SIZE,
    KIND_OF_NAME,
    MOVABLE,
    PLAY,
    PLAYER_TILES,
    QUICK,
    SHIPS,
    TILE_NAMES,
    TILE_SWAP,
    TILES_PER_PLAYER,
    TYPE_OF_NAME,
)  # fmt: skip
from envs.samurai.rules import SamuraiState
from envs.samurai.scoring import winners as winners_of
from envs.samurai.setup import draft_figures, figure_list

if TYPE_CHECKING:
    from envs.samurai.game import SamuraiGame

KEYS = {
    "game",
    "num_players",
    "current_player",
    "board",
    "figures",
    "captured",
    "set_aside",
    "hands",
    "piles",
    "turn",
    "terminal",
    "winners",
}
TURN_KEYS = {"number", "phase", "played", "non_quick_used", "tile", "first_figure", "swap_from"}
#: More turns than any game can have: each turn but a pass plays one of the 20 tiles of each
#: player, and fewer than ``num_players`` passes come in a row (then the game ends): <= 323 for 4.
MAX_TURN_NUMBER = 1_000


def state_to_dict(state: SamuraiState) -> dict[str, Any]:
    first = state.first_figure
    return {
        **_read.header(state.game),
        "current_player": state.current_player,
        "board": {
            str(h): {"tile": TILE_NAMES[state.tile[h]], "owner": state.owner[h]}
            for h in range(NUM_HEXES)
            if state.tile[h] >= 0
        },
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
            "first_figure": None
            if first is None
            else {"settlement": SETTLEMENTS[first[0]], "type": FIGURE_TYPES[first[1]]},
            "swap_from": None if state.swap_from < 0 else state.swap_from,
        },
        "terminal": state.current_player is None,
        "winners": state.winners(),
    }


_read = FieldReader("Samurai", ("num_players",))
_fail = _read.fail


# --- fields --------------------------------------------------------------------------
def _tile(code: Any, name: str) -> int:
    return _read.as_name(code, name, "tile name", KIND_OF_NAME)


def _tiles(value: Any, name: str, most: int = TILES_PER_PLAYER) -> list[int]:
    return _read.as_names(value, name, "tile name", KIND_OF_NAME, most)


def _hex_key(key: Any, name: str) -> int:
    """A hex id from an object key: its decimal string, as ``state_to_dict`` writes it."""
    if not isinstance(key, str) or not (key.isascii() and key.isdigit()) or len(key) > 3 or str(int(key)) != key:
        _fail(f"{name} has key {shown(key)}; keys are hex ids as decimal strings")
    return int(key)


def _counts(value: Any, name: str, supply: int) -> list[int]:
    check_keys(name, value, set(FIGURE_TYPES), set(FIGURE_TYPES))
    return [_read.as_int(value[t], f"{name}.{t}", 0, supply) for t in FIGURE_TYPES]


def _figure_list(types: Any, h: int, name: str) -> list[int]:
    if not isinstance(types, list):
        _fail(f"{name} must be a list of figure types from {list(FIGURE_TYPES)}, got {shown(types)}")
    try:
        return figure_list(types, h, name)
    except ValueError as error:
        _fail(str(error))


def _board(board: Any, game: SamuraiGame) -> list[tuple[int, int, int]]:
    """``(hex, kind, owner)`` of every tile, in hex order."""
    if not isinstance(board, dict):
        _fail(f"board must be an object from hex id to {{'tile', 'owner'}}, got {shown(board)}")
    tiles = []
    for key, cell in board.items():
        h = _hex_key(key, "board")
        if h >= NUM_HEXES or not game.layout.on_board[h]:
            _fail(f"board has a tile on hex {h}, which is off the board for {game.num_players} players")
        if HEX_KIND[h] == SETTLEMENT:
            _fail(f"board has a tile on hex {h}, a settlement: tiles never go on settlements")
        check_keys(f"board[{key!r}]", cell, {"tile", "owner"}, {"tile", "owner"})
        kind = _tile(cell["tile"], f"board[{key!r}].tile")
        owner = _read.as_int(cell["owner"], f"board[{key!r}].owner", 0, game.num_players - 1)
        if kind == FIGURE_SWAP:
            _fail(f"board[{key!r}] holds a figure swap, which is discarded after use and never placed")
        if (kind in SHIPS) != (HEX_KIND[h] == SEA):
            _fail(f"board[{key!r}] holds {cell['tile']}: ships go only on sea, every other tile only on land")
        tiles.append((h, kind, owner))
    return sorted(tiles)


def _figures(figures: Any, game: SamuraiGame) -> list[list[int]]:
    """Figures per settlement index (empty off the board)."""
    expected = {str(SETTLEMENTS[s]) for s in game.layout.settlements}
    if not isinstance(figures, dict) or set(figures) != expected:
        _fail(f"figures must give every settlement on the board exactly once: {sorted(map(int, expected))}")
    out: list[list[int]] = [[] for _ in SETTLEMENTS]
    for key, types in figures.items():
        h = int(key)
        out[SETTLEMENTS.index(h)] = _figure_list(types, h, f"figures[{key!r}]")
    return out


def _turn(turn: Any, game: SamuraiGame) -> dict[str, Any]:
    check_keys("turn", turn, TURN_KEYS, TURN_KEYS)
    allowed = [PLAY] + [CHOOSE_HAND] * game.choose_hand + [DRAFT] * (game.figure_setup == DRAFT_SETUP)
    if not isinstance(turn["phase"], str) or turn["phase"] not in allowed:
        _fail(f"turn.phase is {shown(turn['phase'])}; with this configuration it must be one of {allowed}")
    first = turn["first_figure"]
    if first is not None:
        check_keys("turn.first_figure", first, {"settlement", "type"}, {"settlement", "type"})
        if not is_int(first["settlement"]) or first["settlement"] not in SETTLEMENTS:
            _fail(f"turn.first_figure.settlement must be a settlement hex id, got {shown(first['settlement'])}")
        figure_type = _read.as_name(first["type"], "turn.first_figure.type", "figure type", TYPE_OF_NAME)
        first = (SETTLEMENTS.index(first["settlement"]), figure_type)
    swap_from = _read.as_optional_int(turn["swap_from"], "turn.swap_from", 0, NUM_HEXES - 1)
    return {
        "phase": turn["phase"],
        "number": _read.as_int(turn["number"], "turn.number", 0, MAX_TURN_NUMBER),
        "played": _tiles(turn["played"], "turn.played"),
        "non_quick_used": _read.as_bool(turn["non_quick_used"], "turn.non_quick_used"),
        "tile": -1 if turn["tile"] is None else _tile(turn["tile"], "turn.tile"),
        "first_figure": first,
        "swap_from": -1 if swap_from is None else swap_from,
    }


# --- loading -------------------------------------------------------------------------
def state_from_dict(game: SamuraiGame, data: dict[str, Any]) -> SamuraiState:
    _read.check_header(game, data, KEYS)
    n, supply = game.num_players, game.layout.supply
    hands = [_tiles(h, f"hands[{p}]", HAND_SIZE) for p, h in enumerate(_read.as_list(data["hands"], "hands", n))]
    piles = [_tiles(q, f"piles[{p}]") for p, q in enumerate(_read.as_list(data["piles"], "piles", n))]
    tiles = _board(data["board"], game)
    figures = _figures(data["figures"], game)
    captured = [
        _counts(c, f"captured[{p}]", supply) for p, c in enumerate(_read.as_list(data["captured"], "captured", n))
    ]
    set_aside = _counts(data["set_aside"], "set_aside", supply)
    turn = _turn(data["turn"], game)
    terminal = _read.as_bool(data["terminal"], "terminal")
    current = data["current_player"]
    if not (current is None if terminal else is_int(current) and 0 <= current < n):
        _fail(
            f"current_player must be {'null once the game is over' if terminal else f'a seat in 0..{n - 1}'}, "
            f"got {shown(current)}"
        )
    winners = _read.as_list(data["winners"], "winners")
    if any(not is_int(p) for p in winners):
        _fail(f"winners must be a list of seats, got {shown(winners)}")

    state = SamuraiState(game, piles, figures)  # the constructor's opening position, then the saved one:
    state.hands, state.piles = hands, piles
    for h, kind, owner in tiles:
        state.lay(kind, owner, h)
    state.captured, state.set_aside = captured, set_aside
    state.phase, state.turn_number, state.played = turn["phase"], turn["number"], turn["played"]
    state.non_quick_used, state.pending = turn["non_quick_used"], turn["tile"]
    state.first_figure, state.swap_from = turn["first_figure"], turn["swap_from"]
    state.current_player = current

    _check_turn(state)
    _check_tiles(state)
    _check_figures(state)
    if state.phase != PLAY:
        _check_setup(state)
    _check_progress(state, terminal, winners)
    if terminal:
        state.game_over()
    else:
        state.settle()  # a forced pass, an automatic turn end, or the end when everyone would pass
        if state.current_player is not None and not state.legal_tuple():
            _fail("current_player: the player to act has no legal move in this position")
    return state


# --- the position's consistency --------------------------------------------------------
def _check_turn(state: SamuraiState) -> None:
    if state.non_quick_used != any(not QUICK[k] for k in state.played):
        _fail("turn.non_quick_used must say whether turn.played holds a non-quick tile")
    if sum(not QUICK[k] for k in state.played) > 1:
        _fail("turn.played holds more than one non-quick tile: at most one a turn")
    if state.phase != PLAY and (state.played or state.pending >= 0 or state.turn_number):
        _fail(f"during the {state.phase} phase turn.number is 0, turn.played empty and turn.tile null")
    if state.pending < 0 and (state.first_figure is not None or state.swap_from >= 0):
        _fail("turn.first_figure and turn.swap_from need turn.tile (figure_swap, tile_swap)")


def _check_tiles(state: SamuraiState) -> None:
    """Each player's 20 tiles: hand + pile + own tiles on the board (+ a used figure swap)."""
    n = state.game.num_players
    for p in range(n):
        on_board = [state.tile[h] for h in range(NUM_HEXES) if state.owner[h] == p]
        counted = Counter(state.hands[p] + state.piles[p] + on_board)
        if counted[FIGURE_SWAP] == 0:
            counted[FIGURE_SWAP] = 1  # used and discarded
        if counted != Counter(PLAYER_TILES):
            extra, missing = counted - Counter(PLAYER_TILES), Counter(PLAYER_TILES) - counted
            names = lambda c: {TILE_NAMES[k]: m for k, m in c.items()}  # noqa: E731
            _fail(
                f"hands[{p}], piles[{p}] and board: player {p}'s tiles are not conserved: "
                f"extra {names(extra) or 'none'}, missing {names(missing) or 'none'}"
            )
        played = state.played if p == state.turn_number % n else []
        out_of_hand = Counter(on_board)
        if FIGURE_SWAP not in state.hands[p] + state.piles[p]:
            out_of_hand[FIGURE_SWAP] += 1
        if Counter(played) - out_of_hand:
            _fail(f"turn.played lists tiles that player {p} has not played: {[TILE_NAMES[k] for k in played]}")
        size = len(state.hands[p]) + len(played)
        if state.phase != CHOOSE_HAND and size != min(HAND_SIZE, size + len(state.piles[p])):
            _fail(
                f"hands[{p}]: player {p} must hold {HAND_SIZE} tiles at the start of a turn while the pile lasts "
                f"(hand {len(state.hands[p])}, played this turn {len(played)}, pile {len(state.piles[p])})"
            )


def _check_figures(state: SamuraiState) -> None:
    """Figures conserved; none in a surrounded settlement; full settlements until surrounded."""
    supply = state.layout.supply
    in_supply = state.figures_in_supply()
    for t, name in enumerate(FIGURE_TYPES):
        if in_supply[t] < 0:
            _fail(
                f"figures, captured and set_aside: {name} figures are not conserved: more than the supply "
                f"of {supply} on the board, captured and set aside"
            )
    if state.phase == PLAY and any(in_supply):
        _fail(
            f"figures, captured and set_aside: figures are not conserved: on the board + captured + set aside "
            f"must be {supply} of each type"
        )
    for s in state.layout.settlements:
        h, figs = SETTLEMENTS[s], state.figures[s]
        if state.need[s] == 0 and figs:
            _fail(f"figures['{h}']: settlement {h} is surrounded but figures still stand in it")
        if state.phase == PLAY and state.need[s] and len(figs) != CAPACITY[h]:
            _fail(
                f"figures['{h}']: settlement {h} is not surrounded, so it must still hold its {CAPACITY[h]} figure(s)"
            )


def _check_setup(state: SamuraiState) -> None:
    """Before play: no tile on the board, nothing captured, and the figures where the set-up puts them."""
    layout, phase = state.layout, state.phase
    if any(k >= 0 for k in state.tile):
        _fail(f"board must be empty during the {phase} phase: tiles are laid only in play")
    if any(map(any, state.captured)) or any(state.set_aside):
        _fail(f"captured and set_aside: nothing is captured or set aside during the {phase} phase")
    start = draft_figures(layout)
    drafting = state.game.figure_setup == DRAFT_SETUP
    if phase == CHOOSE_HAND and (state.figures != start if drafting else any(state.figures_in_supply())):
        _fail("figures: while hands are chosen the figures are all placed (random set-up) or only Edo's (draft)")
    if phase == DRAFT:
        if any(not set(start[s]) <= set(state.figures[s]) for s in layout.settlements):
            _fail("figures: in the draft Edo holds one figure of each type from the start")
        if not any(state.figures_in_supply()):
            _fail("turn.phase: the draft is over when every figure is placed: the phase is play")
        cities_open = any(
            len(state.figures[s]) < CAPACITY[SETTLEMENTS[s]] and CAPACITY[SETTLEMENTS[s]] > 1
            for s in layout.settlements
        )
        if cities_open and any(state.figures[s] and CAPACITY[SETTLEMENTS[s]] == 1 for s in layout.settlements):
            _fail("figures: in the draft the cities are filled before the villages")


def _check_progress(state: SamuraiState, terminal: bool, winners: list[int]) -> None:
    """Whose turn it is, the action in progress, and the end of the game."""
    n = state.game.num_players
    ended = state.end_reached()
    if terminal:
        if state.phase != PLAY:
            _fail("terminal is true during the set-up")
        if not ended and any(state.can_play(p) for p in range(n)):
            _fail("terminal is true but no end condition holds and a player can still play")
        expected = winners_of(state.captured)
        if winners != expected:
            _fail(f"winners {shown(winners)} disagree with the captures, which give {expected}")
        return
    if ended and state.phase == PLAY:
        _fail("terminal is false but an end condition holds (a type has left the board, or 4 figures set aside)")
    if winners:
        _fail("winners must be empty while the game is being played")
    if state.phase == CHOOSE_HAND:
        expected = next((p for p in range(n) if len(state.hands[p]) < HAND_SIZE), None)
        if expected is None or any(
            len(state.hands[p]) != (HAND_SIZE if p < expected else 0) for p in range(n) if p != expected
        ):
            _fail("hands: while hands are chosen, players before the chooser hold 5 tiles and players after hold none")
    elif state.phase == DRAFT:
        expected = (sum(state.figures_on_board) - sum(map(len, draft_figures(state.layout)))) % n
    else:
        expected = state.turn_number % n
    if state.current_player != expected:
        _fail(f"current_player must be {expected!r} in this position (turn.number, hands or figures placed)")
    _check_action_in_progress(state)


def _check_action_in_progress(state: SamuraiState) -> None:
    chosen, p = state.pending, state.current_player
    if chosen < 0:
        return
    if chosen not in state.playable_kinds(p, state.hands[p], state.non_quick_used):
        _fail(f"turn.tile {TILE_NAMES[chosen]!r} cannot be played now by player {p}")
    if state.first_figure is not None:
        firsts = figure_moves.first_figures(state.figures, state.layout.settlements, state.swap_table())
        if chosen != FIGURE_SWAP or settlement_figure_action(*state.first_figure) not in firsts:
            _fail("turn.first_figure must be a figure a figure swap can move, with turn.tile 'figure_swap'")
    if state.swap_from >= 0:
        h = state.swap_from
        if chosen != TILE_SWAP or state.owner[h] != p or not MOVABLE[state.tile[h]]:
            _fail(
                "turn.swap_from must be the hex of an own helmet/buddha/rice/samurai tile, with turn.tile 'tile_swap'"
            )
