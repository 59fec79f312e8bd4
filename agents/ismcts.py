"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration draws one determinization from the agent's view (the only
source of hidden information and chance), walks a tree of the searching
player's information sets with UCB, adds one edge, plays the rest at random
and backs the result up: the tree walk of :mod:`agents.search`, guided by
rollouts alone (the guided search, :mod:`agents.guided`, is the same walk
guided by another evaluator). Why this shape:

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
  heuristic. Where the game's heuristic module plays a rollout in compiled code (``roll_out``: Wakanda), the
  rollouts are played there: the same moves and dice, many times faster (``tests/test_wakanda_rollout.py``).
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

import random
import time
from collections.abc import Callable

import numpy as np

from agents.evaluator import Evaluator, RolloutEvaluator
from agents.gc_freeze import freeze_long_lived
from agents.heuristic import compiled_roll_out_for, determinizations_for
from agents.protocol import PlayerView
from agents.search import TreeSearch
from agents.search_options import PLAIN_OPTIONS, RULES, SearchSettings, check_options, leaf_evaluator, rollout_policy
from agents.tree import Edge, Node, most_visited
from envs.core.engine import Game, Observer, is_int, shown

#: The most determinizations a batch-rollout search plays out at once. On a time budget a batch is
#: sized to half the time left at the last batch's pace (the first of a search: ``FIRST_BATCH``), so
#: that the clock stops it close to its budget; a numpy step costs much the same for tens of games as for hundreds.
BATCH_SAMPLES, FIRST_BATCH = 512, 16
#: Fewer rollouts than this are played one by one (a batch's numpy steps cost more than a few games'):
#: the same samples and sums either way.
MIN_BATCH_ROLLOUTS = 16

#: The budget when neither ``iterations`` nor ``time_limit`` is given.
DEFAULT_ITERATIONS = 1000


