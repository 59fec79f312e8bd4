"""Wakanda's action map (the env card's table), decoded once at import.

Forty-two actions, two kinds:

- ``build_action(kind, slot)`` = ``kind * 6 + slot`` (0..35): build a piece of
  ``kind`` from your supply on village ``slot``;
- ``finish_action(slot)`` = ``36 + slot`` (36..41): finish the totem on
  ``slot`` with one of your headdresses.

The engine, the heuristic, the tests and the benchmarks all encode and decode
actions through this module; nothing else does the arithmetic.
"""

from __future__ import annotations

from envs.wakanda.components import NUM_PIECE_KINDS, NUM_SLOTS

#: The first finish action: ``FINISH + slot`` finishes the totem on ``slot``.
FINISH = NUM_PIECE_KINDS * NUM_SLOTS
NUM_ACTIONS = FINISH + NUM_SLOTS


def build_action(kind: int, slot: int) -> int:
    """The action that builds a piece of ``kind`` on village ``slot``."""
    return kind * NUM_SLOTS + slot


def finish_action(slot: int) -> int:
    """The action that finishes the totem on village ``slot`` with a headdress."""
    return FINISH + slot


#: ``BUILDS[kind][slot]``: every build action, as a table (the legal-action hot path reads it).
BUILDS = tuple(tuple(build_action(kind, slot) for slot in range(NUM_SLOTS)) for kind in range(NUM_PIECE_KINDS))
#: ``FINISHES[slot]``: every finish action.
FINISHES = tuple(finish_action(slot) for slot in range(NUM_SLOTS))
#: ``DECODED[action]``: (piece kind, or None for a finish; village slot).
DECODED: tuple[tuple[int | None, int], ...] = tuple(
    [(kind, slot) for kind in range(NUM_PIECE_KINDS) for slot in range(NUM_SLOTS)]
    + [(None, slot) for slot in range(NUM_SLOTS)]
)


def decode(action: int) -> tuple[int | None, int]:
    """``(kind, slot)`` of a build, ``(None, slot)`` of a finish."""
    return DECODED[action]
