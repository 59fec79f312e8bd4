"""The benchmark protocol ``drawluck-bench v2`` as data: deal sets, seating, the reference ladder, budgets.

Everything a rating depends on is fixed here, in one place, so that a figure
computed today and one computed next year on the same protocol version are
comparable (``docs/benchmark.md`` explains each choice):

- **Deal sets.** A deal is a game seed. The *tuning* set is every seed below
  2**32, in the order 0, 1, 2...: anyone may tune on it, and every seed the
  older benchmarks drew (:func:`benchmarks.core.matches.deal_seed` gives 32-bit
  seeds) lies in it. The *test* set starts at 2**40, far from every 32-bit
  seed, and is used only to report. The same seeds serve every configuration. A run on the test set
  starts at an offset drawn at random when it starts (stored in its record): from 2**60 positions, so no
  agent can know or enumerate the deals it will meet.
- **Seating.** Each deal is played in every rotation of the seats.
- **The ladder.** The reference agents (rungs), each at a fixed budget of
  search iterations so that their games reproduce exactly; ``quick`` is a
  cheaper ladder with its own labels, so its games never pool with the full one's.
- **Budgets** of a rated agent: CPU seconds of its process during its own
  moves; a move over ``BUDGET_MARGIN`` x budget + ``BUDGET_SLACK`` breaks the protocol.
- **The sealed agent** (v2): a user's agent runs in a process of its own
  (:mod:`benchmarks.core.sealed`), whose whole process tree is timed, watched by a
  wall clock of ``WALL_MARGIN`` x budget + ``WALL_SLACK`` a move, and capped at
  ``MEMORY_LIMIT`` bytes of address space.

Changing any of these makes a new protocol version.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass, field
from typing import Any

import envs
from envs.core.engine import Game, is_int, shown

PROTOCOL = "drawluck-bench v2"
#: The first version: its records stay readable (and are reported as they were), never pooled with v2's.
PROTOCOL_V1 = "drawluck-bench v1"

#: Deal sets: name -> (first seed, number of seeds). Disjoint by construction (checked by a test). v1 used the
#: first 2**20 test seeds; v2's test set is 2**60 seeds long, so that a run's random offset cannot be guessed.
DEAL_SETS = {"tuning": (0, 2**32), "test": (2**40, 2**60)}
#: A rated agent's move may take this multiple of its budget plus ``BUDGET_SLACK`` CPU seconds
#: (a search checks its clock between simulations; the slack absorbs one slow simulation and timer noise).
BUDGET_MARGIN = 1.5
BUDGET_SLACK = 0.05
#: A sealed agent's move may take this multiple of its budget plus ``WALL_SLACK`` seconds of wall-clock time
#: (a sleeping or blocked agent is killed then); starting its process and building it may take ``START_LIMIT``.
WALL_MARGIN = 3.0
WALL_SLACK = 1.0
START_LIMIT = 60.0
#: A sealed agent's address space (bytes, soft and hard limit): past it, its allocations fail.
MEMORY_LIMIT = 8 * 2**30
#: The rated agent's CPU budget per move when the command line gives none.
DEFAULT_BUDGET = 1.0
#: The anchors of the rating scale: the rung and the rating it is given.
ANCHORS = {"random": 0.0, "heuristic": 1000.0}
#: The anchors' table as records hold it ([hero, opponent]): the heuristic against random, which sets the unit.
ANCHOR_TABLE = sorted(ANCHORS, key=ANCHORS.get, reverse=True)


def move_limit(budget: float) -> float:
    """The CPU seconds a move may take under ``budget``: ``budget`` x ``BUDGET_MARGIN`` + ``BUDGET_SLACK``."""
    return budget * BUDGET_MARGIN + BUDGET_SLACK


def check_deals(count: Any, flag: str = "--deals") -> int:
    """``count`` deals for a reported figure: an int of at least 2 (an interval clustered by deal needs two);
    a ValueError naming ``flag`` otherwise."""
    if not is_int(count) or count < 2:
        raise ValueError(f"{flag} must be at least 2 (an interval needs two deals), got {shown(count)}")
    return int(count)


def deal_seeds(deal_set: str, count: int, first: int = 0) -> list[int]:
    """Seeds ``first .. first + count - 1`` of a deal set (the deal numbers are positions in the set)."""
    if deal_set not in DEAL_SETS:
        raise ValueError(f"deal set must be one of {list(DEAL_SETS)}, got {shown(deal_set)}")
    start, size = DEAL_SETS[deal_set]
    if not is_int(count) or count < 1 or not is_int(first) or first < 0 or first + count > size:
        raise ValueError(f"deals {shown(first)}..+{shown(count)} are not within the {deal_set} set of {size}")
    return [start + first + i for i in range(count)]


def deal_set_of(seed: int) -> str | None:
    """The set a seed belongs to, or None for a seed in neither."""
    for name, (start, size) in DEAL_SETS.items():
        if start <= seed < start + size:
            return name
    return None


#: The seat orders a match may play a deal in (the protocol's is ``rotations``).
SEATINGS = ("rotations", "permutations")


def seatings(num_players: int, mode: str = "rotations") -> list[tuple[int, ...]]:
    """The seat orders a deal is played in: ``seating[seat]`` = index of the table's agent there.

    ``rotations``: n seatings, each agent once in each seat (the smallest
    balanced design); ``permutations``: all n! orders, which also balance
    who sits after whom.
    """
    if mode not in SEATINGS:
        raise ValueError(f"seating must be one of {list(SEATINGS)}, got {shown(mode)}")
    if num_players < 2:
        raise ValueError(f"num_players must be at least 2, got {num_players}")
    if mode == "permutations":
        return list(itertools.permutations(range(num_players)))
    return [tuple((seat + shift) % num_players for seat in range(num_players)) for shift in range(num_players)]


def protocol_seatings(num_players: int) -> list[tuple[int, ...]]:
    """Every rotation of the seats: ``seating[seat]`` = index of the table's agent there."""
    return seatings(num_players, "rotations")


