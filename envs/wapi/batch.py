"""Many Wapi games at once: the rules of ``rules.py`` over numpy arrays, one column a game.

Why: search rollouts, training and studies play millions of games, and one numpy turn
of a thousand games costs about what a hundred Python turns do. :class:`WapiBatch` is
Wapi's engine of the batch protocol (:mod:`envs.core.batch`, whose contract it keeps:
game ``i`` of a batch seeded ``s`` is the per-game engine's game with seed ``s + i``,
each game has its own player to act, finished games are dealt again in place). It is
also the search's rollout engine (:meth:`WapiBatch.from_states` of determinizations,
:meth:`WapiBatch.repeat`, the heuristic's ``batch_policy``). ``tests/test_wapi_batch.py``
plays seeded games both ways and checks that every position, mask, observation and
score agrees.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.core.batch import NO_PLAYER, BatchGames
from envs.core.batch_args import check_where
from envs.core.engine import IllegalActionError, shown
from envs.core.seeding import permutations
from envs.wapi import batch_kernels as kernels
from envs.wapi.actions import NUM_ACTIONS
from envs.wapi.components import (
    COIN_VALUES,
    FIRST_MASK,
    MASK_FIELDS,
    NUM_MINES,
    NUM_TILE_KINDS,
    SILVER_FIELDS,
    TILE_CODES,
)
from envs.wapi.game import WapiGame
from envs.wapi.observation import OBSERVATION_SIZE
from envs.wapi.rules import SHARE_UNIT, WapiState

#: A coin tile's value, by tile (masks: 0); a game's ``drawn`` of -1 (game over) reads the last entry.
TILE_VALUE = np.array(COIN_VALUES + (0,) * (NUM_TILE_KINDS - FIRST_MASK) + (0,))
NO_TILE = -1


class WapiBatch(BatchGames):
    """``len(batch)`` Wapi games of one configuration as arrays (see :mod:`envs.core.batch`).

    Layout: a game is a *column*; the row index of every array is the mine, the seat or the
    tile kind, so that a sum over the six mines adds six contiguous vectors (numpy reduces
    short inner axes slowly; the heuristic's ``batch_policy`` reads them so). Counts are float64
    (exact small integers): numpy's arithmetic that mixes ints and floats is several times slower
    than on floats alone. The moves, masks, scores, observations and deals are compiled loops over
    the games (``envs/wapi/batch_kernels.py``) on these arrays.

    Fields (the facts of :class:`~envs.wapi.rules.WapiState`; N games):
        player: ``(N,)`` the player to act in each game (-1 once over);
        bag: ``(N, L)`` int8, the tiles each bag held when dealt (or made), in draw order (a game a
            *row*: a deal writes it whole; shorter bags padded with -1); taken: ``(N,)`` int, how many
            of them have been drawn since;
        bag_counts: ``(11, N)`` the tiles left per kind; drawn: ``(N,)`` int, the tile the player
            to act holds (-1 once over);
        coins, silver, masks, pole_count: ``(6, N)`` per mine: coins, silver total, masks, poles;
        poles: ``(players, 6, N)`` each player's poles per mine; totems_left: ``(players, N)``;
        coins_placed: ``(N,)``; columns: ``arange(N)``, the games' indices;
        coin_values ``(6, 5, N)`` and pole_owners ``(6, 4, N)`` int8: each mine's coins and poles' owners in
        placement order (for :meth:`state`; -1 where empty), or None where nobody will ask (a search's rollouts).
    """

    game: WapiGame

    def __init__(self, game: WapiGame, num_games: int, seed: int):
        """``num_games`` new games, game ``i`` dealt from seed ``seed + i``."""
        if not isinstance(game, WapiGame):
            raise ValueError(f"game must be a WapiGame, got {shown(game)}")
        super().__init__(game, num_games, seed)
        self._allocate(len(game.tiles) - 1, placements=True)
        self._deal(np.arange(num_games))

    def _allocate(self, bag_length: int, placements: bool) -> None:
        size, players = self.num_games, self.game.num_players
        self.player = np.full(size, NO_PLAYER, dtype=np.int64)
        self.taken = np.zeros(size, dtype=np.int64)
        self.bag = np.full((size, bag_length), NO_TILE, dtype=np.int8)
        self.drawn = np.full(size, NO_TILE, dtype=np.int64)
        self.bag_counts = np.zeros((NUM_TILE_KINDS, size))
        self.coins = np.zeros((NUM_MINES, size))
        self.silver = np.zeros((NUM_MINES, size))
        self.masks = np.zeros((NUM_MINES, size))
        self.pole_count = np.zeros((NUM_MINES, size))
        self.poles = np.zeros((players, NUM_MINES, size))
        self.totems_left = np.zeros((players, size))
        self.coins_placed = np.zeros(size)
        self.coin_values = np.full((NUM_MINES, SILVER_FIELDS, size), -1, dtype=np.int8) if placements else None
        self.pole_owners = np.full((NUM_MINES, MASK_FIELDS, size), -1, dtype=np.int8) if placements else None
        self.columns = np.arange(size)
        self._tiles = np.array(self.game.tiles, dtype=np.int8)
        self._tile_counts = np.array(self.game.tile_counts, dtype=float)
        self._tile_scale = np.array(self.game.tile_scale, dtype=float)
        self._mask: np.ndarray | None = None

    def _state(self) -> tuple[np.ndarray, ...]:
        """The arrays the kernels read and write, in their order (``envs/wapi/batch_kernels.py``)."""
        return (
            self.player,
            self.taken,
            self.bag,
            self.drawn,
            self.bag_counts,
            self.coins,
            self.silver,
            self.masks,
            self.pole_count,
            self.poles,
            self.totems_left,
            self.coins_placed,
        )

    def _placements(self) -> tuple[np.ndarray, np.ndarray]:
        """``coin_values`` and ``pole_owners``, or empty arrays where this batch records none (the kernels
        read their last axis' length)."""
        if self.coin_values is None:
            return np.empty((NUM_MINES, SILVER_FIELDS, 0), np.int8), np.empty((NUM_MINES, MASK_FIELDS, 0), np.int8)
        return self.coin_values, self.pole_owners

    def _deals(self, seeds: np.ndarray) -> tuple[np.ndarray]:
        """``(len(seeds), tiles)`` int8: the bag of each seed's deal in draw order, ``WapiGame.draw_order`` of
        its generator ``np_random(seed)`` (the tiles shuffled once), for all the seeds at once."""
        return (self._tiles[permutations(seeds, [len(self._tiles)])[0]],)

    def _start(self, where: np.ndarray, orders: np.ndarray) -> None:
        """New games in the columns ``where`` with these bags (``(len(where), tiles)``, in draw order)."""
        if self.bag.shape[1] < orders.shape[1] - 1:  # a batch made from_states of shorter bags: widened
            wider = np.full((self.num_games, orders.shape[1] - 1), NO_TILE, dtype=np.int8)
            wider[:, : self.bag.shape[1]] = self.bag
            self.bag = wider
        rows, orders = where.astype(np.int64, copy=False), orders.astype(np.int8, copy=False)
        kernels.start(rows, orders, self._tile_counts, self._state(), self._placements())
        self._mask = None

    @classmethod
    def from_states(cls, states: Sequence[WapiState], placements: bool = True) -> WapiBatch:
        """The positions ``states`` (one configuration), a column each, read only; no seeds. Without
        ``placements`` the batch does not record the order of each mine's coins and poles, which only
        :meth:`state` needs (a search's rollouts skip that cost)."""
        batch = cls._unseeded(states, WapiState)
        batch._allocate(max(len(s.bag) for s in states), placements)
        batch._copy(states)
        return batch

    @classmethod
    def determinizations(cls, state: WapiState, player: int, rng: np.random.Generator, count: int) -> WapiBatch:
        """``from_states([state.determinize(player, rng) for _ in range(count)], placements=False)``, the same
        draws of ``rng``, without a per-game copy of each: Wapi hides only the bag's order (from everyone), and a
        determinization is one permutation of the sorted bag (``WapiState.determinize``). A search's samples."""
        pool = np.array(sorted(state.bag), dtype=np.int8)
        orders = np.array([rng.permutation(len(pool)) for _ in range(count)], dtype=np.int64).reshape(count, -1)
        batch = cls.from_states([state], placements=False).repeat(count)
        batch.bag[:, : len(pool)] = pool[orders]
        return batch

    def _copy(self, states: Sequence[WapiState]) -> None:
        """Every column from its state, a field at a time (one array per field, built from lists)."""
        length, going = self.bag.shape[1], [s.current_player is not None for s in states]
        self.bag[:] = np.array([s.bag + [NO_TILE] * (length - len(s.bag)) for s in states], dtype=np.int8)
        self.bag_counts[:] = np.array([s.bag_counts for s in states]).T
        self.coins[:] = np.array([[len(coins) for coins in s.silver] for s in states]).T
        self.silver[:] = np.array([[sum(coins) for coins in s.silver] for s in states]).T
        self.masks[:] = np.array([s.masks for s in states]).T
        if self.coin_values is not None:
            self.coin_values[:] = _padded([s.silver for s in states], SILVER_FIELDS)
            self.pole_owners[:] = _padded([s.totems for s in states], MASK_FIELDS)
        poles = [(o, k, c) for c, s in enumerate(states) for k, owners in enumerate(s.totems) for o in owners]
        if poles:
            np.add.at(self.poles, tuple(np.array(poles).T), 1.0)
        self.pole_count[:] = self.poles.sum(axis=0)
        self.totems_left[:] = np.array([s.totems_left for s in states]).T
        self.coins_placed[:] = [s.coins_placed for s in states]
        self.player[:] = [s.current_player if g else NO_PLAYER for s, g in zip(states, going)]
        self.drawn[:] = [s.drawn if g else NO_TILE for s, g in zip(states, going)]

    def repeat(self, times: int) -> WapiBatch:
        """A new batch with each game ``times`` times in a row (column c's copies at c*times ...), no seeds."""
        other = object.__new__(WapiBatch)
        for name, value in vars(self).items():
            per_game = isinstance(value, np.ndarray) and name not in ("_tiles", "_tile_counts", "_tile_scale")
            axis = 0 if name == "bag" else -1  # the one array with a game a row
            setattr(other, name, np.repeat(value, times, axis=axis) if per_game else value)
        other.num_games = self.num_games * times
        other.seeds[:] = -1
        other.columns, other._mask, other._ahead = np.arange(other.num_games), None, None
        return other

    # --- turn structure ------------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        return self.player

    def holds_coin(self) -> np.ndarray:
        """``(N,)``: the player to act holds a silver coin."""
        return (self.drawn >= 0) & (self.drawn < FIRST_MASK)

    def _legal(self) -> np.ndarray:
        """``(N, 8)`` bool: each game's legal actions (cached until the next move; read only)."""
        if self._mask is None:
            self._compute_legal(np.empty(0, dtype=bool), np.empty((0, NUM_ACTIONS), dtype=bool))
        return self._mask

    def _compute_legal(self, where: np.ndarray, out_where: np.ndarray) -> None:
        """Every game's legal actions into the cache, and into ``out_where`` those of the games ``where`` (one
        pass: ``batch_kernels.legal_masks``)."""
        self._mask = np.empty((self.num_games, NUM_ACTIONS), dtype=bool)
        legality = self.player, self.drawn, self.coins, self.pole_count, self.totems_left
        kernels.legal_masks(*legality, self._mask, where, out_where)
        self._mask.flags.writeable = False

    def legal_rows(self) -> np.ndarray:
        """``(8, N)`` bool: each game's legal actions, an action a row (cached until the next move; read only).
        A coin goes to a mine with a pole and room if there is one, else to any mine with room."""
        return self._legal().T

    def coin_mines(self) -> np.ndarray:
        """``(6, N)``: the mines a drawn coin may go to (none where no coin is held)."""
        return self.legal_rows()[:NUM_MINES]

    def legal_mask(self) -> np.ndarray:
        return self._legal().copy()

    def legal_mask_where(self, where: np.ndarray) -> np.ndarray:
        """``legal_mask()`` in the games ``where``: every game's is computed (a kernel's pass costs little more than
        one game's) and kept for the move's check."""
        where = check_where(where, self.num_games)
        if self._mask is not None:
            return self._mask & where[:, None]
        out = np.empty((self.num_games, NUM_ACTIONS), dtype=bool)
        self._compute_legal(where, out)
        return out

    def step(self, actions: np.ndarray) -> None:
        self._play(actions, np.ones(self.num_games, dtype=bool))

    def step_where(self, actions: np.ndarray, where: np.ndarray) -> None:
        self._play(actions, check_where(where, self.num_games))

    def _play(self, actions: np.ndarray, where: np.ndarray) -> None:
        """Play ``actions`` in the games ``where`` still going, after checking every one of them."""
        actions = given = np.asarray(actions)
        if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_games} ints, got {actions.dtype} of shape {actions.shape}")
        if actions.dtype != np.int64:  # what is no action (negative, too large for int64) as NUM_ACTIONS: illegal
            actions = np.where((actions >= 0) & (actions < NUM_ACTIONS), actions, NUM_ACTIONS).astype(np.int64)
        bad = kernels.first_illegal(actions, where, self.player, self._legal())
        if bad >= 0:
            legal = np.flatnonzero(self._legal()[bad]).tolist()
            raise IllegalActionError(f"action {int(given[bad])} is not legal in game {bad}; legal: {legal}")
        kernels.play(actions, where, self.game.num_players, self._state(), self._placements())
        self._mask = None

    # --- scoring -------------------------------------------------------------
    @property
    def _shared(self) -> bool:
        return self.game.scoring == "shared"

    def score_units(self) -> tuple[np.ndarray, int]:
        """``(players, N)`` int scores in whole ``unit``-ths of a point, as ``WapiState.score_units``."""
        units = np.empty((self.game.num_players, self.num_games), dtype=np.int64)
        kernels.score_units(self._shared, self.poles, self.silver, self.pole_count, units)
        return units, SHARE_UNIT if self._shared else 1

    def scores(self) -> np.ndarray:
        """``(N, players)`` float scores (exact twelfths under shared scoring, correctly rounded)."""
        units, unit = self.score_units()
        return (units / unit).T

    def winners(self) -> np.ndarray:
        """``(N, players)`` bool: the players with the top score of each finished game (none while playing)."""
        units, _ = self.score_units()
        out = np.empty((self.num_games, self.game.num_players), dtype=bool)
        kernels.winners(units, self.player, out)
        return out

    # --- what the players see --------------------------------------------------
    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        """``(N, 92)`` float32: the observer's vector (``envs/wapi/observation.py``) of every game, the same
        float operations on the same counts."""
        return self._observed(self.columns, self._observers(players))

    def observe_rows(self, rows: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        """``observe(players)[rows]``, computed for the games ``rows`` alone."""
        rows = np.asarray(rows, dtype=np.int64)
        return self._observed(rows, self._observers(players)[rows])

    def _observers(self, players: np.ndarray | None) -> np.ndarray:
        """``players`` checked (a seat per game), or each game's player to act (seat 0 once over)."""
        count = self.game.num_players
        if players is None:
            return np.maximum(self.player, 0)
        players = np.asarray(players)
        if players.shape != (self.num_games,) or not ((players >= 0) & (players < count)).all():
            raise ValueError(f"players must be {self.num_games} seats in 0..{count - 1}")
        return players.astype(np.int64)

    def _observed(self, rows: np.ndarray, observers: np.ndarray) -> np.ndarray:
        """The observations of games ``rows``, an entry a row, returned as their transpose (a view)."""
        out = np.empty((OBSERVATION_SIZE, len(rows)), dtype=np.float32)
        units, _ = self.score_units()
        kernels.observe(rows, observers, self._shared, self._tile_scale, units, self._state(), out)
        return out.T

    def state(self, index: int) -> WapiState:
        """Game ``index`` as a fresh per-game state, through the checked loader (``WapiGame.state_from_dict``)."""
        if self.coin_values is None:
            raise ValueError("this batch was made with placements=False: it cannot give per-game states")
        going = self.player[index] >= 0
        mines = [
            {
                "silver": self.coin_values[k, : int(self.coins[k, index]), index].tolist(),
                "masks": int(self.masks[k, index]),
                "totems": self.pole_owners[k, : int(self.pole_count[k, index]), index].tolist(),
            }
            for k in range(NUM_MINES)
        ]
        data = {
            "game": "wapi",
            "num_players": self.game.num_players,
            "scoring": self.game.scoring,
            "current_player": int(self.player[index]) if going else None,
            "drawn": TILE_CODES[self.drawn[index]] if going else None,
            "mines": mines,
            "totems_left": self.totems_left[:, index].astype(int).tolist(),
            "bag": [TILE_CODES[t] for t in self.bag[index, self.taken[index] :] if t >= 0],
            "scores": self.scores()[index].tolist(),
            "terminal": not going,
        }
        return self.game.state_from_dict(data)


def _padded(lists: list[list[list[int]]], width: int) -> np.ndarray:
    """``(6, width, N)`` int8: per game and mine, a list of up to ``width`` ints, padded with -1."""
    rows = [[items + [-1] * (width - len(items)) for items in per_mine] for per_mine in lists]
    return np.array(rows, dtype=np.int8).transpose(1, 2, 0)


#: The batch engine of this game (``envs.core.batch.batch_class``).
BATCH_CLASS = WapiBatch
