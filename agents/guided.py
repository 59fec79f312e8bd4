"""ISMCTS guided by an evaluator: a learned policy and value (``make_agent("ismcts", game, network=...)``)
or any object with the same answers (``evaluator=...``).

The search of :mod:`agents.ismcts` (one tree over the searching player's
information sets, one determinization per simulation, drawn from its
:class:`~agents.protocol.PlayerView`, so it can never see a hidden fact),
with an evaluator in place of blind exploration, as OpenSpiel's MCTS takes one: any
:class:`~agents.evaluator.Evaluator` (move priors and every player's value for a batch of
positions); from ``network=`` it is a :class:`~agents.network_evaluator.NetworkEvaluator`.

- *Selection* is PUCT (AlphaZero): ``Q(a) + c_puct * P(a) * sqrt(avail(a)) /
  (1 + N(a))``, with the network's move probabilities as the prior ``P``.
  As in ISMCTS, an action's *availability* (how often it was legal when its
  node was visited) stands in for the parent's visits, because an action in
  another player's hidden hand exists only in some determinizations. A move
  not legal in the determinization that expanded a node has no prior; it
  gets the uniform ``1 / len(legal)``. An unvisited move is valued at the
  node's own value (first-play urgency). ``prior_temperature`` above 1
  flattens the prior (``P ** (1 / T)``, renormalised), because a policy
  trained long is nearly certain (Samurai's: docs/experiments/004-guided-search-strength.md)
  and PUCT would then hardly look at any other move.
- *Leaves* are valued by the network (every player's value), mixed with the
  plain search's leaf value (a rollout, or the game's static evaluation)
  by ``value_mix``: 0 is the network alone, 1 the plain search's value alone.
- *Priors when they are needed* (``value_mix`` 1, where the network gives
  only priors): a node reached for the first time is valued by the plain
  search alone, and the network is asked for its prior when a simulation
  comes back to it. Why: a prior is read only when a node is walked
  through, and most leaves are never reached again, so most forward passes
  are saved (a test counts them).
- *Batches*: simulations descend one after the other, each leaving a
  *virtual loss* on the edges it took so that the next one tries another
  line, until ``leaf_batch`` leaves wait for the network (or the batch has
  run ``BATCH_LIMIT`` times that many simulations, or a time budget is spent);
  those leaves are then evaluated in one forward pass (a call's fixed cost is
  shared by its rows).
  With a budget in iterations the search is reproducible from its seed.
- *Chance keys* (``split_chance``) come from one observer told of each
  simulation's moves, as in plain ISMCTS, so it encodes only what changed.
- *The tree is kept* (``keep_tree``) from one move to the next: the new
  root is the node, below the move just played, whose key is the player's
  observation now (its statistics come from determinizations of an earlier
  view, each consistent with everything the player has observed since).
  Why: in Samurai a turn is several decisions in a row, and the subtree of
  the move played holds a good part of the last search's simulations.

The budget counts simulations (``iterations``) or CPU seconds (``time_limit``)
per move, as in plain ISMCTS. Per-game defaults for the options left at
``"auto"`` come from :data:`agents.tuning.GUIDED`, which names the experiments that chose them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from agents.evaluator import Evaluator
from agents.heuristic_evaluator import HEURISTIC_GUIDE, HeuristicEvaluator
from agents.ismcts import ChanceKeys, Edge, ISMCTSAgent
from agents.protocol import PlayerView
from agents.search_options import GUIDED_OPTIONS, SearchSettings
from envs.core.engine import Game, GameState, shown

if TYPE_CHECKING:
    from agents.models.network import PolicyValueNet

#: The pessimistic value a pending simulation leaves on each edge it took (removed when it backs up).
VIRTUAL_LOSS = 1.0
#: A batch runs at most this many times ``leaf_batch`` simulations (most may end without the network).
BATCH_LIMIT = 4


def guide(
    network: str | PolicyValueNet | None, evaluator: Evaluator | str | None, game: Game | None, seed: int | None
) -> Evaluator:
    """The search's evaluator: ``evaluator`` as given (``"heuristic"``: the
    :class:`~agents.heuristic_evaluator.HeuristicEvaluator`, seeded by ``seed``), or the
    :class:`NetworkEvaluator` of ``network`` (which refuses another game's network); exactly one of them."""
    if (network is None) == (evaluator is None):
        raise ValueError(
            "the guided search needs network='trained', 'ppo:PATH' or a PolicyValueNet, or evaluator='heuristic' "
            "or an object with evaluate(states) -> (priors, values); exactly one of them"
        )
    if network is not None:
        from agents.network_evaluator import NetworkEvaluator  # torch, only for a network

        return NetworkEvaluator(network, game)
    if game is None:
        raise ValueError("the guided search needs game=... (its evaluator answers for that game's positions)")
    if isinstance(evaluator, str) and evaluator == HEURISTIC_GUIDE:
        return HeuristicEvaluator(game, seed=seed)
    if not isinstance(evaluator, Evaluator):
        raise ValueError(
            f"evaluator must be {HEURISTIC_GUIDE!r} or an object with evaluate(states) -> (priors, values) "
            f"(agents.evaluator.Evaluator), got {shown(evaluator)}"
        )
    return evaluator


class _Node:
    """An information set of the searcher: the prior and value from its first evaluation, its edges."""

    __slots__ = ("edges", "visits", "prior", "value", "valued")

    def __init__(self) -> None:
        self.edges: dict[int, Edge] = {}
        self.visits = 0
        self.prior: dict[int, float] | None = None  # None until evaluated
        self.value = 0.0  # the player to act's value, for moves not tried yet
        self.valued = False  # reached once and valued without the network (priors when needed)


class GuidedISMCTSAgent(ISMCTSAgent):
    """ISMCTS with an evaluator's prior and value (see the module docstring): the plain search's budget,
    streams and leaf evaluator (:class:`~agents.evaluator.RolloutEvaluator`, mixed in by ``value_mix``), its own
    tree walk by PUCT. Its options are :class:`~agents.search_options.SearchSettings`' :data:`OPTIONS`, given
    as ``settings=`` or by keyword.

    Args:
        game: the configured game (the network must have been made for it).
        network: ``"trained"``, ``"ppo:PATH"``, a model path, or a loaded
            :class:`~agents.models.network.PolicyValueNet`: guided by its
            :class:`~agents.network_evaluator.NetworkEvaluator`.
        evaluator: instead of ``network``, any :class:`~agents.evaluator.Evaluator`, or
            ``"heuristic"``: the game's heuristic and static evaluation (:mod:`agents.heuristic_evaluator`).

    Options:
        c_puct: weight of the prior in selection.
        value_mix: weight of the plain search's leaf value (a rollout, or the
            static evaluation at ``rollout_depth``) against the network's.
        leaf_batch: simulations whose leaves share one forward pass.
        prior_temperature: the prior is the network's probabilities to the
            power ``1 / prior_temperature``, renormalised over the legal moves
            (1: as they are; above 1: flatter).
        widening: None (every legal move competes by PUCT from the start), or
            progressive widening: a node reached for the ``n``-th time admits
            another move while it has fewer than ``1 + widening * sqrt(n)``,
            in the prior's order.
        keep_tree: start each move's search from the part of the last move's
            tree that the game has reached (needs ``split_chance``, whose keys
            find it); the budget counts the new simulations only.
        iterations, time_limit, seed, score_weight, split_chance, rollout,
        rollout_epsilon, rollout_depth, leaf_evaluation: as in :class:`~agents.ismcts.ISMCTSAgent`
        (the rollout options only matter when ``value_mix > 0``).
    """

    name = "ismcts+network"
    #: The options this search takes by keyword, beside ``network``/``evaluator``, ``seed``, the budget and
    #: ``settings``.
    OPTIONS = GUIDED_OPTIONS

    def __init__(
        self,
        game: Game | None = None,
        network: str | PolicyValueNet | None = None,
        seed: int | None = None,
        iterations: int | None = None,
        time_limit: float | None = None,
        settings: SearchSettings | None = None,
        evaluator: Evaluator | str | None = None,
        **options,
    ):
        self.evaluator = guide(network, evaluator, game, seed)  # refuses another game's network before anything else
        self.game = game
        settings = SearchSettings.of(settings, options, self.OPTIONS).resolved(game, guided=True)
        self._start(game, seed, iterations, time_limit, settings)
        if settings.keep_tree and not settings.split_chance:
            raise ValueError(
                "keep_tree=True needs split_chance=True (its keys find the kept node); pass keep_tree=False"
            )
        self.last_root: _Node | None = None
        self._played: Edge | None = None  # the last move's edge, whose subtree the next search may start from

    def reset(self) -> None:
        self._played = None
        self.last_root = None

    # --- the search ------------------------------------------------------------------
    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        root = self.search(view, self._reached(view) if self.settings.keep_tree else None)
        action = most_visited(root, legal)
        self._played = root.edges.get(action)  # none when the budget only evaluated the root
        return action

    def _reached(self, view: PlayerView) -> _Node | None:
        """The node below the last move played whose key is ``view``'s observation (the shallowest),
        if the last search evaluated it; else None."""
        if self._played is None:
            return None
        key = view.observation.tobytes()
        frontier = [self._played]
        while frontier:
            children = [item for edge in frontier for item in edge.children.items()]
            for child_key, node in children:
                if child_key == key and node.prior is not None:
                    return node
            frontier = [edge for _, node in children for edge in node.edges.values()]
        return None

    def search(self, view: PlayerView, root: _Node | None = None) -> _Node:
        """Run the budget from ``view``'s position, from ``root`` (a kept node for this position) or
        a new node; returns the root (also kept as ``last_root``)."""
        root = _Node() if root is None else root
        root.valued = True  # its prior is needed at once

        def batch(left: int | None) -> int:
            size = 1 if root.prior is None else self.settings.leaf_batch  # the root first, alone
            limit = BATCH_LIMIT * size if left is None else min(BATCH_LIMIT * size, left)
            return self._batch(view, root, size, limit)

        self.spend_budget(batch)
        self.last_root = root
        return root

    def visit_distribution(self, root: _Node | None = None) -> np.ndarray:
        """The root's visit counts as a distribution over all actions (expert iteration's policy target)."""
        root = self.last_root if root is None else root
        counts = np.zeros(self.game.num_actions, np.float32)
        for action, edge in root.edges.items():
            counts[action] = edge.visits
        return counts / counts.sum()

    @staticmethod
    def root_value(root: _Node) -> float:
        """The searcher's mean value over the root's simulations (expert iteration's value target)."""
        visits = sum(edge.visits for edge in root.edges.values())
        return sum(edge.total for edge in root.edges.values()) / visits if visits else root.value

    def _batch(self, view: PlayerView, root: _Node, size: int, limit: int) -> int:
        """Simulations until ``size`` leaves wait for the network (at most ``limit`` simulations, and none
        begun once a time budget is spent, so that a move ends near its budget); those leaves evaluated
        together, then backed up. Returns the simulations run (at least one)."""
        leaves: list[tuple[GameState, _Node, list]] = []
        runs = 0
        while runs < limit and len(leaves) < size and not (runs and self.out_of_time()):
            self._descend(view.sample_determinization(self.np_rng), root, view.player, leaves)
            runs += 1
        if leaves:
            priors, values = self.evaluator.evaluate([state for state, _, _ in leaves])
            for (state, node, path), prior, value in zip(leaves, priors, values):
                mover = state.current_player
                if node.prior is None:
                    node.prior = self._prior(prior, state.legal_tuple())
                    node.value = float(value[mover])
                mix = self.settings.value_mix
                if mix:
                    value = (1 - mix) * value + mix * np.asarray(self.leaf.value(state.clone()))
                self._backup(path, value)
        return runs

    def _prior(self, probabilities: np.ndarray, legal: tuple[int, ...]) -> dict[int, float]:
        """The node's prior over ``legal`` from the network's ``probabilities`` (``prior_temperature`` applied)."""
        temperature = self.settings.prior_temperature
        if temperature == 1:
            return {a: float(probabilities[a]) for a in legal}
        flattened = probabilities[list(legal)].astype(np.float64) ** (1 / temperature)
        flattened /= flattened.sum()
        return dict(zip(legal, flattened.tolist()))

    def _descend(self, state: GameState, node: _Node, me: int, leaves: list) -> None:
        """Walk down by PUCT to a node without a prior: queued in ``leaves`` for the network, or, reached
        for the first time with the priors asked when needed, valued by the plain search and backed up;
        or to the game's end (backed up)."""
        path: list[tuple[Edge, int]] = []
        keys = ChanceKeys(self._observer, me) if self.settings.split_chance else None
        while state.current_player is not None and node.prior is not None:
            action, edge = self._select(node, state)
            edge.visits += 1
            edge.total -= VIRTUAL_LOSS
            path.append((edge, state.current_player))
            state.apply(action)
            key = None if keys is None else keys.after(state, action)
            child = edge.children.get(key)
            if child is None:
                child = edge.children[key] = _Node()
            node = child
        if state.current_player is None:
            self._backup(path, self.leaf.rewards(state))
        elif self.settings.value_mix == 1 and not node.valued:  # the prior waits until a simulation comes back
            node.valued = True
            value = self.leaf.value(state.clone())  # on a copy: the leaf stays as the evaluator will see it
            node.value = value[state.current_player]
            self._backup(path, value)
        else:
            leaves.append((state, node, path))

    def _select(self, node: _Node, state: GameState) -> tuple[int, Edge]:
        """PUCT over the legal actions; an untried action enters with the node's own value."""
        legal = state.legal_tuple()
        edges, prior, c = node.edges, node.prior, self.settings.c_puct
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
        widening = self.settings.widening
        if widening is not None:  # progressive widening in the prior's order: a new move whenever there is room
            take = fresh >= 0 and (best < 0 or len(edges) < 1 + widening * math.sqrt(node.visits))
        else:
            take = fresh >= 0 and node.value + c * fresh_prior * math.sqrt(node.visits) > best_score
        if take:
            edge = edges[fresh] = Edge()
            edge.avail = 1
            return fresh, edge
        return best, edges[best]

    @staticmethod
    def _backup(path: list[tuple[Edge, int]], value) -> None:
        for edge, player in path:
            edge.total += VIRTUAL_LOSS + float(value[player])


def most_visited(root: _Node, legal: tuple[int, ...]) -> int:
    """The move to play after a search: the most visited, ties broken by the mean value."""
    edges = root.edges
    return max(
        legal, key=lambda a: (edges[a].visits, edges[a].total / edges[a].visits) if a in edges else (0, -math.inf)
    )
