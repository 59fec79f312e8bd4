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
from envs.samurai.components import FIGURE_SWAP, NUM_KINDS, SHIPS, TILE_SWAP

SHIP1, SHIP2 = SHIPS


@kernel
def swap_table(figures, i):
    """``(3, 3)``: ``[a, b]`` some settlement of game ``i`` holds a figure of type a and none of type b
    (``figure_moves.swap_table``)."""
    table = np.zeros((3, 3), dtype=np.bool_)
    for s in range(figures.shape[1]):
        for a in range(3):
            if figures[i, s, a]:
                for b in range(3):
                    if not figures[i, s, b]:
                        table[a, b] = True
    return table


@kernel
def figures_moved(games, i):
    """Keep ``swap_ok`` (whether any figure exchange is legal, ``figure_moves.swap_possible``): figures move
    seldom, and every tile choice asks."""
    t = swap_table(games.figures, i)
    games.swap_ok[i] = (t[0, 1] and t[1, 0]) or (t[0, 2] and t[2, 0]) or (t[1, 2] and t[2, 1])


@kernel
def keep_swap_ok(games, rows):
    """:func:`figures_moved` in the games ``rows`` (figures dealt or loaded)."""
    for i in rows:
        figures_moved(games, i)


@kernel
def target_open(games, i, p, target):
    """Whether a tile of target class ``target`` (``rules.TARGET``) has somewhere to go for player ``p``."""
    if target == 0:
        return games.empty_land[i] > 0
    if target == 1:
        return games.empty_sea[i] > 0
    if target == 2:
        return games.swap_ok[i]
    return games.empty_land[i] > 0 and games.movable[i, p] > 0


@kernel
def kind_playable(games, i, p, kind, non_quick):
    """Whether player ``p`` could play a tile of ``kind`` now (held or not: the caller says it is in hand)."""
    return (QUICK_OF[kind] or not non_quick) and target_open(games, i, p, TARGET_OF[kind])


@kernel
def can_play(games, i, p, non_quick):
    """Whether player ``p`` has a tile in hand to play (``SamuraiState.playable_kinds`` is not empty)."""
    for slot in range(games.hand_len[i, p]):
        if kind_playable(games, i, p, games.hand[i, p, slot], non_quick):
            return True
    return False


@kernel
def choose_hand_row(games, i, row):
    """choose_hand: any kind left in the pile."""
    p = games.player[i]
    for slot in range(games.pile_len[i, p]):
        row[games.pile[i, p, slot]] = True


@kernel
def draft_row(games, board, i, row):
    """Draft (``figure_moves.draft_actions``): the open cities first, then the open villages; a type the
    settlement lacks, while the supply has one."""
    figures = games.figures
    cities = False
    for s in range(DUMMY):
        count = figures[i, s, 0] + figures[i, s, 1] + figures[i, s, 2]
        if board.on_board[s] and count < CAPACITY_OF[s] and CAPACITY_OF[s] > 1:
            cities = True
    for s in range(DUMMY):
        count = figures[i, s, 0] + figures[i, s, 1] + figures[i, s, 2]
        if not board.on_board[s] or count >= CAPACITY_OF[s] or (cities and CAPACITY_OF[s] <= 1):
            continue
        for t in range(3):
            if not figures[i, s, t] and board.supply - games.on_board[i, t] > 0:
                row[FIGURE + 3 * s + t] = True


@kernel
def tile_row(games, i, row):
    """A tile to choose (``SamuraiState.tile_choices``), and the end of the turn once a tile is played."""
    p = games.player[i]
    for slot in range(games.hand_len[i, p]):
        kind = games.hand[i, p, slot]
        if kind_playable(games, i, p, kind, games.non_quick[i]):
            row[kind] = True
    row[END_TURN] = games.played_len[i] > 0


@kernel
def empty_hexes_row(games, i, on, row):
    """The empty hexes of the board part ``on`` (its land or its sea)."""
    for h in range(on.size):
        if on[h] and games.tile[i, h] < 0:
            row[HEX + h] = True


@kernel
def own_movable_row(games, i, row):
    """The tile swap's pick: an own tile a swap may move."""
    p = games.player[i]
    for h in range(games.tile.shape[1]):
        if games.owner[i, h] == p and MOVABLE_OF[games.tile[i, h]]:
            row[HEX + h] = True


@kernel
def first_figures_row(games, i, row):
    """The figure swap's first figure (s, t1): one with a partner, a type t2 that s lacks and that some
    settlement holds without a t1 (``figure_moves.first_figures``)."""
    figures = games.figures
    table = swap_table(figures, i)
    for s in range(DUMMY):
        for t1 in range(3):
            if not figures[i, s, t1]:
                continue
            for t2 in range(3):
                if t2 != t1 and not figures[i, s, t2] and table[t2, t1]:
                    row[FIGURE + 3 * s + t1] = True


@kernel
def partners_row(games, i, row):
    """The figure swap's second figure (``figure_moves.partners``): of another type, and neither settlement
    holds the type it receives."""
    figures = games.figures
    s1, t1 = games.first_s[i], games.first_t[i]
    for s in range(DUMMY):
        if figures[i, s, t1]:
            continue
        for t2 in range(3):
            if t2 != t1 and figures[i, s, t2] and not figures[i, s1, t2]:
                row[FIGURE + 3 * s + t2] = True


@kernel
def mask_row(games, board, i, row):
    """Game ``i``'s legal actions into ``row`` (all False): its sub-step's rule."""
    phase, pending = games.phase[i], games.pending[i]
    if phase == CHOOSE_HAND:
        choose_hand_row(games, i, row)
    elif phase == DRAFT:
        draft_row(games, board, i, row)
    elif pending < 0:
        tile_row(games, i, row)
    elif pending == SHIP1 or pending == SHIP2:
        empty_hexes_row(games, i, board.sea_on, row)
    elif pending == FIGURE_SWAP:
        if games.first_s[i] < 0:
            first_figures_row(games, i, row)
        else:
            partners_row(games, i, row)
    elif pending == TILE_SWAP and games.swap_from[i] < 0:
        own_movable_row(games, i, row)
    else:
        empty_hexes_row(games, i, board.land_on, row)


@kernel
def fill_masks(games, board, going, mask):
    """Every game of ``going``'s row of ``mask`` (all False on entry)."""
    for i in range(going.size):
        if going[i] and games.player[i] >= 0:
            mask_row(games, board, i, mask[i])


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

    def _figures_moved(self, rows: np.ndarray) -> None:
        """The figures of the games ``rows`` were dealt or loaded: their ``swap_ok``."""
        keep_swap_ok(games_of(self), np.asarray(rows, dtype=np.int64))

    def _compute_mask(self, going: np.ndarray) -> np.ndarray:
        """The legal actions in the games ``going`` still going (all False in the others)."""
        mask = np.zeros((self.num_games, NUM_ACTIONS), dtype=bool)
        fill_masks(games_of(self), self.board, going, mask)
        return mask

    def _first_illegal(self, actions: np.ndarray, going: np.ndarray, mask: np.ndarray) -> int:
        """The first game of ``going`` whose action ``mask`` does not allow, or -1."""
        return int(first_illegal(mask, actions, going))


assert NUM_KINDS == END_TURN and MOVABLE_OF.shape == (NUM_KINDS + 1,)
