"""The rules of ``rules.py`` as compiled kernels over the Samurai batch's arrays (``batch_arrays.Games``):
:func:`play` loops over the games that move, and a function per rule step (a tile placed, a settlement
resolved, the hand refilled, the next player found ...) acts on one game.

Why: a Samurai turn is many sub-steps, and each game of a batch is in its own; numpy paid for every
sub-step's branch in every game, with a fixed cost per call. Here each game runs its own branch. The
functions follow ``SamuraiState``'s methods of the same names; the batch's lookups (influence, empty
hexes, movable tiles, ``swap_ok``) are kept as they change. The spare settlement column (``DUMMY``) of
``near`` is padding: nothing is written there.
"""

from __future__ import annotations

import numpy as np

from envs.core.batch import NO_PLAYER
from envs.core.compiled import inline_kernel, kernel
from envs.core.uniform import kth_in_row
from envs.samurai.actions import END_TURN, FIGURE, HEX, NUM_ACTIONS
from envs.samurai.batch_legal import can_play, fill_masks, open_targets, swap_possible
from envs.samurai.batch_tables import CHOOSE_HAND, DRAFT, DUMMY, INFLUENCE_OF, IS_LAND, MOVABLE_OF, PLAY, QUICK_OF
from envs.samurai.components import FIGURE_SWAP, HAND_SIZE, TILE_SWAP
from envs.samurai.rules import SET_ASIDE_TO_END


