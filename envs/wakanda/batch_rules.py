"""The rules of ``rules.py`` as compiled kernels over the arrays of a :class:`~envs.wakanda.batch.WakandaBatch`.

Why compiled: Wakanda's turn branches per game (a build or a finish, a village revealed or not, the other player
able to act or not), and whole-array numpy paid a fixed cost per call for every branch in every game. Each kernel
here loops over the games and runs one game's turn as ``rules.py`` does, step by step (``envs.core.compiled``).

A kernel reads and writes the batch's arrays through :class:`Games` (a named tuple of them, row i a game); the
kept sets (open villages, totems with a piece, the kinds in a supply, as 6-bit sets), the pieces each player holds
on their totems and the scores are kept up to date move by move, as the batch's docstring says. Every kernel that
an entry kernel calls is in this module: numba's cache does not notice a change to a kernel of another file.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from envs.core.batch import NO_PLAYER
from envs.core.compiled import inline_kernel, kernel
from envs.wakanda.actions import FINISH, NUM_ACTIONS
from envs.wakanda.components import (
    FIRST_AVAILABLE,
    FIRST_PLAYER,
    HEADDRESSES,
    HEIGHT,
    HEIGHT_POINTS,
    NUM_PIECE_KINDS,
    NUM_PIECES,
    NUM_PLAYERS,
    NUM_SLOTS,
    PIECE_COUNTS,
    POINTS_PER_PIECE,
    SUN,
    SUN_PENALTY,
    VARIETY,
    VARIETY_POINTS,
)

NO_OWNER = -1
#: The arrays of a batch, by their field names (``WakandaBatch``'s docstring says what each holds).
Games = namedtuple(
    "Games",
    "player villages removed bag next_draw bag_counts revealed finished owner totems heights totem_counts"
    " third_first supplies headdresses held held_tallest owned_kinds score open_bits nonempty_bits supply_bits",
)
POINTS = np.array(POINTS_PER_PIECE, dtype=np.int64)
COUNTS = np.array(PIECE_COUNTS, dtype=np.int64)


# --- the turn (rules.py: _draw, _legal_for, _build, _finish, _next_turn) -------------------------------------
# Each helper takes the arrays it reads and writes, each entry kernel takes them out of ``g`` once: reading a
# field of the named tuple in a per-game loop cost numba a reference count per read (30x slower, measured). A call
# that passes arrays costs their reference counts too: the steps of every move (build, draw) are written out in
# ``play``; those of a finish, one move in four, are calls.
@inline_kernel
def _draw(bag, next_draw, bag_counts, supplies, supply_bits, i, player):
    """Turn, step 1: the next piece of the bag into ``player``'s supply (nothing once the bag is empty)."""
    drawn = next_draw[i]
    if drawn < NUM_PIECES:
        piece = bag[i, drawn]
        supplies[i, player, piece] += 1
        supply_bits[i, player] |= 1 << piece
        bag_counts[i, piece] -= 1
        next_draw[i] = drawn + 1


