"""Static position evaluations for search: where a rollout stops, what is each player's outlook?

ISMCTS (``agents/ismcts.py``) can cut a rollout after ``rollout_depth``
plies and score the position here instead of playing to the end. Why: in
Samurai a heuristic rollout to the end is so slow that a move's budget buys
only a few dozen samples; a cheap evaluation buys hundreds
(docs/experiments/002-samurai-leaf-evaluation.md).

Each evaluation reads one state the searcher owns (its own
determinization, so nothing hidden from it is real) and returns
``(win, scores)``: the expected win reward of every player (+1 win, -1
loss, as ``envs.core.engine.win_rewards``) and an estimate of every
player's final score (for the score-rank blend, ``score_weight``). The
win rewards are averaged over a few cheap samples of how the open
contests end, drawn with the searcher's seeded ``rnd``, so the search
stays reproducible.

An evaluation is any callable of that shape (:data:`Evaluation`): the search's leaf
evaluator, as the guided search's is an :class:`~agents.evaluator.Evaluator`.
:data:`EVALUATIONS` holds each game's own; games without one get ``None`` from
:func:`evaluation_for`, and the search then always plays to the end unless it is given one
(``make_agent("ismcts", game, leaf_evaluation=...)``).
"""

from __future__ import annotations

import functools
import operator
import random
from collections.abc import Callable

import numpy as np

from agents import random_words
from agents.random_words import uniform
from envs.core.compiled import kernel
from envs.core.engine import Game, GameState, win_rewards
from envs.games import description_of

#: How many sampled endings an evaluation averages.
SAMPLES = 16

#: ``evaluation(state, rnd) -> (win, scores)``: every player's expected win reward and score estimate.
Evaluation = Callable[[GameState, random.Random], tuple[list[float], list[float]]]


# --- Samurai ------------------------------------------------------------------
def samurai(state, rnd: random.Random) -> tuple[list[float], list[float]]:
    """Each figure still standing goes to a player with a chance from their lead around it
    (influence now, against the land left to fill); the winner procedure (majorities)
    is applied to the captures plus sampled figures, ``SAMPLES`` times."""
    n = state.game.num_players
    thresholds: list[tuple[float, ...]] = []  # per open contest: its first n - 1 cumulative chances
    types_open: list[int] = []  # per open contest: the figure's type
    expected = state.scores()  # figures captured so far, plus the expected ones below
    tile, owner, need, around = state.tile, state.owner, state.need, _around(state.layout.around)
    for s, types in enumerate(state.figures):
        if not types:
            continue
        pick = around[s]
        key = (n, s, need[s], tuple(types), pick(tile), pick(owner))
        contests = _SETTLEMENTS.get(key)
        if contests is None:
            contests = _settlement_contests(state, s, key)
        for t, shares, cumulative in contests:
            for p, share in enumerate(shares):
                expected[p] += share
            thresholds.append(cumulative)
            types_open.append(t)
    win = [0.0] * n
    for captured in _sampled_captures(state, thresholds, types_open, rnd):
        for p, r in enumerate(_samurai_rewards(captured)):
            win[p] += r
    return [w / SAMPLES for w in win], expected


@functools.cache
def _around(around: tuple[tuple[int, ...], ...]) -> tuple[Callable, ...]:
    """Per settlement, what reads the tuple of its hexes' entries from a board list (``itemgetter``, the key's
    hot part; a settlement of fewer than two hexes, which ``itemgetter`` would not give as a tuple, by a loop)."""
    return tuple(
        operator.itemgetter(*hexes) if len(hexes) > 1 else (lambda board, hexes=hexes: tuple(board[h] for h in hexes))
        for hexes in around
    )


#: The contests of a settlement (:func:`_settlement_contests`) by what decides them: the player count, the
#: settlement, its open land, its figures, and the tiles and owners around it.
_SETTLEMENTS: dict[tuple, tuple] = {}
_SETTLEMENTS_KEPT = 1 << 14


def _settlement_contests(state, s: int, key: tuple) -> tuple[tuple[int, tuple, tuple], ...]:
    """Each figure of settlement ``s``: its type and :func:`_contest`'s shares and cumulative shares; kept under
    ``key`` (a search meets the same settlements again and again, most of the board unchanged)."""
    if len(_SETTLEMENTS) >= _SETTLEMENTS_KEPT:
        _SETTLEMENTS.clear()
    influences, open_land = state.influences(s), state.need[s]
    contests = tuple((t, *_contest(tuple(influences[t]), open_land)) for t in state.figures[s])
    _SETTLEMENTS[key] = contests
    return contests


