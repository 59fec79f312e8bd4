"""Frozen anchors: each engine and reference agent identified by what it plays, not by its source.

The check, the full replay and the recording are the command ``python -m benchmarks.anchors``.

Why behaviour: a rating compares agents through the games the anchors play on the engines. A change that
plays every game the same (a faster engine, a compiled search) changes nothing a rating depends on, so it must
not change an identity; a change that plays one move otherwise must. Source hashes got both wrong: a pure
speed-up made a new engine, and nothing tied a hash to a move.

- An **engine**'s identity is the digest of its game's golden games (:mod:`benchmarks.core.golden`), which this
  checkout's per-game and batched engines must play again move for move, mask for mask, to the same result.
- A **reference agent** is *resolved* (``level:5`` to what :mod:`agents.levels` says it is in that game) and
  identified by the digest of its resolved spec and of the golden decisions of its *witnesses*: the ladder's
  rungs of its kind (:data:`WITNESSES`; ``ismcts`` at 20, 50, 100 and 1000 iterations, ``best`` at 50 and 1000),
  plus the ε-greedy heuristic for an ε-greedy agent. A search seeded and given iterations chooses the same
  move on any machine, so its golden decisions are exact. A search given a *time* budget (the levels' ``best``
  at 0.1 or 0.5 s) cannot be: how many iterations fit depends on the machine and its load. Its identity is its
  spec (the time budget included) with the same code's witnesses at fixed iterations standing in: the code that
  decides is the one the witnesses pin, and only the clock's reading is left free, as it always was.
- A ``ppo:PATH`` agent adds the sha256 of its model file to the ``trained`` witness (the code that plays it).

``benchmarks/schema/anchors.json`` holds the identities of the current protocol version, and the ``v2 source
hashes`` that runs recorded before identities were behaviour, each mapped to the identity it is
(:func:`current_engine`, :func:`current_anchor`): the map was made by replaying every golden game and decision
on the code of those hashes, so the records made then still verify and still pool with new runs.
``tests/test_benchmarks_anchors.py`` fails when a golden game or decision no longer replays, and when an
identity changes while :data:`benchmarks.core.protocol.PROTOCOL` does not.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import envs
from agents import agent_kind, split_epsilon
from benchmarks.core import golden
from benchmarks.core.protocol import LADDERS, PROTOCOL
from envs.core.engine import shown

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "benchmarks" / "schema" / "anchors.json"
#: The key of the table's map from the source hashes of v2 records to identities.
LEGACY = "v2 source hashes"
#: The witnesses of each kind of built-in agent (``agents.make_agent``'s dispatch).
WITNESSES = {
    "random": ("random",),
    "heuristic": ("heuristic",),
    "ismcts": ("ismcts-20", "ismcts-50", "ismcts-100", "ismcts-1000"),
    "best": ("best-50", "best-1000"),
    "trained": ("trained",),
    "ppo": ("trained",),
}
#: The witness of the ε-greedy wrapper (the levels' weaker heuristics).
EPSILON_WITNESS = "heuristic~0.3"


def resolve(name: str, options: dict[str, Any], game: str) -> dict[str, Any]:
    """What ``name`` with ``options`` plays in ``game``: a level as its agent and options; anything else as is."""
    if agent_kind(name) == "level":
        from agents.levels import parse_level_name

        level = parse_level_name(name, game)
        return {"name": level.agent, "options": {**level.options, **options}}
    return {"name": name, "options": dict(options)}


def witnesses_of(spec: dict[str, Any]) -> tuple[str, ...]:
    """The witnesses whose golden decisions identify a resolved spec's code; ValueError for an agent without."""
    base, epsilon = split_epsilon(spec["name"])
    kind = agent_kind(base)
    if kind not in WITNESSES:
        raise ValueError(f"agent {shown(spec['name'])} has no anchor identity; kinds identified: {sorted(WITNESSES)}")
    guided = kind == "ismcts" and {"network", "evaluator"} & set(spec["options"])
    return WITNESSES[kind] + (WITNESSES["best"] if guided else ()) + ((EPSILON_WITNESS,) if epsilon else ())


@functools.cache
def goldens() -> tuple[dict, dict]:
    """The committed golden games (game -> list) and decisions (witness -> game -> list), read once."""
    return golden.load(golden.GAMES_FILE), golden.load(golden.DECISIONS_FILE)


def engine_identity(game: str) -> str:
    """A game's engine as what it plays: the digest of its golden games."""
    return golden.digest(goldens()[0].get(game, []))


def witness_digest(label: str) -> str:
    """The digest of a witness's golden decisions in every game."""
    return golden.digest(goldens()[1].get(label, {}))


def anchor_identity(name: str, options: dict[str, Any], game: str | None) -> str:
    """A built-in agent as it plays in ``game`` (see the module docstring); ValueError for one without."""
    spec = resolve(name, options, game)
    parts = {"spec": spec, "witnesses": {label: witness_digest(label) for label in witnesses_of(spec)}}
    if agent_kind(spec["name"]) == "ppo":
        path = Path(split_epsilon(spec["name"])[0].partition(":")[2]).resolve()
        parts["model"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return golden.digest(parts)


def table() -> dict[str, Any]:
    """The current identities: every rung of every ladder (a rung resolves alike in every game) and engine."""
    rungs = {rung.label: rung for ladder in LADDERS.values() for rung in ladder.rungs}
    anchors = {label: anchor_identity(rung.name, dict(rung.options), None) for label, rung in sorted(rungs.items())}
    return {"protocol": PROTOCOL, "anchors": anchors, "engines": {game: engine_identity(game) for game in envs.GAMES}}


def changed(current: dict[str, Any], committed: dict[str, Any]) -> list[str]:
    """What differs between two tables: the label of each anchor, ``engine/game`` of each engine."""
    out = []
    for key, prefix in (("anchors", ""), ("engines", "engine/")):
        names = set(current[key]) | set(committed[key])
        out += [f"{prefix}{n}" for n in sorted(names) if current[key].get(n) != committed[key].get(n)]
    return out


@functools.cache
def _legacy() -> dict:
    return json.loads(TABLE.read_text()).get(LEGACY, {"engines": {}, "anchors": {}})


def current_engine(game: str, stored: str) -> str:
    """A run's stored engine identity as today's kind: a v2 source hash mapped to its identity, else as is."""
    return _legacy()["engines"].get(game, {}).get(stored, stored)


def current_anchor(stored: str | None) -> str | None:
    """A run's stored anchor identity as today's kind: a v2 source hash mapped to its identity, else as is."""
    return _legacy()["anchors"].get(stored, stored)


@functools.cache
def engine_problems(game: str) -> tuple[str, ...]:
    """Where this checkout's engines of ``game`` do not play its golden games again (empty: they do)."""
    return tuple(golden.replay_games(game, goldens()[0].get(game, [])))


@functools.cache
def witness_problems(label: str, game: str) -> tuple[str, ...]:
    """Where witness ``label`` no longer chooses its golden decisions in ``game`` (empty: it chooses them)."""
    games, decisions = goldens()
    return tuple(golden.replay_decisions(label, game, games.get(game, []), decisions.get(label, {}).get(game, [])))


def agent_problems(name: str, options: dict[str, Any], game: str) -> list[str]:
    """Where the witnesses of an agent no longer choose their golden decisions in ``game``."""
    return [p for label in witnesses_of(resolve(name, options, game)) for p in witness_problems(label, game)]
