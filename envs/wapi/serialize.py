"""Wapi state as JSON-safe data, and back with every field and rule checked.

Loading never half-succeeds: :func:`state_from_dict` reads every field with
its type and range (integers are ``int``, never ``bool``, float or numpy
scalars), then checks that the position is one the rules can reach (tiles
conserved, poles and totems left add up, the turn order, the end), and only
then builds the state through its constructor. The reported scores are
checked against that new state's before it is handed out. Every refusal is a ValueError naming the field.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Any, NamedTuple

from envs.core.engine import check_keys, is_int, shown
from envs.core.fields import FieldReader
from envs.wapi.components import (
    COIN_VALUES,
    COINS_TO_END,
    FIRST_MASK,
    MASK_FIELDS,
    MAX_SCORE,
    NUM_MINES,
    NUM_TILE_KINDS,
    SILVER_FIELDS,
    TILE_CODES,
    TILE_OF_CODE,
    TOTEMS_PER_PLAYER,
)
from envs.wapi.rules import WapiState

if TYPE_CHECKING:
    from envs.wapi.game import WapiGame

KEYS = {
    "game",
    "num_players",
    "scoring",
    "current_player",
    "drawn",
    "mines",
    "totems_left",
    "bag",
    "scores",
    "terminal",
}
MINE_KEYS = {"silver", "masks", "totems"}
_read = FieldReader("Wapi", ("num_players", "scoring"))
_fail = _read.fail


def state_to_dict(state: WapiState) -> dict[str, Any]:
    return {
        **_read.header(state.game),
        "current_player": state.current_player,
        "drawn": None if state.drawn is None else TILE_CODES[state.drawn],
        "mines": [
            {"silver": list(state.silver[k]), "masks": state.masks[k], "totems": list(state.totems[k])}
            for k in range(NUM_MINES)
        ],
        "totems_left": list(state.totems_left),
        "bag": [TILE_CODES[t] for t in state.bag],
        "scores": state.scores(),
        "terminal": state.current_player is None,
    }


class Position(NamedTuple):
    """The fields of a state_dict, read and type-checked (tiles as ints)."""

    current_player: int | None
    drawn: int | None
    silver: list[list[int]]
    masks: list[int]
    totems: list[list[int]]
    totems_left: list[int]
    bag: list[int]
    terminal: bool


def state_from_dict(game: WapiGame, data: Any) -> WapiState:
    _read.check_header(game, data, KEYS)
    position = read_position(game, data)
    check_position(game, position)
    state = build(game, position)
    check_derived(state, data["scores"])
    return state


# --- reading: each field's type and range ------------------------------------------------
def read_position(game: WapiGame, data: dict[str, Any]) -> Position:
    n = game.num_players
    silver, masks, totems = [], [], []
    for k, mine in enumerate(_read.as_list(data["mines"], "mines", NUM_MINES)):
        check_keys(f"mines[{k}]", mine, MINE_KEYS, MINE_KEYS)
        coins = _read.as_list(mine["silver"], f"mines[{k}].silver", most=SILVER_FIELDS)
        if not all(is_int(v) and v in COIN_VALUES for v in coins):
            _fail(f"mines[{k}].silver must hold coin values (ints) from {list(COIN_VALUES)}, got {shown(coins)}")
        masks.append(_read.as_int(mine["masks"], f"mines[{k}].masks", 0, MASK_FIELDS))
        poles = _read.as_list(mine["totems"], f"mines[{k}].totems", most=MASK_FIELDS)
        for pole in poles:
            _read.as_int(pole, f"mines[{k}].totems", 0, n - 1)
        silver.append(list(coins))
        totems.append(list(poles))
    totems_left = [
        _read.as_int(t, "totems_left", 0, TOTEMS_PER_PLAYER)
        for t in _read.as_list(data["totems_left"], "totems_left", n)
    ]
    bag = _read.as_names(data["bag"], "bag", "tile code", TILE_OF_CODE, most=len(game.tiles))
    drawn = None if data["drawn"] is None else _read.as_name(data["drawn"], "drawn", "tile code", TILE_OF_CODE)
    current = (
        None if data["current_player"] is None else _read.as_int(data["current_player"], "current_player", 0, n - 1)
    )
    terminal = _read.as_bool(data["terminal"], "terminal")
    return Position(current, drawn, silver, masks, totems, totems_left, bag, terminal)


# --- checking: a position the rules can reach -----------------------------------------------
def check_position(game: WapiGame, position: Position) -> None:
    for k, (poles, masks) in enumerate(zip(position.totems, position.masks)):
        if len(poles) > masks:
            _fail(f"mines[{k}] has {len(poles)} totems on {masks} masks: a totem goes only on a mask")
    placed = Counter(p for poles in position.totems for p in poles)
    for player, left in enumerate(position.totems_left):
        if left + placed[player] != TOTEMS_PER_PLAYER:
            _fail(
                f"totems_left[{player}] is {left}, but the player has {placed[player]} poles in the mines "
                f"(they hold {TOTEMS_PER_PLAYER} in all)"
            )
    _check_conservation(game, position)
    _check_turn(game, position)


def _check_conservation(game: WapiGame, position: Position) -> None:
    placed = [TILE_OF_CODE[f"S{v}"] for coins in position.silver for v in coins]
    placed += [FIRST_MASK + k for k, masks in enumerate(position.masks) for _ in range(masks)]
    held = [] if position.drawn is None else [position.drawn]
    seen, full_set = Counter(position.bag + placed + held), Counter(game.tiles)
    if seen != full_set:
        names = lambda tiles: {TILE_CODES[t]: m for t, m in tiles.items()}  # noqa: E731
        _fail(
            f"tiles are not conserved (bag, drawn, mines): extra {names(seen - full_set) or 'none'}, "
            f"missing {names(full_set - seen) or 'none'}"
        )


def _check_turn(game: WapiGame, position: Position) -> None:
    coins_placed = sum(len(coins) for coins in position.silver)
    over = coins_placed == COINS_TO_END
    if position.terminal is not over:
        _fail(f"terminal is {position.terminal} but {coins_placed} of {COINS_TO_END} silver fields are filled")
    if over:
        if position.current_player is not None or position.drawn is not None:
            _fail("a finished game has current_player and drawn null")
        return
    if position.drawn is None:
        _fail("a game in progress has a drawn tile")
    drawn_so_far = len(game.tiles) - len(position.bag)
    expected = (drawn_so_far - 1) % game.num_players
    if position.current_player != expected:
        _fail(
            f"current_player must be {expected}: {drawn_so_far} tiles have been drawn, one per turn, "
            f"got {shown(position.current_player)}"
        )


# --- building, then what derives from the position ---------------------------------------------
def build(game: WapiGame, position: Position) -> WapiState:
    """The state of a checked position: the constructor's opening, then every field set."""
    state = WapiState(game, list(game.tiles))
    state.bag = position.bag
    state.bag_counts = [position.bag.count(t) for t in range(NUM_TILE_KINDS)]
    state.drawn = position.drawn
    state.current_player = position.current_player
    state.silver = position.silver
    state.masks = position.masks
    state.totems = position.totems
    state.totems_left = position.totems_left
    state.coins_placed = sum(len(coins) for coins in position.silver)
    return state


def check_derived(state: WapiState, reported: Any) -> None:
    """The reported scores agree with the position's. (A live position always has a legal move:
    a mask can be declined, and a coin drawn before the 30th finds a free silver field.)"""
    true = state.scores()
    reported = _read.as_list(reported, "scores", len(true))
    for player, (given, score) in enumerate(zip(reported, true)):
        number = type(given) is int and abs(given) <= MAX_SCORE or type(given) is float and math.isfinite(given)
        if not (number and abs(given - score) <= 1e-9):
            _fail(f"scores[{player}] is {shown(given)}, but the position scores {score} (scores: {shown(true)})")
