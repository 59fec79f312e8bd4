"""The flat action space of Wapi: one ``Discrete(8)`` for every player count.

Every turn is one decision about the tile just drawn (the mask shows which
kind of action is legal):

==========  =============================================================
``0 .. 5``  put the drawn silver coin in mine ``k`` (:func:`coin_action`)
``6``       ``PLACE_TOTEM``: put a totem pole on the mask just drawn
``7``       ``DECLINE``: place no totem on it
==========  =============================================================
"""

from __future__ import annotations

from envs.wapi.components import COIN_VALUES, NUM_MINES, is_coin

COIN = 0  # the first coin action: coin_action(mine) = COIN + mine
PLACE_TOTEM = COIN + NUM_MINES
DECLINE = PLACE_TOTEM + 1
NUM_ACTIONS = DECLINE + 1
assert (PLACE_TOTEM, DECLINE, NUM_ACTIONS) == (6, 7, 8)


def coin_action(mine: int) -> int:
    """The action that puts the drawn silver coin in ``mine``."""
    return COIN + mine


def is_coin_action(action: int) -> bool:
    return COIN <= action < PLACE_TOTEM


def coin_mine(action: int) -> int:
    """The mine a coin action puts the coin in."""
    return action - COIN


def describe(action: int, drawn: int | None) -> str:
    """``action`` in words; ``drawn`` (a tile, or None) names the coin being placed."""
    if is_coin_action(action):
        coin = f"silver {COIN_VALUES[drawn]}" if drawn is not None and is_coin(drawn) else "the coin"
        return f"put {coin} in mine {coin_mine(action)}"
    if action == PLACE_TOTEM:
        return "place a totem on the mask just drawn"
    if action == DECLINE:
        return "decline (no totem)"
    raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action!r}")
