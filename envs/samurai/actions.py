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

Every piece of action arithmetic in the project goes through the helpers
below (engine, heuristic, evaluation, tests), so the table above is stated once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.samurai.board import NUM_HEXES, NUM_SETTLEMENTS, SETTLEMENTS, hex_label
from envs.samurai.components import CHOOSE_HAND, DRAFT, FIGURE_SWAP, FIGURE_TYPES, NUM_KINDS, TILE_SWAP, describe_tile

if TYPE_CHECKING:
    from envs.samurai.rules import SamuraiState

CHOOSE = 0
END_TURN = CHOOSE + NUM_KINDS
HEX = END_TURN + 1
FIGURE = HEX + NUM_HEXES
NUM_ACTIONS = FIGURE + 3 * NUM_SETTLEMENTS
assert (END_TURN, HEX, FIGURE, NUM_ACTIONS) == (17, 18, 192, 294)


def tile_action(kind: int) -> int:
    """The action choosing tile kind ``kind`` from the hand (or into the starting hand)."""
    return CHOOSE + kind


def tile_of(action: int) -> int:
    """The tile kind named by a tile-choice action."""
    return action - CHOOSE


def hex_action(h: int) -> int:
    """The action naming hex id ``h``."""
    return HEX + h


def tile_actions(kinds: list[int]) -> tuple[int, ...]:
    """:func:`tile_action` of each kind (legal-action lists are built often: one comprehension)."""
    return tuple([CHOOSE + k for k in kinds])


def hex_actions(hexes: list[int]) -> tuple[int, ...]:
    """:func:`hex_action` of each hex id."""
    return tuple([HEX + h for h in hexes])


def figure_action(settlement_hex: int, figure_type: int) -> int:
    """The action naming the figure of ``figure_type`` on the settlement at hex ``settlement_hex``."""
    return settlement_figure_action(SETTLEMENTS.index(settlement_hex), figure_type)


def settlement_figure_action(s: int, figure_type: int) -> int:
    """The action naming the figure of ``figure_type`` on settlement *index* ``s`` (``SETTLEMENTS[s]``)."""
    return FIGURE + 3 * s + figure_type


def is_tile_choice(action: int) -> bool:
    return CHOOSE <= action < END_TURN


def is_hex(action: int) -> bool:
    return HEX <= action < FIGURE


def is_figure(action: int) -> bool:
    return FIGURE <= action < NUM_ACTIONS


def hex_of(action: int) -> int:
    """The hex id named by a hex action."""
    return action - HEX


def figure_of(action: int) -> tuple[int, int]:
    """``(settlement index, figure type)`` named by a figure action."""
    return divmod(action - FIGURE, 3)


def decode(action: int) -> tuple[str, int, int]:
    """``("choose", kind, 0)``, ``("end", 0, 0)``, ``("hex", hex id, 0)`` or ``("figure", settlement hex, type)``."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {action!r}")
    if is_tile_choice(action):
        return "choose", tile_of(action), 0
    if action == END_TURN:
        return "end", 0, 0
    if is_hex(action):
        return "hex", hex_of(action), 0
    s, t = figure_of(action)
    return "figure", SETTLEMENTS[s], t


def describe_action(state: SamuraiState, action: int) -> str:
    """What ``action`` does in the sub-step ``state`` is in, in words."""
    what, a, b = decode(action)
    if what == "end":
        return "end the turn"
    if what == "choose":
        if state.phase == CHOOSE_HAND:
            return f"take {describe_tile(a)} into the starting hand"
        return f"play {describe_tile(a)}"
    if what == "hex":
        if state.pending == TILE_SWAP and state.swap_from < 0:
            tile = describe_tile(state.tile[a]) if state.tile[a] >= 0 else "tile"
            return f"tile swap: pick up own {tile} from {hex_label(a)}"
        if state.pending == TILE_SWAP:
            moved = describe_tile(state.tile[state.swap_from])
            return f"tile swap: move {moved} from hex {state.swap_from} to {hex_label(a)}"
        if state.pending >= 0:
            return f"place {describe_tile(state.pending)} on {hex_label(a)}"
        return f"place on {hex_label(a)}"
    figure = FIGURE_TYPES[b]
    if state.phase == DRAFT:
        return f"put a {figure} figure on {hex_label(a)}"
    if state.pending == FIGURE_SWAP and state.first_figure is not None:
        s1, t1 = state.first_figure
        return f"swap {FIGURE_TYPES[t1]} of settlement {SETTLEMENTS[s1]} with {figure} of settlement {a}"
    return f"figure swap: pick {figure} of settlement {a}"
