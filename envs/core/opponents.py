"""What an opponent of the batched environments is, and the one they play by default: random moves.

A batch opponent is any callable ``opponent(batch, where, rng) -> actions``: given a
:class:`~envs.core.batch.BatchGames`, the games it is to move in (``where``, a ``(N,)`` bool; in
each the player to act is one it plays) and a generator, an int vector of N with a legal action
for the player to act in each of those games (the other entries are ignored). The single-agent
vector env (:mod:`envs.core.vector`) asks it for the games where an opponent is to act.

Why only random moves here: ``envs`` knows nothing of the players (docs/architecture.md). A player
comes in as a callable, made by the players' home of opponents (``agents.opponents.batch_opponent(
"heuristic", game)`` is the game's heuristic for a whole batch), or by name through the standard plug-in
mechanism: an installed package declares ``factory(game) -> BatchOpponent`` as an entry point of the group
``drawluck.opponents`` (this project declares ``heuristic`` and ``trained`` in its pyproject.toml), and
:func:`batch_opponent` loads the one named, so that the environments import no player's code themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

import numpy as np

from envs.core.batch import BatchGames
from envs.core.engine import Game, shown
from envs.core.uniform import kth_legal

#: An opponent of a batch: ``opponent(batch, where, rng) -> (N,) actions`` (see the module docstring).
BatchOpponent = Callable[[BatchGames, np.ndarray, np.random.Generator], np.ndarray]
BUILT_IN = ("random",)
#: The entry-point group of the opponents named by installed packages: each a ``factory(game) -> BatchOpponent``.
ENTRY_POINT_GROUP = "drawluck.opponents"


def random_moves(batch: BatchGames, where: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action in every game of ``where`` (0 elsewhere): the k-th legal action, k
    drawn uniformly. One draw per game (not per action: Samurai has hundreds of actions), whether or not
    it moves, so that the moves depend on the generator only, not on ``where``."""
    mask = batch.legal_mask_where(where)  # only the games it moves in: an engine may compute just those
    return kth_legal(np.ascontiguousarray(mask, dtype=bool), rng.random(len(mask)))


def named_opponents() -> dict[str, EntryPoint]:
    """The opponents installed packages offer by name (the entry points of :data:`ENTRY_POINT_GROUP`), read
    from the installed metadata each time: a package installed meanwhile counts."""
    return {point.name: point for point in entry_points(group=ENTRY_POINT_GROUP)}


def opponent_names() -> list[str]:
    """Every name :func:`batch_opponent` takes: the built-in ``random`` and the installed named opponents."""
    return sorted({*BUILT_IN, *named_opponents()})


def batch_opponent(opponent: str | BatchOpponent, game: Game | None = None) -> BatchOpponent:
    """The callable itself, ``"random"`` (:func:`random_moves`), or the opponent an installed package names
    (its entry point's ``factory(game)``, loaded only now: a plain vector env imports no player's code)."""
    if callable(opponent):
        return opponent
    if opponent == "random":
        return random_moves
    point = named_opponents().get(opponent) if isinstance(opponent, str) else None
    if point is None:
        raise ValueError(
            f"opponents must be one of {opponent_names()} (random, or the names installed packages declare as "
            f"{ENTRY_POINT_GROUP} entry points) or a callable (batch, where, rng) -> actions (a player: "
            f"agents.opponents.batch_opponent('heuristic', game)), got {shown(opponent)}"
        )
    if game is None:
        raise ValueError(f"opponents {opponent!r} plays one game: pass the game, batch_opponent({opponent!r}, game)")
    return point.load()(game)


__all__ = [
    "BUILT_IN",
    "ENTRY_POINT_GROUP",
    "BatchOpponent",
    "batch_opponent",
    "kth_legal",
    "named_opponents",
    "opponent_names",
    "random_moves",
]
