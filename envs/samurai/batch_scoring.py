"""The winner procedure of ``scoring.winners`` for every finished game of the Samurai batch, compiled.

Why: the vector env reads the winners at every step where a game ends (nearly every step of a thousand
games), and the procedure's whole-array numpy form was a dozen passes over the batch for a few games.
"""

from __future__ import annotations

import numpy as np

from envs.core.compiled import kernel


@kernel
def fill_winners(captured, player, won):
    """``won[i, p]`` for every game ``i`` that is over (``player`` -1): the winners of its ``captured``."""
    for i in range(player.size):
        if player[i] < 0:
            winners_of(captured[i], won[i])


@kernel
def winners_of(captured, won):
    """``scoring.winners`` of one game's ``captured`` ``(P, 3)`` into ``won`` ``(P,)`` (all False on entry)."""
    n = captured.shape[0]
    held = np.full(n, -1)  # a majority's type (rule 1), the last one held
    count = np.zeros(n, dtype=np.int64)  # how many majorities
    for t in range(3):
        best, at, ties = captured[0, t], 0, 1
        for p in range(1, n):
            if captured[p, t] > best:
                best, at, ties = captured[p, t], p, 1
            elif captured[p, t] == best:
                ties += 1
        if ties == 1:
            held[at] = t
            count[at] += 1
    total = np.zeros(n, dtype=np.int64)
    for p in range(n):
        total[p] = captured[p].sum()
    if count.max() >= 2:  # rule 2: the majority in two or more types
        for p in range(n):
            won[p] = count[p] >= 2
        return
    contenders = count == 1
    if not contenders.any():  # rule 4: nobody has a majority: most figures in total
        most(total, np.ones(n, dtype=np.bool_), won)
        return
    others = np.full(n, -1)  # rule 3: the figures of the other two types
    for p in range(n):
        if contenders[p]:
            others[p] = total[p] - captured[p, held[p]]
    top = np.zeros(n, dtype=np.bool_)
    most(others, contenders, top)
    if top.sum() == 1:
        won[:] = top
    else:
        most(total, top, won)  # rule 4: contenders still tied: most figures in total


@kernel
def most(value, among, out):
    """``out[p]``: ``p`` of ``among`` has the highest ``value`` among them."""
    best = np.iinfo(np.int64).min
    for p in range(value.size):
        if among[p] and value[p] > best:
            best = value[p]
    for p in range(value.size):
        out[p] = among[p] and value[p] == best
