"""Many Wapi games at once: the rules of ``rules.py`` over numpy arrays, one column a position.

Why: a search's rollouts and the warm start's move measurements play hundreds of
thousands of games to the end. One Python turn with the heuristic costs about
6 µs; one numpy turn of a thousand games costs about what a hundred of those do
(Wapi's search gets 6.4 times the simulations a CPU second:
``benchmarks/results/batch_rollouts.md``). So the batch is for playing many
positions out, not a second engine to play on: it starts from
:class:`~envs.wapi.rules.WapiState` positions and holds exactly what they hold
(``tests/test_wapi_batch.py`` plays seeded games both ways and checks that every
position, legal mask and score agrees).

The positions advance together, one turn a step (:meth:`WapiBatch.apply`); one whose
game is over stays as it is. Each has its own bag, so each can be a different
determinization of one position.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from envs.core.engine import IllegalActionError, shown
from envs.wapi.actions import DECLINE, NUM_ACTIONS, PLACE_TOTEM
from envs.wapi.components import (
    COIN_VALUES,
    COINS_TO_END,
    FIRST_MASK,
    NUM_MINES,
    NUM_TILE_KINDS,
    SILVER_FIELDS,
)
from envs.wapi.game import WapiGame
from envs.wapi.rules import SHARE_UNIT, WapiState

#: A coin tile's value, by tile (masks: 0); a row's ``drawn`` of -1 (game over) reads the last entry.
TILE_VALUE = np.array(COIN_VALUES + (0,) * (NUM_TILE_KINDS - FIRST_MASK) + (0,))
NO_TILE = -1


class WapiBatch:
    """``len(batch)`` Wapi positions of one configuration, at the same turn, as arrays.

    The rows are positions in which the same player is to act (determinizations of one
    position, say). Every row's turn passes to the same next player, so the player to act
    is one number for the whole batch and a strategy reads one seat's arrays.

    Layout: a position is a *column*; the row index of every array is the mine, the seat or
    the tile kind, so that a sum over the six mines adds six contiguous vectors (numpy
    reduces short inner axes slowly). Counts are float64 (exact small integers): numpy's
    arithmetic that mixes ints and floats is several times slower than on floats alone.

    Fields (the facts of :class:`~envs.wapi.rules.WapiState`; N positions):
        player: the player to act in every position still going (-1 once all are over);
        over: ``(N,)`` whether the position's game is over;
        bag: ``(L, N)`` int8, the tiles each bag held when the batch was made, in draw order
            (shorter bags padded with -1); taken: ``(N,)`` int, how many of them have been drawn since;
        bag_counts: ``(11, N)`` the tiles left per kind; drawn: ``(N,)`` int, the tile the player
            to act holds (-1 once over);
        coins, silver, masks, pole_count: ``(6, N)`` per mine: coins, silver total, masks, poles;
        poles: ``(players, 6, N)`` each player's poles per mine; totems_left: ``(players, N)``;
        coins_placed: ``(N,)``.
    """

    def __init__(self, game: WapiGame, size: int, bag_length: int):
        """An empty batch of ``size`` positions; :meth:`from_states` fills one."""
        players = game.num_players
        self.game = game
        self.player = NO_TILE
        self.taken = np.zeros(size, dtype=np.int64)
        self.over = np.ones(size, dtype=bool)
        self.bag = np.full((bag_length, size), NO_TILE, dtype=np.int8)
        self.drawn = np.full(size, NO_TILE, dtype=np.int64)
        self.bag_counts = np.zeros((NUM_TILE_KINDS, size))
        self.coins = np.zeros((NUM_MINES, size))
        self.silver = np.zeros((NUM_MINES, size))
        self.masks = np.zeros((NUM_MINES, size))
        self.pole_count = np.zeros((NUM_MINES, size))
        self.poles = np.zeros((players, NUM_MINES, size))
        self.totems_left = np.zeros((players, size))
        self.coins_placed = np.zeros(size)
        self._coin_mines: np.ndarray | None = None

    @classmethod
    def from_states(cls, states: Sequence[WapiState]) -> WapiBatch:
        """The positions ``states`` (one configuration, the same player to act), a column each, read only."""
        if not states:
            raise ValueError("states must hold at least one WapiState")
        game = states[0].game
        if any(
            not isinstance(s, WapiState) or (s.game is not game and s.game.config() != game.config()) for s in states
        ):
            raise ValueError(f"states must all be WapiStates of one configuration, {game.config()}")
        to_act = {s.current_player for s in states} - {None}
        if len(to_act) > 1:
            raise ValueError(f"states must have the same player to act, got players {sorted(to_act)}")
        batch = cls(game, len(states), max(len(s.bag) for s in states))
        batch.player = to_act.pop() if to_act else NO_TILE
        for column, state in enumerate(states):
            batch.bag[: len(state.bag), column] = state.bag
            batch.bag_counts[:, column] = state.bag_counts
            batch.coins[:, column] = [len(coins) for coins in state.silver]
            batch.silver[:, column] = [sum(coins) for coins in state.silver]
            batch.masks[:, column] = state.masks
            for mine, owners in enumerate(state.totems):
                for owner in owners:
                    batch.poles[owner, mine, column] += 1
            batch.totems_left[:, column] = state.totems_left
            batch.coins_placed[column] = state.coins_placed
            if state.current_player is not None:
                batch.drawn[column], batch.over[column] = state.drawn, False
        batch.pole_count = batch.poles.sum(axis=0)
        return batch

    def repeat(self, times: int) -> WapiBatch:
        """A new batch with each position ``times`` times in a row (column c's copies at c*times ...)."""
        other = object.__new__(WapiBatch)
        for name, value in vars(self).items():
            setattr(other, name, np.repeat(value, times, axis=-1) if isinstance(value, np.ndarray) else value)
        return other

    def __len__(self) -> int:
        return len(self.over)

    # --- turn structure ------------------------------------------------------
    def holds_coin(self) -> np.ndarray:
        """``(N,)``: the player to act holds a silver coin."""
        return (self.drawn >= 0) & (self.drawn < FIRST_MASK)

    def coin_mines(self) -> np.ndarray:
        """``(6, N)``: the mines a drawn coin may go to (a mine with a pole and room, if there is one)."""
        if self._coin_mines is None:
            free = self.coins < SILVER_FIELDS
            with_pole = free & (self.pole_count > 0)
            self._coin_mines = with_pole | (free & ~with_pole.any(axis=0))
        return self._coin_mines

    def legal_mask(self) -> np.ndarray:
        """``(8, N)`` bool: each position's legal actions (none once its game is over)."""
        mask = np.zeros((NUM_ACTIONS, len(self)), dtype=bool)
        coin = self.holds_coin()
        mask[:NUM_MINES] = self.coin_mines() & coin
        mask[DECLINE] = ~self.over & ~coin
        if self.player >= 0:
            mask[PLACE_TOTEM] = mask[DECLINE] & (self.totems_left[self.player] > 0)
        return mask

    def apply(self, actions: np.ndarray) -> None:
        """Play ``actions[c]`` in every position c whose game is not over (the others' entries are
        ignored). An illegal action raises IllegalActionError naming its positions; none changes."""
        actions = np.asarray(actions)
        if actions.shape != (len(self),) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be an int array of shape ({len(self)},), got {shown(actions)}")
        going = np.nonzero(~self.over)[0]
        chosen = actions[going]
        ok = (chosen >= 0) & (chosen < NUM_ACTIONS)
        ok[ok] = self.legal_mask()[chosen[ok], going[ok]]
        if not ok.all():
            bad = going[~ok]
            moves = shown(actions[bad].tolist())
            raise IllegalActionError(f"illegal actions in positions {shown(bad.tolist())}: {moves}")
        self._place_coins(going, chosen)
        self._place_masks(going, chosen)
        self._next_turn(going)

    def _place_coins(self, going: np.ndarray, chosen: np.ndarray) -> None:
        coin = chosen < NUM_MINES
        columns, mines = going[coin], chosen[coin]
        self.coins[mines, columns] += 1
        self.silver[mines, columns] += TILE_VALUE[self.drawn[columns]]
        self.coins_placed[columns] += 1

    def _place_masks(self, going: np.ndarray, chosen: np.ndarray) -> None:
        masked = going[chosen >= NUM_MINES]
        self.masks[self.drawn[masked] - FIRST_MASK, masked] += 1
        columns = going[chosen == PLACE_TOTEM]
        mines = self.drawn[columns] - FIRST_MASK
        self.poles[self.player, mines, columns] += 1
        self.pole_count[mines, columns] += 1
        self.totems_left[self.player, columns] -= 1

    def _next_turn(self, going: np.ndarray) -> None:
        """A game ends with the 30th coin; in the others the next player draws the top tile."""
        ended = self.coins_placed[going] == COINS_TO_END
        self.over[going[ended]] = True
        self.drawn[going[ended]] = NO_TILE
        going = going[~ended]
        self.player = (self.player + 1) % self.game.num_players if len(going) else NO_TILE
        tiles = self.bag[self.taken[going], going]
        self.drawn[going] = tiles
        self.taken[going] += 1
        self.bag_counts[tiles, going] -= 1
        self._coin_mines = None

    def play_out(self, policy: Callable[[WapiBatch], np.ndarray]) -> None:
        """Play every position to its end, ``policy(batch)`` choosing every move of each turn."""
        while not self.over.all():
            self.apply(policy(self))

    # --- scoring -------------------------------------------------------------
    def score_units(self) -> tuple[np.ndarray, int]:
        """``(players, N)`` int scores in whole ``unit``-ths of a point, as ``WapiState.score_units``."""
        if self.game.scoring == "full":
            per_pole, unit = self.silver, 1
        else:  # exact: a mine's pole count divides the unit
            per_pole, unit = self.silver * SHARE_UNIT // np.maximum(self.pole_count, 1), SHARE_UNIT
        return (self.poles * per_pole).sum(axis=1).astype(np.int64), unit

    def scores(self) -> np.ndarray:
        """``(players, N)`` float scores (exact twelfths under shared scoring, correctly rounded)."""
        units, unit = self.score_units()
        return units / unit

    def winners(self) -> np.ndarray:
        """``(players, N)`` bool: the players with the top score of each finished game (none while playing)."""
        units, _ = self.score_units()
        return (units == units.max(axis=0)) & self.over
