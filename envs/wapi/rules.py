"""Wapi rules engine (``docs/rules/wapi.md``): six silver mines, masks, totem poles.

Tiles are small ints inside: 0..4 are silver coins worth ``COIN_VALUES``,
5..10 are the masks of mines 0..5. The codes ``S0 S1 S2 S3 S5 M0..M5``
appear only at the edges (options, ``state_dict``).

The state is plain game data. It knows nothing of observations, rendering
or serialisation: ``game.py`` wires those layers, which read its fields.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cache

import numpy as np

from envs.core.engine import Game, GameState
from envs.wapi.actions import DECLINE, NUM_ACTIONS, PLACE_TOTEM, coin_action, coin_mine, describe
from envs.wapi.components import (
    COIN_VALUES,
    COINS_TO_END,
    MASK_FIELDS,
    NUM_MINES,
    NUM_TILE_KINDS,
    SILVER_FIELDS,
    TOTEMS_PER_PLAYER,
    describe_tile,
    is_coin,
    mask_mine,
)

#: The legal actions when a mask is drawn, with and without a totem left.
TOTEM_CHOICE = (PLACE_TOTEM, DECLINE)
ONLY_DECLINE = (DECLINE,)
#: The coin actions into each set of mines (ascending), built once: the legal actions of a coin draw.
COIN_ACTIONS = {
    mines: tuple(coin_action(k) for k in mines)
    for size in range(1, NUM_MINES + 1)
    for mines in itertools.combinations(range(NUM_MINES), size)
}
#: Shared scores in these units are whole numbers: every share has a denominator in 1..MASK_FIELDS.
SHARE_UNIT = math.lcm(*range(1, MASK_FIELDS + 1))


@cache
def _mask_of(legal: tuple[int, ...]) -> np.ndarray:
    """The int8 mask of a legal-action tuple; there are few distinct ones, so each is built once."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(legal)] = 1
    return mask


