"""The flat action space of Samurai: one ``Discrete(294)`` for every step and player count.

A turn is several steps by the same player; what an action means depends
on the sub-step the state is in (the mask shows which are legal):

====================  ===============================================================
``0 .. 16``           choose tile kind ``k`` (``TILE_NAMES[k]``) from the hand; in the
                      ``choose_hand`` phase: take kind ``k`` into the starting hand
``17``                end the turn (legal once a tile has been played)
``18 .. 191``         hex ``a - 18`` (a hex id): where the chosen tile goes; for the
                      tile swap first the own tile to pick up, then its new hex
``192 .. 293``        figure ``(s, t) = divmod(a - 192, 3)``: settlement index ``s``
                      (``SETTLEMENTS[s]`` is its hex id) and type ``t`` (helmet, buddha,
                      rice); the figure swap's first then second figure; in the
                      ``draft`` phase: put a figure of type ``t`` on settlement ``s``
====================  ===============================================================
"""

from __future__ import annotations

from envs.samurai.board import NUM_HEXES, NUM_SETTLEMENTS, SETTLEMENTS
from envs.samurai.components import NUM_KINDS

CHOOSE = 0
END_TURN = NUM_KINDS
HEX = END_TURN + 1
FIGURE = HEX + NUM_HEXES
NUM_ACTIONS = FIGURE + 3 * NUM_SETTLEMENTS
assert (END_TURN, HEX, FIGURE, NUM_ACTIONS) == (17, 18, 192, 294)


def hex_action(h: int) -> int:
    """The action naming hex id ``h``."""
    return HEX + h


def figure_action(settlement_hex: int, figure_type: int) -> int:
    """The action naming the figure of ``figure_type`` on the settlement at hex ``settlement_hex``."""
    return FIGURE + 3 * SETTLEMENTS.index(settlement_hex) + figure_type


def decode(action: int) -> tuple[str, int, int]:
    """``("choose", kind, 0)``, ``("end", 0, 0)``, ``("hex", hex id, 0)`` or ``("figure", settlement hex, type)``."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action!r}")
    if action < END_TURN:
        return "choose", action, 0
    if action == END_TURN:
        return "end", 0, 0
    if action < FIGURE:
        return "hex", action - HEX, 0
    s, t = divmod(action - FIGURE, 3)
    return "figure", SETTLEMENTS[s], t
