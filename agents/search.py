"""The one tree walk of ISMCTS, plain or guided: selection, expansion, evaluation and backup, written once.

Each simulation draws a determinization from the searching player's view,
walks the tree of its information sets (:mod:`agents.tree`) choosing each move
by the search's rule, reaches a leaf, has it valued and backs the value up:
every edge adds the value of the player who chose it. What differs between
plain ISMCTS (:mod:`agents.ismcts`) and the search guided by an evaluator
(:mod:`agents.guided`) is the evaluator alone (:mod:`agents.evaluator`), and
what follows from it:

- *Rollouts* (:class:`~agents.evaluator.RolloutEvaluator`, plain ISMCTS): their
  priors are uniform, known when a node is made (:data:`~agents.tree.UNIFORM`),
  so they are never asked for; the rule is UCT (:class:`~agents.tree.UCT`), a
  walk stops on the edge it adds (or at ``tree_depth``), and a rollout values
  its leaf at once. With nothing pending, no virtual loss is needed, and
  without one the sums stay exact.
- *Any other evaluator* (a network, the heuristic's guide): a node's prior is
  the evaluator's answer, so a walk stops at the first node that has none.
  Walks go on, each leaving a *virtual loss* on the edges it took so that the
  next tries another line, until ``leaf_batch`` leaves wait (or ``BATCH_LIMIT``
  times that many walks ran, or a time budget is spent); the evaluator then
  answers them in one call (a network's fixed cost a call is shared by its
  rows), and the rule is PUCT over its priors (:class:`~agents.tree.PUCT`).
  With ``value_mix`` 1 a node reached for the first time is valued by rollouts
  alone and its prior asked when a walk comes back to it (most leaves are
  never reached again, so most evaluations are saved).

A *paired root* (``paired_root``, plain only) plays each determinization out
once for every root action, with the same dice (the search's stream rewound):
common random numbers, so the luck of the draw does not drown the comparison.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from agents.evaluator import Evaluator
from agents.protocol import Agent, PlayerView
from agents.tree import PUCT, UCT, UNIFORM, ChanceKeys, Edge, Node
from envs.core.engine import GameState

#: The pessimistic value a pending simulation leaves on each edge it took (removed when it backs up).
VIRTUAL_LOSS = 1.0
#: A batch runs at most this many times ``leaf_batch`` simulations (most may end without the evaluator).
BATCH_LIMIT = 4


class TreeSearch(Agent):
    """The walk and the budget of ISMCTS. A search sets, before its first simulation: ``settings``
    (:class:`~agents.search_options.SearchSettings`, resolved), ``iterations`` and ``time_limit``, its streams
    ``np_rng`` (determinizations) and ``rnd`` (the rollouts' and the rule's dice), ``leaf``
    (its :class:`~agents.evaluator.RolloutEvaluator`), the chance keys' ``_observer``, and calls :meth:`_guide`."""

    _deadline: float | None = None  # of the move being searched, on a time budget

    def _guide(self, evaluator: Evaluator | None, policy: Callable[[GameState], int] | None) -> None:
        """Let ``evaluator`` guide the walk, or (None) rollouts alone, whose moves ``policy`` orders (see the
        module docstring for what follows from that choice)."""
        settings, guided = self.settings, evaluator is not None
        self.evaluator = evaluator if guided else self.leaf
        if guided:
            self.rule = PUCT(settings.c_puct, settings.widening, settings.prior_temperature)
        else:
            self.rule = UCT(settings.exploration, settings.widening, policy, self.rnd)
        self.new_prior = None if guided else UNIFORM  # a new node's prior: to ask, or known
        self.virtual_loss = VIRTUAL_LOSS if guided else 0.0
        self.leaf_batch = settings.leaf_batch if guided else 1  # rollouts value each leaf at once
        self.stops_on_new_edge = not guided  # a rollout values the edge's position: no leaf node to keep

    # --- the budget -----------------------------------------------------------------
    def spend_budget(self, run: Callable[[int | None], int]) -> int:
        """Call ``run(iterations left, or None on a time budget)``, which returns how many
        iterations it ran, until the budget is spent (at least once, so even a tiny time budget
        decides on something); the total is kept in ``last_iterations`` for the benchmarks."""
        self._deadline = None if self.time_limit is None else time.process_time() + self.time_limit
        done = 0
        while True:
            if self.iterations is not None and done >= self.iterations:
                break
            if done > 0 and self.out_of_time():
                break
            done += run(None if self.iterations is None else self.iterations - done)
        self.last_iterations = done
        return done

    def out_of_time(self) -> bool:
        """Whether the move being searched has spent its time budget (never, on a budget of iterations)."""
        return self._deadline is not None and time.process_time() >= self._deadline

    # --- the walk -------------------------------------------------------------------
    def _walks(self, view: PlayerView, root: Node, left: int | None) -> int:
        """Simulations until ``leaf_batch`` leaves wait for the evaluator (the root first, alone), at most
        ``BATCH_LIMIT`` times that many (and ``left``), none begun once a time budget is spent (so that a move
        ends near its budget); the waiting leaves then evaluated together and backed up. Returns the
        simulations run (at least one)."""
        size = 1 if root.prior is None else self.leaf_batch
        limit = BATCH_LIMIT * size if left is None else min(BATCH_LIMIT * size, left)
        leaves: list[tuple[GameState, Node, list]] = []
        runs = 0
        while runs < limit and len(leaves) < size and not (runs and self.out_of_time()):
            runs += self._sample(view, root, leaves)
        if leaves:
            self._evaluate(leaves)
        return runs

    def _sample(self, view: PlayerView, root: Node, leaves: list) -> int:
        """One determinization: one simulation, or (``paired_root``) one per root action with the same dice.
        Returns how many simulations ran."""
        state = view.sample_determinization(self.np_rng)
        if not self.settings.paired_root:
            self._simulate(state, root, view.player, leaves)
            return 1
        legal = state.legal_actions()
        root.visits += 1
        luck = self.rnd.getstate()
        for action in legal:
            edge = root.edges.get(action)
            if edge is None:
                edge = root.edges[action] = Edge()
            edge.avail += 1
            self.rnd.setstate(luck)  # the same rollout dice for every action
            self._simulate(state.clone(), root, view.player, leaves, first=(action, edge))
        return len(legal)

    def _simulate(
        self, state: GameState, root: Node, me: int, leaves: list, first: tuple[int, Edge] | None = None
    ) -> None:
        """Walk down from ``root`` (through ``first``, when given) to a leaf, and value it: the game's result,
        a rollout, or (queued in ``leaves``) the evaluator's answer."""
        node, path = self._walk(state, root, me, first)
        if state.current_player is None:
            self._backup(path, self.leaf.rewards(state))
        elif node.prior is not None:  # stopped on a new edge or at tree_depth: a rollout values the position
            self._backup(path, self.leaf.value(state))
        elif self.settings.value_mix == 1 and not node.valued:  # the prior waits until a walk comes back
            node.valued = True
            value = self.leaf.value(state.clone())  # on a copy: the leaf stays as the evaluator will see it
            node.value = value[state.current_player]
            self._backup(path, value)
        else:
            leaves.append((state, node, path))

    def _walk(
        self, state: GameState, node: Node, me: int, first: tuple[int, Edge] | None
    ) -> tuple[Node, list[tuple[Edge, int]]]:
        """Walk down from ``node`` by the rule, playing the moves on ``state``, to the game's end, a node whose
        prior is still to ask, ``tree_depth`` moves, or (rollouts) a new edge. Returns the last node and the
        path: each edge taken with the player who took it (its visit counted, its virtual loss left)."""
        path: list[tuple[Edge, int]] = []
        keys = ChanceKeys(self._observer, me) if self.settings.split_chance else None
        rule, loss, depth = self.rule, self.virtual_loss, self.settings.tree_depth
        while state.current_player is not None and node.prior is not None:
            if first is not None:
                (action, edge), first, new = first, None, False
            else:
                action, edge, new = rule.select(node, state)
            edge.visits += 1
            if loss:
                edge.total -= loss
            path.append((edge, state.current_player))
            state.apply(action)
            if len(path) == depth or (new and self.stops_on_new_edge):
                break
            key = None if keys is None else keys.after(state, action)
            child = edge.children.get(key)
            if child is None:
                child = edge.children[key] = Node(self.new_prior)
            node = child
        return node, path

    def _evaluate(self, leaves: list[tuple[GameState, Node, list]]) -> None:
        """The waiting leaves answered by the evaluator in one call: each node's prior and value (when it
        had none), the value mixed with a rollout's by ``value_mix``, backed up."""
        priors, values = self.evaluator.evaluate([state for state, _, _ in leaves])
        mix = self.settings.value_mix
        for (state, node, path), prior, value in zip(leaves, priors, values):
            if node.prior is None:
                node.prior = self.rule.prior(prior, state.legal_tuple())
                node.value = float(value[state.current_player])
            if mix:
                value = (1 - mix) * value + mix * np.asarray(self.leaf.value(state.clone()))
            self._backup(path, value)

    def _backup(self, path: list[tuple[Edge, int]], value) -> None:
        """Each edge of ``path`` adds its chooser's value (and takes its virtual loss back)."""
        loss = self.virtual_loss
        for edge, player in path:
            edge.total += loss + float(value[player])
