"""Legal actions of the Samurai batch (``batch.py``): ``SamuraiState._compute_legal`` for every game at once,
sub-step by sub-step (the hand choice, the draft, a tile to choose, its hex or figures)."""

from __future__ import annotations

import numpy as np

from envs.samurai.actions import END_TURN, FIGURE, HEX, NUM_ACTIONS
from envs.samurai.batch_tables import (
    CAPACITY_OF,
    CHOOSE_HAND,
    DRAFT,
    DUMMY,
    MOVABLE_OF,
    PLAY,
    QUICK_OF,
    TARGET_OF,
    TYPES,
)  # fmt: skip
from envs.samurai.components import FIGURE_SWAP, NUM_KINDS, SHIPS, TILE_SWAP

#: ``[set, 3a + b]``: a set of figure types (bit t: type t) holds type a and not type b.
HOLDS_WITHOUT = np.array(
    [[(s >> a) & 1 and not (s >> b) & 1 for a in range(3) for b in range(3)] for s in range(8)], dtype=np.int64
)


class BatchLegal:
    """Mixin of :class:`~envs.samurai.batch.SamuraiBatch`: what each game's player to act may do."""

    def _swap_table(self, rows: np.ndarray) -> np.ndarray:
        """``(m, 3, 3)``: ``[a, b]`` some settlement holds a figure of type a and none of type b."""
        figures = self.figures[rows]
        sets = figures[:, :, 0] + 2 * figures[:, :, 1] + 4 * figures[:, :, 2]  # each settlement's set of types
        present = np.zeros((len(rows), 8), dtype=np.int64)
        present[np.arange(len(rows))[:, None], sets] = 1  # which sets occur (from each of its settlements)
        return (present @ HOLDS_WITHOUT > 0).reshape(-1, 3, 3)

    def _swap_possible(self, rows: np.ndarray) -> np.ndarray:
        """Whether any figure exchange is legal (kept in ``swap_ok``: figures move seldom)."""
        return self.swap_ok[rows]

    def _figures_moved(self, rows: np.ndarray) -> None:
        table = self._swap_table(rows)
        self.swap_ok[rows] = (table & table.transpose(0, 2, 1)).any(axis=(1, 2))

    def _targets(self, rows: np.ndarray, players: np.ndarray) -> np.ndarray:
        """``(m, 5)``: whether each target class (``rules.TARGET``) has somewhere to go, and a 5th False."""
        land = self.empty_land[rows] > 0
        out = np.zeros((len(rows), 5), dtype=bool)
        out[:, 0] = land
        out[:, 1] = self.empty_sea[rows] > 0
        out[:, 2] = self._swap_possible(rows)
        out[:, 3] = land & (self.movable[rows, players] > 0)
        return out

    def _playable(self, rows: np.ndarray) -> np.ndarray:
        """``(m, 17)``: the kinds the player to act could play now (``SamuraiState.tile_choices``)."""
        players = self.player[rows]
        in_hand = self.hand_kinds(rows, players)
        allowed = QUICK_OF[None, :] | ~self.non_quick[rows, None]
        return in_hand & allowed & self._targets(rows, players)[:, TARGET_OF[:NUM_KINDS]]

    def hand_kinds(self, rows: np.ndarray, players: np.ndarray) -> np.ndarray:
        """``(m, 17)`` bool: the kinds in each player's hand."""
        hand = self.hand[rows, players]
        out = np.zeros((len(rows), NUM_KINDS + 1), dtype=bool)
        out[np.arange(len(rows))[:, None], hand] = True  # -1 (empty slots) marks the spare last column
        return out[:, :NUM_KINDS]

    def _can_play(self, rows: np.ndarray) -> np.ndarray:
        """``(m, P)``: whether each player could play a tile at the start of a turn."""
        classes = TARGET_OF[self.hand[rows]]  # (m, P, 5)
        targets = self._targets_all(rows)  # (m, P, 5)
        hits = np.take_along_axis(targets, classes, axis=2)
        return hits[:, :, 0] | hits[:, :, 1] | hits[:, :, 2] | hits[:, :, 3] | hits[:, :, 4]

    def _targets_all(self, rows: np.ndarray) -> np.ndarray:
        land = self.empty_land[rows] > 0
        out = np.zeros((len(rows), self.game.num_players, 5), dtype=bool)
        out[:, :, 0] = land[:, None]
        out[:, :, 1] = (self.empty_sea[rows] > 0)[:, None]
        out[:, :, 2] = self._swap_possible(rows)[:, None]
        out[:, :, 3] = land[:, None] & (self.movable[rows] > 0)
        return out

    def legal_mask(self) -> np.ndarray:
        """``(N, 294)`` bool, read-only (kept until the next step)."""
        if self._mask is None:
            self._mask = self._compute_mask(self.player >= 0)
            self._mask.flags.writeable = False
        return self._mask

    def legal_mask_where(self, where: np.ndarray) -> np.ndarray:
        """The mask of the games ``where`` alone, read-only (kept until the next step, for the same ``where``:
        an opponents' pass asks for it to choose, then to check): the vector env's opponents move in fewer
        games pass after pass, and the whole batch's mask was a fifth of its step."""
        going = self.player >= 0
        everywhere = not (going & ~where).any()  # every game still going is asked for: the whole mask
        if self._mask is not None or everywhere:
            return self.legal_mask() if everywhere else self._mask & where[:, None]
        if self._mask_where is None or not np.array_equal(self._mask_where[0], where):
            mask = self._compute_mask(going & where)
            mask.flags.writeable = False
            self._mask_where = (where.copy(), mask)
        return self._mask_where[1]

    def _changed(self) -> None:
        """Forget the masks: the games moved or were dealt."""
        self._mask = self._mask_where = None

    def _compute_mask(self, going: np.ndarray) -> np.ndarray:
        """The legal actions in the games ``going`` (all False in the others)."""
        mask = np.zeros((self.num_games, NUM_ACTIONS), dtype=bool)
        phase, pending = self.phase, self.pending
        rows = np.flatnonzero(going & (phase == CHOOSE_HAND))
        if rows.size:
            piles = self.pile[rows, self.player[rows]]
            kinds = np.zeros((rows.size, NUM_KINDS + 1), dtype=bool)
            kinds[np.arange(rows.size)[:, None], piles] = True
            mask[rows, :NUM_KINDS] = kinds[:, :NUM_KINDS]
        rows = np.flatnonzero(going & (phase == DRAFT))
        if rows.size:
            mask[rows, FIGURE:] = self._draft_mask(rows)
        play = going & (phase == PLAY)
        rows = np.flatnonzero(play & (pending < 0))
        if rows.size:
            mask[rows, :NUM_KINDS] = self._playable(rows)
            mask[rows, END_TURN] = self.played_len[rows] > 0
        picking = play & (pending == TILE_SWAP) & (self.swap_from < 0)
        on_sea = play & ((pending == SHIPS[0]) | (pending == SHIPS[1]))
        on_land = play & ((pending >= 0) & (TARGET_OF[pending] == 0) | (pending == TILE_SWAP) & ~picking)
        if on_sea.any() or on_land.any():  # every game at once: whole-array operations beat row gathers
            tables = self.tables
            targets = (on_land[:, None] & tables.land_on) | (on_sea[:, None] & tables.sea_on)
            mask[:, HEX:FIGURE] = targets & (self.tile < 0)
        rows = np.flatnonzero(picking)
        if rows.size:
            mine = self.owner[rows] == self.player[rows, None]
            mask[rows, HEX:FIGURE] = mine & MOVABLE_OF[self.tile[rows]]
        swapping = play & (pending == FIGURE_SWAP)
        rows = np.flatnonzero(swapping & (self.first_s < 0))
        if rows.size:
            mask[rows, FIGURE:] = self._first_figures(rows)
        rows = np.flatnonzero(swapping & (self.first_s >= 0))
        if rows.size:
            mask[rows, FIGURE:] = self._partners(rows)
        return mask

    def _draft_mask(self, rows: np.ndarray) -> np.ndarray:
        figures = self.figures[rows, :DUMMY]
        capacity = CAPACITY_OF[:DUMMY]
        open_ = (figures.sum(axis=2) < capacity) & self.tables.on_board[:DUMMY]
        cities = open_ & (capacity > 1)
        use = np.where(cities.any(axis=1, keepdims=True), cities, open_)
        supply = self.tables.supply - self.on_board[rows] > 0
        return (use[:, :, None] & ~figures & supply[:, None, :]).reshape(len(rows), -1)

    def _first_figures(self, rows: np.ndarray) -> np.ndarray:
        """The figure swap's first figures: a figure (s, t1) with a t2 missing in s that some settlement
        holds without a t1 (``figure_moves.first_figures``)."""
        figures = self.figures[rows, :DUMMY]
        table = self._swap_table(rows)  # [a, b]
        partner = ~figures[:, :, None, :] & table.transpose(0, 2, 1)[:, None, :, :]  # [m, s, t1, t2]
        partner &= ~np.eye(3, dtype=bool)
        return (figures & partner.any(axis=3)).reshape(len(rows), -1)

    def _partners(self, rows: np.ndarray) -> np.ndarray:
        figures = self.figures[rows, :DUMMY]
        m = np.arange(len(rows))
        s1, t1 = self.first_s[rows], self.first_t[rows]
        at_s1 = figures[m, s1]  # (m, 3)
        lacks_t1 = ~figures[m, :, t1]  # (m, S)
        ok = figures & ~at_s1[:, None, :] & lacks_t1[:, :, None] & (TYPES[None, :] != t1[:, None])[:, None, :]
        return ok.reshape(len(rows), -1)
