"""Legal actions of the Samurai batch (``batch.py``): ``SamuraiState._compute_legal`` game by game in compiled
kernels, sub-step by sub-step (the hand choice, the draft, a tile to choose, its hex or figures).

Why kernels: each game is in one sub-step, and whole-array numpy paid for every sub-step in every game;
a kernel loops over the games asked for and fills each one's row by its own sub-step only.
"""

from __future__ import annotations

import numpy as np

from envs.core.compiled import kernel
from envs.samurai.actions import END_TURN, FIGURE, HEX, NUM_ACTIONS
from envs.samurai.batch_arrays import games_of
from envs.samurai.batch_tables import CAPACITY_OF, CHOOSE_HAND, DRAFT, DUMMY, MOVABLE_OF, QUICK_OF, TARGET_OF
from envs.samurai.components import FIGURE_SWAP, SHIPS, TILE_SWAP

SHIP1, SHIP2 = SHIPS


@kernel
def swap_table(figures):
    """``(3, 3)``: ``[a, b]`` some settlement of one game's ``figures`` ``(S+1, 3)`` holds a figure of type a
    and none of type b (``figure_moves.swap_table``)."""
    table = np.zeros((3, 3), dtype=np.bool_)
    for s in range(figures.shape[0]):
        for a in range(3):
            if figures[s, a]:
                for b in range(3):
                    if not figures[s, b]:
                        table[a, b] = True
    return table


@kernel
def swap_possible(figures):
    """Whether any figure exchange is legal (``figure_moves.swap_possible``): kept in ``swap_ok``, as figures
    move seldom and every tile choice asks."""
    t = swap_table(figures)
    return (t[0, 1] and t[1, 0]) or (t[0, 2] and t[2, 0]) or (t[1, 2] and t[2, 1])


@kernel
def open_targets(empty_land, empty_sea, swap_ok, movable):
    """Which target classes (``rules.TARGET``) have somewhere to go, from a game's counts of empty land and sea
    hexes, its ``swap_ok`` and the player's movable tiles: bit c for class c. Why scalars and bits: a kind's
    playability is then a test on scalars, and a kernel call that takes the whole batch's arrays costs a
    reference count per array."""
    land = empty_land > 0
    return land | (empty_sea > 0) << 1 | swap_ok << 2 | (land and movable > 0) << 3


@kernel
def kind_playable(kind, non_quick, targets):
    """Whether a tile of ``kind`` could be played now, with the classes ``targets`` open (:func:`open_targets`)."""
    return (QUICK_OF[kind] or not non_quick) and (targets >> TARGET_OF[kind]) & 1 == 1


@kernel
def can_play(hand, count, non_quick, targets):
    """Whether a hand (its first ``count`` slots) holds a tile to play (``SamuraiState.playable_kinds``)."""
    for slot in range(count):
        if kind_playable(hand[slot], non_quick, targets):
            return True
    return False


@kernel
def choose_hand_row(pile, count, row):
    """choose_hand: any kind left in the pile (its first ``count`` slots)."""
    for slot in range(count):
        row[pile[slot]] = True


@kernel
def draft_row(figures, on_board, settlement_on, supply, row):
    """Draft (``figure_moves.draft_actions``) of one game's ``figures`` ``(S+1, 3)``: the open cities first,
    then the open villages; a type the settlement lacks, while the supply has one."""
    cities = False
    for s in range(DUMMY):
        count = figures[s, 0] + figures[s, 1] + figures[s, 2]
        if settlement_on[s] and count < CAPACITY_OF[s] and CAPACITY_OF[s] > 1:
            cities = True
    for s in range(DUMMY):
        count = figures[s, 0] + figures[s, 1] + figures[s, 2]
        if not settlement_on[s] or count >= CAPACITY_OF[s] or (cities and CAPACITY_OF[s] <= 1):
            continue
        for t in range(3):
            if not figures[s, t] and supply - on_board[t] > 0:
                row[FIGURE + 3 * s + t] = True


@kernel
def tile_row(hand, count, non_quick, targets, played, row):
    """A tile to choose (``SamuraiState.tile_choices``), and the end of the turn once a tile is played."""
    for slot in range(count):
        if kind_playable(hand[slot], non_quick, targets):
            row[hand[slot]] = True
    row[END_TURN] = played > 0


@kernel
def empty_hexes_row(tile, on, row):
    """The empty hexes of the board part ``on`` (its land or its sea), of one game's ``tile``."""
    for h in range(on.size):
        if on[h] and tile[h] < 0:
            row[HEX + h] = True


