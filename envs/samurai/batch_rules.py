"""The rules of ``rules.py`` as compiled kernels over the Samurai batch's arrays (``batch_arrays.Games``),
one function per rule step, each on one game ``i``: :func:`play` loops over the games that move.

Why: a Samurai turn is many sub-steps, and each game of a batch is in its own; numpy paid for every
sub-step's branch in every game, with a fixed cost per call. Here each game runs its own branch. The
functions follow ``SamuraiState``'s methods of the same names; the batch's lookups (influence, empty
hexes, movable tiles, ``swap_ok``) are kept as they change. The spare settlement column (``DUMMY``) of
``near`` is padding: nothing is written there.
"""

from __future__ import annotations

from envs.core.batch import NO_PLAYER
from envs.core.compiled import kernel
from envs.samurai.actions import END_TURN, FIGURE, HEX
from envs.samurai.batch_legal import can_play, figures_moved
from envs.samurai.batch_tables import CHOOSE_HAND, DRAFT, DUMMY, INFLUENCE_OF, IS_LAND, MOVABLE_OF, PLAY, QUICK_OF
from envs.samurai.components import FIGURE_SWAP, HAND_SIZE, TILE_SWAP
from envs.samurai.rules import SET_ASIDE_TO_END


@kernel
def play(games, board, actions, going):
    """Play ``actions[i]`` (checked) in every game of ``going`` still going."""
    for i in range(going.size):
        if going[i] and games.player[i] >= 0:
            play_one(games, board, i, actions[i])