@kernel
def play(games, board, actions, going):
    """Play ``actions[i]`` (checked) in every game of ``going`` still going: ``SamuraiState._play``, the
    action's meaning following the phase and the sub-step. The steps of every action (a tile chosen, laid,
    played) take one game's arrays or scalars: a kernel call that takes the whole batch's arrays costs a
    reference count per array; those of a turn or a phase (its end, the set-up) take them all."""
    for i in range(going.size):
        p = games.player[i]
        if not going[i] or p < 0:
            continue
        action, phase, pending = actions[i], games.phase[i], games.pending[i]
        if phase == CHOOSE_HAND:
            choose_into_hand(games, board, i, action)
        elif phase == DRAFT:
            draft(games, board, i, (action - FIGURE) // 3, (action - FIGURE) % 3)
        elif pending < 0 and action == END_TURN:
            end_turn(games, board, i)
        elif pending < 0:
            games.pending[i] = action
        elif pending == FIGURE_SWAP and games.first_s[i] < 0:
            games.first_s[i], games.first_t[i] = (action - FIGURE) // 3, (action - FIGURE) % 3
        elif pending == TILE_SWAP and games.swap_from[i] < 0:
            games.swap_from[i] = action - HEX
        else:  # the chosen tile's action completes
            if pending == FIGURE_SWAP:
                s, t = (action - FIGURE) // 3, (action - FIGURE) % 3
                swap_figures(games.figures[i], games.first_s[i], games.first_t[i], s, t)
                games.swap_ok[i] = swap_possible(games.figures[i])
            else:
                place_tile(games.tile[i], games.owner[i], games.movable[i], games.influence[i], board.near, p,
                           pending, games.swap_from[i], action - HEX)  # fmt: skip
                h = action - HEX
                if not IS_LAND[h]:
                    games.empty_sea[i] -= 1
                else:
                    games.empty_land[i] -= 1
                    figures = games.figures[i]
                    if surround(games.need[i], figures, games.influence[i], games.captured[i], games.set_aside[i],
                                games.on_board[i], board.near, h):  # fmt: skip
                        games.swap_ok[i] = swap_possible(figures)
            tile_played(games.hand[i, p], games.unplayed[i, p], games.played[i], games.played_len[i], pending)
            games.hand_len[i, p] -= 1
            games.played_len[i] += 1
            games.non_quick[i] |= not QUICK_OF[pending]
            games.pending[i], games.first_s[i], games.first_t[i], games.swap_from[i] = -1, -1, -1, -1
            if game_over(games.on_board[i], games.set_aside[i]):
                games.player[i] = NO_PLAYER
                continue
            targets = open_targets(games.empty_land[i], games.empty_sea[i], games.swap_ok[i], games.movable[i, p])
            if not can_play(games.hand[i, p], games.hand_len[i, p], games.non_quick[i], targets):
                end_turn(games, board, i)  # the end of the turn is all that is left


@kernel
def play_kth_legal(games, board, where, draws):
    """In every game of ``where`` still going, play its k-th legal action for k = floor(draws[i] * its legal count)
    (``envs.core.uniform.kth_legal``'s choice): the random opponents' pass in one call, the masks of those games
    alone in a scratch array, never checked again (legal by construction). Returns the first game with no legal
    action (nothing played), else -1."""
    going = np.zeros(where.size, dtype=np.bool_)
    mask = np.empty((where.size, NUM_ACTIONS), dtype=np.bool_)  # only the rows of ``going`` are written and read
    for i in range(where.size):
        going[i] = where[i] and games.player[i] >= 0
        if going[i]:
            mask[i] = False
    fill_masks(games, board, going, mask)
    actions = np.zeros(where.size, dtype=np.int64)
    for i in range(where.size):
        if going[i]:
            actions[i] = kth_in_row(mask[i], draws[i])
            if actions[i] < 0:
                return i
    play(games, board, actions, going)
    return -1


@kernel
def play_random_opponents(games, board, seats, rng):
    """Pass after pass, :func:`play_kth_legal` in every game whose player to act is not its seat in ``seats``,
    with ``rng.random(N)``'s draws (numba's generator: numpy's stream, its state shared), until none is left:
    the vector env's random opponents in one call. Returns the first game with no legal action, else -1."""
    waiting = np.zeros(seats.size, dtype=np.bool_)
    while True:
        for i in range(seats.size):
            waiting[i] = games.player[i] != NO_PLAYER and games.player[i] != seats[i]
        if not waiting.any():
            return -1
        stuck = play_kth_legal(games, board, waiting, rng.random(seats.size))
        if stuck >= 0:
            return stuck


@kernel
def remove_first(slots, kind):
    """``slots`` (padded with -1) without its first ``kind``, the rest moved up, -1 at the end."""
    at = 0
    while slots[at] != kind:
        at += 1
    for k in range(at, slots.size - 1):
        slots[k] = slots[k + 1]
    slots[slots.size - 1] = -1


@inline_kernel
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


@inline_kernel
def draft(games, board, i, s, t):
    """Draft: a figure of type ``t`` on settlement ``s``; the next player places the next one until the
    supply is empty, then player 0's first turn begins."""
    games.figures[i, s, t] = True
    games.on_board[i, t] += 1
    games.swap_ok[i] = swap_possible(games.figures[i])
    for u in range(3):
        if games.on_board[i, u] < board.supply:
            games.player[i] = (games.player[i] + 1) % board.players
            return
    games.phase[i] = PLAY
    start_turn(games, board, i, 0)


@kernel
def swap_figures(figures, s1, t1, s2, t2):
    """Figure swap: the ``t1`` figure of ``s1`` and the ``t2`` figure of ``s2`` trade places (one game's
    ``figures``)."""
    figures[s1, t1] = False
    figures[s2, t2] = False
    figures[s1, t2] = True
    figures[s2, t1] = True


@kernel
def add_influence(influence, near, h, p, kind, sign):
    """Player ``p``'s tile ``kind`` on hex ``h`` counts (``sign`` 1) or no longer (-1) at the settlements
    next to ``h`` (one game's ``influence``)."""
    for j in range(2):
        s = near[h, j]
        if s != DUMMY:
            for t in range(3):
                influence[s, p, t] += sign * INFLUENCE_OF[kind, t]


@kernel
def place_tile(tile, owner, movable, influence, near, p, pending, swap_from, h):
    """Player ``p``'s chosen tile ``pending`` goes on the empty hex ``h`` (one game's arrays); for the tile swap,
    the picked tile at ``swap_from`` goes there and the swap tile takes its hex, without influence."""
    kind = pending
    if pending == TILE_SWAP:
        kind = tile[swap_from]
        tile[swap_from] = TILE_SWAP
        add_influence(influence, near, swap_from, p, kind, -1)
        movable[p] -= 1
    tile[h], owner[h] = kind, p
    movable[p] += MOVABLE_OF[kind]
    add_influence(influence, near, h, p, kind, 1)


@kernel
def surround(need, figures, influence, captured, set_aside, on_board, near, h):
    """One fewer empty land hex around the settlements next to ``h``; each one surrounded now is resolved.
    Returns whether figures left the board (one game's arrays)."""
    resolved = False
    for j in range(2):
        s = near[h, j]
        if s == DUMMY:
            continue
        need[s] -= 1
        if need[s] == 0 and (figures[s, 0] or figures[s, 1] or figures[s, 2]):
            resolve(figures[s], influence[s], captured, set_aside, on_board)
            resolved = True
    return resolved


@kernel
def resolve(figures, influence, captured, set_aside, on_board):
    """A surrounded settlement (its ``figures`` (3,) and ``influence`` (P, 3)): each figure to strictly the
    highest influence, a tie (0 included) sets it aside."""
    for t in range(3):
        if not figures[t]:
            continue
        best, winner, count = influence[0, t], 0, 1
        for p in range(1, influence.shape[0]):
            if influence[p, t] > best:
                best, winner, count = influence[p, t], p, 1
            elif influence[p, t] == best:
                count += 1
        if count == 1:
            captured[winner, t] += 1
        else:
            set_aside[t] += 1
        on_board[t] -= 1
        figures[t] = False


@kernel
def tile_played(hand, unplayed, played, count, kind):
    """The chosen tile leaves the player's ``hand`` (its slots) and unplayed tiles, and joins the turn's
    ``played`` (``count`` so far); the caller keeps the counts."""
    remove_first(hand, kind)
    unplayed[kind] -= 1
    played[count] = kind


@kernel
def game_over(on_board, set_aside):
    """(a) the last figure of a type has left the board, or (b) 4 figures have been set aside."""
    return on_board[0] == 0 or on_board[1] == 0 or on_board[2] == 0 or set_aside.sum() >= SET_ASIDE_TO_END


@inline_kernel
def end_turn(games, board, i):
    """The turn of game ``i``'s player ends: they refill their hand, and the next player able to play acts."""
    p = games.player[i]
    refill(games.hand[i, p], games.pile[i, p], games.hand_len[i], games.pile_len[i], p)
    games.turn[i] += 1
    games.played[i, :] = -1
    games.played_len[i] = 0
    games.non_quick[i] = False
    start_turn(games, board, i, (p + 1) % board.players)


@kernel
def refill(hand, pile, hand_len, pile_len, p):
    """Draw from player ``p``'s own pile back up to five tiles while the pile lasts."""
    have, left = hand_len[p], pile_len[p]
    draw = min(HAND_SIZE - have, left)
    for k in range(draw):
        hand[have + k] = pile[k]
    for k in range(pile.size):
        pile[k] = pile[k + draw] if k + draw < pile.size else -1
    hand_len[p] = have + draw
    pile_len[p] = left - draw


@inline_kernel
def start_turn(games, board, i, first):
    """The first player from ``first`` on who can play a tile acts; each one before passes (a turn); when
    nobody can, the game is over."""
    games.player[i], passes = first_able(games.hand[i], games.hand_len[i], games.movable[i], games.empty_land[i],
                                         games.empty_sea[i], games.swap_ok[i], first)  # fmt: skip
    games.turn[i] += passes


@kernel
def first_able(hands, hand_len, movable, empty_land, empty_sea, swap_ok, first):
    """(the first player from ``first`` on who can play a tile from their hand, or -1; the passes before)."""
    players = hand_len.size
    for k in range(players):
        q = (first + k) % players
        targets = open_targets(empty_land, empty_sea, swap_ok, movable[q])
        if can_play(hands[q], hand_len[q], False, targets):
            return q, k
    return NO_PLAYER, players
