"""The Wapi game: its configuration, and the wiring of its layers (rules, observer,
serializer, renderers) for the rest of the project."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.engine import Game, check_choice, check_options, check_permutation, is_int, shown
from envs.wapi import render, serialize
from envs.wapi.actions import NUM_ACTIONS
from envs.wapi.components import (
    COIN_VALUES,
    COINS_TO_END,
    DEFAULT_COINS,
    FIRST_MASK,
    MASK_FIELDS,
    MAX_COINS,
    NUM_MINES,
    NUM_TILE_KINDS,
    PLAYER_COUNTS,
    SCORINGS,
    TILE_CODES,
    TILE_OF_CODE,
)
from envs.wapi.observation import OBSERVATION_SIZE, WapiObserver
from envs.wapi.rules import WapiState


def validate_coins(coins: Any) -> dict[int, int]:
    """The coin distribution ``{value: count}``; missing values count 0."""
    if coins is None:
        return dict(DEFAULT_COINS)
    if not isinstance(coins, dict):
        raise ValueError(
            f"coins must be a dict {{value: count}} with values in {list(COIN_VALUES)}, got {shown(coins)}"
        )
    unknown = [v for v in coins if not is_int(v) or v not in COIN_VALUES]
    if unknown:
        raise ValueError(f"coins has unknown coin values {shown(unknown)}; allowed values: {list(COIN_VALUES)}")
    for value, count in coins.items():
        if not is_int(count) or not 0 <= count <= MAX_COINS:
            raise ValueError(f"coins[{value}] must be a non-negative int (at most {MAX_COINS}), got {shown(count)}")
    total = sum(coins.values())
    if not COINS_TO_END <= total <= MAX_COINS:
        raise ValueError(
            f"coins must hold at least {COINS_TO_END} coins (one per silver field) and at most {MAX_COINS}, got {total}"
        )
    return {v: coins.get(v, 0) for v in COIN_VALUES}


class WapiGame(Game):
    """A configured Wapi table: player count, scoring mode, coin distribution."""

    name = "wapi"
    num_actions = NUM_ACTIONS
    observation_size = OBSERVATION_SIZE
    observer_class = WapiObserver
    serializer = serialize
    renderer = render

    def __init__(self, num_players: int = 4, scoring: str = "full", coins: dict[int, int] | None = None):
        check_choice("num_players", num_players, PLAYER_COUNTS)
        check_choice("scoring", scoring, SCORINGS)
        self.num_players = num_players
        self.scoring = scoring
        self.coins = validate_coins(coins)
        #: The full set of tiles, in a fixed order (coins by value, then masks by mine).
        self.tiles = [TILE_OF_CODE[f"S{v}"] for v in COIN_VALUES for _ in range(self.coins[v])]
        self.tiles += [FIRST_MASK + k for k in range(NUM_MINES) for _ in range(MASK_FIELDS)]
        self.tile_counts = [self.tiles.count(t) for t in range(NUM_TILE_KINDS)]
        self.tile_scale = [1 / c if c else 0.0 for c in self.tile_counts]  # bag counts into [0, 1]
        self._tile_array = np.array(self.tiles, dtype=np.int64)

    def config(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "scoring": self.scoring, "coins": dict(self.coins)}

    def new_state(self, rng: np.random.Generator, options: dict[str, Any] | None = None) -> WapiState:
        """A new game: the bag shuffled from ``rng``, or the draw order ``options["bag"]`` (tile codes).
        The options are checked before anything is drawn from ``rng``."""
        options = check_options(options, {"bag"})
        if "bag" in options:
            codes = check_permutation("options['bag']", options["bag"], [TILE_CODES[t] for t in self.tiles])
            deal = [TILE_OF_CODE[code] for code in codes]
        else:
            deal = self.draw_order(rng).tolist()
        return WapiState(self, deal)

    def draw_order(self, rng: np.random.Generator) -> np.ndarray:
        """A new game's bag, in draw order: the tiles shuffled once from ``rng`` (the one deal rule,
        shared by :meth:`new_state` and the batch engine, ``envs/wapi/batch.py``)."""
        return self._tile_array[rng.permutation(len(self.tiles))]
