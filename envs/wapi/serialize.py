"""Wapi state as JSON-safe data, and back with every rule checked (issue 2, item 11)."""

from __future__ import annotations

import math
from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Any

from envs.core.engine import as_list, check_keys, check_state_header, invalid_state, is_int
from envs.wapi.components import (
    COIN_VALUES,
    COINS_TO_END,
    FIRST_MASK,
    MASK_FIELDS,
    NUM_MINES,
    SILVER_FIELDS,
    TILE_CODES,
    TILE_OF_CODE,
    TOTEMS_PER_PLAYER,
)

if TYPE_CHECKING:
    from envs.wapi.rules import WapiGame, WapiState

KEYS = {"game", "num_players", "scoring", "current_player", "drawn", "mines", "totems_left", "bag", "scores", "terminal"}


def state_to_dict(state: WapiState) -> dict[str, Any]:
    return {
        "game": "wapi",
        "num_players": state.game.num_players,
        "scoring": state.game.scoring,
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


_fail = partial(invalid_state, "Wapi")
_list = partial(as_list, "Wapi")


def _tile(code: Any, where: str) -> int:
    if code not in TILE_OF_CODE:
        _fail(f"{where} holds {code!r}; tile codes are {list(TILE_CODES)}")
    return TILE_OF_CODE[code]


def state_from_dict(game: WapiGame, data: dict[str, Any]) -> WapiState:
    from envs.wapi.rules import WapiState

    check_state_header(game, data, KEYS, "Wapi", ("num_players", "scoring"))
    n = game.num_players
    mines = _list(data["mines"], "mines", NUM_MINES)
    state = WapiState(game, [_tile(c, "bag") for c in _list(data["bag"], "bag")])
    for k, mine in enumerate(mines):
        check_keys(f"mines[{k}]", mine, {"silver", "masks", "totems"}, {"silver", "masks", "totems"})
        silver, totems, masks = _list(mine["silver"], "silver"), _list(mine["totems"], "totems"), mine["masks"]
        if len(silver) > SILVER_FIELDS or any(v not in COIN_VALUES or isinstance(v, bool) for v in silver):
            _fail(f"mines[{k}].silver must hold at most {SILVER_FIELDS} values from {list(COIN_VALUES)}")
        if not is_int(masks) or not 0 <= masks <= MASK_FIELDS:
            _fail(f"mines[{k}].masks must be an int in 0..{MASK_FIELDS}")
        if len(totems) > masks or any(not is_int(p) or not 0 <= p < n for p in totems):
            _fail(f"mines[{k}].totems must be player indices, at most one per mask placed")
        state.silver[k], state.masks[k], state.totems[k] = list(silver), masks, list(totems)
    totems_left = _list(data["totems_left"], "totems_left")
    poles = Counter(p for t in state.totems for p in t)
    if len(totems_left) != n or any(not is_int(t) or t + poles[p] != TOTEMS_PER_PLAYER for p, t in enumerate(totems_left)):
        _fail(f"totems_left must list, per player, {TOTEMS_PER_PLAYER} minus the poles they placed")
    state.totems_left = list(totems_left)
    state.coins_placed = sum(len(s) for s in state.silver)
    state.drawn = None if data["drawn"] is None else _tile(data["drawn"], "drawn")
    _check_conservation(game, state)
    _check_turn(data, state)
    state.current_player = data["current_player"]
    reported = data["scores"]
    if not isinstance(reported, list) or len(reported) != n or any(
        not isinstance(s, (int, float)) or not math.isclose(s, t, abs_tol=1e-9) for s, t in zip(reported, state.scores())
    ):
        _fail(f"scores {reported!r} disagree with the position, which scores {state.scores()}")
    return state


def _check_conservation(game: WapiGame, state: WapiState) -> None:
    placed = [TILE_OF_CODE[f"S{v}"] for s in state.silver for v in s]
    placed += [FIRST_MASK + k for k in range(NUM_MINES) for _ in range(state.masks[k])]
    seen = Counter(state.bag + placed + ([] if state.drawn is None else [state.drawn]))
    if seen != Counter(game.tiles):
        extra, missing = seen - Counter(game.tiles), Counter(game.tiles) - seen
        names = lambda c: {TILE_CODES[t]: m for t, m in c.items()}  # noqa: E731
        _fail(f"tiles are not conserved: extra {names(extra) or 'none'}, missing {names(missing) or 'none'}")


def _check_turn(data: dict[str, Any], state: WapiState) -> None:
    terminal = state.coins_placed == COINS_TO_END
    if data["terminal"] is not terminal:
        _fail(f"terminal is {data['terminal']!r} but {state.coins_placed} of {COINS_TO_END} silver fields are filled")
    if terminal:
        if data["current_player"] is not None or state.drawn is not None:
            _fail("a finished game has current_player and drawn null")
        return
    if state.drawn is None:
        _fail("a game in progress has a drawn tile")
    drawn_so_far = len(state.game.tiles) - len(state.bag)
    expected = (drawn_so_far - 1) % state.game.num_players
    if data["current_player"] != expected:
        _fail(f"current_player must be {expected}: {drawn_so_far} tiles have been drawn, one per turn")