class ISMCTSAgent(TreeSearch):
    """Information-set MCTS through the engine protocol; a budget of iterations or seconds per move.

    ``settings`` (:class:`~agents.search_options.SearchSettings`) holds the search's options, and any of
    :data:`OPTIONS` may also be given by keyword (``ISMCTSAgent(game, iterations=200, rollout="random")``):
    the form ``make_agent`` and the command lines use. The leaves are valued by a
    :class:`~agents.evaluator.RolloutEvaluator` (``leaf``): rollouts, then the game's static evaluation.
    The tree walk is :class:`~agents.search.TreeSearch`'s, the one the guided search
    (:class:`~agents.guided.GuidedISMCTSAgent`, this search with an evaluator) walks too.
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
        self,
        game: Game | None,
        seed: int | None,
        iterations: int | None,
        time_limit: float | None,
        settings: SearchSettings,
        evaluator: Evaluator | None = None,
    ) -> None:
        """What every search sets up: its budget, resolved settings, random streams, leaf evaluator, observer,
        and its guide (``evaluator``; None: rollouts alone, plain ISMCTS)."""
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
        played_out = None if self._policy is None else compiled_roll_out_for(game)
        self.leaf = RolloutEvaluator(
            self._policy, evaluation, epsilon, depth, settings.score_weight, self.rnd, played_out
        )
        self._guide(evaluator, self._policy)
        # The chance keys' observer, made for ``game`` (or for the game of the first view, without one).
        self._observer: Observer | None = game.observer() if game is not None and settings.split_chance else None
        self._play_out = self._batch_play_out(game, settings.batch_rollouts)
        self._draw = None if self._play_out is None else determinizations_for(game)  # its samples at once
        self._simulation_seconds: float | None = None  # the last batch's CPU time per simulation
        self.last_iterations = 0  # simulations run for the last move (for benchmarks)
        self.last_root: Node | None = None  # the root of the last search
        self._num_actions = 0 if game is None else game.num_actions  # the last searched game's (visit_distribution)
        self._played: Edge | None = None  # the last move's edge, whose subtree the next search may start from
        self.keeps_tree = evaluator is not None and settings.keep_tree
        load_compiled(game, self._policy, played_out, self._play_out, self._draw)
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

    def reset(self) -> None:
        self._played = None
        self.last_root = None

    # --- the search ----------------------------------------------------------
    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if self.settings.split_chance and (self._observer is None or self._observer.game is not view.game):
            self._observer = view.game.observer()
        root = self.search(view, self._reached(view) if self.keeps_tree else None)
        action = most_visited(root, legal)
        if self.keeps_tree:
            self._played = root.edges.get(action)  # none when the budget only evaluated the root
        return action

    def search(self, view: PlayerView, root: Node | None = None) -> Node:
        """Run the budget from ``view``'s position, from ``root`` (a kept node for this position) or
        a new node; returns the root (also kept as ``last_root``)."""
        self._num_actions = view.game.num_actions
        root = Node(self.new_prior) if root is None else root
        root.valued = True  # its prior, if it has none, is needed at once
        self.spend_budget(lambda left: self._simulations(view, root, left))
        self.last_root = root
        return root

    def visit_distribution(self, root: Node | None = None, num_actions: int | None = None) -> np.ndarray:
        """The search's policy at ``root`` (default: the last root) over ``num_actions`` actions (default: the
        last view's game's): its visit counts as a distribution, the distillation's policy target. Where every
        tried move has the same visits (a paired flat root plays each move on every sample and compares their
        values, not their visits), all of it on the move the search plays."""
        root = self.last_root if root is None else root
        counts = np.zeros(self._num_actions if num_actions is None else num_actions, np.float32)
        for action, edge in root.edges.items():
            counts[action] = edge.visits
        tried = counts[counts > 0]
        if len(tried) > 1 and tried.min() == tried.max():
            counts[:] = 0
            counts[most_visited(root, tuple(root.edges))] = 1
        return counts / counts.sum()

    @staticmethod
    def root_value(root: Node) -> float:
        """The searcher's mean value over the root's simulations (the distillation's second value target)."""
        visits = sum(edge.visits for edge in root.edges.values())
        return sum(edge.total for edge in root.edges.values()) / visits if visits else root.value

    def _reached(self, view: PlayerView) -> Node | None:
        """The node below the last move played whose key is ``view``'s observation (the shallowest),
        if the last search evaluated it; else None (``keep_tree``)."""
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

    def action_values(self, view: PlayerView, determinizations: int) -> dict[int, float]:
        """Each legal action's mean reward over ``determinizations`` paired samples: what the paired
        root compares, without choosing (training targets: ``--warm-start rollouts``). Only a search
        with ``paired_root`` has them: there every action is played out on every sample alike."""
        if not self.settings.paired_root:
            raise ValueError("action_values needs a search with paired_root=True")
        if not is_int(determinizations) or determinizations < 1:
            raise ValueError(f"determinizations must be a positive int, got {shown(determinizations)}")
        root = Node(self.new_prior)
        left = determinizations * len(view.legal_actions)
        while left > 0:
            left -= self._simulations(view, root, left)
        return {action: edge.total / edge.visits for action, edge in root.edges.items()}

    def _simulations(self, view: PlayerView, root: Node, left: int | None = None) -> int:
        """The tree walk's simulations (:meth:`~agents.search.TreeSearch._walks`), or with batch rollouts a
        batch of determinizations (:meth:`_batch_count`) played out at once unless it would be a tiny one.
        Returns how many simulations ran (``left``: how many are still wanted, None on a time budget)."""
        if self._play_out is not None:
            count = self._batch_count(len(view.legal_actions), left)
            if count * len(view.legal_actions) >= MIN_BATCH_ROLLOUTS:  # else one by one is faster
                return self._iterate_batch(view, root, count)
        return self._walks(view, root, left)

    def _iterate_batch(self, view: PlayerView, root: Node, count: int) -> int:
        """``count`` determinizations of the paired flat search played out all at once: the same samples,
        moves and sums as :meth:`_walks` one by one (each edge's rewards added in the order of the samples)."""
        legal = list(view.legal_actions)
        start = time.process_time()
        states = view.sample_determinizations(self.np_rng, count, self._draw)
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


#: The games whose compiled rollout code this process has run (:func:`load_compiled`).
_LOADED: set[str] = set()


def load_compiled(game: Game | None, policy, played_out, play_out, draw) -> None:
    """Run each compiled rollout function a search of ``game`` uses once in this process, on a fresh deal with
    streams of its own (the agent's draw nothing). Why: numba loads a kernel from its cache (or compiles it) at
    its first call, a quarter of a second or more, and that belongs to building the agent, not to its first move's
    budget (a search at a few ms a move lost its first move to it)."""
    if game is None or game.name in _LOADED:
        return
    _LOADED.add(game.name)
    state = game.new_state(np.random.default_rng(0))
    if policy is not None:
        policy(state.clone())
    if played_out is not None:
        played_out(state.clone(), 0.0, random.Random(0))
    if play_out is not None:
        view = PlayerView(state, np.random.default_rng(0))
        play_out(view.sample_determinizations(np.random.default_rng(0), 2, draw), list(view.legal_actions)[:1])
