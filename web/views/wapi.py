"""What a Wapi player sees in the browser: everything on the table is public (``wapi.md``,
"Information"); only the bag's order is hidden, so the bag is shown by what is left in it,
counted from the table, never read from the bag itself."""

from __future__ import annotations

from typing import Any

from envs.wapi import WapiGame, WapiState
from envs.wapi.actions import DECLINE, PLACE_TOTEM, coin_action
from envs.wapi.components import COIN_VALUES, COINS_TO_END, FIRST_MASK, MASK_FIELDS, NUM_MINES, SILVER_FIELDS, is_coin


def _drawn(state: WapiState) -> dict[str, Any] | None:
    """The tile the player to act has just drawn (a public chance event)."""
    tile = state.drawn
    if tile is None:
        return None
    if is_coin(tile):
        return {"kind": "silver", "value": COIN_VALUES[tile], "text": f"silver coin {COIN_VALUES[tile]}"}
    return {"kind": "mask", "mine": tile - FIRST_MASK, "text": f"mask of mine {tile - FIRST_MASK}"}


def _label(tile: int) -> str:
    return f"silver {COIN_VALUES[tile]}" if is_coin(tile) else f"mask {tile - FIRST_MASK}"


def _bag(state: WapiState) -> dict[str, int]:
    """The bag's contents by kind: every tile of the game less those on the table and the drawn one."""
    left = {f"silver {v}": state.game.coins[v] - sum(s.count(v) for s in state.silver) for v in COIN_VALUES}
    left.update({f"mask {k}": MASK_FIELDS - state.masks[k] for k in range(NUM_MINES)})
    if state.drawn is not None:
        left[_label(state.drawn)] -= 1
    return left


def _click(state: WapiState, mine: int) -> int:
    """The action a click on ``mine`` means now: put the coin there, or a totem on the mask just drawn."""
    tile = state.drawn
    if tile is not None and not is_coin(tile) and tile - FIRST_MASK == mine:
        return PLACE_TOTEM
    return coin_action(mine)


def static(game: WapiGame) -> dict[str, Any]:
    """What never changes during a game: the fields of a mine, the end, the scoring, the decline action."""
    return {
        "silver_fields": SILVER_FIELDS,
        "mask_fields": MASK_FIELDS,
        "coins_to_end": COINS_TO_END,
        "scoring": game.scoring,
        "decline": DECLINE,
    }


def board(state: WapiState, seat: int) -> dict[str, Any]:
    """The mines, the drawn tile, poles left and points so far (all public)."""
    mines = [
        {
            "silver": list(state.silver[k]),
            "value": sum(state.silver[k]),
            "masks": state.masks[k],
            "totems": list(state.totems[k]),
            "action": _click(state, k),
        }
        for k in range(NUM_MINES)
    ]
    return {
        "mines": mines,
        "drawn": _drawn(state),
        "coins_placed": state.coins_placed,
        "bag": _bag(state),
        "totems_left": list(state.totems_left),
        "points": state.scores(),
    }


def move_text(state: WapiState, player: int, action: int, seat: int) -> str:
    """Every move is public: the engine's words; a mask move also names the mask drawn."""
    if action in (PLACE_TOTEM, DECLINE):
        return f"mask of mine {state.drawn - FIRST_MASK}: " + ("place a totem" if action == PLACE_TOTEM else "no totem")
    return state.describe_action(action)
