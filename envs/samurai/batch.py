"""Many Samurai games at once: the rules of ``rules.py`` over numpy arrays, one row a game
(the batch protocol of ``envs/core/batch.py``).

Why: search rollouts, training and studies play millions of Samurai turns; one numpy step of a
thousand games costs about what a few dozen Python actions do. The arrays hold exactly what a
:class:`~envs.samurai.rules.SamuraiState` holds, including the order of hands, piles and the tiles
played this turn, so that :meth:`SamuraiBatch.state` gives back the very state
(``tests/test_samurai_batch.py`` plays seeded games both ways and compares every mask,
observation, score and state). Every game has its own player to act, phase and sub-step.

Fields (N games, P players, S = 34 settlement indices plus the spare :data:`DUMMY` column):
    phase ``(N,)`` 0 choose_hand, 1 draft, 2 play; player ``(N,)`` the player to act, -1 once over;
    hand ``(N, P, 5)`` and pile ``(N, P, 20)`` kinds in order, padded with -1, with hand_len, pile_len;
    unplayed ``(N, P, 17)`` hand + pile per kind; tile, owner ``(N, 174)`` per hex (-1: none);
    figures ``(N, S+1, 3)`` bool; on_board, set_aside ``(N, 3)``, captured ``(N, P, 3)``;
    influence ``(N, S+1, P, 3)`` each player's influence per settlement and type; need ``(N, S+1)``
    empty land hexes around each settlement; empty_land, empty_sea ``(N,)``; movable ``(N, P)``;
    the turn: turn ``(N,)``, played ``(N, 6)`` with played_len, non_quick ``(N,)``, pending ``(N,)``
    (the tile chosen, -1), first_s / first_t ``(N,)`` (the figure swap's first figure, -1),
    swap_from ``(N,)`` (the tile swap's picked hex, -1).
"""

from __future__ import annotations

import numpy as np

from envs.core.batch import NO_PLAYER, BatchGames, check_batch_args, new_game
from envs.samurai.actions import END_TURN, FIGURE, HEX
from envs.samurai.batch_deal import dealt
from envs.samurai.batch_legal import BatchLegal
from envs.samurai.batch_observe import observe
from envs.samurai.batch_state import BatchStateIO
from envs.samurai.batch_tables import (
    CHOOSE_HAND,
    DRAFT,
    DUMMY,
    INFLUENCE_OF,
    IS_LAND,
    MOVABLE_OF,
    PLAY,
    QUICK_OF,
    TABLES,
    TYPES,
    any3,
)  # fmt: skip
from envs.samurai.components import FIGURE_SWAP, HAND_SIZE, NUM_KINDS, PHASES, TILE_SWAP
from envs.samurai.game import SamuraiGame
from envs.samurai.rules import SET_ASIDE_TO_END, SamuraiState

#: The most tiles one turn can play: one non-quick tile and the five quick ones.
MAX_PLAYED = 6
PILE_SLOTS = 20


