"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration draws one determinization from the agent's view (the only
source of hidden information and chance), walks a tree of the searching
player's information sets with UCB, adds one edge, plays the rest at random
and backs the result up. Why this shape:

- *Any player count*: every edge stores the reward of the player who chose
  it, so each node maximises its own acting player's reward (the terminal
  reward vector comes from ``state.rewards``).
- *Hidden hands*: an action that exists only in some determinizations is
  judged by its *availability* count (how often it could have been chosen),
  not by the node's visits.
- *Rollouts* follow the game's heuristic with a little randomness
  (``rollout="auto"``), run on the searcher's own determinization: random
  play values positions badly in these games (a pole is worth little if
  nobody feeds its mine), and ISMCTS with random rollouts lost to the
  heuristic.
- *Truncated rollouts* (``rollout_depth``): a rollout may stop after k
  plies and the position be scored by the game's static evaluation
  (``agents/leaf_values.py``, on the searcher's own determinization). In
  Samurai a heuristic rollout to the end is so slow that a move's budget
  bought a few dozen samples and the search lost to its own rollout policy;
  scoring the leaf at once (depth 0, Samurai's default) gives many times more
  (``docs/experiments/002-samurai-leaf-evaluation.md``).
- *Progressive widening* (``widening``): a node reached ``n`` times has at
  most ``1 + widening * sqrt(n)`` children, the heuristic's move first, so a
  small budget is not spread over a hundred Samurai hexes.
- *Chance*: draws are fixed in the determinized bag, so after an action the
  tree branches on what the searching player then observes (``split_chance``,
  keyed by its observation vector): a drawn 5 and a drawn 0 lead to
  different nodes instead of being averaged into one. The search keeps one
  observer of the game, told of each simulation's state and of every move
  in the tree walk, so that an incremental observer encodes only what
  changed.
- *Paired root* (``paired_root``): each determinization is played out once
  for *every* root action, with the same rollout dice (common random
  numbers), so the comparison between actions is not drowned by the luck of
  the draw. The budget then counts simulations, one per action per sample.
- *Tree depth* (``tree_depth``): how many plies the tree may hold; below
  them the rollout policy plays. ``tree_depth=1`` is flat Monte Carlo over
  the root's actions: each action followed by the rollout policy.

- *Batch rollouts* (``batch_rollouts``): the flat paired search with exact
  heuristic rollouts needs no tree and no dice, only many games played out.
  Where the game's heuristic plays batches (Wapi: ``envs/wapi/batch.py``), a
  batch of determinizations is played out for every root action at once in
  numpy: the same samples, sums and choices as one by one, several times
  as many a second (``benchmarks/results/batch_rollouts.md``).

Wapi's defaults (``agents.tuning.SEARCH``) are paired, flat, with exact heuristic
rollouts (``rollout_epsilon=0``), in batches: one step of policy improvement over the
heuristic. Why: at a four-player table the tree below the root is hardly ever
revisited (every opponent's draw splits it, and a move's budget buys only a
few hundred samples per action), and the luck of the bag swamps unpaired
comparisons. The tree with widening came out level with the heuristic; the
flat paired search wins the most games at its table
(``docs/experiments/001-wapi-four-player-search.md``, which also gives the
ceiling of a one-step search, and shows that many times the samples did not
raise it further).

Budget: ``iterations`` (simulations) per move, or ``time_limit`` seconds per move
(given both, the search stops at whichever comes first), counted in CPU time
of this process (so a busy machine does not starve the search; results then
depend on machine speed, while iterations are exactly reproducible from
``seed``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.evaluator import RolloutEvaluator
from agents.gc_freeze import freeze_long_lived
from agents.protocol import Agent, PlayerView
from agents.search_options import PLAIN_OPTIONS, RULES, SearchSettings, check_options, leaf_evaluator, rollout_policy
from envs.core.engine import Game, GameState, Observer, is_int, shown

#: The most determinizations a batch-rollout search plays out at once. On a time budget a batch is
#: sized to half the time left at the last batch's pace (the first of a search: ``FIRST_BATCH``), so
#: that the clock stops it close to its budget; a numpy step costs much the same for tens of games as for hundreds.
BATCH_SAMPLES, FIRST_BATCH = 512, 16
#: Fewer rollouts than this are played one by one (a batch's numpy steps cost more than a few games'):
#: the same samples and sums either way.
MIN_BATCH_ROLLOUTS = 16

#: The budget when neither ``iterations`` nor ``time_limit`` is given.
DEFAULT_ITERATIONS = 1000


class Edge:
    """One action out of a node: its chooser's reward sum, visits, availability, and children by outcome
    (the guided search of :mod:`agents.guided` uses it too, counting pending visits as virtual ones)."""

    __slots__ = ("visits", "avail", "total", "children")

    def __init__(self) -> None:
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.children: dict[bytes | None, Any] = {}  # the nodes of the search that made the edge


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


class _Node:
    """An information set of the searching player: its edges by action, and how often it was reached."""

    __slots__ = ("edges", "visits")

    def __init__(self) -> None:
        self.edges: dict[int, Edge] = {}
        self.visits = 0


class ISMCTSAgent(Agent):
    """Information-set MCTS through the engine protocol; a budget of iterations or seconds per move.

    ``settings`` (:class:`~agents.search_options.SearchSettings`) holds the search's options, and any of
    :data:`OPTIONS` may also be given by keyword (``ISMCTSAgent(game, iterations=200, rollout="random")``):
    the form ``make_agent`` and the command lines use. The leaves are valued by a
    :class:`~agents.evaluator.RolloutEvaluator` (``leaf``): rollouts, then the game's static evaluation.
    """

    name = "ismcts"
    #: The options this search takes by keyword, beside ``seed``, ``iterations``, ``time_limit``, ``settings``.
    OPTIONS = PLAIN_OPTIONS

    def __init__(
        self,
        game: Game | None = None,
        seed: int | None = None,
        iterations: int | None = None,
        time_limit: float | None = None,
        settings: SearchSettings | None = None,
        **options,
    ):
        settings = SearchSettings.of(settings, options, self.OPTIONS).resolved(game, guided=False)
        self._start(game, seed, iterations, time_limit, settings)

    def _start(
        self, game: Game | None, seed: int | None, iterations: int | None, time_limit: float | None, settings
    ) -> None:
        """What every search sets up: its budget, resolved settings, random streams, leaf evaluator and observer."""
        if iterations is None and time_limit is None:
            iterations = DEFAULT_ITERATIONS
        check_options(RULES, iterations=iterations, time_limit=time_limit)
        self.iterations, self.time_limit, self.settings = iterations, time_limit, settings
        self._policy = rollout_policy(game, settings.rollout)
        evaluation = leaf_evaluator(game, settings.leaf_evaluation, settings.rollout_depth)
        seq_np, seq_py = np.random.SeedSequence(seed).spawn(2)
        self.np_rng = np.random.default_rng(seq_np)
        self.rnd = random.Random(int(seq_py.generate_state(1)[0]))
        depth, epsilon = settings.rollout_depth, settings.rollout_epsilon
        self.leaf = RolloutEvaluator(self._policy, evaluation, epsilon, depth, settings.score_weight, self.rnd)
        # The chance keys' observer, made for ``game`` (or for the game of the first view, without one).
        self._observer: Observer | None = game.observer() if game is not None and settings.split_chance else None
        self._play_out = self._batch_play_out(game, settings.batch_rollouts)
        self._deadline: float | None = None  # of the move being searched, on a time budget
        self._simulation_seconds: float | None = None  # the last batch's CPU time per simulation
        self.last_iterations = 0  # simulations run for the last move (for benchmarks)
        if time_limit is not None:
            freeze_long_lived()  # no full collection of the libraries' objects inside a move's budget

    def _batch_play_out(self, game: Game | None, wanted: bool | str) -> Callable | None:
        """The heuristic's batch ``play_out`` when the search is the flat paired one with exact
        heuristic rollouts to the end and the game has one (``batch_rollouts`` "auto" or True), else None."""
        settings = self.settings
        flat = settings.paired_root and settings.tree_depth == 1 and settings.rollout_depth is None
        exact = self._policy is not None and settings.rollout_epsilon == 0
        play_out = None
        if flat and exact and wanted is not False:
            from agents.heuristic import batch_play_out_for

            play_out = batch_play_out_for(game)
        if wanted is True and play_out is None:
            raise ValueError(
                "batch_rollouts=True needs paired_root=True, tree_depth=1, rollout_epsilon=0, rollout_depth=None "
                "and heuristic rollouts of a game whose heuristic plays batches (Wapi, Wakanda, Samurai)"
            )
        return play_out

    # --- the search ----------------------------------------------------------
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

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if self.settings.split_chance and (self._observer is None or self._observer.game is not view.game):
            self._observer = view.game.observer()
        root = _Node()
        self.spend_budget(lambda left: self._iterate(view, root, left))
        edges = root.edges
        return max(
            legal, key=lambda a: (edges[a].visits, edges[a].total / edges[a].visits) if a in edges else (-1, 0.0)
        )

    def action_values(self, view: PlayerView, determinizations: int) -> dict[int, float]:
        """Each legal action's mean reward over ``determinizations`` paired samples: what the paired
        root compares, without choosing (training targets: ``--warm-start rollouts``). Only a search
        with ``paired_root`` has them: there every action is played out on every sample alike."""
        if not self.settings.paired_root:
            raise ValueError("action_values needs a search with paired_root=True")
        if not is_int(determinizations) or determinizations < 1:
            raise ValueError(f"determinizations must be a positive int, got {shown(determinizations)}")
        root = _Node()
        left = determinizations * len(view.legal_actions)
        while left > 0:
            left -= self._iterate(view, root, left)
        return {action: edge.total / edge.visits for action, edge in root.edges.items()}

    def _iterate(self, view: PlayerView, root: _Node, left: int | None = None) -> int:
        """One determinization: one simulation, or (``paired_root``) one per root action; with batch
        rollouts, a batch of them (:meth:`_batch_count`) unless it would be a tiny one. Returns how many
        simulations ran (``left``: how many are still wanted, None on a time budget)."""
        if self._play_out is not None:
            count = self._batch_count(len(view.legal_actions), left)
            if count * len(view.legal_actions) >= MIN_BATCH_ROLLOUTS:  # else one by one is faster
                return self._iterate_batch(view, root, count)
        state = view.sample_determinization(self.np_rng)
        if not self.settings.paired_root:
            self._simulate(state, root, view.player)
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
            self._simulate(state.clone(), root, view.player, first=(action, edge))
        return len(legal)

    def _iterate_batch(self, view: PlayerView, root: _Node, count: int) -> int:
        """``count`` determinizations of the paired flat search played out all at once: the same samples,
        moves and sums as :meth:`_iterate` one by one (each edge's rewards added in the order of the samples)."""
        legal = list(view.legal_actions)
        start = time.process_time()
        states = [view.sample_determinization(self.np_rng) for _ in range(count)]
        scores, winners = self._play_out(states, legal)
        self._simulation_seconds = (time.process_time() - start) / (count * len(legal))
        rewards = self.leaf.batch_rewards(scores.T, winners.T, view.player).reshape(count, len(legal))
        root.visits += count
        for action, column in zip(legal, rewards.T):
            edge = root.edges.get(action)
            if edge is None:
                edge = root.edges[action] = Edge()
            edge.avail += count
            edge.visits += count
            edge.total = float(np.cumsum(np.concatenate(([edge.total], column)))[-1])  # added one by one
        return count * len(legal)

    def _batch_count(self, moves: int, left: int | None) -> int:
        """How many determinizations the next batch plays out: enough for ``left`` simulations, or on a
        time budget about what half the time left allows at the last batch's pace (so that a last, smaller
        batch corrects the estimate and the search ends near its budget); at most ``BATCH_SAMPLES``."""
        if left is not None:
            return min(BATCH_SAMPLES, -(-left // moves))
        if self._simulation_seconds is None or self._deadline is None:
            return FIRST_BATCH
        remaining = self._deadline - time.process_time()
        return int(min(BATCH_SAMPLES, max(FIRST_BATCH, remaining / 2 / (self._simulation_seconds * moves))))

    def _simulate(self, state: GameState, node: _Node, me: int, first: tuple[int, Edge] | None = None) -> None:
        """Walk down from ``node`` (through ``first``, when given), add one edge, roll out, back up."""
        settings = self.settings
        rnd, c, widening = self.rnd, settings.exploration, settings.widening
        path, expanded, depth = [], False, settings.tree_depth
        keys = ChanceKeys(self._observer, me) if settings.split_chance else None
        while state.current_player is not None:
            if first is not None:
                (action, edge), first = first, None
            else:
                legal = state.legal_actions()
                edges = node.edges
                node.visits += 1
                tried, untried = [], []
                for a in legal:
                    (tried if a in edges else untried).append(a)
                for a in tried:
                    edges[a].avail += 1
                room = widening is None or len(edges) < 1 + widening * math.sqrt(node.visits)
                if untried and (room or not tried):
                    action = self._policy(state) if self._policy is not None and not edges else -1
                    if action not in untried:  # the heuristic's move first, then the others at random
                        action = untried[rnd.randrange(len(untried))]
                    edge = edges[action] = Edge()
                    edge.avail = 1
                    expanded = True
                else:
                    action, edge = self._select(edges, tried, c)
            player = state.current_player
            state.apply(action)
            path.append((edge, player))
            if expanded or len(path) == depth:
                break
            key = None if keys is None else keys.after(state, action)
            node = edge.children.get(key)
            if node is None:
                node = edge.children[key] = _Node()
        rewards = self.leaf.value(state)
        for edge, player in path:
            edge.visits += 1
            edge.total += rewards[player]

    def _select(self, node: dict[int, Edge], legal: list[int], c: float) -> tuple[int, Edge]:
        best, best_value = None, -math.inf
        for a in legal:
            edge = node[a]
            value = edge.total / edge.visits + c * math.sqrt(math.log(edge.avail) / edge.visits)
            if value > best_value:
                best, best_value = a, value
        return best, node[best]
