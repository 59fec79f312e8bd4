"""Many Wakanda games at once: the rules of ``rules.py`` over numpy arrays, one row a game.

Why: search rollouts, training and studies play millions of games, and a numpy step of thousands of games costs what
a few dozen Python turns do. :class:`WakandaBatch` keeps the protocol of :mod:`envs.core.batch` (each game its own
player to act and its own seed stream) and holds exactly what a :class:`~envs.wakanda.rules.WakandaState` holds;
``tests/test_wakanda_batch.py`` plays seeded games both ways and compares every mask, observation, score and state.

Deals are numpy's draws of each game's generator, computed for many games at once (``batch_tables.dealt``, made
ahead by ``envs.core.dealing``) and written straight into the arrays; positions given as per-game states
(``from_states``) are copied in. Everything after the deal is numpy. For speed the sets a turn reads (open villages,
totems with a piece, the kinds in a supply) are also kept as 6-bit sets, so that a legal mask is two table lookups;
the scores change only when a totem is finished and are kept too; the observations are kept up to date by
:class:`BatchViews` once asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.core.batch import NO_PLAYER, BatchGames
from envs.core.engine import shown
from envs.wakanda import components
from envs.wakanda.batch_tables import (
    ACTION_KIND,
    ACTION_SLOT,
    AVAILABLE_SLOTS,
    BIT,
    BITS,
    BUILD_MASKS,
    NO_OWNER,
    PER_PIECE,
    bits_of,
    count_kinds,
    dealt,
)
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
        self._rows = np.arange(n)
        self._mask: np.ndarray | None = None
        self._views: BatchViews | None = None

    @classmethod
    def from_states(cls, states: Sequence[WakandaState]) -> WakandaBatch:
        return cls._loaded(states, WakandaState)

    def repeat(self, times: int) -> WakandaBatch:
        """A new batch holding each game ``times`` times in a row (game i's copies at i*times ...), for
        playing positions out: like a batch made ``from_states``, it has no seeds (and no observations
        until asked for)."""
        other = object.__new__(WakandaBatch)
        for name, value in vars(self).items():
            setattr(other, name, np.repeat(value, times, axis=0) if isinstance(value, np.ndarray) else value)
        other.num_games, other._mask, other._views, other._ahead = times * self.num_games, None, None, None
        other._rows = np.arange(other.num_games)
        other.seeds[:] = -1
        return other

    # --- the deal ---------------------------------------------------------------------------
    def _deals(self, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return dealt(seeds)

    def _start(self, rows: np.ndarray, bags: np.ndarray, kinds: np.ndarray) -> None:
        """New games in ``rows`` from their deals: the opening position of ``WakandaState`` (the first player
        has drawn the bag's first piece), written straight into the arrays."""
        self.villages[rows], self.removed[rows] = kinds[:, :NUM_SLOTS], kinds[:, NUM_SLOTS:]
        self.bag[rows] = bags
        self.bag[rows, 0] = 0  # drawn: as ``_load`` pads a bag's drawn pieces
        self.next_draw[rows] = 1
        self.supplies[rows] = 0
        self.supplies[rows, components.FIRST_PLAYER, bags[:, 0]] = 1
        self.revealed[rows], self.finished[rows], self.owner[rows] = components.FIRST_AVAILABLE, 0, NO_OWNER
        self.headdresses[rows], self.third_first[rows] = components.HEADDRESSES, NO_PLAYER
        self.player[rows] = components.FIRST_PLAYER
        self.heights[rows], self.totems[rows] = 0, 0
        # what ``_derive`` would find: the bag less its first piece, an empty table, no scores yet
        self.bag_counts[rows] = components.PIECE_COUNTS
        self.bag_counts[rows, bags[:, 0]] -= 1
        self.totem_counts[rows], self.held[rows], self.held_tallest[rows] = 0, 0, 0
        self.owned_kinds[rows], self.score[rows] = False, 0
        self.open_bits[rows], self.nonempty_bits[rows] = bits_of(AVAILABLE_SLOTS[components.FIRST_AVAILABLE][None]), 0
        self.supply_bits[rows] = 0
        self.supply_bits[rows, components.FIRST_PLAYER] = BIT[bags[:, 0]]
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
        self._derive(rows)

    def _derive(self, rows: np.ndarray) -> None:
        """Everything kept that follows from the position of ``rows``: counts, sets, holdings, scores."""
        left = np.arange(NUM_PIECES) >= self.next_draw[rows, None]
        self.bag_counts[rows] = count_kinds(self.bag[rows], left)
        built = np.arange(NUM_PIECES) < self.heights[rows, :, None]
        self.totem_counts[rows] = count_kinds(self.totems[rows], built)
        self.open_bits[rows] = bits_of(AVAILABLE_SLOTS[self.revealed[rows]] & (self.owner[rows] == NO_OWNER))
        self.nonempty_bits[rows] = bits_of(self.heights[rows] > 0)
        self.supply_bits[rows] = bits_of(self.supplies[rows].reshape(-1, NUM_PIECE_KINDS) > 0).reshape(-1, 2)
        owns = (self.owner[rows, None, :] == np.arange(NUM_PLAYERS)[:, None]).astype(np.int64)
        self.held[rows] = np.einsum("rps,rsk->rpk", owns, self.totem_counts[rows])
        self.held_tallest[rows] = (owns * self.heights[rows, None, :]).max(axis=2)
        kinds_owned = np.einsum("rps,rsu->rpu", owns, (self.villages[rows, :, None] == np.arange(NUM_VILLAGE_KINDS)))
        self.owned_kinds[rows] = kinds_owned > 0
        for seat in range(NUM_PLAYERS):
            self._rescore(rows, np.full(len(rows), seat))
        self._mask = None
        if self._views is not None:
            self._views.encode(self, rows)

    def _rescore(self, rows: np.ndarray, player: np.ndarray) -> None:
        """``player``'s score in each of ``rows``: each village they own scores over all their totems
        (the scoring table of ``docs/rules/wakanda.md``); then the sun penalty unless they own the sun."""
        seat = rows * NUM_PLAYERS + player
        held = np.take(self.held.reshape(-1, NUM_PIECE_KINDS), seat, axis=0)
        owned = np.take(self.owned_kinds.reshape(-1, NUM_VILLAGE_KINDS), seat, axis=0)
        score = (held * owned[:, :NUM_PIECE_KINDS]) @ PER_PIECE
        score += np.where(owned[:, components.VARIETY], components.VARIETY_POINTS * (held > 0).sum(axis=1), 0)
        score += np.where(
            owned[:, components.HEIGHT], components.HEIGHT_POINTS * self.held_tallest.reshape(-1)[seat], 0
        )
        score -= np.where(owned[:, components.SUN], 0, components.SUN_PENALTY * held[:, components.SUN])
        self.score.reshape(-1)[seat] = score

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
            going = self.player >= 0
            seat = 2 * self._rows + np.maximum(self.player, 0)
            builds = np.where(going, self.supply_bits.reshape(-1)[seat] << NUM_SLOTS | self.open_bits, 0)
            crowns = going & (self.headdresses.reshape(-1)[seat] > 0)
            finishes = np.where(crowns, self.open_bits & self.nonempty_bits, 0)
            self._mask = np.concatenate([BUILD_MASKS[builds], BITS[finishes]], axis=1)
        return self._mask.copy()

    def step(self, actions: np.ndarray) -> None:
        self._play(self.check_actions(actions), np.flatnonzero(self.player >= 0))

    def step_where(self, actions: np.ndarray, where: np.ndarray) -> None:
        """Play only the games ``where`` (the vector env's learner waits while its opponents move). It needs
        the protocol's ``check_actions(actions, where)`` (the vector env's change to ``envs/core/batch.py``)."""
        actions = self.check_actions(actions, where)
        self._play(actions, np.flatnonzero((self.player >= 0) & where))

    def _play(self, actions: np.ndarray, rows: np.ndarray) -> None:
        """Play the checked ``actions`` in the games ``rows`` (all still going)."""
        if not rows.size:
            return
        chosen, mover = actions[rows], self.player[rows]
        kind, slot = ACTION_KIND[chosen], ACTION_SLOT[chosen]
        build = kind >= 0
        self._build(rows[build], mover[build], kind[build], slot[build])
        if not build.all():
            finish = ~build
            self._finish(rows[finish], mover[finish], slot[finish])
        self._next_turn(rows, mover)
        self._mask = None
        if self._views is not None:
            self._views.turned(self)

    def _build(self, rows: np.ndarray, mover: np.ndarray, kind: np.ndarray, slot: np.ndarray) -> None:
        """A piece from the mover's supply on top of the totem there (flat indices: one row each)."""
        held = (rows * NUM_PLAYERS + mover) * NUM_PIECE_KINDS + kind
        supplies = self.supplies.reshape(-1)
        supplies[held] -= 1
        self.supply_bits.reshape(-1)[rows * NUM_PLAYERS + mover] ^= np.where(supplies[held] == 0, BIT[kind], 0)
        on = rows * NUM_SLOTS + slot
        height = self.heights.reshape(-1)[on]
        self.totems.reshape(-1)[on * NUM_PIECES + height] = kind
        self.heights.reshape(-1)[on] = height + 1
        self.totem_counts.reshape(-1)[on * NUM_PIECE_KINDS + kind] += 1
        self.nonempty_bits[rows] |= BIT[slot]
        if self._views is not None:
            self._views.built(self, rows, mover, kind, slot)

    def _finish(self, rows: np.ndarray, mover: np.ndarray, slot: np.ndarray) -> None:
        """A headdress claims the totem and its village; the next tilted village becomes available
        (flat indices: one row each)."""
        on, seat = rows * NUM_SLOTS + slot, rows * NUM_PLAYERS + mover
        self.owner.reshape(-1)[on] = mover
        self.open_bits[rows] &= ~BIT[slot]
        headdresses = self.headdresses.reshape(-1)
        headdresses[seat] -= 1
        self.finished[rows] += 1
        third = (headdresses[seat] == 0) & (self.third_first[rows] == NO_PLAYER)
        self.third_first[rows[third]] = mover[third]
        self.held.reshape(-1, NUM_PIECE_KINDS)[seat] += np.take(
            self.totem_counts.reshape(-1, NUM_PIECE_KINDS), on, axis=0
        )
        tallest = self.held_tallest.reshape(-1)
        tallest[seat] = np.maximum(tallest[seat], self.heights.reshape(-1)[on])
        self.owned_kinds.reshape(-1, NUM_VILLAGE_KINDS)[seat, self.villages.reshape(-1)[on]] = True
        self._rescore(rows, mover)
        tilted = rows[self.revealed[rows] < NUM_SLOTS]
        self.open_bits[tilted] |= BIT[self.revealed[tilted]]
        self.revealed[tilted] += 1
        if self._views is not None:
            self._views.claimed(self, rows, mover, slot, tilted)

    def _next_turn(self, rows: np.ndarray, mover: np.ndarray) -> None:
        """The other player draws and acts, or else the mover draws and acts again; the game ends when
        all six totems are finished or neither can act."""
        going = self.finished[rows] < NUM_SLOTS
        self.player[rows[~going]] = NO_PLAYER
        rows, mover = rows[going], mover[going]
        other = 1 - mover
        self._draw(rows, other)
        can = self._can_act(rows, other)
        self.player[rows[can]] = other[can]
        rows, mover = rows[~can], mover[~can]
        if rows.size:
            self._draw(rows, mover)
            self.player[rows] = np.where(self._can_act(rows, mover), mover, NO_PLAYER)

    def _draw(self, rows: np.ndarray, player: np.ndarray) -> None:
        """Turn, step 1: the next piece of the bag into ``player``'s supply (none once it is empty)."""
        left = self.next_draw[rows] < NUM_PIECES
        rows, player = rows[left], player[left]
        drawn = self.next_draw[rows]
        piece = self.bag.reshape(-1)[rows * NUM_PIECES + drawn]
        seat = rows * NUM_PLAYERS + player
        self.supplies.reshape(-1)[seat * NUM_PIECE_KINDS + piece] += 1
        self.supply_bits.reshape(-1)[seat] |= BIT[piece]
        self.bag_counts.reshape(-1)[rows * NUM_PIECE_KINDS + piece] -= 1
        self.next_draw[rows] = drawn + 1
        if self._views is not None:
            self._views.drew(self, rows, player, piece)

    def _can_act(self, rows: np.ndarray, player: np.ndarray) -> np.ndarray:
        """Whether ``player`` has a legal action in each of ``rows`` (some open village, and a piece to
        build or a headdress for a totem with a piece)."""
        open_ = self.open_bits[rows]
        seat = rows * NUM_PLAYERS + player
        holds = self.supply_bits.reshape(-1)[seat] != 0
        crowns = (self.headdresses.reshape(-1)[seat] > 0) & ((open_ & self.nonempty_bits[rows]) != 0)
        return (open_ != 0) & (holds | crowns)

    # --- scores and what a player sees ------------------------------------------------------
    def scores(self) -> np.ndarray:
        return self.score.astype(np.float64)

    def winners(self) -> np.ndarray:
        """Highest score; on a tie whoever placed a third headdress first; else both (a draw)."""
        score = self.score
        tie = score[:, 0] == score[:, 1]
        won = np.where(tie[:, None], True, score == score.max(axis=1, keepdims=True))
        tie_break = tie & (self.third_first >= 0)
        won[tie_break] = np.arange(NUM_PLAYERS) == self.third_first[tie_break, None]
        return won & self.terminated[:, None]

    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        """The observer's layout (``observation.py``), seat pairs relative to ``players[i]``: kept up to
        date from the first call on (:class:`BatchViews`)."""
        n = self.num_games
        if players is None:
            players = np.maximum(self.player, 0)
        players = np.asarray(players)
        if players.shape != (n,) or not np.issubdtype(players.dtype, np.integer) or not np.isin(players, (0, 1)).all():
            raise ValueError(f"players must be {n} seats in 0..{NUM_PLAYERS - 1}, got {shown(players)}")
        if self._views is None:
            self._views = BatchViews(self)
        return self._views.observe(players)

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


BATCH_CLASS = WakandaBatch

__all__ = ["BATCH_CLASS", "WakandaBatch"]
