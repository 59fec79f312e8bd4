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

from envs.core.compiled import kernel
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

NO_PLAYER = -1  # as envs.core.batch.NO_PLAYER (a kernel reads only this module's globals)
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
@kernel
def _draw(g, i, player):
    """Turn, step 1: the next piece of the bag into ``player``'s supply (nothing once the bag is empty)."""
    drawn = g.next_draw[i]
    if drawn < NUM_PIECES:
        piece = g.bag[i, drawn]
        g.supplies[i, player, piece] += 1
        g.supply_bits[i, player] |= 1 << piece
        g.bag_counts[i, piece] -= 1
        g.next_draw[i] = drawn + 1


@kernel
def _is_legal(g, i, action):
    """Turn, step 2: a build of a supply piece on an open village, or a finish of an open totem that holds a
    piece while a headdress is left (``rules.py``, ``illegal_message`` names the same rules)."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    player, slot = g.player[i], action % NUM_SLOTS
    if not g.open_bits[i] >> slot & 1:
        return False
    if action < FINISH:
        return g.supplies[i, player, action // NUM_SLOTS] > 0
    return g.headdresses[i, player] > 0 and g.heights[i, slot] > 0


@kernel
def _can_act(g, i, player):
    """Whether ``player`` has a legal action (some open village, and a piece to build or a headdress for an
    open totem with a piece)."""
    open_ = g.open_bits[i]
    crowns = g.headdresses[i, player] > 0 and (open_ & g.nonempty_bits[i]) != 0
    return open_ != 0 and (g.supply_bits[i, player] != 0 or crowns)


@kernel
def _build(g, i, player, kind, slot):
    """Build: a piece from the supply on top of the totem there (or starting it)."""
    g.supplies[i, player, kind] -= 1
    if g.supplies[i, player, kind] == 0:
        g.supply_bits[i, player] &= ~(1 << kind)
    g.totems[i, slot, g.heights[i, slot]] = kind
    g.heights[i, slot] += 1
    g.totem_counts[i, slot, kind] += 1
    g.nonempty_bits[i] |= 1 << slot


@kernel
def _finish(g, i, player, slot):
    """Finish: a headdress claims the totem and its village (its pieces join the player's holding, their
    score changes); the next tilted village becomes available."""
    g.owner[i, slot] = player
    g.open_bits[i] &= ~(1 << slot)
    g.headdresses[i, player] -= 1
    g.finished[i] += 1
    if g.headdresses[i, player] == 0 and g.third_first[i] == NO_PLAYER:
        g.third_first[i] = player
    for kind in range(NUM_PIECE_KINDS):
        g.held[i, player, kind] += g.totem_counts[i, slot, kind]
    g.held_tallest[i, player] = max(g.held_tallest[i, player], g.heights[i, slot])
    g.owned_kinds[i, player, g.villages[i, slot]] = True
    _rescore(g, i, player)
    if g.revealed[i] < NUM_SLOTS:
        g.open_bits[i] |= 1 << g.revealed[i]
        g.revealed[i] += 1


@kernel
def _next_turn(g, i, player):
    """The other player's turn (they draw first), or back to ``player`` (who draws) if the other cannot act;
    the end when all six totems are finished or neither player can act."""
    if g.finished[i] < NUM_SLOTS:
        for candidate in (1 - player, player):
            _draw(g, i, candidate)
            if _can_act(g, i, candidate):
                g.player[i] = candidate
                return
    g.player[i] = NO_PLAYER


@kernel
def _rescore(g, i, player):
    """``player``'s score: each village they own scores over all their totems; then the sun penalty unless they
    own the sun village (``rules.py``, ``player_score``)."""
    score = 0
    owned = g.owned_kinds[i, player]
    for kind in range(NUM_PIECE_KINDS):
        if owned[kind]:
            score += POINTS[kind] * g.held[i, player, kind]
    if owned[VARIETY]:
        for kind in range(NUM_PIECE_KINDS):
            if g.held[i, player, kind]:
                score += VARIETY_POINTS
    if owned[HEIGHT]:
        score += HEIGHT_POINTS * g.held_tallest[i, player]
    if not owned[SUN]:
        score -= SUN_PENALTY * g.held[i, player, SUN]
    g.score[i, player] = score


# --- the entry kernels: over the games of a batch ----------------------------------------------------------
@kernel
def play(g, actions, moving):
    """Play ``actions[i]`` (legal: checked first by :func:`first_illegal`) in every game ``moving``."""
    for i in range(len(moving)):
        if moving[i]:
            player, action = g.player[i], actions[i]
            if action < FINISH:
                _build(g, i, player, action // NUM_SLOTS, action % NUM_SLOTS)
            else:
                _finish(g, i, player, action - FINISH)
            _next_turn(g, i, player)


@kernel
def first_illegal(g, actions, moving):
    """The first game ``moving`` whose action is not legal, -1 if none."""
    for i in range(len(moving)):
        if moving[i] and not _is_legal(g, i, actions[i]):
            return i
    return -1


@kernel
def legal_masks(g, where, mask):
    """Set ``mask[i]`` (all False) to game i's legal actions in the games ``where`` still going."""
    for i in range(len(where)):
        if where[i] and g.player[i] != NO_PLAYER:
            for action in range(NUM_ACTIONS):
                mask[i, action] = _is_legal(g, i, action)


