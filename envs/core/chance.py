"""Chance in every game, as a game's review needs it: draws from the front of orders no player has seen.

All randomness of these games is dealt when a state is made (the bag or the piles shuffled once; DESIGN.md).
During play a chance event is a draw from the front of one of those *hidden orders*: the bag (Wapi, Wakanda),
each player's pile (Samurai), the face-down villages (Wakanda's advanced game). Every order of what is left
is as likely as any other given everything dealt so far, so the next ``k`` items of an order are ``k`` drawn
without replacement from what it holds: a draw's outcomes are the multisets of ``k`` of its items, with the
multivariate hypergeometric probabilities. (A draw of several items goes to one hand, so their order does not
matter.)

A game names its hidden orders (``GameState.hidden_orders`` and ``set_hidden_orders``, ``drawer``,
``describe_draw``; ``chance_draws`` where playing a move on a copy does not show its draws); from them this
module derives, for every game alike:

- :func:`outcomes`: the chance event that playing an action now triggers, each outcome with its probability;
- :func:`drawn`: the outcome the true orders bring; :func:`sample_outcome`: one drawn at random;
- :func:`play_outcome`: the action played with its chance event's outcome forced (the outcome's items brought
  to the front of their orders, the rest left as they were; the outcome the orders bring, as they are);
- :func:`reshuffled`: a copy with every hidden order shuffled, the future of chance re-drawn and nothing else
  (what a review's value estimate may see of a position: every hand, but not the draws to come).

An outcome is a tuple of draws ``(order, items)``, ``items`` sorted: JSON-safe as lists.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from envs.core.engine import GameState

#: One chance event's outcome: per order drawn from, the items drawn (sorted).
Outcome = tuple[tuple[int, tuple[int, ...]], ...]


def multisets(pool: list[int], count: int) -> list[tuple[tuple[int, ...], float]]:
    """Every multiset of ``count`` items drawn without replacement from ``pool``, sorted, with its probability
    (multivariate hypergeometric: the product of C(have, take) over the kinds, over C(len(pool), count))."""
    have = sorted(Counter(pool).items())
    total = math.comb(len(pool), count)
    found = []

    def extend(kind: int, left: int, taken: tuple[int, ...], ways: int) -> None:
        if left == 0:
            found.append((taken, ways / total))
            return
        if kind == len(have):
            return
        item, available = have[kind]
        for take in range(min(left, available), -1, -1):
            extend(kind + 1, left - take, taken + (item,) * take, ways * math.comb(available, take))

    extend(0, count, (), 1)
    return sorted(found)


def outcomes(state: GameState, action: int) -> list[tuple[Outcome, float]]:
    """The outcomes of the chance event that playing ``action`` now triggers, with their probabilities (summing
    to 1), given everything dealt so far and nothing of the orders; empty when it draws nothing."""
    draws = state.chance_draws(action)
    if not draws:
        return []
    orders = state.hidden_orders()
    each = [[((k, items), p) for items, p in multisets(orders[k], count)] for k, count in draws]
    return [(tuple(d for d, _ in combo), math.prod(p for _, p in combo)) for combo in itertools.product(*each)]


def drawn(state: GameState, action: int) -> Outcome:
    """The outcome that the true orders bring when ``action`` is played now (``()`` when it draws nothing)."""
    orders = state.hidden_orders()
    return tuple((k, tuple(sorted(orders[k][:count]))) for k, count in state.chance_draws(action))


def sample_outcome(state: GameState, action: int, rng: np.random.Generator) -> Outcome:
    """One outcome of ``action``'s chance event drawn with its probability: the front of freshly shuffled orders."""
    return drawn(reshuffled(state, rng), action)


def play_outcome(state: GameState, action: int, outcome: Outcome) -> None:
    """Play ``action`` on ``state`` with its chance event's outcome forced to ``outcome`` (one of
    :func:`outcomes`); ValueError if the orders do not hold its items, or if the draws did not bring them."""
    orders = state.hidden_orders()
    for k, items in outcome:
        if tuple(sorted(orders[k][: len(items)])) == tuple(items):
            continue  # the orders bring it already: left as they are (the true game's own hand order)
        rest = list(orders[k])
        for item in items:
            if item not in rest:
                raise ValueError(f"outcome {outcome} draws {item} from order {k}, which does not hold it")
            rest.remove(item)
        orders[k] = list(items) + rest
    state.set_hidden_orders(orders)
    if drawn(state, action) != tuple(outcome):
        raise ValueError(f"outcome {outcome} is not one of the draws that action {action} makes now")
    state.apply(action)


def reshuffled(state: GameState, rng: np.random.Generator) -> GameState:
    """A copy of ``state`` with every hidden order shuffled. Each order is sorted first, so the copy depends only
    on what has been dealt and on ``rng`` (the same samples for the same position, whatever the true orders)."""
    other = state.clone()
    orders = []
    for order in state.hidden_orders():
        pool = sorted(order)
        orders.append([pool[i] for i in rng.permutation(len(pool)).tolist()])
    other.set_hidden_orders(orders)
    return other


def as_json(outcome: Outcome) -> list[list[Any]]:
    """An outcome as JSON data: ``[[order, [items...]], ...]``."""
    return [[k, list(items)] for k, items in outcome]
