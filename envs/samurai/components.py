"""Samurai tiles, figures and phases as data (``docs/rules/samurai.md``, "Components" and "Set-up").

Tile kinds are small ints inside the engine (their index in ``TILE_NAMES``);
the names appear only at the edges (options, ``state_dict``, descriptions).
"""

from __future__ import annotations

#: The phases of a game, in order: the optional set-up decisions, then play.
PHASES = (CHOOSE_HAND, DRAFT, PLAY) = ("choose_hand", "draft", "play")
#: How the figures are set up (the ``figure_setup`` option): drawn from the seed, or drafted by the players.
FIGURE_SETUPS = (RANDOM_SETUP, DRAFT_SETUP) = ("random", "draft")

HELMET, BUDDHA, RICE = 0, 1, 2
FIGURE_TYPES = ("helmet", "buddha", "rice")
TYPE_OF_NAME = {name: t for t, name in enumerate(FIGURE_TYPES)}

#: Every tile kind, in the order of the "choose a tile" actions.
TILE_NAMES = (
    "helmet2", "helmet3", "helmet4",
    "buddha2", "buddha3", "buddha4",
    "rice2", "rice3", "rice4",
    "samurai1", "samurai2", "samurai3",
    "ronin", "ship1", "ship2", "figure_swap", "tile_swap",
)  # fmt: skip
NUM_KINDS = len(TILE_NAMES)
KIND_OF_NAME = {name: k for k, name in enumerate(TILE_NAMES)}
SAMURAI1, SAMURAI3 = KIND_OF_NAME["samurai1"], KIND_OF_NAME["samurai3"]
RONIN = KIND_OF_NAME["ronin"]
SHIP1, SHIP2 = KIND_OF_NAME["ship1"], KIND_OF_NAME["ship2"]
FIGURE_SWAP = KIND_OF_NAME["figure_swap"]
TILE_SWAP = KIND_OF_NAME["tile_swap"]

#: How many of each kind every player has (the same 20 tiles each).
KIND_COUNTS = (1,) * 9 + (2, 2, 1) + (1, 2, 1, 1, 1)
TILES_PER_PLAYER = sum(KIND_COUNTS)
assert TILES_PER_PLAYER == 20
#: A player's 20 tiles as a sorted list of kinds.
PLAYER_TILES = tuple(k for k in range(NUM_KINDS) for _ in range(KIND_COUNTS[k]))
HAND_SIZE = 5

#: Quick tiles may be played in any number; at most one non-quick tile a turn.
QUICK = tuple(k in (RONIN, SHIP1, SHIP2, FIGURE_SWAP) for k in range(NUM_KINDS))
#: Ships go on sea; figure swaps are never placed; every other tile goes on plain land.
SHIPS = (SHIP1, SHIP2)
#: Own tiles a tile swap may pick up: non-quick and placed (helmet/buddha/rice/samurai).
MOVABLE = tuple(k <= SAMURAI3 for k in range(NUM_KINDS))


def _influence(kind: int) -> tuple[int, int, int]:
    """Influence of a tile on helmet, buddha, rice figures."""
    name = TILE_NAMES[kind]
    if kind < SAMURAI1:
        value = int(name[-1])
        return tuple(value if name.startswith(t) else 0 for t in FIGURE_TYPES)  # type: ignore[return-value]
    if name.startswith(("samurai", "ship")):
        return (int(name[-1]),) * 3
    if kind == RONIN:
        return (1, 1, 1)
    return (0, 0, 0)  # the tile swap counts 0; the figure swap is never on the board


INFLUENCE = tuple(_influence(k) for k in range(NUM_KINDS))


def describe_tile(kind: int) -> str:
    """``"helmet 3"``, ``"samurai 1"``, ``"ronin"``, ``"ship 2"``, ``"figure swap"``, ``"tile swap"``."""
    name = TILE_NAMES[kind]
    if name[-1].isdigit():
        return f"{name[:-1]} {name[-1]}"
    return name.replace("_", " ")