@kernel
def start(g, rows, bags, kinds):
    """New games in ``rows`` from their deals (``bags``: the draw order; ``kinds``: the line's six villages,
    then the box's two): the opening position of ``WakandaState``, where the first player has drawn."""
    for r in range(len(rows)):
        i = rows[r]
        g.villages[i] = kinds[r, :NUM_SLOTS]
        g.removed[i] = kinds[r, NUM_SLOTS:]
        g.bag[i] = bags[r]
        g.next_draw[i] = 0
        g.bag_counts[i] = COUNTS
        g.revealed[i], g.finished[i], g.third_first[i] = FIRST_AVAILABLE, 0, NO_PLAYER
        g.owner[i], g.totems[i], g.heights[i], g.totem_counts[i] = NO_OWNER, 0, 0, 0
        g.supplies[i], g.headdresses[i], g.held[i], g.held_tallest[i] = 0, HEADDRESSES, 0, 0
        g.owned_kinds[i], g.score[i] = False, 0
        g.open_bits[i], g.nonempty_bits[i], g.supply_bits[i] = (1 << FIRST_AVAILABLE) - 1, 0, 0
        g.player[i] = FIRST_PLAYER
        _draw(g, i, FIRST_PLAYER)
        g.bag[i, 0] = 0  # drawn: as ``WakandaBatch._load`` pads a bag's drawn pieces


@kernel
def derive(g, rows):
    """Everything kept that follows from the position of the games ``rows`` (villages, bag, owners, totems,
    supplies): the counts, the sets, the holdings and the scores."""
    for i in rows:
        g.bag_counts[i] = 0
        for at in range(g.next_draw[i], NUM_PIECES):
            g.bag_counts[i, g.bag[i, at]] += 1
        g.totem_counts[i], g.open_bits[i], g.nonempty_bits[i], g.supply_bits[i] = 0, 0, 0, 0
        g.held[i], g.held_tallest[i], g.owned_kinds[i] = 0, 0, False
        for slot in range(NUM_SLOTS):
            for at in range(g.heights[i, slot]):
                g.totem_counts[i, slot, g.totems[i, slot, at]] += 1
            if g.heights[i, slot]:
                g.nonempty_bits[i] |= 1 << slot
            owner = g.owner[i, slot]
            if owner == NO_OWNER:
                if slot < g.revealed[i]:
                    g.open_bits[i] |= 1 << slot
            else:
                g.held[i, owner] += g.totem_counts[i, slot]
                g.held_tallest[i, owner] = max(g.held_tallest[i, owner], g.heights[i, slot])
                g.owned_kinds[i, owner, g.villages[i, slot]] = True
        for player in range(NUM_PLAYERS):
            for kind in range(NUM_PIECE_KINDS):
                if g.supplies[i, player, kind]:
                    g.supply_bits[i, player] |= 1 << kind
            _rescore(g, i, player)


@kernel
def winners(g, won):
    """Set ``won[i]`` (all False) to the winners of each finished game: the highest score; on a tie whoever
    placed a third headdress first; else both (a draw)."""
    for i in range(len(won)):
        if g.player[i] == NO_PLAYER:
            first, second = g.score[i, 0], g.score[i, 1]
            if first != second:
                won[i, 0 if first > second else 1] = True
            elif g.third_first[i] != NO_PLAYER:
                won[i, g.third_first[i]] = True
            else:
                won[i, 0] = won[i, 1] = True


__all__ = ["NO_OWNER", "Games", "derive", "first_illegal", "legal_masks", "play", "start", "winners"]