class WapiState(GameState):
    """One position: mines, totems, the bag and the tile the current player drew.

    Fields (all public game data):
        bag: the tiles left, next draw first (its order is hidden from every player);
        bag_counts: how many tiles of each kind are left (public: count the drawn tiles);
        drawn: the tile the player to act drew, or None once the game is over;
        current_player: the player to act, or None once the game is over;
        silver: per mine, the values of its coins in placement order;
        masks: per mine, how many masks lie on it;
        totems: per mine, the owner of each pole in placement order;
        totems_left: per player, the poles not yet placed;
        coins_placed: silver fields filled, all mines together.
    """

    def __init__(self, game: Game, deal: list[int]):
        """The opening position of ``deal``, the bag's draw order: ``player_0`` has drawn its first tile."""
        self.game = game
        self.bag = list(deal)
        self.bag_counts = [self.bag.count(t) for t in range(NUM_TILE_KINDS)]
        self.drawn: int | None = None
        self.current_player: int | None = 0
        self.silver: list[list[int]] = [[] for _ in range(NUM_MINES)]
        self.masks = [0] * NUM_MINES
        self.totems: list[list[int]] = [[] for _ in range(NUM_MINES)]
        self.totems_left = [TOTEMS_PER_PLAYER] * game.num_players
        self.coins_placed = 0
        self._draw()

    # --- turn structure ----------------------------------------------------
    def _draw(self) -> None:
        """The current player draws the top tile of the bag (a public chance event)."""
        self.drawn = self.bag.pop(0)
        self.bag_counts[self.drawn] -= 1
        self._legal = None

    def _compute_legal(self) -> tuple[int, ...]:
        if self.current_player is None:
            return ()
        if not is_coin(self.drawn):
            return TOTEM_CHOICE if self.totems_left[self.current_player] else ONLY_DECLINE
        free = [k for k, coins in enumerate(self.silver) if len(coins) < SILVER_FIELDS]
        with_totem = [k for k in free if self.totems[k]]
        return COIN_ACTIONS[tuple(with_totem or free)]  # silver must go to a mine with a totem if it can

    def legal_mask(self) -> np.ndarray:
        return _mask_of(self.legal_tuple()).copy()  # a copy of a built mask: 5x cheaper than building one

    def _play(self, action: int) -> None:
        player, tile = self.current_player, self.drawn
        if is_coin(tile):
            self.silver[coin_mine(action)].append(COIN_VALUES[tile])
            self.coins_placed += 1
        else:
            mine = mask_mine(tile)
            self.masks[mine] += 1
            if action == PLACE_TOTEM:
                self.totems[mine].append(player)
                self.totems_left[player] -= 1
        if self.coins_placed == COINS_TO_END:  # the game ends at once
            self.current_player, self.drawn, self._legal = None, None, None
        else:
            self.current_player = (player + 1) % self.game.num_players
            self._draw()

    # --- scoring -----------------------------------------------------------
    def mine_value(self, mine: int) -> int:
        return sum(self.silver[mine])

    def score_units(self) -> tuple[list[int], int]:
        """Each player's score as an exact integer count of ``unit``-ths of a point, and the unit.

        Full scoring: whole points (unit 1). Shared scoring: a mine holds at most one pole per
        mask, so every share has a denominator in 1..MASK_FIELDS and counts whole twelfths."""
        full = self.game.scoring == "full"
        unit = 1 if full else SHARE_UNIT
        units = [0] * self.game.num_players
        for mine, poles in enumerate(self.totems):
            if poles:
                share = sum(self.silver[mine]) * unit // (1 if full else len(poles))  # exact: len(poles) divides unit
                for player in poles:
                    units[player] += share
        return units, unit

    def exact_scores(self) -> list[Fraction | int]:
        """Scores kept exact: ints under full scoring, Fractions under shared scoring."""
        units, unit = self.score_units()
        return units if unit == 1 else [Fraction(u, unit) for u in units]

    def scores(self) -> list[float]:
        units, unit = self.score_units()
        return [u / unit for u in units]  # correctly rounded, as float(Fraction(u, unit))

    def winners(self) -> list[int]:
        if self.current_player is not None:
            return []
        units, _ = self.score_units()
        best = max(units)
        return [p for p, u in enumerate(units) if u == best]

    # --- copies ------------------------------------------------------------
    def clone(self) -> WapiState:
        other = object.__new__(WapiState)
        other.game = self.game
        other.bag = self.bag[:]
        other.bag_counts = self.bag_counts[:]
        other.drawn = self.drawn
        other.current_player = self.current_player
        other.silver = [coins[:] for coins in self.silver]
        other.masks = self.masks[:]
        other.totems = [poles[:] for poles in self.totems]
        other.totems_left = self.totems_left[:]
        other.coins_placed = self.coins_placed
        other._legal = self._legal  # a tuple: shared safely
        return other

    def determinize(self, player: int, rng: np.random.Generator) -> WapiState:
        """Only the bag's order is hidden (from everyone): shuffle it. The bag is sorted
        first, so the result depends only on public facts and ``rng`` (reproducible search)."""
        other = self.clone()
        pool = sorted(other.bag)
        other.bag = [pool[i] for i in rng.permutation(len(pool)).tolist()]  # Python ints index faster
        return other

    def describe_action(self, action: int) -> str:
        return describe(action, self.drawn)

    # --- chance: the bag (envs/core/chance.py) -------------------------------
    def hidden_orders(self) -> list[list[int]]:
        """The one hidden order: the bag, from which the next player draws after each move but the last."""
        return [self.bag[:]]

    def set_hidden_orders(self, orders: list[list[int]]) -> None:
        (self.bag,) = (list(order) for order in orders)  # the same tiles: bag_counts stay right

    def drawer(self, order: int) -> int | None:
        return (self.current_player + 1) % self.game.num_players

    def describe_draw(self, order: int, items: tuple[int, ...]) -> str:
        return "drew " + ", ".join(describe_tile(tile) for tile in items)
