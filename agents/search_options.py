"""The options of the search (:mod:`agents.ismcts`, and guided by an evaluator :mod:`agents.guided`), as one
settings object (:class:`SearchSettings`): ``"auto"`` resolved per game, each option checked against its rule,
the rollout policy and leaf evaluation they name.

Why a module of its own: the searches share the options, their rules and the wording of their errors (a
ValueError naming the option and its allowed values), and the search code stays about searching.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.leaf_values import Evaluation, evaluation_for
from agents.tuning import GUIDED, SEARCH
from envs.core.engine import Game, GameState, is_int, is_number, shown
from envs.games import description_of

#: Rollout policies: ``auto`` is the game's heuristic when it has one, else random.
ROLLOUTS = ("auto", "heuristic", "random")

#: An option's rule: its test and its allowed values as the error says them.
Rule = tuple[Callable[[Any], bool], str]


def is_auto(value: object) -> bool:
    """The option was left at ``"auto"`` (its per-game value, :mod:`agents.tuning`)."""
    return isinstance(value, str) and value == "auto"


def resolve_auto(tuned: dict[str, Any], **given: Any) -> dict[str, Any]:
    """The ``given`` options with each one left at ``"auto"`` replaced by its ``tuned`` value."""
    return {name: tuned[name] if is_auto(value) else value for name, value in given.items()}


#: Plain ISMCTS's options, each with its rule; the error reads ``"NAME must be ALLOWED, got VALUE"``
#: (checked after ``"auto"`` is resolved, so an ``"auto"`` is always allowed).
RULES: dict[str, Rule] = {
    "iterations": (lambda v: v is None or (is_int(v) and v >= 1), "a positive int or None"),
    "time_limit": (lambda v: v is None or (is_number(v) and v > 0), "a positive, finite number of seconds or None"),
    "exploration": (lambda v: is_number(v) and v >= 0, "a non-negative, finite number"),
    "score_weight": (lambda v: is_number(v) and 0 <= v <= 1, "a number in [0, 1]"),
    "rollout": (lambda v: isinstance(v, str) and v in ROLLOUTS, f"one of {list(ROLLOUTS)}"),
    "rollout_epsilon": (lambda v: is_number(v) and 0 <= v <= 1, "'auto' or a number in [0, 1]"),
    "rollout_depth": (lambda v: v is None or (is_int(v) and v >= 0), "'auto', None or a non-negative int"),
    "paired_root": (lambda v: isinstance(v, bool), "'auto', True or False"),
    "tree_depth": (lambda v: v is None or (is_int(v) and v >= 1), "'auto', a positive int or None"),
    "widening": (lambda v: v is None or (is_number(v) and v > 0), "a positive, finite number or None"),
    "split_chance": (lambda v: isinstance(v, bool), "True or False"),
    "batch_rollouts": (lambda v: isinstance(v, bool) or is_auto(v), "'auto', True or False"),
    "leaf_evaluation": (
        lambda v: v is None or callable(v) or is_auto(v),
        "'auto', None or a callable evaluation(state, rnd) -> (win, scores) (agents/leaf_values.py)",
    ),
}


def check_options(rules: dict[str, Rule], **options: Any) -> None:
    """A ValueError naming the first option that breaks its rule, with its allowed values."""
    for name, value in options.items():
        test, allowed = rules[name]
        if not test(value):
            raise ValueError(f"{name} must be {allowed}, got {shown(value)}")


def rollout_policy(game: Game | None, rollout: str) -> Callable[[GameState], int] | None:
    """The rollouts' ``policy(state)``: the game's heuristic for ``"heuristic"`` (a ValueError where there
    is none), and for ``"auto"`` where there is one; None: random rollouts."""
    if rollout == "random" or (game is None and rollout == "auto"):
        return None
    if game is None:
        raise ValueError("rollout='heuristic' needs game=...")
    from agents.heuristic import rollout_policy_for

    try:
        return rollout_policy_for(game)
    except ValueError:
        if rollout == "heuristic":
            raise
        return None


def leaf_evaluator(game: Game | None, given: Evaluation | str | None, rollout_depth: int | None) -> Evaluation | None:
    """The evaluation of the leaves where rollouts stop: ``given``, or for ``"auto"`` the game's own
    (:func:`agents.leaf_values.evaluation_for`); a ValueError where ``rollout_depth`` needs one and there is none."""
    evaluate = evaluation_for(game) if isinstance(given, str) else given
    if rollout_depth is not None and evaluate is None:
        raise ValueError(
            f"rollout_depth needs a position evaluation; game {getattr(game, 'name', None)!r} has none "
            "(or pass leaf_evaluation=...)"
        )
    return evaluate


#: The guided options' rules (as :data:`RULES`, checked after ``"auto"`` is resolved).
GUIDED_RULES: dict[str, Rule] = {
    "c_puct": (lambda v: is_number(v) and v >= 0, "'auto' or a non-negative number"),
    "value_mix": (lambda v: is_number(v) and 0 <= v <= 1, "'auto' or a number in [0, 1]"),
    "leaf_batch": (lambda v: is_int(v) and v >= 1, "'auto' or a positive int"),
    "prior_temperature": (lambda v: is_number(v) and v > 0, "'auto' or a positive number"),
    "keep_tree": (lambda v: isinstance(v, bool), "True or False"),
}
#: What plain ISMCTS's options left at ``"auto"`` become, for every game, unless :data:`agents.tuning.SEARCH`
#: gives the game's own (:mod:`agents.ismcts` says why those differ).
DEFAULTS = {"rollout_epsilon": 0.1, "rollout_depth": None, "paired_root": False, "tree_depth": None}
#: What the guided options left at ``"auto"`` become unless :data:`agents.tuning.GUIDED` gives the game's own.
GUIDED_DEFAULTS = {"c_puct": 1.5, "value_mix": 0.0, "leaf_batch": 8, "prior_temperature": 1.0}
#: Progressive widening by default: plain ISMCTS widens (a small budget is not spread over a hundred Samurai
#: hexes); the guided search lets the prior choose which moves compete.
WIDENING = {"plain": 2.0, "guided": None}


def search_defaults(game: Game | None) -> dict:
    """What ``"auto"`` means for ``game``: :data:`DEFAULTS` with its own values from :data:`agents.tuning.SEARCH`."""
    own = SEARCH.get(game.name, {}) if description_of(game) is not None else {}
    return {**DEFAULTS, **own}


def guided_defaults(game: Game | None) -> dict[str, Any]:
    """The guided options' ``"auto"`` values for ``game`` (:data:`GUIDED_DEFAULTS` with its own from
    :data:`agents.tuning.GUIDED`)."""
    return {**GUIDED_DEFAULTS, **GUIDED.get(getattr(game, "name", None), {})}


@dataclass(frozen=True)
class SearchSettings:
    """Every option of the search, plain or guided, in one object (the budget apart: ``iterations`` and
    ``time_limit`` are the agent's, which a caller may change between moves).

    Left at ``"auto"``, an option takes its per-game value (:mod:`agents.tuning`) when :meth:`resolved`;
    the plain search reads :data:`PLAIN_OPTIONS`, the search guided by an evaluator :data:`GUIDED_OPTIONS`
    (it walks the whole tree, never a paired flat root). The meaning of each: :mod:`agents.ismcts`
    (the tree walk and the leaves' rollouts) and :mod:`agents.guided` (the evaluator's prior and value).
    """

    exploration: float = 1.0
    score_weight: float = 0.25
    split_chance: bool = True
    rollout: str = "auto"
    rollout_epsilon: float | str = "auto"
    widening: float | None | str = "auto"
    rollout_depth: int | None | str = "auto"
    paired_root: bool | str = "auto"
    tree_depth: int | None | str = "auto"
    batch_rollouts: bool | str = "auto"
    leaf_evaluation: Evaluation | str | None = "auto"
    c_puct: float | str = "auto"
    value_mix: float | str = "auto"
    leaf_batch: int | str = "auto"
    prior_temperature: float | str = "auto"
    keep_tree: bool = True

    @classmethod
    def of(cls, settings: SearchSettings | None, options: dict[str, Any], allowed: tuple[str, ...]) -> SearchSettings:
        """``settings`` (default: all defaults) with the keyword ``options`` given beside it; an option that is
        not one of ``allowed`` is a TypeError, as any unexpected keyword argument is."""
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r} (the search's options: {list(allowed)})")
        if settings is not None and not isinstance(settings, SearchSettings):
            raise ValueError(f"settings must be a SearchSettings or None, got {shown(settings)}")
        return dataclasses.replace(settings or cls(), **options)

    def resolved(self, game: Game | None, guided: bool) -> SearchSettings:
        """These settings with every ``"auto"`` replaced by ``game``'s value, checked (ValueError naming the
        first bad option); guided, the root is never paired and the tree never cut short."""
        plain = {"paired_root": False, "tree_depth": None} if guided else {}
        tuned = resolve_auto(
            {**search_defaults(game), "widening": WIDENING["guided" if guided else "plain"]},
            rollout_epsilon=self.rollout_epsilon,
            rollout_depth=self.rollout_depth,
            paired_root=plain.get("paired_root", self.paired_root),
            tree_depth=plain.get("tree_depth", self.tree_depth),
            widening=self.widening,
        )
        checked = {"exploration": self.exploration, "score_weight": self.score_weight, "rollout": self.rollout}
        check_options(RULES, **checked, **tuned, split_chance=self.split_chance)
        check_options(RULES, batch_rollouts=self.batch_rollouts, leaf_evaluation=self.leaf_evaluation)
        widening = None if tuned["widening"] is None else float(tuned["widening"])
        numbers = {"exploration": float(self.exploration), "score_weight": float(self.score_weight)}
        tuned = {**tuned, **numbers, "rollout_epsilon": float(tuned["rollout_epsilon"]), "widening": widening}
        settings = dataclasses.replace(self, **tuned)
        if not guided:
            return settings
        given = dict(c_puct=self.c_puct, value_mix=self.value_mix, leaf_batch=self.leaf_batch)
        given = resolve_auto(guided_defaults(game), **given, prior_temperature=self.prior_temperature)
        check_options(GUIDED_RULES, **given, keep_tree=self.keep_tree)
        numbers = {name: float(value) for name, value in given.items() if name != "leaf_batch"}
        return dataclasses.replace(settings, **numbers, leaf_batch=int(given["leaf_batch"]))


#: The options each search takes (the guided search walks the whole tree, by PUCT rather than UCB).
PLAIN_OPTIONS = (
    "exploration",
    "score_weight",
    "split_chance",
    "rollout",
    "rollout_epsilon",
    "widening",
    "rollout_depth",
    "paired_root",
    "tree_depth",
    "batch_rollouts",
    "leaf_evaluation",
)
GUIDED_OPTIONS = (
    "c_puct",
    "value_mix",
    "leaf_batch",
    "prior_temperature",
    "widening",
    "keep_tree",
    "score_weight",
    "split_chance",
    "rollout",
    "rollout_epsilon",
    "rollout_depth",
    "leaf_evaluation",
)
