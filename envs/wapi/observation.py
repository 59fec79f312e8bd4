"""Wapi observations: everything public, seats relative to the observer.

Layout (float32, every entry scaled into [0, 1]; seat slots are relative:
slot 0 is the observer, slot 1 the next player clockwise, ...; slots past
the player count stay 0):

| offset | size | content |
|---|---|---|
| 0   | 48 | per mine k at 8k: coins placed / 5, silver total / 25, masks placed / 4, poles of seat slots 0..4 / 3 |
| 48  | 11 | the drawn tile, one-hot: S0 S1 S2 S3 S5 M0 .. M5 (all 0 once the game is over) |
| 59  | 5  | totems left per seat slot / 3 |
| 64  | 11 | remaining bag contents per tile code (same order), / that code's count in the full set |
| 75  | 1  | coins placed in all mines / 30 |
| 76  | 1  | scoring mode: 0 full, 1 shared |
| 77  | 5  | current score per seat slot / 75 (the most three poles can score) |
| 82  | 5  | seat slot is in the game (1) or not (0) |
| 87  | 5  | one-hot: seat slot of the player to act (all 0 once over) |

Total: 92 entries, for every player count.

The exact offsets are the constants below; ``tests/test_wapi_env.py``
checks this table against them.

The observer works on one vector of *absolute* seats (player 0 in slot 0,
the "public vector"), the same for every player since everything is
public; a player's observation is a rotation of it, one gather. How it
stays incremental is in :class:`WapiObserver`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.engine import Game, GameState, Observer, is_int, shown
from envs.wapi.actions import PLACE_TOTEM, coin_mine, is_coin_action
from envs.wapi.components import (
    COINS_TO_END,
    MASK_FIELDS,
    MAX_MINE_VALUE,
    MAX_SCORE,
    NUM_MINES,
    NUM_TILE_KINDS,
    SILVER_FIELDS,
    TOTEMS_PER_PLAYER,
    mask_mine,
)

if TYPE_CHECKING:
    from envs.wapi.rules import WapiState

MAX_PLAYERS = 5
#: Offsets inside a mine's block.
MINE_COINS, MINE_SILVER, MINE_MASKS, MINE_POLES = 0, 1, 2, 3
MINE_BLOCK = MINE_POLES + MAX_PLAYERS

MINES = 0
DRAWN = MINES + NUM_MINES * MINE_BLOCK
TOTEMS_LEFT = DRAWN + NUM_TILE_KINDS
BAG = TOTEMS_LEFT + MAX_PLAYERS
COINS_PLACED = BAG + NUM_TILE_KINDS
SCORING = COINS_PLACED + 1
SCORES = SCORING + 1
PRESENT = SCORES + MAX_PLAYERS
TO_ACT = PRESENT + MAX_PLAYERS
OBSERVATION_SIZE = TO_ACT + MAX_PLAYERS

SEAT_BLOCKS = [MINES + k * MINE_BLOCK + MINE_POLES for k in range(NUM_MINES)] + [TOTEMS_LEFT, SCORES, PRESENT, TO_ACT]


def _rotation(num_players: int, observer: int) -> np.ndarray:
    """Indices that turn the public vector (absolute seats) into ``observer``'s relative view."""
    index = np.arange(OBSERVATION_SIZE)
    for block in SEAT_BLOCKS:
        for slot in range(num_players):
            index[block + slot] = block + (observer + slot) % num_players
    return index


ROTATIONS = {n: [_rotation(n, o) for o in range(n)] for n in range(2, MAX_PLAYERS + 1)}


