"""Many Wakanda games at once: the rules of ``rules.py`` over numpy arrays, one row a game.

Why: search rollouts, training and studies play millions of games, and a numpy step of thousands of games costs what
a few dozen Python turns do. :class:`WakandaBatch` keeps the protocol of :mod:`envs.core.batch` (each game its own
player to act and its own seed stream) and holds exactly what a :class:`~envs.wakanda.rules.WakandaState` holds;
``tests/test_wakanda_batch.py`` plays seeded games both ways and compares every mask, observation, score and state.

Deals are numpy's draws of each game's generator, computed for many games at once (``batch_tables.dealt``, made
ahead by ``envs.core.dealing``) and written into the arrays; positions given as per-game states (``from_states``) are
copied in. Everything else, the turn above all, is compiled kernels that loop over the games (``batch_rules.py``,
one per rule step, as ``rules.py`` reads). For speed the sets a turn reads (open villages, totems with a piece, the
kinds in a supply) are also kept as 6-bit sets; the scores change only when a totem is finished and are kept too;
the observations are kept up to date by :class:`BatchViews` once asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.core.batch import NO_PLAYER, BatchGames
from envs.core.batch_args import check_where
from envs.core.engine import IllegalActionError, shown
from envs.wakanda import batch_rules, components
from envs.wakanda.batch_rules import NO_OWNER, Games
from envs.wakanda.batch_tables import BITS, dealt
from envs.wakanda.batch_view import BatchViews
from envs.wakanda.components import (
    NUM_PIECE_KINDS,
    NUM_PIECES,
    NUM_PLAYERS,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
)
from envs.wakanda.game import WakandaGame
from envs.wakanda.rules import WakandaState


class WakandaBatch(BatchGames):
    """N Wakanda games of one configuration as arrays (the batch protocol of :mod:`envs.core.batch`).

    Fields (N games; read them, never write them: ``step`` and ``reset_done`` keep them consistent): player:
    ``(N,)`` the player to act, -1 once over; villages: ``(N, 6)`` kind per slot; removed: ``(N, 2)`` the kinds in
    the box; bag: ``(N, 21)`` the pieces in draw order, of which ``bag[i, next_draw[i]:]`` are still in the bag;
    bag_counts: ``(N, 6)`` those per kind; revealed, finished: ``(N,)``; owner: ``(N, 6)`` (-1 unowned); totems:
    ``(N, 6, 21)`` each totem's pieces bottom up (``heights`` of them); totem_counts: ``(N, 6, 6)`` per slot and
    kind; supplies: ``(N, 2, 6)`` per player and kind; headdresses: ``(N, 2)``; third_first: ``(N,)`` who placed a
    third headdress first (-1: nobody); held: ``(N, 2, 6)`` the pieces on each player's totems, held_tallest:
    ``(N, 2)`` their tallest, owned_kinds: ``(N, 2, 8)`` the village kinds each owns; score: ``(N, 2)`` the scores
    now; open_bits, nonempty_bits: ``(N,)`` the open villages and the totems with a piece, as sets; supply_bits:
    ``(N, 2)`` the kinds in each supply, as sets.
    """

    def __init__(self, game: WakandaGame, num_games: int, seed: int):
        if not isinstance(game, WakandaGame):
            raise ValueError(f"game must be a WakandaGame, got {shown(game)}")
        super().__init__(game, num_games, seed)
        self._allocate(num_games)
        self._deal(np.arange(num_games))

    def _allocate(self, n: int) -> None:
        def zeros(*shape: int) -> np.ndarray:
            return np.zeros((n, *shape), dtype=np.int64)

        self.player = np.full(n, NO_PLAYER, dtype=np.int64)
        self.villages, self.removed = zeros(NUM_SLOTS), zeros(NUM_VILLAGE_KINDS - NUM_SLOTS)
        self.bag, self.next_draw, self.bag_counts = zeros(NUM_PIECES), zeros(), zeros(NUM_PIECE_KINDS)
        self.revealed, self.finished, self.owner = zeros(), zeros(), zeros(NUM_SLOTS)
        self.totems, self.heights = zeros(NUM_SLOTS, NUM_PIECES), zeros(NUM_SLOTS)
        self.totem_counts, self.third_first = zeros(NUM_SLOTS, NUM_PIECE_KINDS), zeros()
        self.supplies, self.headdresses = zeros(NUM_PLAYERS, NUM_PIECE_KINDS), zeros(NUM_PLAYERS)
        self.held, self.held_tallest = zeros(NUM_PLAYERS, NUM_PIECE_KINDS), zeros(NUM_PLAYERS)
        self.owned_kinds = np.zeros((n, NUM_PLAYERS, NUM_VILLAGE_KINDS), dtype=bool)
        self.score = zeros(NUM_PLAYERS)
        self.open_bits, self.nonempty_bits, self.supply_bits = zeros(), zeros(), zeros(NUM_PLAYERS)
        self._games = Games(*(getattr(self, name) for name in Games._fields))
        self._mask: np.ndarray | None = None
        self._views: BatchViews | None = None

    @property
    def games(self) -> Games:
        """The arrays above as one named tuple, as the compiled kernels take them (``batch_rules.py``)."""
        return self._games

    @classmethod
    def from_states(cls, states: Sequence[WakandaState]) -> WakandaBatch:
        return cls._loaded(states, WakandaState)

    def repeat(self, times: int) -> WakandaBatch:
        """A new batch holding each game ``times`` times in a row (game i's copies at i*times ...), for
        playing positions out: like a batch made ``from_states``, it has no seeds (and no observations
        until asked for)."""
        other = object.__new__(WakandaBatch)
        BatchGames.__init__(other, self.game, times * self.num_games, 0)
        other.seeds[:] = -1
        other._allocate(other.num_games)
        for mine, theirs in zip(self._games, other._games):
            theirs[:] = np.repeat(mine, times, axis=0)
        return other

    # --- the deal ---------------------------------------------------------------------------
    def _deals(self, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return dealt(seeds)

    def _start(self, rows: np.ndarray, bags: np.ndarray, kinds: np.ndarray) -> None:
        """New games in ``rows`` from their deals: the opening position of ``WakandaState`` (the first player
        has drawn the bag's first piece), written straight into the arrays."""
        rows = np.asarray(rows, dtype=np.int64)
        batch_rules.start(self._games, rows, np.asarray(bags, dtype=np.int64), np.asarray(kinds, dtype=np.int64))
        self._mask = None
        if self._views is not None:
            self._views.encode(self, rows)

    def _load(self, rows: np.ndarray, states: Sequence[WakandaState]) -> None:
        """Copy per-game ``states`` (their public fields) into ``rows``: the bag right-aligned, so that
        ``next_draw`` counts the pieces drawn."""
        self.villages[rows] = [s.villages for s in states]
        self.removed[rows] = [s.removed for s in states]
        self.revealed[rows] = [s.revealed for s in states]
        self.finished[rows] = [s.finished for s in states]
        self.owner[rows] = [[NO_OWNER if o is None else o for o in s.owner] for s in states]
        self.supplies[rows] = [s.supplies for s in states]
        self.headdresses[rows] = [s.headdresses for s in states]
        self.third_first[rows] = [
            NO_PLAYER if s.third_headdress_first is None else s.third_headdress_first for s in states
        ]
        self.player[rows] = [NO_PLAYER if s.current_player is None else s.current_player for s in states]
        self.next_draw[rows] = [NUM_PIECES - len(s.bag) for s in states]
        self.heights[rows] = [[len(totem) for totem in s.totems] for s in states]
        self.bag[rows] = [[0] * (NUM_PIECES - len(s.bag)) + s.bag for s in states]
        self.totems[rows] = 0
        pieces = [
            (row, slot, height, kind)
            for row, state in zip(rows.tolist(), states)
            for slot, totem in enumerate(state.totems)
            for height, kind in enumerate(totem)
        ]
        if pieces:
            row, slot, height, kind = np.array(pieces).T
            self.totems[row, slot, height] = kind
        batch_rules.derive(self._games, np.asarray(rows, dtype=np.int64))
        self._mask = None
        if self._views is not None:
            self._views.encode(self, rows)

    # --- the protocol -----------------------------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        return self.player

    @property
    def open(self) -> np.ndarray:
        """``(N, 6)``: the available, unclaimed villages (where pieces may go)."""
        return BITS[self.open_bits]

    def legal_mask(self) -> np.ndarray:
        """Build any supply piece on any open village; finish any open totem with a piece while a
        headdress is left (``rules.py``, ``_legal_for``)."""
        if self._mask is None:
            self._mask = self._legal(self.player != NO_PLAYER)
        return self._mask.copy()

    def legal_mask_where(self, where: np.ndarray) -> np.ndarray:
        return self._legal(np.asarray(where, dtype=bool))

    def _legal(self, where: np.ndarray) -> np.ndarray:
        mask = np.zeros((self.num_games, self.game.num_actions), dtype=bool)
        batch_rules.legal_masks(self._games, where, mask)
        return mask

    def check_actions(self, actions: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """The protocol's check (``envs/core/batch.py``), each action's legality read in its game alone."""
        return self._checked(actions, self._moving(where))

    def step(self, actions: np.ndarray) -> None:
        self._play(actions, self._moving(None))

    def step_where(self, actions: np.ndarray, where: np.ndarray) -> None:
        """Play only the games ``where`` (the vector env's learner waits while its opponents move)."""
        self._play(actions, self._moving(where))

    def _moving(self, where: np.ndarray | None) -> np.ndarray:
        """The games still going (among ``where`` when given)."""
        going = self.player != NO_PLAYER
        return going if where is None else going & check_where(where, self.num_games)

    def _checked(self, actions: np.ndarray, moving: np.ndarray) -> np.ndarray:
        """``actions`` as int64, each legal in its game where ``moving``; else an IllegalActionError naming the
        first game whose action is not, before anything changes."""
        actions = self._action_vector(actions).astype(np.int64, copy=False)
        bad = batch_rules.first_illegal(self._games, actions, moving)
        if bad >= 0:
            legal = np.flatnonzero(self._legal(np.arange(self.num_games) == bad)[bad]).tolist()
            raise IllegalActionError(f"action {int(actions[bad])} is not legal in game {bad}; legal: {legal}")
        return actions

    def _play(self, actions: np.ndarray, moving: np.ndarray) -> None:
        """Play ``actions`` in the games ``moving`` (all still going), checked first."""
        actions = self._checked(actions, moving)
        batch_rules.play(self._games, actions, moving)
        self._mask = None
        if self._views is not None:
            self._views.moved(self, actions, moving)

    # --- scores and what a player sees ------------------------------------------------------
    def scores(self) -> np.ndarray:
        return self.score.astype(np.float64)

    def winners(self) -> np.ndarray:
        """Highest score; on a tie whoever placed a third headdress first; else both (a draw)."""
        won = np.zeros((self.num_games, NUM_PLAYERS), dtype=bool)
        batch_rules.winners(self._games, won)
        return won

    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        """The observer's layout (``observation.py``), seat pairs relative to ``players[i]``: kept up to
        date from the first call on (:class:`BatchViews`)."""
        return self._kept_views().observe(self._seats(players))

    def observe_rows(self, rows: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        """``observe(players)[rows]``, gathering those rows alone (the vector env's last views of ended games)."""
        return self._kept_views().observe(self._seats(players), np.asarray(rows, dtype=np.int64))

    def _seats(self, players: np.ndarray | None) -> np.ndarray:
        """``players`` checked: N seats, ints in 0..1 (default: the player to act, seat 0 in a finished game)."""
        n = self.num_games
        players = np.maximum(self.player, 0) if players is None else np.asarray(players)
        if players.shape != (n,) or not np.issubdtype(players.dtype, np.integer) or not _all_seats(players):
            raise ValueError(f"players must be {n} seats in 0..{NUM_PLAYERS - 1}, got {shown(players)}")
        return players

    def _kept_views(self) -> BatchViews:
        if self._views is None:
            self._views = BatchViews(self)
        return self._views

    # --- per-game states --------------------------------------------------------------------
    def state(self, index: int) -> WakandaState:
        """Game ``index`` as a fresh per-game state, through the game's serializer (which checks it)."""
        i = int(index)
        player, advanced = int(self.player[i]), self.game.advanced
        won = np.flatnonzero(self.winners()[i]).tolist()
        data = {
            "game": "wakanda",
            "advanced": advanced,
            "current_player": None if player == NO_PLAYER else player,
            "villages": [
                {
                    "kind": components.VILLAGES[self.villages[i, v]],
                    "available": bool(v < self.revealed[i]),
                    "face_up": bool(v < self.revealed[i] or not advanced),
                    "owner": None if self.owner[i, v] == NO_OWNER else int(self.owner[i, v]),
                    "totem": [components.PIECES[k] for k in self.totems[i, v, : self.heights[i, v]]],
                }
                for v in range(NUM_SLOTS)
            ],
            "removed_villages": [components.VILLAGES[k] for k in self.removed[i]],
            "supplies": [
                [components.PIECES[k] for k in range(NUM_PIECE_KINDS) for _ in range(s[k])] for s in self.supplies[i]
            ],
            "headdresses_left": self.headdresses[i].tolist(),
            "bag": [components.PIECES[k] for k in self.bag[i, self.next_draw[i] :]],
            "scores": self.score[i].tolist(),
            "third_headdress_first": None if self.third_first[i] == NO_PLAYER else int(self.third_first[i]),
            "terminal": player == NO_PLAYER,
            "winner": won[0] if len(won) == 1 else None,
        }
        return self.game.state_from_dict(data)


def _all_seats(players: np.ndarray) -> bool:
    """Whether every entry is a seat, 0 or 1 (``np.isin`` was a tenth of the vector env's step)."""
    return not players.size or (players.min() >= 0 and players.max() < NUM_PLAYERS)


BATCH_CLASS = WakandaBatch

__all__ = ["BATCH_CLASS", "WakandaBatch"]
