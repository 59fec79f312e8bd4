"""Many Wakanda games at once: the rules of ``rules.py`` over numpy arrays, one row a game.

Why: search rollouts, training and studies play millions of games, and a numpy step of
thousands of games costs what a few dozen Python turns do. :class:`WakandaBatch` keeps the
protocol of :mod:`envs.core.batch` (each game its own player to act and its own seed stream)
and holds exactly what a :class:`~envs.wakanda.rules.WakandaState` holds;
``tests/test_wakanda_batch.py`` plays seeded games both ways and compares every mask,
observation, score and state.

Deals come from the per-game engine (``new_game``: the same generator draws the same bag and
village line) and are copied into the arrays; everything after the deal is numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.core.batch import NO_PLAYER, BatchGames, new_game
from envs.core.engine import shown
from envs.wakanda.actions import DECODED, FINISH, NUM_ACTIONS
from envs.wakanda.components import (
    HEADDRESSES,
    HEIGHT,
    HEIGHT_POINTS,
    MAX_SCORE,
    MIN_SCORE,
    NUM_PIECE_KINDS,
    NUM_PIECES,
    NUM_PLAYERS,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
    PIECE_COUNTS,
    PIECES,
    POINTS_PER_PIECE,
    SUN,
    SUN_PENALTY,
    VARIETY,
    VARIETY_POINTS,
    VILLAGES,
)
from envs.wakanda.game import WakandaGame
from envs.wakanda.observation import (
    ADVANCED,
    AVAILABLE,
    BAG,
    BAG_SIZE,
    CANDIDATES,
    FACE_UP,
    HEADDRESSES_LEFT,
    HEIGHT_ENTRY,
    KIND,
    OBSERVATION_SIZE,
    OWNED,
    SCORES,
    SLOT_BLOCK,
    SUPPLIES,
    THIRD_FIRST,
    TO_ACT,
    TOTEM,
)
from envs.wakanda.rules import WakandaState

#: Per action: the piece kind it builds (-1 for a finish) and its village slot.
ACTION_KIND = np.array([-1 if kind is None else kind for kind, _ in DECODED], dtype=np.int64)
ACTION_SLOT = np.array([slot for _, slot in DECODED], dtype=np.int64)
#: ``AVAILABLE_SLOTS[revealed]``: the slots available (and face up) once ``revealed`` are.
AVAILABLE_SLOTS = np.arange(NUM_SLOTS) < np.arange(NUM_SLOTS + 1)[:, None]
COUNTS = np.array(PIECE_COUNTS, dtype=np.float64)
#: Points per piece of a village's own kind, for the six piece villages (int: scores are exact).
PER_PIECE = np.array(POINTS_PER_PIECE, dtype=np.int64)
NO_OWNER = -1


def village_points(counts: np.ndarray, tallest: np.ndarray) -> np.ndarray:
    """``(..., 8)``: what owning each village kind pays over totems holding ``counts`` (``(..., 6)``)
    pieces per kind, the tallest ``tallest`` high (the scoring table of ``docs/rules/wakanda.md``)."""
    points = np.empty(counts.shape[:-1] + (NUM_VILLAGE_KINDS,), dtype=np.result_type(counts, tallest, PER_PIECE))
    points[..., :NUM_PIECE_KINDS] = PER_PIECE * counts
    points[..., VARIETY] = VARIETY_POINTS * (counts > 0).sum(axis=-1)
    points[..., HEIGHT] = HEIGHT_POINTS * tallest
    return points


class WakandaBatch(BatchGames):
    """N Wakanda games of one configuration as arrays (the batch protocol of :mod:`envs.core.batch`).

    Fields (N games; read them, never write them: ``step`` and ``reset_done`` keep them consistent):
        player: ``(N,)`` the player to act, -1 once over; villages: ``(N, 6)`` kind per slot;
        removed: ``(N, 2)`` the kinds in the box; bag: ``(N, 21)`` the pieces in draw order, of which
        ``bag[i, next_draw[i]:]`` are still in the bag; bag_counts: ``(N, 6)`` those per kind;
        revealed, finished: ``(N,)``; open: ``(N, 6)`` available and unclaimed slots; owner: ``(N, 6)``
        (-1 unowned); totems: ``(N, 6, 21)`` each totem's pieces bottom up (``heights`` of them);
        totem_counts: ``(N, 6, 6)`` per slot and kind; supplies: ``(N, 2, 6)`` per player and kind;
        headdresses: ``(N, 2)``; third_first: ``(N,)`` who placed a third headdress first (-1: nobody).
    """

    def __init__(self, game: WakandaGame, num_games: int, seed: int):
        if not isinstance(game, WakandaGame):
            raise ValueError(f"game must be a WakandaGame, got {shown(game)}")
        super().__init__(game, num_games, seed)
        self._allocate(num_games)
        self._deal(np.arange(num_games))

    def _allocate(self, n: int) -> None:
        self.player = np.full(n, NO_PLAYER, dtype=np.int64)
        self.villages = np.zeros((n, NUM_SLOTS), dtype=np.int64)
        self.removed = np.zeros((n, NUM_VILLAGE_KINDS - NUM_SLOTS), dtype=np.int64)
        self.bag = np.zeros((n, NUM_PIECES), dtype=np.int64)
        self.next_draw = np.zeros(n, dtype=np.int64)
        self.bag_counts = np.zeros((n, NUM_PIECE_KINDS), dtype=np.int64)
        self.revealed = np.zeros(n, dtype=np.int64)
        self.finished = np.zeros(n, dtype=np.int64)
        self.open = np.zeros((n, NUM_SLOTS), dtype=bool)
        self.owner = np.full((n, NUM_SLOTS), NO_OWNER, dtype=np.int64)
        self.totems = np.zeros((n, NUM_SLOTS, NUM_PIECES), dtype=np.int64)
        self.heights = np.zeros((n, NUM_SLOTS), dtype=np.int64)
        self.totem_counts = np.zeros((n, NUM_SLOTS, NUM_PIECE_KINDS), dtype=np.int64)
        self.supplies = np.zeros((n, NUM_PLAYERS, NUM_PIECE_KINDS), dtype=np.int64)
        self.headdresses = np.zeros((n, NUM_PLAYERS), dtype=np.int64)
        self.third_first = np.full(n, NO_PLAYER, dtype=np.int64)
        self._mask: np.ndarray | None = None

    @classmethod
    def from_states(cls, states: Sequence[WakandaState]) -> WakandaBatch:
        if not states or not all(isinstance(s, WakandaState) for s in states):
            raise ValueError(f"states must be a non-empty list of WakandaStates, got {shown(states)}")
        game = states[0].game
        if any(s.game.config() != game.config() for s in states):
            raise ValueError(f"states must all be of one configuration, {game.config()}")
        batch = cls.__new__(cls)
        BatchGames.__init__(batch, game, len(states), 0)
        batch.seeds[:] = -1
        batch._allocate(len(states))
        batch._load(np.arange(len(states)), states)
        return batch

    def repeat(self, times: int) -> WakandaBatch:
        """A new batch holding each game ``times`` times in a row (game i's copies at i*times ...)."""
        other = object.__new__(WakandaBatch)
        for name, value in vars(self).items():
            setattr(other, name, np.repeat(value, times, axis=0) if isinstance(value, np.ndarray) else value)
        other.num_games, other._mask = self.num_games * times, None
        return other

    def _load(self, rows: np.ndarray, states: Sequence[WakandaState]) -> None:
        """Copy per-game ``states`` (their public fields) into ``rows``; the bag right-aligned."""
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
        self.bag[rows] = 0
        self.totems[rows] = 0
        for row, state in zip(rows, states):
            self.bag[row, NUM_PIECES - len(state.bag) :] = state.bag
            for slot, totem in enumerate(state.totems):
                self.totems[row, slot, : len(totem)] = totem
            self.heights[row] = [len(totem) for totem in state.totems]
            self.next_draw[row] = NUM_PIECES - len(state.bag)
        kinds = np.arange(NUM_PIECE_KINDS)
        left = np.arange(NUM_PIECES) >= self.next_draw[rows, None]
        self.bag_counts[rows] = ((self.bag[rows, :, None] == kinds) & left[:, :, None]).sum(axis=1)
        built = np.arange(NUM_PIECES) < self.heights[rows, :, None]
        self.totem_counts[rows] = ((self.totems[rows, :, :, None] == kinds) & built[..., None]).sum(axis=2)
        self.open[rows] = AVAILABLE_SLOTS[self.revealed[rows]] & (self.owner[rows] == NO_OWNER)
        self._mask = None

    def _deal(self, where: np.ndarray) -> None:
        self._load(where, [new_game(self.game, int(seed)) for seed in self.seeds[where]])

    # --- the protocol -----------------------------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        return self.player

    def legal_mask(self) -> np.ndarray:
        """Build any supply piece on any open village; finish any open totem with a piece while a
        headdress is left (``rules.py``, ``_legal_for``)."""
        if self._mask is None:
            n = self.num_games
            rows, seat = np.arange(n), np.maximum(self.player, 0)
            open_ = self.open & (self.player >= 0)[:, None]
            mask = np.empty((n, NUM_ACTIONS), dtype=bool)
            np.logical_and(
                self.supplies[rows, seat, :, None] > 0,
                open_[:, None, :],
                out=mask[:, :FINISH].reshape(n, -1, NUM_SLOTS),
            )
            mask[:, FINISH:] = open_ & (self.heights > 0) & (self.headdresses[rows, seat] > 0)[:, None]
            self._mask = mask
        return self._mask.copy()

    def step(self, actions: np.ndarray) -> None:
        actions = self.check_actions(actions)
        rows = np.flatnonzero(self.player >= 0)
        if not rows.size:
            return
        chosen, mover = actions[rows], self.player[rows]
        kind, slot = ACTION_KIND[chosen], ACTION_SLOT[chosen]
        build = kind >= 0
        self._build(rows[build], mover[build], kind[build], slot[build])
        finish = ~build
        if finish.any():
            self._finish(rows[finish], mover[finish], slot[finish])
        self._next_turn(rows, mover)
        self._mask = None

    def _build(self, rows: np.ndarray, mover: np.ndarray, kind: np.ndarray, slot: np.ndarray) -> None:
        """A piece from the mover's supply on top of the totem there."""
        self.supplies[rows, mover, kind] -= 1
        height = self.heights[rows, slot]
        self.totems[rows, slot, height] = kind
        self.heights[rows, slot] = height + 1
        self.totem_counts[rows, slot, kind] += 1

    def _finish(self, rows: np.ndarray, mover: np.ndarray, slot: np.ndarray) -> None:
        """A headdress claims the totem and its village; the next tilted village becomes available."""
        self.owner[rows, slot] = mover
        self.open[rows, slot] = False
        self.headdresses[rows, mover] -= 1
        self.finished[rows] += 1
        third = (self.headdresses[rows, mover] == 0) & (self.third_first[rows] == NO_PLAYER)
        self.third_first[rows[third]] = mover[third]
        tilted = rows[self.revealed[rows] < NUM_SLOTS]
        self.open[tilted, self.revealed[tilted]] = True
        self.revealed[tilted] += 1

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
        piece = self.bag[rows, self.next_draw[rows]]
        self.supplies[rows, player, piece] += 1
        self.bag_counts[rows, piece] -= 1
        self.next_draw[rows] += 1

    def _can_act(self, rows: np.ndarray, player: np.ndarray) -> np.ndarray:
        """Whether ``player`` has a legal action in each of ``rows``."""
        open_ = self.open[rows]
        holds = self.supplies[rows, player].any(axis=1)
        crowns = (self.headdresses[rows, player] > 0) & (open_ & (self.heights[rows] > 0)).any(axis=1)
        return open_.any(axis=1) & (holds | crowns)

    # --- scoring ----------------------------------------------------------------------------
    def int_scores(self) -> np.ndarray:
        """``(N, 2)`` int: each owned village scores over all its owner's totems; then the sun penalty."""
        owns = self.owner[:, None, :] == np.arange(NUM_PLAYERS)[:, None]  # (N, player, slot)
        counts = np.einsum("nps,nsk->npk", owns.astype(np.int64), self.totem_counts)
        tallest = np.where(owns, self.heights[:, None, :], 0).max(axis=2)
        points = village_points(counts, tallest)  # (N, player, village kind)
        by_slot = np.take_along_axis(points, np.broadcast_to(self.villages[:, None, :], owns.shape), axis=2)
        score = np.where(owns, by_slot, 0).sum(axis=2)
        sun_owned = (owns & (self.villages[:, None, :] == SUN)).any(axis=2)
        return score - np.where(sun_owned, 0, SUN_PENALTY * counts[:, :, SUN])

    def scores(self) -> np.ndarray:
        return self.int_scores().astype(np.float64)

    def winners(self) -> np.ndarray:
        """Highest score; on a tie whoever placed a third headdress first; else both (a draw)."""
        score = self.int_scores()
        tie = score[:, 0] == score[:, 1]
        won = np.where(tie[:, None], True, score == score.max(axis=1, keepdims=True))
        tie_break = tie & (self.third_first >= 0)
        won[tie_break] = np.arange(NUM_PLAYERS) == self.third_first[tie_break, None]
        return won & self.terminated[:, None]

    # --- what a player sees -----------------------------------------------------------------
    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        """The observer's layout (``observation.py``): seat pairs relative to ``players[i]``."""
        n = self.num_games
        if players is None:
            players = np.maximum(self.player, 0)
        players = np.asarray(players)
        if (
            players.shape != (n,)
            or not np.issubdtype(players.dtype, np.integer)
            or ((players < 0) | (players > 1)).any()
        ):
            raise ValueError(f"players must be {n} seats in 0..{NUM_PLAYERS - 1}, got {shown(players)}")
        rows = np.arange(n)
        seats = np.stack([players, 1 - players], axis=1)  # (N, 2): the observer, then the opponent
        out = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
        face_up = self.face_up()
        self._observe_slots(out[:, : NUM_SLOTS * SLOT_BLOCK].reshape(n, NUM_SLOTS, SLOT_BLOCK), seats, face_up)
        out[:, SUPPLIES : SUPPLIES + 2 * NUM_PIECE_KINDS] = (self.supplies[rows[:, None], seats] / COUNTS).reshape(
            n, -1
        )
        out[:, HEADDRESSES_LEFT : HEADDRESSES_LEFT + 2] = self.headdresses[rows[:, None], seats] / HEADDRESSES
        out[:, BAG : BAG + NUM_PIECE_KINDS] = self.bag_counts / COUNTS
        out[:, BAG_SIZE] = (NUM_PIECES - self.next_draw) / NUM_PIECES
        out[:, THIRD_FIRST : THIRD_FIRST + 2] = self.third_first[:, None] == seats
        seen = np.zeros((n, NUM_VILLAGE_KINDS), dtype=bool)
        seen[np.broadcast_to(rows[:, None], face_up.shape)[face_up], self.villages[face_up]] = True
        out[:, CANDIDATES : CANDIDATES + NUM_VILLAGE_KINDS] = ~seen
        scores = self.int_scores()[rows[:, None], seats]
        out[:, SCORES : SCORES + 2] = (scores - MIN_SCORE) / (MAX_SCORE - MIN_SCORE)
        out[:, TO_ACT : TO_ACT + 2] = self.player[:, None] == seats
        out[:, ADVANCED] = self.game.advanced
        return out

    def face_up(self) -> np.ndarray:
        """``(N, 6)``: basic game, every village is face up; advanced, only the available ones."""
        if self.game.advanced:
            return AVAILABLE_SLOTS[self.revealed]
        return np.ones((self.num_games, NUM_SLOTS), dtype=bool)

    def _observe_slots(self, blocks: np.ndarray, seats: np.ndarray, face_up: np.ndarray) -> None:
        """Each slot's block: its kind while face up, face and availability, its totem, its owner."""
        available = AVAILABLE_SLOTS[self.revealed]
        kinds = np.arange(NUM_VILLAGE_KINDS)
        blocks[:, :, KIND : KIND + NUM_VILLAGE_KINDS] = (self.villages[:, :, None] == kinds) & face_up[:, :, None]
        blocks[:, :, FACE_UP] = face_up
        blocks[:, :, AVAILABLE] = available
        blocks[:, :, TOTEM : TOTEM + NUM_PIECE_KINDS] = self.totem_counts / COUNTS
        blocks[:, :, HEIGHT_ENTRY] = self.heights / NUM_PIECES
        blocks[:, :, OWNED : OWNED + 2] = self.owner[:, :, None] == seats[:, None, :]

    # --- per-game states --------------------------------------------------------------------
    def state(self, index: int) -> WakandaState:
        """Game ``index`` as a fresh per-game state, through the game's serializer (which checks it)."""
        i = int(index)
        score = self.int_scores()[i].tolist()
        won = np.flatnonzero(self.winners()[i]).tolist()
        player = int(self.player[i])
        advanced = self.game.advanced
        data = {
            "game": "wakanda",
            "advanced": advanced,
            "current_player": None if player == NO_PLAYER else player,
            "villages": [
                {
                    "kind": VILLAGES[self.villages[i, v]],
                    "available": bool(v < self.revealed[i]),
                    "face_up": bool(v < self.revealed[i] or not advanced),
                    "owner": None if self.owner[i, v] == NO_OWNER else int(self.owner[i, v]),
                    "totem": [PIECES[k] for k in self.totems[i, v, : self.heights[i, v]]],
                }
                for v in range(NUM_SLOTS)
            ],
            "removed_villages": [VILLAGES[k] for k in self.removed[i]],
            "supplies": [[PIECES[k] for k in range(NUM_PIECE_KINDS) for _ in range(s[k])] for s in self.supplies[i]],
            "headdresses_left": self.headdresses[i].tolist(),
            "bag": [PIECES[k] for k in self.bag[i, self.next_draw[i] :]],
            "scores": score,
            "third_headdress_first": None if self.third_first[i] == NO_PLAYER else int(self.third_first[i]),
            "terminal": player == NO_PLAYER,
            "winner": won[0] if len(won) == 1 else None,
        }
        return self.game.state_from_dict(data)


BATCH_CLASS = WakandaBatch

__all__ = ["BATCH_CLASS", "WakandaBatch", "village_points"]