@kernel
def play_one(games, board, i, action):
    """``SamuraiState._play``: the action's meaning follows the phase and the sub-step."""
    phase, pending = games.phase[i], games.pending[i]
    if phase == CHOOSE_HAND:
        choose_into_hand(games, board, i, action)
    elif phase == DRAFT:
        draft(games, board, i, (action - FIGURE) // 3, (action - FIGURE) % 3)
    elif pending < 0:
        if action == END_TURN:
            end_turn(games, board, i)
        else:
            games.pending[i] = action
    elif pending == FIGURE_SWAP:
        s, t = (action - FIGURE) // 3, (action - FIGURE) % 3
        if games.first_s[i] < 0:
            games.first_s[i], games.first_t[i] = s, t
            return
        swap_figures(games, i, games.first_s[i], games.first_t[i], s, t)
        tile_played(games, board, i)
    elif pending == TILE_SWAP:
        if games.swap_from[i] < 0:
            games.swap_from[i] = action - HEX
            return
        move_tile(games, board, i, action - HEX)
        tile_played(games, board, i)
    else:
        place(games, board, i, pending, action - HEX)
        tile_played(games, board, i)


@kernel
def remove_first(slots, kind):
    """``slots`` (padded with -1) without its first ``kind``, the rest moved up, -1 at the end."""
    at = 0
    while slots[at] != kind:
        at += 1
    for k in range(at, slots.size - 1):
        slots[k] = slots[k + 1]
    slots[slots.size - 1] = -1


@kernel
def choose_into_hand(games, board, i, kind):
    """choose_hand: the kind leaves the pile for the hand; with five tiles the next player chooses; after
    the last, the draft or play begins."""
    p = games.player[i]
    remove_first(games.pile[i, p], kind)
    games.pile_len[i, p] -= 1
    games.hand[i, p, games.hand_len[i, p]] = kind
    games.hand_len[i, p] += 1
    if games.hand_len[i, p] < HAND_SIZE:
        return
    if p + 1 < board.players:
        games.player[i] = p + 1
    elif board.draft:
        games.phase[i], games.player[i] = DRAFT, 0
    else:
        games.phase[i] = PLAY
        start_turn(games, board, i, 0)


@kernel
def draft(games, board, i, s, t):
    """Draft: a figure of type ``t`` on settlement ``s``; the next player places the next one until the
    supply is empty, then player 0's first turn begins."""
    games.figures[i, s, t] = True
    games.on_board[i, t] += 1
    figures_moved(games, i)
    for u in range(3):
        if games.on_board[i, u] < board.supply:
            games.player[i] = (games.player[i] + 1) % board.players
            return
    games.phase[i] = PLAY
    start_turn(games, board, i, 0)


@kernel
def swap_figures(games, i, s1, t1, s2, t2):
    """Figure swap: the ``t1`` figure of ``s1`` and the ``t2`` figure of ``s2`` trade places."""
    figures = games.figures
    figures[i, s1, t1] = False
    figures[i, s2, t2] = False
    figures[i, s1, t2] = True
    figures[i, s2, t1] = True
    figures_moved(games, i)


@kernel
def add_influence(games, board, i, h, p, kind, sign):
    """Player ``p``'s tile ``kind`` on hex ``h`` counts (``sign`` 1) or no longer (-1) at the settlements
    next to ``h``."""
    for j in range(2):
        s = board.near[h, j]
        if s != DUMMY:
            for t in range(3):
                games.influence[i, s, p, t] += sign * INFLUENCE_OF[kind, t]


@kernel
def move_tile(games, board, i, h):
    """Tile swap: the swap tile takes the picked tile's hex (no influence), the picked tile goes to ``h``."""
    p, source = games.player[i], games.swap_from[i]
    moved = games.tile[i, source]
    games.tile[i, source] = TILE_SWAP
    add_influence(games, board, i, source, p, moved, -1)
    games.movable[i, p] -= 1
    place(games, board, i, moved, h)


@kernel
def place(games, board, i, kind, h):
    """Put a tile on an empty hex and resolve every settlement it surrounds."""
    p = games.player[i]
    games.tile[i, h] = kind
    games.owner[i, h] = p
    games.movable[i, p] += MOVABLE_OF[kind]
    add_influence(games, board, i, h, p, kind, 1)
    if not IS_LAND[h]:
        games.empty_sea[i] -= 1
        return
    games.empty_land[i] -= 1
    for j in range(2):
        s = board.near[h, j]
        if s != DUMMY:
            games.need[i, s] -= 1
    resolved = False
    for j in range(2):
        s = board.near[h, j]
        figures = games.figures[i, s]
        if s != DUMMY and games.need[i, s] == 0 and (figures[0] or figures[1] or figures[2]):
            resolve(games, i, s)
            resolved = True
    if resolved:
        figures_moved(games, i)


@kernel
def resolve(games, i, s):
    """A surrounded settlement: each figure to strictly the highest influence, a tie (0 included) sets it
    aside."""
    influence = games.influence[i, s]
    for t in range(3):
        if not games.figures[i, s, t]:
            continue
        best, winner, count = influence[0, t], 0, 1
        for p in range(1, influence.shape[0]):
            if influence[p, t] > best:
                best, winner, count = influence[p, t], p, 1
            elif influence[p, t] == best:
                count += 1
        if count == 1:
            games.captured[i, winner, t] += 1
        else:
            games.set_aside[i, t] += 1
        games.on_board[i, t] -= 1
        games.figures[i, s, t] = False


@kernel
def tile_played(games, board, i):
    """The chosen tile's action is complete: it leaves the hand; then the game may end, or the turn when
    nothing else is playable."""
    p, kind = games.player[i], games.pending[i]
    remove_first(games.hand[i, p], kind)
    games.hand_len[i, p] -= 1
    games.unplayed[i, p, kind] -= 1
    games.played[i, games.played_len[i]] = kind
    games.played_len[i] += 1
    games.non_quick[i] |= not QUICK_OF[kind]
    games.pending[i], games.first_s[i], games.first_t[i], games.swap_from[i] = -1, -1, -1, -1
    on_board, aside = games.on_board[i], games.set_aside[i]
    if on_board[0] == 0 or on_board[1] == 0 or on_board[2] == 0 or aside.sum() >= SET_ASIDE_TO_END:
        games.player[i] = NO_PLAYER
    elif not can_play(games, i, p, games.non_quick[i]):
        end_turn(games, board, i)


@kernel
def end_turn(games, board, i):
    p = games.player[i]
    refill(games, i, p)
    games.turn[i] += 1
    games.played[i, :] = -1
    games.played_len[i] = 0
    games.non_quick[i] = False
    start_turn(games, board, i, (p + 1) % board.players)


@kernel
def refill(games, i, p):
    """Draw from one's own pile back up to five tiles while the pile lasts."""
    have, left = games.hand_len[i, p], games.pile_len[i, p]
    draw = min(HAND_SIZE - have, left)
    pile = games.pile[i, p]
    for k in range(draw):
        games.hand[i, p, have + k] = pile[k]
    for k in range(pile.size):
        pile[k] = pile[k + draw] if k + draw < pile.size else -1
    games.hand_len[i, p] = have + draw
    games.pile_len[i, p] = left - draw


@kernel
def start_turn(games, board, i, first):
    """The first player from ``first`` on who can play a tile acts; each one before passes (a turn); when
    nobody can, the game is over."""
    for k in range(board.players):
        q = (first + k) % board.players
        if can_play(games, i, q, False):
            games.player[i] = q
            games.turn[i] += k
            return
    games.player[i] = NO_PLAYER
    games.turn[i] += board.players
