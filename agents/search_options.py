"""The options of the searches (:mod:`agents.ismcts`, :mod:`agents.guided`): ``"auto"`` resolved, each
option checked against its rule, the rollout policy and leaf evaluation they name.

Why a module of its own: the two searches share the rules and the wording of their errors (a ValueError
naming the option and its allowed values), and the search code stays about searching.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.leaf_values import Evaluation, evaluation_for
from envs.core.engine import Game, GameState, is_int, is_number, shown

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
