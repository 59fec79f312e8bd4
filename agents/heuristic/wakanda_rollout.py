"""Plain ISMCTS's rollout of one Wakanda position played by compiled code: the same moves, dice and result
(``roll_out``); and the heuristic's move in one position, compiled (``compiled_policy``).

Why: a rollout (``agents.evaluator.RolloutEvaluator.roll_out``: the heuristic in every seat, a random move with
probability ``epsilon``) was nine tenths of a Wakanda search, the per-game heuristic valuing a few dozen positions
in Python at every ply. Here the position is copied into a one-game :class:`~envs.wakanda.batch.WakandaBatch` and
played out by one kernel: the compiled heuristic (``wakanda_batch.py``, the same choice to the last tie), the
compiled rules, and the search's own dice (:mod:`agents.random_words`), drawn where and as the per-game loop draws
them. The determinization fixes the bag's order, so the game, its scores and its winners are the per-game loop's
(``tests/test_wakanda_rollout.py`` compares them and the dice left over).

The kernels call those of other files (rules, heuristic, dice): a cached kernel is stamped with every kernel
file (``envs.core.compiled``), so a change to any of them compiles it again.
"""

from __future__ import annotations

import random
import threading

import numpy as np

from agents.heuristic.wakanda_batch import batch_policy, policy_moves
from agents.random_words import below, give_back, lend, uniform
from envs.core.batch import NO_PLAYER
from envs.core.compiled import kernel
from envs.wakanda.actions import NUM_ACTIONS
from envs.wakanda.batch import WakandaBatch
from envs.wakanda.batch_rules import _is_legal, play, winners
from envs.wakanda.components import NUM_PIECE_KINDS, NUM_PLAYERS
from envs.wakanda.rules import WakandaState

#: The dice lent to a rollout at first (a game rarely takes half); doubled and tried again when they run out.
WORDS = 128
#: What the kernel answers when the dice ran out.
OUT_OF_WORDS = -1
ZERO = np.zeros(1, dtype=np.int64)  # the one game's row
_kept = threading.local()  # each thread's one-game batch


def roll_out(state: WakandaState, epsilon: float, rnd: random.Random) -> tuple[list[float], list[int]]:
    """``state`` played to the end as ``RolloutEvaluator.roll_out`` plays it with the heuristic (``state`` itself
    unchanged, ``rnd`` left where that loop leaves it): the final scores and the winners."""
    count = WORDS
    while True:
        batch = _one_game(state)
        luck, words = lend(rnd, count)
        used = _play_out(batch.games, epsilon, words)
        if used != OUT_OF_WORDS:
            break
        rnd.setstate(luck)
        count *= 2
    give_back(rnd, luck, used)
    won = np.zeros((1, NUM_PLAYERS), dtype=np.bool_)
    winners(batch.games, won)
    return batch.score[0].astype(float).tolist(), np.flatnonzero(won[0]).tolist()


def compiled_policy(state: WakandaState) -> int:
    """``wakanda.policy(state)`` in compiled code (the same move): the tree's first move at a new node."""
    return int(batch_policy(_one_game(state))[0])


def _one_game(state: WakandaState) -> WakandaBatch:
    """A one-game batch holding ``state``: this thread's, reloaded (making one costs several times loading it)."""
    batch = getattr(_kept, "batch", None)
    if batch is None or batch.game is not state.game:
        batch = _kept.batch = WakandaBatch.from_states([state])
    else:
        batch._load(ZERO, [state])
    return batch


@kernel
def _play_out(g, epsilon, words):
    """Play game 0 of ``g`` to the end: its only legal move, else a random one with probability ``epsilon``
    (``rnd.random() < epsilon``, then ``rnd.randrange`` over the legal moves ascending), else the heuristic's.
    Returns how many words it drew, or ``OUT_OF_WORDS``."""
    actions, moving, moves = np.zeros(1, np.int64), np.ones(1, np.bool_), np.zeros(1, np.int64)
    scratch = np.zeros((2, NUM_PIECE_KINDS))
    at = 0
    while g.player[0] != NO_PLAYER:
        count = _legal_count(g)
        if count == 1:
            action = _nth_legal(g, 0)
        else:
            if at + 2 > len(words):
                return OUT_OF_WORDS
            draw = uniform(words, at)
            at += 2
            if draw >= epsilon:
                policy_moves(g, moving, moves, scratch)
                action = moves[0]
            else:
                k, at = below(words, at, count)
                if k < 0:
                    return OUT_OF_WORDS
                action = _nth_legal(g, k)
        actions[0] = action
        play(g, actions, moving)
    return at


@kernel
def _legal_count(g):
    """How many legal moves game 0's player has."""
    count = 0
    for action in range(NUM_ACTIONS):
        count += _is_legal(g.open_bits, g.supplies, g.headdresses, g.heights, 0, g.player[0], action)
    return count


@kernel
def _nth_legal(g, k):
    """Game 0's ``k``-th legal move (from 0), in ascending order as ``state.legal_actions()`` lists them."""
    for action in range(NUM_ACTIONS):
        if _is_legal(g.open_bits, g.supplies, g.headdresses, g.heights, 0, g.player[0], action):
            if k == 0:
                return action
            k -= 1
    return -1
