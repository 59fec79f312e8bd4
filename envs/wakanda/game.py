"""The Wakanda game: its configuration, the deal, and the wiring of the layers.

``WakandaGame`` holds what is fixed for a table (basic or advanced rules),
deals new games and connects the rules (``rules.py``) with the observer
(``observation.py``), the serializer (``serialize.py``) and the pictures
(``render.py``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from envs.core.engine import Game, check_bool, check_options, shown
from envs.wakanda import render, serialize
from envs.wakanda.actions import NUM_ACTIONS
from envs.wakanda.components import (
    ALL_PIECES,
    NUM_PLAYERS,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
    PIECE_OF_NAME,
    PIECES,
    VILLAGE_OF_NAME,
    VILLAGES,
)
from envs.wakanda.observation import OBSERVATION_SIZE, WakandaObserver
from envs.wakanda.rules import WakandaState

#: What ``reset(options=...)`` may inject: the draw order and the village line.
OPTIONS = {"bag", "villages"}


def check_bag_option(bag: Any) -> list[int]:
    """``options["bag"]``: the draw order, a permutation of the 21 pieces by name."""
    if not isinstance(bag, (list, tuple)) or not all(isinstance(name, str) for name in bag):
        raise ValueError(
            f"options['bag'] must be a list of names, a permutation of the {len(ALL_PIECES)} pieces, got {shown(bag)}"
        )
    unknown = sorted({name for name in bag if name not in PIECE_OF_NAME})
    if unknown:
        raise ValueError(f"options['bag'] holds unknown names {shown(unknown)}; allowed: {list(PIECES)}")
    have, want = Counter(bag), Counter(PIECES[k] for k in ALL_PIECES)
    if have != want:
        raise ValueError(
            f"options['bag'] is not a permutation of the game's {len(ALL_PIECES)} pieces: "
            f"extra {dict(have - want) or 'none'}, missing {dict(want - have) or 'none'}"
        )
    return [PIECE_OF_NAME[name] for name in bag]


def check_villages_option(villages: Any) -> list[int]:
    """``options["villages"]``: six distinct village names, in line order."""
    if not isinstance(villages, (list, tuple)) or not all(isinstance(v, str) for v in villages):
        raise ValueError(
            f"options['villages'] must be a list of {NUM_SLOTS} village names from {list(VILLAGES)}, "
            f"got {shown(villages)}"
        )
    unknown = sorted({v for v in villages if v not in VILLAGE_OF_NAME})
    if unknown:
        raise ValueError(f"options['villages'] holds unknown names {shown(unknown)}; allowed: {list(VILLAGES)}")
    if len(villages) != NUM_SLOTS or len(set(villages)) != NUM_SLOTS:
        raise ValueError(
            f"options['villages'] must name {NUM_SLOTS} distinct villages from {list(VILLAGES)}, "
            f"got {shown(list(villages))}"
        )
    return [VILLAGE_OF_NAME[v] for v in villages]


class WakandaGame(Game):
    """A Wakanda table for two players, basic or advanced rules."""

    name = "wakanda"
    num_actions = NUM_ACTIONS
    num_players = NUM_PLAYERS
    observation_size = OBSERVATION_SIZE
    observer_class = WakandaObserver
    serializer = serialize
    renderer = render

    def __init__(self, advanced: bool = False):
        check_bool("advanced", advanced)
        self.advanced = advanced

    def config(self) -> dict[str, Any]:
        return {"advanced": self.advanced}

    def new_state(self, rng: np.random.Generator, options: dict[str, Any] | None = None) -> WakandaState:
        """A new deal. Every option is checked before anything is drawn; then both orders are
        always drawn from ``rng`` (the bag first, then the villages), so injecting one of them
        leaves the other as the seed would have dealt it."""
        options = check_options(options, OPTIONS)
        bag = check_bag_option(options["bag"]) if "bag" in options else None
        line = check_villages_option(options["villages"]) if "villages" in options else None
        dealt_bag = [ALL_PIECES[i] for i in rng.permutation(len(ALL_PIECES)).tolist()]
        dealt_kinds = rng.permutation(NUM_VILLAGE_KINDS).tolist()
        if line is None:
            line, removed = dealt_kinds[:NUM_SLOTS], dealt_kinds[NUM_SLOTS:]
        else:
            removed = [k for k in range(NUM_VILLAGE_KINDS) if k not in line]
        return WakandaState(self, line, removed, dealt_bag if bag is None else bag)
