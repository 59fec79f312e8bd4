"""Wapi rules engine (``shared/rules/wapi.md``): six silver mines, masks, totem poles.

Tiles are small ints inside: 0..4 are silver coins worth ``COIN_VALUES``,
5..10 are the masks of mines 0..5. The codes ``S0 S1 S2 S3 S5 M0..M5``
appear only at the edges (options, ``to_dict``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from envs.core.engine import (
    Game,
    GameState,
    IllegalActionError,
    check_choice,
    check_options,
    check_permutation,
    check_perspective,
)
from envs.wapi.components import (
    COIN_VALUES,
    COINS_TO_END,
    DEFAULT_COINS,
    FIRST_MASK,
    MASK_FIELDS,
    NUM_MINES,
    NUM_TILE_KINDS,
    PLAYER_COUNTS,
    SCORINGS,
    SILVER_FIELDS,
    TILE_CODES,
    TILE_OF_CODE,
    TOTEMS_PER_PLAYER,
    is_coin,
)
from envs.wapi.actions import DECLINE, NUM_ACTIONS, PLACE_TOTEM, coin_action, coin_mine, describe
from envs.wapi.observation import OBSERVATION_SIZE, encode

def validate_coins(coins: Any) -> dict[int, int]:
    """The coin distribution ``{value: count}``; missing values count 0."""
    if coins is None:
        return dict(DEFAULT_COINS)
    if not isinstance(coins, dict):
        raise ValueError(f"coins must be a dict {{value: count}} with values in {list(COIN_VALUES)}, got {coins!r}")
    unknown = [v for v in coins if v not in COIN_VALUES or isinstance(v, bool)]
    if unknown:
        raise ValueError(f"coins has unknown coin values {unknown}; allowed values: {list(COIN_VALUES)}")
    for value, count in coins.items():
        if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or count < 0:
            raise ValueError(f"coins[{value}] must be a non-negative int, got {count!r}")
    total = sum(coins.values())
    if total < COINS_TO_END:
        raise ValueError(f"coins must hold at least {COINS_TO_END} coins (one per silver field), got {total}")
    return {v: int(coins.get(v, 0)) for v in COIN_VALUES}


class WapiGame(Game):
    """A configured Wapi table: player count, scoring mode, coin distribution."""

    name = "wapi"
    num_actions = NUM_ACTIONS
    max_players = 5

    def __init__(self, num_players: int = 4, scoring: str = "full", coins: dict[int, int] | None = None):
        check_choice("num_players", num_players, PLAYER_COUNTS)
        check_choice("scoring", scoring, SCORINGS)
        self.num_players = num_players
        self.scoring = scoring
        self.coins = validate_coins(coins)
        self.tiles = [TILE_OF_CODE[f"S{v}"] for v in COIN_VALUES for _ in range(self.coins[v])]
        self.tiles += [FIRST_MASK + k for k in range(NUM_MINES) for _ in range(MASK_FIELDS)]
        self.tile_counts = [self.tiles.count(t) for t in range(NUM_TILE_KINDS)]
        self.tile_scale = [1 / c if c else 0.0 for c in self.tile_counts]  # bag counts into [0, 1]

    observation_size = OBSERVATION_SIZE

    def config(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "scoring": self.scoring, "coins": dict(self.coins)}

    def new_state(self, rng: np.random.Generator, options: dict[str, Any] | None = None) -> WapiState:
        options = check_options(options, {"bag"})
        if "bag" in options:
            codes = check_permutation("options['bag']", options["bag"], [TILE_CODES[t] for t in self.tiles])
            bag = [TILE_OF_CODE[c] for c in codes]
        else:
            bag = [self.tiles[i] for i in rng.permutation(len(self.tiles))]
        state = WapiState(self, bag)
        state.draw()
        return state

    def state_from_dict(self, data: dict[str, Any]) -> WapiState:
        from envs.wapi.serialize import state_from_dict

        return state_from_dict(self, data)


class WapiState(GameState):
    """One position: mines, totems, the bag and the tile the current player drew."""

    def __init__(self, game: WapiGame, bag: list[int]):
        self.game = game
        self.bag = bag  # tiles left, next draw first
        self.bag_counts = [bag.count(t) for t in range(NUM_TILE_KINDS)]  # public: what is left, by kind
        self.drawn: int | None = None
        self.current_player: int | None = 0
        self.silver: list[list[int]] = [[] for _ in range(NUM_MINES)]  # coin values, placement order
        self.masks = [0] * NUM_MINES
        self.totems: list[list[int]] = [[] for _ in range(NUM_MINES)]  # player per pole, placement order
        self.totems_left = [TOTEMS_PER_PLAYER] * game.num_players
        self.coins_placed = 0
        self._legal: list[int] | None = None
        self.public: list[float] | None = None  # observation.py's public vector, built on first use
        self.stale_mines: list[int] = []  # mines moved in since ``public`` was last brought up to date

    # --- turn structure ----------------------------------------------------
    def draw(self) -> None:
        """The current player draws the top tile of the bag (public chance event)."""
        self.drawn = self.bag.pop(0)
        self.bag_counts[self.drawn] -= 1
        self._legal = None

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        if self.current_player is None:
            return []
        if not is_coin(self.drawn):
            return [PLACE_TOTEM, DECLINE] if self.totems_left[self.current_player] else [DECLINE]
        free = [k for k in range(NUM_MINES) if len(self.silver[k]) < SILVER_FIELDS]
        with_totem = [k for k in free if self.totems[k]]
        return [coin_action(k) for k in with_totem or free]  # silver must go to a mine with a totem when possible

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            self.check_action(action)
            raise IllegalActionError(f"action {action} is not legal now")
        player, tile = self.current_player, self.drawn
        if is_coin(tile):
            mine = coin_mine(action)
            self.silver[mine].append(COIN_VALUES[tile])
            self.coins_placed += 1
        else:
            mine = tile - FIRST_MASK
            self.masks[mine] += 1
            if action == PLACE_TOTEM:
                self.totems[mine].append(player)
                self.totems_left[player] -= 1
        if self.coins_placed == COINS_TO_END:  # the game ends at once
            self.current_player, self.drawn, self._legal = None, None, None
        else:
            self.current_player = (player + 1) % self.game.num_players
            self.draw()
        if self.public is not None:
            self.stale_mines.append(mine)

    # --- scoring -----------------------------------------------------------
    def mine_value(self, mine: int) -> int:
        return sum(self.silver[mine])

    def exact_scores(self) -> list[Fraction | int]:
        """Scores kept exact: ints under full scoring, Fractions under shared scoring."""
        scores: list[Fraction | int] = [0] * self.game.num_players
        for mine, poles in enumerate(self.totems):
            if not poles:
                continue
            value = self.mine_value(mine)
            share = value if self.game.scoring == "full" else Fraction(value, len(poles))
            for player in poles:
                scores[player] += share
        return scores

    def scores(self) -> list[float]:
        return [float(s) for s in self.exact_scores()]

    def approximate_scores(self) -> list[float]:
        """Scores in floats without Fractions: for observations, a hot path."""
        scores = [0.0] * self.game.num_players
        full = self.game.scoring == "full"
        for mine, poles in enumerate(self.totems):
            if poles:
                share = sum(self.silver[mine]) / (1 if full else len(poles))
                for player in poles:
                    scores[player] += share
        return scores

    def winners(self) -> list[int]:
        if self.current_player is not None:
            return []
        scores = self.exact_scores()
        best = max(scores)
        return [p for p, s in enumerate(scores) if s == best]

    # --- views ---------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return encode(self, player)

    def clone(self) -> WapiState:
        other = object.__new__(WapiState)
        other.__dict__.update(self.__dict__)
        other.bag = self.bag[:]
        other.bag_counts = self.bag_counts[:]
        other.silver = [s[:] for s in self.silver]
        other.masks = self.masks[:]
        other.totems = [t[:] for t in self.totems]
        other.totems_left = self.totems_left[:]
        if self.public is not None:
            other.public = self.public[:]
            other.stale_mines = self.stale_mines[:]
        return other

    def determinize(self, player: int, rng: np.random.Generator) -> WapiState:
        """Only the bag's order is hidden (from everyone): shuffle it. The bag is sorted
        first, so the result depends only on public facts and ``rng`` (reproducible search)."""
        other = self.clone()
        pool = sorted(other.bag)
        other.bag = [pool[i] for i in rng.permutation(len(pool))]
        return other

    def to_dict(self) -> dict[str, Any]:
        from envs.wapi.serialize import state_to_dict

        return state_to_dict(self)

    def describe_action(self, action: int) -> str:
        return describe(action, self.drawn)

    def render_text(self, perspective: int | None = None) -> str:
        from envs.wapi.render import render_text

        check_perspective(self.game.num_players, perspective)  # everything shown is public
        return render_text(self)

    def render_image(self) -> np.ndarray:
        from envs.wapi.render import render_image

        return render_image(self)
