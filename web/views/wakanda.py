"""What a Wakanda player sees in the browser: the village line, the totems, both supplies and
headdresses (all public, ``wakanda.md``, "Information"), and the bag by what is left in it.
Under the advanced rule a tilted village lies face down: its kind is never read."""

from __future__ import annotations

from typing import Any

from envs.wakanda import WakandaGame, WakandaState
from envs.wakanda.actions import build_action, finish_action
from envs.wakanda.components import NUM_PIECE_KINDS, NUM_SLOTS, PIECE_COUNTS, PIECES, VILLAGES


def static(game: WakandaGame) -> dict[str, Any]:
    """The rules and, per village, what a click means: finish its totem, or build the piece
    chosen from the supply there."""
    actions = [
        {
            "finish": finish_action(slot),
            "build": {PIECES[kind]: build_action(kind, slot) for kind in range(NUM_PIECE_KINDS)},
        }
        for slot in range(NUM_SLOTS)
    ]
    return {"advanced": game.advanced, "pieces": list(PIECES), "villages": actions}


def _village(state: WakandaState, slot: int) -> dict[str, Any]:
    owner = state.owner[slot]
    return {
        "kind": VILLAGES[state.villages[slot]] if state.face_up(slot) else None,
        "status": "owned" if owner is not None else "open" if slot < state.revealed else "tilted",
        "owner": owner,
        "totem": [PIECES[piece] for piece in state.totems[slot]],
    }


def _bag(state: WakandaState) -> dict[str, int]:
    """Every piece less those on the totems and in the supplies."""
    return {
        PIECES[kind]: PIECE_COUNTS[kind]
        - sum(totem.count(kind) for totem in state.totems)
        - sum(supply[kind] for supply in state.supplies)
        for kind in range(NUM_PIECE_KINDS)
    }


def board(state: WakandaState, seat: int) -> dict[str, Any]:
    """The village line (face-down kinds left out), supplies, headdresses, the bag and the points so far."""
    return {
        "villages": [_village(state, slot) for slot in range(NUM_SLOTS)],
        "supplies": [dict(zip(PIECES, supply)) for supply in state.supplies],
        "headdresses": list(state.headdresses),
        "bag": _bag(state),
        "points": state.scores(),
    }


def move_text(state: WakandaState, player: int, action: int, seat: int) -> str:
    """Every move is public (a build or a finish on an available, face-up village)."""
    return state.describe_action(action)
