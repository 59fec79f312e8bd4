"""ISMCTS guided by an evaluator: a learned policy and value (``make_agent("ismcts", game, network=...)``)
or any object with the same answers (``evaluator=...``).

The search of :mod:`agents.ismcts` (one tree over the searching player's
information sets, one determinization per simulation, drawn from its
:class:`~agents.protocol.PlayerView`, so it can never see a hidden fact; one
tree walk, :mod:`agents.search`), with an evaluator in place of rollouts'
uniform priors, as OpenSpiel's MCTS takes one: any
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

from typing import TYPE_CHECKING

from agents.evaluator import Evaluator
from agents.heuristic_evaluator import HEURISTIC_GUIDE, HeuristicEvaluator
from agents.ismcts import ISMCTSAgent
from agents.search_options import GUIDED_OPTIONS, SearchSettings
from agents.tree import most_visited
from envs.core.engine import Game, shown

if TYPE_CHECKING:
    from agents.models.network import PolicyValueNet

#: ``most_visited`` is read from here too (expert iteration's self-play).
__all__ = ["GuidedISMCTSAgent", "guide", "most_visited"]


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


class GuidedISMCTSAgent(ISMCTSAgent):
    """ISMCTS with an evaluator's prior and value (see the module docstring): the plain search, its budget,
    streams, tree walk and leaf evaluator (:class:`~agents.evaluator.RolloutEvaluator`, mixed in by
    ``value_mix``), guided by ``evaluator`` (PUCT over its priors, :class:`~agents.tree.PUCT`). Its options
    are :class:`~agents.search_options.SearchSettings`' :data:`OPTIONS`, given as ``settings=`` or by keyword.

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
        guiding = guide(network, evaluator, game, seed)  # refuses another game's network before anything else
        self.game = game
        settings = SearchSettings.of(settings, options, self.OPTIONS).resolved(game, guided=True)
        self._start(game, seed, iterations, time_limit, settings, evaluator=guiding)
        if settings.keep_tree and not settings.split_chance:
            raise ValueError(
                "keep_tree=True needs split_chance=True (its keys find the kept node); pass keep_tree=False"
            )
