"""Each search agent's per-game settings, chosen by measurement: what its ``"auto"`` options become.

Data only, kept apart from the games (``envs/`` knows nothing of the agents) and from the search code, so
that a finished benchmark changes this table and nothing else. Every entry names the experiment
(``docs/experiments/``) or results file (``benchmarks/results/``) that chose it; the figures live there.
A game missing from a table takes the agent's general defaults (:data:`agents.search_options.DEFAULTS`,
:data:`agents.search_options.GUIDED_DEFAULTS`).
"""

from __future__ import annotations

from typing import Any

#: Plain ISMCTS (:mod:`agents.ismcts`), per game: the options that differ from its general defaults.
SEARCH: dict[str, dict[str, Any]] = {
    # Paired, flat, exact heuristic rollouts: one step of policy improvement over the heuristic
    # (docs/experiments/001-wapi-four-player-search.md).
    "wapi": {"rollout_epsilon": 0.0, "paired_root": True, "tree_depth": 1},
    # The leaf scored by the static evaluation instead of a rollout to the end
    # (docs/experiments/002-samurai-leaf-evaluation.md).
    "samurai": {"rollout_depth": 0},
}

#: ISMCTS guided by an evaluator (:mod:`agents.guided`), per game: the options that differ from its defaults.
GUIDED: dict[str, dict[str, Any]] = {
    # The leaves valued by the plain search alone (docs/experiments/003-guided-search-leaf-values.md).
    "wapi": {"value_mix": 1.0},
    # value_mix: docs/experiments/003-guided-search-leaf-values.md; the flatter prior:
    # docs/experiments/004-guided-search-strength.md.
    "samurai": {"value_mix": 1.0, "prior_temperature": 2.0},
    # Leaves valued half by the network, half by a rollout (docs/experiments/004-guided-search-strength.md).
    "wakanda": {"value_mix": 0.5},
}

#: The network that guides the ``best`` agent's search (:mod:`agents.best`), per configuration (its label,
#: ``envs.describe(name).label(config)``): ``"trained"`` is the configuration's shipped model. Set only where that
#: guided search measured stronger than the search without it (docs/experiments/004-guided-search-strength.md), so
#: a model newly shipped for another configuration changes no ``best`` until it is measured there.
BEST_GUIDE: dict[str, str] = {"samurai 2p": "trained", "wakanda": "trained"}

#: The guide of the ``best`` agent's search where the configuration has no shipped model, per game: ``"heuristic"``
#: is :class:`agents.heuristic_evaluator.HeuristicEvaluator`. Samurai without a model (three and four players, the
#: two-player variants): plain ISMCTS lost to the heuristic there, the heuristic-guided search beat it
#: (docs/experiments/013-samurai-heuristic-guide.md). Not Wapi: there the guide was no better than plain ISMCTS
#: (docs/experiments/014-wapi-heuristic-guide.md).
BEST_GUIDE_WITHOUT_MODEL: dict[str, str] = {"samurai": "heuristic"}