@kernel
def own_movable_row(tile, owner, p, row):
    """The tile swap's pick: a tile of player ``p`` that a swap may move."""
    for h in range(tile.size):
        if owner[h] == p and MOVABLE_OF[tile[h]]:
            row[HEX + h] = True


@kernel
def first_figures_row(figures, row):
    """The figure swap's first figure (s, t1) of one game's ``figures``: one with a partner, a type t2 that s
    lacks and that some settlement holds without a t1 (``figure_moves.first_figures``)."""
    table = swap_table(figures)
    for s in range(DUMMY):
        for t1 in range(3):
            if not figures[s, t1]:
                continue
            for t2 in range(3):
                if t2 != t1 and not figures[s, t2] and table[t2, t1]:
                    row[FIGURE + 3 * s + t1] = True


@kernel
def partners_row(figures, s1, t1, row):
    """The figure swap's second figure (``figure_moves.partners``): of another type, and neither settlement
    holds the type it receives."""
    for s in range(DUMMY):
        if figures[s, t1]:
            continue
        for t2 in range(3):
            if t2 != t1 and figures[s, t2] and not figures[s1, t2]:
                row[FIGURE + 3 * s + t2] = True


@kernel
def fill_masks(games, board, going, mask):
    """Every game of ``going``'s row of ``mask`` (all False on entry): the rule of its sub-step
    (``SamuraiState._compute_legal``). The helpers take one game's arrays: a kernel call that takes the whole
    batch's arrays costs a reference count per array."""
    for i in range(going.size):
        p = games.player[i]
        if not going[i] or p < 0:
            continue
        phase, pending, row = games.phase[i], games.pending[i], mask[i]
        if phase == CHOOSE_HAND:
            choose_hand_row(games.pile[i, p], games.pile_len[i, p], row)
        elif phase == DRAFT:
            draft_row(games.figures[i], games.on_board[i], board.on_board, board.supply, row)
        elif pending < 0:
            targets = open_targets(games.empty_land[i], games.empty_sea[i], games.swap_ok[i], games.movable[i, p])
            tile_row(games.hand[i, p], games.hand_len[i, p], games.non_quick[i], targets, games.played_len[i], row)
        elif pending == SHIP1 or pending == SHIP2:
            empty_hexes_row(games.tile[i], board.sea_on, row)
        elif pending == FIGURE_SWAP and games.first_s[i] < 0:
            first_figures_row(games.figures[i], row)
        elif pending == FIGURE_SWAP:
            partners_row(games.figures[i], games.first_s[i], games.first_t[i], row)
        elif pending == TILE_SWAP and games.swap_from[i] < 0:
            own_movable_row(games.tile[i], games.owner[i], p, row)
        else:
            empty_hexes_row(games.tile[i], board.land_on, row)


@kernel
def first_illegal(mask, actions, going):
    """The first game of ``going`` whose action is not legal in ``mask`` (out of range included), or -1."""
    for i in range(going.size):
        if going[i] and not (0 <= actions[i] < mask.shape[1] and mask[i, actions[i]]):
            return i
    return -1


class BatchLegal:
    """Mixin of :class:`~envs.samurai.batch.SamuraiBatch`: what each game's player to act may do."""

    def legal_mask(self) -> np.ndarray:
        """``(N, 294)`` bool, read-only (kept until the next step)."""
        if self._mask is None:
            self._mask = self._compute_mask(self.player >= 0)
            self._mask.flags.writeable = False
        return self._mask

    def legal_mask_where(self, where: np.ndarray) -> np.ndarray:
        """The mask of the games ``where`` alone, read-only (kept until the next step, for the same ``where``:
        an opponents' pass asks for it to choose, then to check): the vector env's opponents move in fewer
        games pass after pass."""
        if self._mask is not None:
            return self._mask & where[:, None]
        if not ((self.player >= 0) & ~where).any():  # every game still going is asked for: the whole mask
            return self.legal_mask()
        if self._mask_where is None or not np.array_equal(self._mask_where[0], where):
            mask = self._compute_mask(where)
            mask.flags.writeable = False
            self._mask_where = (where.copy(), mask)
        return self._mask_where[1]

    def _changed(self) -> None:
        """Forget the masks: the games moved or were dealt."""
        self._mask = self._mask_where = None

    def _compute_mask(self, going: np.ndarray) -> np.ndarray:
        """The legal actions in the games ``going`` still going (all False in the others)."""
        mask = np.zeros((self.num_games, NUM_ACTIONS), dtype=bool)
        fill_masks(games_of(self), self.board, going, mask)
        return mask