@functools.lru_cache(maxsize=1 << 14)
def _contest(influence: tuple[int, ...], open_land: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """A figure's contest, from each player's ``influence`` on it with ``open_land`` hexes left: each player's
    share of the figure (their chance against the best of the others, normalised) and the first n - 1
    cumulative shares; remembered, since a search meets the same few contests again and again."""
    from agents.heuristic.samurai_values import chance

    best, second = sorted(influence, reverse=True)[:2]
    # Each player's rival: the best of the others (the second best for the one strictly ahead).
    chances = [chance(mine - (second if mine == best else best), open_land) for mine in influence]
    total = sum(chances)
    shares = [c / total for c in chances]
    cumulative, acc = [], 0.0
    for share in shares:
        acc += share
        cumulative.append(acc)
    return tuple(shares), tuple(cumulative[:-1])


def _sampled_captures(state, thresholds: list[tuple[float, ...]], types: list[int], rnd: random.Random) -> list[tuple]:
    """``SAMPLES`` endings of the open contests, each the captures (flat: three types a player, player after
    player) with every contest's figure given to a player: the first whose cumulative chance reaches a draw
    of ``rnd`` (``bisect``: a draw above the first n - 1 goes to the last player, as it would past a sum
    rounded below 1). The draws are ``rnd.random()``'s, sample by sample, contest by contest
    (:func:`agents.random_words.take`)."""
    n, contests = state.game.num_players, len(types)
    counts = _count_samples(
        random_words.take(rnd, 2 * SAMPLES * contests),
        np.array(thresholds, dtype=np.float64).reshape(contests, n - 1),
        np.array(types, dtype=np.int64),
        np.array([count for player in state.captured for count in player], dtype=np.int64),
        SAMPLES,
    )
    return list(map(tuple, counts.tolist()))


@kernel
def _count_samples(words, thresholds, types, captured, samples):  # pragma: no cover - compiled
    """The captures of each sample (rows), from the words of its draws (made into ``random()``'s floats by
    :func:`agents.random_words.uniform`): each contest's figure to the player whose cumulative chance first reaches
    the draw."""
    contests, others = thresholds.shape
    counts = np.empty((samples, captured.shape[0]), np.int64)
    k = 0
    for i in range(samples):
        counts[i, :] = captured
        for c in range(contests):
            draw = uniform(words, k)
            k += 2
            player = 0
            for q in range(others):
                if thresholds[c, q] < draw:
                    player += 1
            counts[i, 3 * player + types[c]] += 1
    return counts


@functools.lru_cache(maxsize=1 << 14)
def _samurai_rewards(captured: tuple[int, ...]) -> tuple[float, ...]:
    """The win rewards of the captures ``captured`` (flat: three types a player, player after player),
    remembered: the samples of a search end in few distinct captures."""
    from envs.samurai.scoring import winners as winners_of

    n = len(captured) // 3
    return tuple(win_rewards(n, winners_of([list(captured[3 * p : 3 * p + 3]) for p in range(n)])))


# --- Wapi ---------------------------------------------------------------------
def wapi(state, rnd: random.Random) -> tuple[list[float], list[float]]:
    """Expected final scores: every mine gets its free silver fields filled at the bag's
    mean coin; the totems a player still holds score, in expectation, a share of the
    masks still to come at the mean mine's expected value. Wins are sampled by adding
    noise that shrinks with the coins left to place."""
    from agents.heuristic.wapi import bag_facts, expected_values, masks_to_come
    from envs.wapi.components import COINS_TO_END

    game, n = state.game, state.game.num_players
    mean, coins, masks = bag_facts(state)
    values = expected_values(state, mean)
    shared = game.scoring == "shared"
    expected = [0.0] * n
    for k, poles in enumerate(state.totems):
        for p in poles:
            expected[p] += values[k] / len(poles) if shared else values[k]
    masks_left = sum(masks)
    to_place = COINS_TO_END - state.coins_placed
    if masks_left:
        future_masks = masks_to_come(state, coins, masks_left)
        pole_value = (
            sum(m * values[k] / ((1 + len(state.totems[k])) if shared else 1) for k, m in enumerate(masks)) / masks_left
        )
        for p in range(n):
            expected[p] += min(state.totems_left[p], future_masks / n) * pole_value
    spread = 1.0 + 1.5 * to_place**0.5
    wins = [0] * n
    for _ in range(SAMPLES):
        noisy = [e + rnd.gauss(0.0, spread) for e in expected]
        wins[max(range(n), key=noisy.__getitem__)] += 1
    return [2 * w / SAMPLES - 1 for w in wins], expected  # win_rewards (+1 / -1) averaged


#: Each game's evaluation, by game name (a game missing here has none).
EVALUATIONS: dict[str, Evaluation] = {"samurai": samurai, "wapi": wapi}


def evaluation_for(game: Game | None) -> Evaluation | None:
    """``game``'s own evaluation (:data:`EVALUATIONS`); ``None`` when it has none (rollouts then play to
    the end). :data:`agents.tuning.SEARCH` says at which rollout depth search uses it by default."""
    return EVALUATIONS.get(game.name) if description_of(game) is not None else None