class WapiObserver(Observer):
    """Wapi's observer: the public vector of the followed state, brought up to date lazily.

    What it caches about the state it follows:

    - ``_public``: the public vector (float32, absolute seats) as of the last
      :meth:`observe`, or None until something is observed: a game nobody
      observes costs no encoding at all;
    - ``_moves``: for each move since then, the mine it changed, whether it
      placed a pole, and the tile drawn after it (None once the game is over);
      nothing is noted before a first look;
    - ``_holding``: the tile the player to act holds, so that :meth:`applied`
      knows which mine a totem decision was about (after the move the state
      only shows the next tile).

    :meth:`applied` only notes the move (a coin action names its mine; a totem
    decision is about the mine of the mask held). :meth:`observe` then
    rewrites, for each move noted, its mine's coins, silver and masks (and its
    poles, when it placed one) and the bag entry of the tile drawn after it;
    then what every move changes (the drawn tile, the player to act, the coins
    placed); the scores when a mine moved into holds poles, and the totems left
    when a pole was placed. Last it gathers the player's rotation. Entries are
    written one by one: numpy converts a Python list into a slice slowly. A
    state it does not follow is encoded from scratch.
    """

    def __init__(self, game: Game):
        super().__init__(game)
        self._state: GameState | None = None
        self._public: np.ndarray | None = None
        self._moves: list[tuple[int, bool, int | None]] = []
        self._holding: int | None = None

    def follow(self, state: WapiState) -> None:
        self._state, self._public, self._moves, self._holding = state, None, [], state.drawn

    def applied(self, state: WapiState, action: int) -> None:
        if state is not self._state:
            return
        if self._public is not None:  # else there is nothing to bring up to date yet
            if is_coin_action(action):
                self._moves.append((coin_mine(action), False, state.drawn))
            else:
                self._moves.append((mask_mine(self._holding), action == PLACE_TOTEM, state.drawn))
        self._holding = state.drawn

    def observe(self, state: WapiState, player: int) -> np.ndarray:
        rotations = ROTATIONS[state.game.num_players]
        if not (is_int(player) and 0 <= player < len(rotations)):
            raise ValueError(f"player must be a seat in 0..{len(rotations) - 1}, got {shown(player)}")
        if state is not self._state:
            return public_vector(state)[rotations[player]]
        if self._public is None:
            self._public = public_vector(state)
        elif self._moves:
            self._bring_up_to_date(state)
        return self._public[rotations[player]]

    def _bring_up_to_date(self, state: WapiState) -> None:
        public, scale = self._public, state.game.tile_scale
        scores_changed = poles_placed = False
        for mine, pole, tile in self._moves:
            write_mine(public, state, mine, with_poles=pole)
            if tile is not None:
                public[BAG + tile] = state.bag_counts[tile] * scale[tile]
            scores_changed = scores_changed or bool(state.totems[mine])
            poles_placed = poles_placed or pole
        self._moves.clear()
        write_turn(public, state)
        if scores_changed:
            write_scores(public, state)
        if poles_placed:
            write_totems_left(public, state)


def public_vector(state: WapiState) -> np.ndarray:
    """The public vector of ``state`` from scratch (absolute seats: player 0 in slot 0)."""
    game, public = state.game, np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    public[SCORING] = 1.0 if game.scoring == "shared" else 0.0
    public[PRESENT : PRESENT + game.num_players] = 1.0
    for mine in range(NUM_MINES):
        write_mine(public, state, mine, with_poles=True)
    for tile, (left, scale) in enumerate(zip(state.bag_counts, game.tile_scale)):
        public[BAG + tile] = left * scale
    write_turn(public, state)
    write_scores(public, state)
    write_totems_left(public, state)
    return public


def write_mine(public: np.ndarray, state: WapiState, mine: int, with_poles: bool) -> None:
    """Mine ``mine``'s block: coins, silver total, masks, and (``with_poles``) the poles per seat."""
    silver, start = state.silver[mine], MINES + mine * MINE_BLOCK
    public[start + MINE_COINS] = len(silver) / SILVER_FIELDS
    public[start + MINE_SILVER] = sum(silver) / MAX_MINE_VALUE
    public[start + MINE_MASKS] = state.masks[mine] / MASK_FIELDS
    if with_poles:
        poles = state.totems[mine]
        for player in range(state.game.num_players):
            public[start + MINE_POLES + player] = poles.count(player) / TOTEMS_PER_PLAYER


def write_turn(public: np.ndarray, state: WapiState) -> None:
    """What every move changes outside the mines and the bag: the drawn tile, the player to act, the coins placed."""
    public[DRAWN : DRAWN + NUM_TILE_KINDS] = 0.0
    public[TO_ACT : TO_ACT + MAX_PLAYERS] = 0.0
    if state.current_player is not None:
        public[DRAWN + state.drawn] = 1.0
        public[TO_ACT + state.current_player] = 1.0
    public[COINS_PLACED] = state.coins_placed / COINS_TO_END


def write_scores(public: np.ndarray, state: WapiState) -> None:
    units, unit = state.score_units()
    for player, score in enumerate(units):
        public[SCORES + player] = score / unit / MAX_SCORE


def write_totems_left(public: np.ndarray, state: WapiState) -> None:
    for player, left in enumerate(state.totems_left):
        public[TOTEMS_LEFT + player] = left / TOTEMS_PER_PLAYER
