"""The search tree of ISMCTS, one node type for the plain and the guided search, and the two rules a walk
chooses its moves by (:class:`UCT` and :class:`PUCT`).

A node is an information set of the searching player; an edge, one action out of it, holds its chooser's
reward sum, its visits and its availability (how often it was legal when its node was walked through: an action
in another player's hidden hand exists only in some determinizations), and its children by what the searcher
observes after it (``split_chance``). Why the rules are apart from the walk (:mod:`agents.search`): which one
a search uses follows from its evaluator. Rollouts know no move better than another (their priors are uniform),
so plain ISMCTS tries new moves in its rollout policy's order and compares tried ones by UCB; an evaluator's
priors steer the guided search by PUCT (AlphaZero).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from types import MappingProxyType

import numpy as np

from envs.core.engine import GameState, Observer

#: The prior of a node whose moves are all alike (every legal move ``1 / len(legal)``): the rollouts'
#: priors, known when a node is made, so that a plain search never asks for them.
UNIFORM: Mapping[int, float] = MappingProxyType({})


class Edge:
    """One action out of a node: its chooser's reward sum, visits, availability, and children by outcome
    (a guided search counts a pending simulation's visit at once, with a virtual loss on its sum)."""

    __slots__ = ("visits", "avail", "total", "children")

    def __init__(self) -> None:
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.children: dict[bytes | None, Node] = {}


class Node:
    """An information set of the searcher: its edges by action, how often it was walked through, and the
    prior of its moves (None until its evaluator has answered; :data:`UNIFORM` for rollouts), with the
    evaluator's value of it for the player to act (the value of a move not tried yet)."""

    __slots__ = ("edges", "visits", "prior", "value", "valued")

    def __init__(self, prior: Mapping[int, float] | None = None) -> None:
        self.edges: dict[int, Edge] = {}
        self.visits = 0
        self.prior = prior
        self.value = 0.0
        self.valued = False  # reached once and valued by rollouts alone, its prior still to ask (value_mix 1)


class ChanceKeys:
    """The keys of one simulation's nodes below its first move: the searching player's observation after
    each move (``split_chance``). The observer is told of the walk's moves from its first key on (none are
    needed before), so an incremental one encodes only what changed."""

    __slots__ = ("observer", "me", "following")

    def __init__(self, observer: Observer, me: int):
        self.observer, self.me, self.following = observer, me, False

    def after(self, state: GameState, action: int) -> bytes | None:
        """The key after ``action`` was applied to ``state`` (None once the game is over)."""
        if self.following:
            self.observer.applied(state, action)
        else:
            self.observer.follow(state)
            self.following = True
        return None if state.current_player is None else self.observer.observe(state, self.me).tobytes()


def most_visited(root: Node, legal: tuple[int, ...]) -> int:
    """The move to play after a search: the most visited, ties broken by the mean value (the first legal move
    when none was tried)."""
    edges = root.edges
    return max(
        legal, key=lambda a: (edges[a].visits, edges[a].total / edges[a].visits) if a in edges else (0, -math.inf)
    )


class UCT:
    """Plain ISMCTS's rule: a new move while progressive widening leaves room (``1 + widening * sqrt(n)``
    moves at a node reached ``n`` times), the rollout policy's move first, then the others at random (from the
    search's own stream, which a paired root replays); else the tried move of the highest UCB."""

    def __init__(self, exploration: float, widening: float | None, policy: Callable | None, rnd: random.Random):
        self.c, self.widening, self.policy, self.rnd = exploration, widening, policy, rnd

    def select(self, node: Node, state: GameState) -> tuple[int, Edge, bool]:
        """The move to walk from ``node`` in ``state``, its edge, and whether that edge is new."""
        legal = state.legal_tuple()
        edges = node.edges
        node.visits += 1
        tried = [a for a in legal if a in edges]
        for a in tried:
            edges[a].avail += 1
        widening = self.widening
        room = widening is None or len(edges) < 1 + widening * math.sqrt(node.visits)
        if len(tried) < len(legal) and (room or not tried):
            untried = [a for a in legal if a not in edges]
            action = self.policy(state) if self.policy is not None and not edges else -1
            if action not in untried:  # the heuristic's move first, then the others at random
                action = untried[self.rnd.randrange(len(untried))]
            edge = edges[action] = Edge()
            edge.avail = 1
            return action, edge, True
        c = self.c
        best, best_value = None, -math.inf
        for a in tried:
            edge = edges[a]
            value = edge.total / edge.visits + c * math.sqrt(math.log(edge.avail) / edge.visits)
            if value > best_value:
                best, best_value = a, value
        return best, edges[best], False


class PUCT:
    """The guided search's rule: ``Q(a) + c_puct * P(a) * sqrt(avail(a)) / (1 + N(a))`` over the tried moves,
    the availability standing in for the parent's visits; an untried move enters with the node's own value
    (first-play urgency), or, with ``widening``, whenever there is room, in the prior's order. A move not legal
    where the node was evaluated has no prior: it gets the uniform ``1 / len(legal)``."""

    def __init__(self, c_puct: float, widening: float | None, temperature: float):
        self.c, self.widening, self.temperature = c_puct, widening, temperature

    def prior(self, probabilities: np.ndarray, legal: tuple[int, ...]) -> dict[int, float]:
        """A node's prior over ``legal`` from the evaluator's ``probabilities``: to the power ``1 / temperature``
        (above 1: flatter, because a policy trained long is nearly certain), renormalised."""
        if self.temperature == 1:
            return {a: float(probabilities[a]) for a in legal}
        flattened = probabilities[list(legal)].astype(np.float64) ** (1 / self.temperature)
        flattened /= flattened.sum()
        return dict(zip(legal, flattened.tolist()))

    def select(self, node: Node, state: GameState) -> tuple[int, Edge, bool]:
        """The move to walk from ``node`` in ``state``, its edge, and whether that edge is new."""
        legal = state.legal_tuple()
        edges, prior, c = node.edges, node.prior, self.c
        node.visits += 1
        uniform = 1.0 / len(legal)
        best, best_score = -1, -math.inf
        fresh, fresh_prior = -1, -1.0
        for a in legal:
            edge = edges.get(a)
            if edge is None:
                p = prior.get(a, uniform)
                if p > fresh_prior:
                    fresh, fresh_prior = a, p
                continue
            edge.avail += 1
            score = edge.total / edge.visits + c * prior.get(a, uniform) * math.sqrt(edge.avail) / (1 + edge.visits)
            if score > best_score:
                best, best_score = a, score
        if self.widening is not None:  # progressive widening in the prior's order: a new move whenever there is room
            take = fresh >= 0 and (best < 0 or len(edges) < 1 + self.widening * math.sqrt(node.visits))
        else:
            take = fresh >= 0 and node.value + c * fresh_prior * math.sqrt(node.visits) > best_score
        if take:
            edge = edges[fresh] = Edge()
            edge.avail = 1
            return fresh, edge, True
        return best, edges[best], False