#: The configurations whose shipped model is the ``trained`` rung: those that had one when v2 was fixed. A model
#: shipped since for another configuration plays as ``trained`` everywhere else but is not a rung of this version:
#: it would change the rung's golden decisions, so it enters the ladder with the next version (docs/benchmark.md).
TRAINED_RUNG_CONFIGS = ("wakanda", "samurai 2p", "wapi 4p")


@dataclass(frozen=True)
class Rung:
    """A reference agent: its label in records and reports, its ``make_agent`` name and options."""

    label: str
    name: str
    options: tuple[tuple[str, Any], ...] = ()

    def applies(self, game: Game) -> bool:
        """Whether the rung exists for this configuration: ``trained`` only where v2 rates a shipped model
        (:data:`TRAINED_RUNG_CONFIGS`), ``best`` only where it differs from plain ISMCTS (a guided search, by a
        model or the heuristic)."""
        if self.name == "trained":
            from agents.models.files import shipped_model_path

            if config_label(game.name, game.config()) not in TRAINED_RUNG_CONFIGS:
                return False
            try:
                shipped_model_path(game)
            except ValueError:
                return False
            return True
        if self.name == "best":
            from agents.best import best_guide

            return bool(best_guide(game))
        return True


@dataclass(frozen=True)
class Ladder:
    """The rungs and the number of test deals of one form of the benchmark (``full`` or ``quick``)."""

    name: str
    deals: int
    rungs: tuple[Rung, ...] = field(default_factory=tuple)

    def for_game(self, game: Game) -> list[Rung]:
        return [rung for rung in self.rungs if rung.applies(game)]


def _ladder(name: str, deals: int, low: int, high: int) -> Ladder:
    rungs = (
        Rung("random", "random"),
        Rung("heuristic", "heuristic"),
        Rung(f"ismcts-{low}", "ismcts", (("iterations", low),)),
        Rung(f"ismcts-{high}", "ismcts", (("iterations", high),)),
        Rung("trained", "trained"),
        Rung(f"best-{high}", "best", (("iterations", high),)),
    )
    return Ladder(name, deals, rungs)


LADDERS = {"full": _ladder("full", 100, 100, 1000), "quick": _ladder("quick", 8, 20, 50)}


def reference_tables(rungs: list[Rung]) -> list[tuple[Rung, Rung]]:
    """The (hero, opponent) tables that place the rungs on the scale: the heuristic against random
    (the anchors), every stronger rung against the heuristic, and each against the rung below it."""
    by_label = {rung.label: rung for rung in rungs}
    heuristic, random = by_label["heuristic"], by_label["random"]
    tables = [(heuristic, random)]
    above = [rung for rung in rungs if rung.label not in ANCHORS]
    for i, rung in enumerate(above):
        tables.append((rung, heuristic))
        if i > 0:
            tables.append((rung, above[i - 1]))
    return tables


def configurations(games: list[str] | None = None) -> list[tuple[str, dict]]:
    """Every configuration (game, config) of the protocol: each game's default and one per other
    player count and variant (``GameDescription.configurations``)."""
    return [(name, config) for name in games or envs.GAMES for config in envs.describe(name).configurations()]


def config_label(game: str, config: dict) -> str:
    """``samurai 2p``, ``wapi 4p shared``: the configuration's name in reports."""
    return envs.describe(game).label(config)


def parse_config_label(text: str) -> tuple[str, dict]:
    """The configuration a label names (``"wapi 3p"``, ``"samurai"`` for its default); ValueError listing them."""
    known = {config_label(g, c): (g, c) for g, c in configurations()}
    known.update({g: (g, {}) for g in envs.GAMES})
    if text not in known:
        raise ValueError(f"--configs: unknown configuration {shown(text)}; known: {sorted(known)}")
    return known[text]


def fresh_offset(deal_set: str, count: int) -> int:
    """Where a run's deals start in ``deal_set``: drawn at random (``secrets``) in the test set, so that no one
    can tune to a fixed list of test deals; 0 in the tuning set, whose deals anyone may use."""
    start, size = DEAL_SETS[deal_set]
    return secrets.randbelow(size - count + 1) if deal_set == "test" else 0


def check_offset(deal_set: str, count: int, offset: Any, flag: str = "--deal-offset") -> int:
    """``offset`` as the first of ``count`` deals of ``deal_set``; a ValueError naming ``flag`` and the range."""
    start, size = DEAL_SETS[deal_set]
    if not is_int(offset) or not 0 <= offset <= size - count:
        raise ValueError(f"{flag} must be an int from 0 to {size - count} for {count} deals of the {deal_set} set, "
                         f"got {shown(offset)}")  # fmt: skip
    return int(offset)


def deal_offset(deal_set: str, count: int, given: Any = None) -> int:
    """A run's first deal: ``given`` checked (:func:`check_offset`), or a fresh one (:func:`fresh_offset`) when None."""
    return fresh_offset(deal_set, count) if given is None else check_offset(deal_set, count, given)