class SamuraiBatch(BatchLegal, BatchStateIO, BatchGames):
    """N Samurai games of one configuration as arrays (see the module docstring)."""

    def __init__(self, game: SamuraiGame, num_games: int, seed: int):
        check_batch_args(num_games, seed)
        if not isinstance(game, SamuraiGame):
            raise ValueError(f"game must be a SamuraiGame, got {type(game).__name__}")
        super().__init__(game, num_games, seed)
        self._allocate(num_games)
        self._deal(np.arange(num_games))

    @classmethod
    def from_states(cls, states: list[SamuraiState]) -> SamuraiBatch:
        return cls._loaded(states, SamuraiState)

    def _allocate(self, n: int) -> None:
        p = self.game.num_players
        self.tables = TABLES[p]
        self.phase = np.zeros(n, dtype=np.int64)
        self.player = np.zeros(n, dtype=np.int64)
        self.hand = np.full((n, p, HAND_SIZE), -1, dtype=np.int64)
        self.hand_len = np.zeros((n, p), dtype=np.int64)
        self.pile = np.full((n, p, PILE_SLOTS), -1, dtype=np.int64)
        self.pile_len = np.zeros((n, p), dtype=np.int64)
        self.unplayed = np.zeros((n, p, NUM_KINDS), dtype=np.int64)
        self.tile = np.full((n, len(IS_LAND)), -1, dtype=np.int8)  # int8: the board is most of a step's memory
        self.owner = np.full((n, len(IS_LAND)), -1, dtype=np.int8)
        self.figures = np.zeros((n, DUMMY + 1, 3), dtype=bool)
        self.on_board = np.zeros((n, 3), dtype=np.int64)
        self.set_aside = np.zeros((n, 3), dtype=np.int64)
        self.captured = np.zeros((n, p, 3), dtype=np.int64)
        self.influence = np.zeros((n, DUMMY + 1, p, 3), dtype=np.int64)
        self.need = np.zeros((n, DUMMY + 1), dtype=np.int64)
        self.empty_land = np.zeros(n, dtype=np.int64)
        self.empty_sea = np.zeros(n, dtype=np.int64)
        self.movable = np.zeros((n, p), dtype=np.int64)
        self.turn = np.zeros(n, dtype=np.int64)
        self.played = np.full((n, MAX_PLAYED), -1, dtype=np.int64)
        self.played_len = np.zeros(n, dtype=np.int64)
        self.non_quick = np.zeros(n, dtype=bool)
        self.pending = np.full(n, -1, dtype=np.int64)
        self.first_s = np.full(n, -1, dtype=np.int64)
        self.first_t = np.full(n, -1, dtype=np.int64)
        self.swap_from = np.full(n, -1, dtype=np.int64)
        self.swap_ok = np.zeros(n, dtype=bool)
        self._mask: np.ndarray | None = None
        self._mask_where: tuple[np.ndarray, np.ndarray] | None = None
        self._opening_phase: int | None = None  # the first phase of a deal: known from the first one dealt

    def take(self, rows: np.ndarray) -> SamuraiBatch:
        """A new batch of the games at ``rows`` (copies; rows may repeat), without seeds."""
        other = object.__new__(type(self))
        for name, value in vars(self).items():
            setattr(other, name, value[rows] if isinstance(value, np.ndarray) else value)
        other.num_games = len(rows)
        other.seeds = np.full(len(rows), -1, dtype=np.int64)
        other._ahead = None
        other._changed()
        return other

    def _deal(self, where: np.ndarray) -> None:
        if self._opening_phase is None:
            self._opening_phase = PHASES.index(new_game(self.game, 0).phase)
        super()._deal(where)

    def _deals(self, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return dealt(self.game, seeds)

    # --- what the protocol reads -------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        return self.player

    def observe(self, players: np.ndarray | None = None) -> np.ndarray:
        return observe(self, players)

    def observe_rows(self, rows: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
        """``observe(players)[rows]`` from a batch of those games alone (:meth:`take`): the vector env observes
        the few games that just ended, and a whole batch's observation was a tenth of its step."""
        players = np.maximum(self.player, 0) if players is None else np.asarray(players)
        rows = np.asarray(rows)
        return observe(self.take(rows), players[rows])

    def scores(self) -> np.ndarray:
        return self.captured.sum(axis=2).astype(np.float64)

    def winners(self) -> np.ndarray:
        """The winner procedure of ``scoring.winners`` over every finished game."""
        captured = self.captured
        total = captured.sum(axis=2)
        best = captured.max(axis=1, keepdims=True)
        top = captured == best
        held = top & (top.sum(axis=1, keepdims=True) == 1)  # rule 1: strictly the most of a type
        count = held.sum(axis=2)
        two = count >= 2  # rule 2
        single = count == 1  # rule 3: one majority each; count the other two types
        others = np.where(single, total - (captured * held).sum(axis=2), -1)
        top3 = single & (others == others.max(axis=1, keepdims=True))
        by_total = np.where(top3, total, -1)
        top3 = np.where(top3.sum(axis=1, keepdims=True) > 1, by_total == by_total.max(axis=1, keepdims=True), top3)
        most = total == total.max(axis=1, keepdims=True)  # rule 4: nobody has a majority
        won = np.where(two.any(axis=1, keepdims=True), two, np.where(single.any(axis=1, keepdims=True), top3, most))
        return won & (self.player == NO_PLAYER)[:, None]

    # --- playing -----------------------------------------------------------------
    def step(self, actions: np.ndarray) -> None:
        self._play(self.check_actions(actions), np.flatnonzero(self.player >= 0))

    def step_where(self, actions: np.ndarray, where: np.ndarray) -> None:
        """Play only the games ``where`` (the vector env's and training's learner waits while opponents move)."""
        actions = self.check_actions(actions, where)
        self._play(actions, np.flatnonzero((self.player >= 0) & where))

    def _play(self, actions: np.ndarray, rows: np.ndarray) -> None:
        """Play the checked ``actions`` in the games ``rows`` (all still going)."""
        self._changed()
        if not rows.size:
            return
        act, phase, pending = actions[rows], self.phase[rows], self.pending[rows]
        play = phase == PLAY
        self._choose_into_hand(rows[phase == CHOOSE_HAND], act[phase == CHOOSE_HAND])
        self._draft(rows[phase == DRAFT], act[phase == DRAFT])
        choosing = play & (pending < 0)
        ending = choosing & (act == END_TURN)
        chose = choosing & ~ending
        self.pending[rows[chose]] = act[chose]
        swap = play & (pending == FIGURE_SWAP)
        first = swap & (self.first_s[rows] < 0)
        self.first_s[rows[first]], self.first_t[rows[first]] = np.divmod(act[first] - FIGURE, 3)
        second = swap & ~first
        self._swap_figures(rows[second], act[second])
        tile_swap = play & (pending == TILE_SWAP)
        pick = tile_swap & (self.swap_from[rows] < 0)
        self.swap_from[rows[pick]] = act[pick] - HEX
        move = tile_swap & ~pick
        self._move_tile(rows[move], act[move] - HEX)
        place = play & (pending >= 0) & ~swap & ~tile_swap
        self._place(rows[place], pending[place], act[place] - HEX)
        done = second | move | place
        stuck = self._tile_played(rows[done])
        self._end_turn(np.concatenate([rows[ending], stuck]))

    def _choose_into_hand(self, rows: np.ndarray, kinds: np.ndarray) -> None:
        """choose_hand: the kind leaves the pile (the rest keeps its order) for the hand."""
        if not rows.size:
            return
        players = self.player[rows]
        self.pile[rows, players] = _remove_first(self.pile[rows, players], kinds)
        self.pile_len[rows, players] -= 1
        self.hand[rows, players, self.hand_len[rows, players]] = kinds
        self.hand_len[rows, players] += 1
        full = self.hand_len[rows, players] == HAND_SIZE
        rows, players = rows[full], players[full]
        last = players + 1 == self.game.num_players
        self.player[rows[~last]] = players[~last] + 1
        rows = rows[last]
        if self.game.figure_setup == "draft":
            self.phase[rows], self.player[rows] = DRAFT, 0
        else:
            self.phase[rows] = PLAY
            self._start_turn(rows, np.zeros(len(rows), dtype=np.int64))

    def _draft(self, rows: np.ndarray, actions: np.ndarray) -> None:
        if not rows.size:
            return
        s, t = np.divmod(actions - FIGURE, 3)
        self.figures[rows, s, t] = True
        self.on_board[rows, t] += 1
        self._figures_moved(rows)
        more = (self.on_board[rows] < self.tables.supply).any(axis=1)
        self.player[rows[more]] = (self.player[rows[more]] + 1) % self.game.num_players
        rows = rows[~more]
        self.phase[rows] = PLAY
        self._start_turn(rows, np.zeros(len(rows), dtype=np.int64))

    def _swap_figures(self, rows: np.ndarray, actions: np.ndarray) -> None:
        s2, t2 = np.divmod(actions - FIGURE, 3)
        s1, t1 = self.first_s[rows], self.first_t[rows]
        self.figures[rows, s1, t1] = False
        self.figures[rows, s2, t2] = False
        self.figures[rows, s1, t2] = True
        self.figures[rows, s2, t1] = True
        self._figures_moved(rows)

    def _move_tile(self, rows: np.ndarray, hexes: np.ndarray) -> None:
        """Tile swap: the swap tile takes the picked tile's hex, the picked tile goes to ``hexes``."""
        players, source = self.player[rows], self.swap_from[rows]
        moved = self.tile[rows, source]
        self.tile[rows, source] = TILE_SWAP  # no influence: the moved tile's leaves that hex
        self._add_influence(rows, source, players, -INFLUENCE_OF[moved])
        self.movable[rows, players] -= 1
        self._place(rows, moved, hexes)

    def _place(self, rows: np.ndarray, kinds: np.ndarray, hexes: np.ndarray) -> None:
        """Put a tile on an empty hex and resolve every settlement it surrounds."""
        if not rows.size:
            return
        players = self.player[rows]
        self.tile[rows, hexes] = kinds
        self.owner[rows, hexes] = players
        self.movable[rows, players] += MOVABLE_OF[kinds]
        near = self.tables.near[hexes]  # (m, 2)
        self._add_influence(rows, hexes, players, INFLUENCE_OF[kinds])
        land = IS_LAND[hexes]
        self.empty_sea[rows[~land]] -= 1
        rows, near = rows[land], near[land]
        self.empty_land[rows] -= 1
        self.need[rows[:, None], near] -= 1  # two different settlements, or padding
        closed = (near != DUMMY) & (self.need[rows[:, None], near] == 0) & any3(self.figures[rows[:, None], near])
        if closed.any():
            for j in range(near.shape[1]):
                self._resolve(rows[closed[:, j]], near[closed[:, j], j])
            self._figures_moved(rows[closed.any(axis=1)])

    def _add_influence(self, rows: np.ndarray, hexes: np.ndarray, players: np.ndarray, amounts: np.ndarray) -> None:
        """Each player's influence ``amounts[i]`` (per type) at ``hexes[i]``, added to the settlements next to it
        (through a flat index: numpy's fancy indexing is fastest on one axis)."""
        _, settlements, seats, types = self.influence.shape
        cells = (rows[:, None] * settlements + self.tables.near[hexes]) * seats + players[:, None]  # (m, 2)
        flat = self.influence.reshape(-1)
        at = cells[:, :, None] * types + TYPES  # (m, 2, 3): two different settlements, or the spare one
        flat[at] += amounts[:, None, :]

    def _resolve(self, rows: np.ndarray, s: np.ndarray) -> None:
        """A surrounded settlement: each figure to strictly the highest influence, a tie sets it aside."""
        if not rows.size:
            return
        influence = self.influence[rows, s]  # (m, P, 3)
        present = self.figures[rows, s]
        best = influence.max(axis=1)
        single = (influence == best[:, None, :]).sum(axis=1) == 1
        winner = influence.argmax(axis=1)
        capture = present & single
        self.captured[rows[:, None], winner, TYPES] += capture
        self.set_aside[rows] += present & ~single
        self.on_board[rows] -= present
        self.figures[rows, s] = False

    def _tile_played(self, rows: np.ndarray) -> np.ndarray:
        """The chosen tile's action is complete: it leaves the hand; then the game may end. Returns the
        rows whose player has nothing left to play (their turn ends by itself)."""
        if not rows.size:
            return rows
        players, kinds = self.player[rows], self.pending[rows]
        self.hand[rows, players] = _remove_first(self.hand[rows, players], kinds)
        self.hand_len[rows, players] -= 1
        self.unplayed[rows, players, kinds] -= 1
        self.played[rows, self.played_len[rows]] = kinds
        self.played_len[rows] += 1
        self.non_quick[rows] |= ~QUICK_OF[kinds]
        self.pending[rows] = self.first_s[rows] = self.first_t[rows] = self.swap_from[rows] = -1
        over = any3(self.on_board[rows] == 0) | (self.set_aside[rows].sum(axis=1) >= SET_ASIDE_TO_END)
        self.player[rows[over]] = NO_PLAYER
        rows = rows[~over]
        return rows[~self._playable(rows).any(axis=1)]

    def _end_turn(self, rows: np.ndarray) -> None:
        if not rows.size:
            return
        players = self.player[rows]
        self._refill(rows, players)
        self.turn[rows] += 1
        self.played[rows] = -1
        self.played_len[rows] = 0
        self.non_quick[rows] = False
        self._start_turn(rows, (players + 1) % self.game.num_players)

    def _refill(self, rows: np.ndarray, players: np.ndarray) -> None:
        """Draw from one's own pile back up to five tiles while the pile lasts."""
        have, left = self.hand_len[rows, players], self.pile_len[rows, players]
        draw = np.minimum(HAND_SIZE - have, left)
        pile = self.pile[rows, players]
        slots = np.arange(HAND_SIZE)
        from_pile = (slots >= have[:, None]) & (slots < (have + draw)[:, None])
        taken = np.take_along_axis(pile, np.clip(slots - have[:, None], 0, PILE_SLOTS - 1), axis=1)
        self.hand[rows, players] = np.where(from_pile, taken, self.hand[rows, players])
        self.hand_len[rows, players] = have + draw
        shift = np.arange(PILE_SLOTS) + draw[:, None]
        padded = np.concatenate([pile, np.full((len(rows), HAND_SIZE), -1)], axis=1)
        self.pile[rows, players] = np.take_along_axis(padded, shift, axis=1)
        self.pile_len[rows, players] = left - draw

    def _start_turn(self, rows: np.ndarray, first: np.ndarray) -> None:
        """The first player from ``first`` on who can play a tile acts; each one before passes (a turn);
        when nobody can, the game is over."""
        if not rows.size:
            return
        n = self.game.num_players
        order = (first[:, None] + np.arange(n)) % n
        can = np.take_along_axis(self._can_play(rows), order, axis=1)
        passes = can.argmax(axis=1)
        anyone = can.any(axis=1)
        self.player[rows] = np.where(anyone, order[np.arange(len(rows)), passes], NO_PLAYER)
        self.turn[rows] += np.where(anyone, passes, n)


def _remove_first(slots: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Each row of ``slots`` without the first entry equal to ``kinds[row]``, the rest moved up, -1 at the end."""
    at = (slots == kinds[:, None]).argmax(axis=1)
    width = slots.shape[1]
    source = np.arange(width) + (np.arange(width) >= at[:, None])
    padded = np.concatenate([slots, np.full((len(slots), 1), -1)], axis=1)
    return np.take_along_axis(padded, source, axis=1)


BATCH_CLASS = SamuraiBatch