@kernel
def _is_legal(open_bits, supplies, headdresses, heights, i, player, action):
    """Turn, step 2: a build of a supply piece on an open village, or a finish of an open totem that holds a
    piece while a headdress is left (``rules.py``, ``illegal_message`` names the same rules)."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    slot = action % NUM_SLOTS
    if not open_bits[i] >> slot & 1:
        return False
    if action < FINISH:
        return supplies[i, player, action // NUM_SLOTS] > 0
    return headdresses[i, player] > 0 and heights[i, slot] > 0


@kernel
def _claim(owner, open_bits, headdresses, finished, third_first, revealed, i, player, slot):
    """Finish: a headdress claims the totem and its village; the next tilted village becomes available."""
    owner[i, slot] = player
    open_bits[i] &= ~(1 << slot)
    headdresses[i, player] -= 1
    finished[i] += 1
    if headdresses[i, player] == 0 and third_first[i] == NO_PLAYER:
        third_first[i] = player
    if revealed[i] < NUM_SLOTS:
        open_bits[i] |= 1 << revealed[i]
        revealed[i] += 1


@kernel
def _hold(villages, heights, totem_counts, held, held_tallest, owned_kinds, i, player, slot):
    """The finished totem's pieces join ``player``'s holding, its village their villages."""
    for kind in range(NUM_PIECE_KINDS):
        held[i, player, kind] += totem_counts[i, slot, kind]
    held_tallest[i, player] = max(held_tallest[i, player], heights[i, slot])
    owned_kinds[i, player, villages[i, slot]] = True


@kernel
def _rescore(held, held_tallest, owned_kinds, score, i, player):
    """``player``'s score: each village they own scores over all their totems; then the sun penalty unless they
    own the sun village (``rules.py``, ``player_score``)."""
    total = 0
    for kind in range(NUM_PIECE_KINDS):
        if owned_kinds[i, player, kind]:
            total += POINTS[kind] * held[i, player, kind]
    if owned_kinds[i, player, VARIETY]:
        for kind in range(NUM_PIECE_KINDS):
            if held[i, player, kind]:
                total += VARIETY_POINTS
    if owned_kinds[i, player, HEIGHT]:
        total += HEIGHT_POINTS * held_tallest[i, player]
    if not owned_kinds[i, player, SUN]:
        total -= SUN_PENALTY * held[i, player, SUN]
    score[i, player] = total


# --- the entry kernels: over the games of a batch ----------------------------------------------------------
@kernel
def play(g, actions, moving):
    """Play ``actions[i]`` (legal: checked first by :func:`first_illegal`) in every game ``moving``: the build or
    finish, then the next turn (the other player draws and acts, or else the mover draws and acts again; the end
    when all six totems are finished or neither can act)."""
    player, villages, owner, finished, third_first, revealed = (
        g.player, g.villages, g.owner, g.finished, g.third_first, g.revealed
    )  # fmt: skip
    bag, next_draw, bag_counts, supplies, supply_bits = g.bag, g.next_draw, g.bag_counts, g.supplies, g.supply_bits
    totems, heights, totem_counts, nonempty_bits = g.totems, g.heights, g.totem_counts, g.nonempty_bits
    held, held_tallest, owned_kinds, score = g.held, g.held_tallest, g.owned_kinds, g.score
    open_bits, headdresses = g.open_bits, g.headdresses
    for i in range(len(moving)):
        if not moving[i]:
            continue
        mover, action = player[i], actions[i]
        kind, slot = action // NUM_SLOTS, action % NUM_SLOTS
        if action < FINISH:  # _build, written out: a call with arrays costs their reference counts, 3x the work
            supplies[i, mover, kind] -= 1
            if supplies[i, mover, kind] == 0:
                supply_bits[i, mover] &= ~(1 << kind)
            totems[i, slot, heights[i, slot]] = kind
            heights[i, slot] += 1
            totem_counts[i, slot, kind] += 1
            nonempty_bits[i] |= 1 << slot
        else:
            _claim(owner, open_bits, headdresses, finished, third_first, revealed, i, mover, slot)
            _hold(villages, heights, totem_counts, held, held_tallest, owned_kinds, i, mover, slot)
            _rescore(held, held_tallest, owned_kinds, score, i, mover)
        player[i] = NO_PLAYER
        if finished[i] >= NUM_SLOTS:
            continue
        for candidate in (1 - mover, mover):  # _next_turn: the other draws and acts, or else the mover
            _draw(bag, next_draw, bag_counts, supplies, supply_bits, i, candidate)  # inlined: no reference counts
            crowns = headdresses[i, candidate] > 0 and (open_bits[i] & nonempty_bits[i]) != 0  # _can_act
            if open_bits[i] != 0 and (supply_bits[i, candidate] != 0 or crowns):
                player[i] = candidate
                break


@kernel
def first_illegal(g, actions, moving):
    """The first game ``moving`` whose action is not legal, -1 if none."""
    player, open_bits, supplies, headdresses, heights = g.player, g.open_bits, g.supplies, g.headdresses, g.heights
    for i in range(len(moving)):
        if moving[i] and not _is_legal(open_bits, supplies, headdresses, heights, i, player[i], actions[i]):
            return i
    return -1


@kernel
def legal_masks(g, where, mask):
    """Set ``mask[i]`` (all False) to game i's legal actions in the games ``where`` still going: a build of each
    kind in the supply on each open village, a finish of each open totem with a piece while a headdress is left."""
    player, open_bits, nonempty_bits, supply_bits = g.player, g.open_bits, g.nonempty_bits, g.supply_bits
    headdresses = g.headdresses
    for i in range(len(where)):
        if not where[i] or player[i] == NO_PLAYER:
            continue
        supply, crowns = supply_bits[i, player[i]], headdresses[i, player[i]] > 0
        for slot in range(NUM_SLOTS):
            if open_bits[i] >> slot & 1:
                for kind in range(NUM_PIECE_KINDS):
                    mask[i, kind * NUM_SLOTS + slot] = supply >> kind & 1
                mask[i, FINISH + slot] = crowns and nonempty_bits[i] >> slot & 1


@kernel
def start(g, rows, bags, kinds):
    """New games in ``rows`` from their deals (``bags``: the draw order; ``kinds``: the line's six villages,
    then the box's two): the opening position of ``WakandaState``, where the first player has drawn."""
    player, villages, removed, owner, finished, third_first, revealed = (
        g.player, g.villages, g.removed, g.owner, g.finished, g.third_first, g.revealed
    )  # fmt: skip
    bag, next_draw, bag_counts, supplies, supply_bits = g.bag, g.next_draw, g.bag_counts, g.supplies, g.supply_bits
    totems, heights, totem_counts, nonempty_bits = g.totems, g.heights, g.totem_counts, g.nonempty_bits
    held, held_tallest, owned_kinds, score = g.held, g.held_tallest, g.owned_kinds, g.score
    open_bits, headdresses = g.open_bits, g.headdresses
    for r in range(len(rows)):
        i = rows[r]
        villages[i], removed[i] = kinds[r, :NUM_SLOTS], kinds[r, NUM_SLOTS:]
        bag[i], next_draw[i], bag_counts[i] = bags[r], 0, COUNTS
        revealed[i], finished[i], third_first[i], owner[i] = FIRST_AVAILABLE, 0, NO_PLAYER, NO_OWNER
        totems[i], heights[i], totem_counts[i] = 0, 0, 0
        supplies[i], headdresses[i], held[i], held_tallest[i], owned_kinds[i], score[i] = 0, HEADDRESSES, 0, 0, False, 0
        open_bits[i], nonempty_bits[i], supply_bits[i] = (1 << FIRST_AVAILABLE) - 1, 0, 0
        player[i] = FIRST_PLAYER
        _draw(bag, next_draw, bag_counts, supplies, supply_bits, i, FIRST_PLAYER)
        bag[i, 0] = 0  # drawn: as ``WakandaBatch._load`` pads a bag's drawn pieces


@kernel
def derive(g, rows):
    """Everything kept that follows from the position of the games ``rows`` (villages, bag, owners, totems,
    supplies): the counts, the sets, the holdings and the scores."""
    villages, owner, revealed = g.villages, g.owner, g.revealed
    bag, next_draw, bag_counts = g.bag, g.next_draw, g.bag_counts
    totems, heights, totem_counts, nonempty_bits = g.totems, g.heights, g.totem_counts, g.nonempty_bits
    held, held_tallest, owned_kinds, score = g.held, g.held_tallest, g.owned_kinds, g.score
    open_bits, supplies, supply_bits = g.open_bits, g.supplies, g.supply_bits
    for i in rows:
        bag_counts[i], totem_counts[i], open_bits[i], nonempty_bits[i], supply_bits[i] = 0, 0, 0, 0, 0
        held[i], held_tallest[i], owned_kinds[i] = 0, 0, False
        for at in range(next_draw[i], NUM_PIECES):
            bag_counts[i, bag[i, at]] += 1
        for slot in range(NUM_SLOTS):
            for at in range(heights[i, slot]):
                totem_counts[i, slot, totems[i, slot, at]] += 1
            if heights[i, slot]:
                nonempty_bits[i] |= 1 << slot
            if owner[i, slot] == NO_OWNER and slot < revealed[i]:
                open_bits[i] |= 1 << slot
            elif owner[i, slot] != NO_OWNER:
                _hold(villages, heights, totem_counts, held, held_tallest, owned_kinds, i, owner[i, slot], slot)
        for player in range(NUM_PLAYERS):
            for kind in range(NUM_PIECE_KINDS):
                if supplies[i, player, kind]:
                    supply_bits[i, player] |= 1 << kind
            _rescore(held, held_tallest, owned_kinds, score, i, player)


@kernel
def winners(g, won):
    """Set ``won[i]`` (all False) to the winners of each finished game: the highest score; on a tie whoever
    placed a third headdress first; else both (a draw)."""
    player, score, third_first = g.player, g.score, g.third_first
    for i in range(len(won)):
        if player[i] == NO_PLAYER:
            if score[i, 0] != score[i, 1]:
                won[i, 0 if score[i, 0] > score[i, 1] else 1] = True
            elif third_first[i] != NO_PLAYER:
                won[i, third_first[i]] = True
            else:
                won[i, 0] = won[i, 1] = True


__all__ = ["NO_OWNER", "Games", "derive", "first_illegal", "legal_masks", "play", "start", "winners"]
