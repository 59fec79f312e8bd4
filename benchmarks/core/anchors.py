"""Frozen anchors: each reference agent resolved to what it plays, and identified by a hash of its content.

The check and the writing of the table are the command ``python -m benchmarks.anchors``.

A rung's name is not what it plays: ``level:5`` means whatever :mod:`agents.levels` says today, and the code
of ``heuristic`` can change under its name. So a rung is *resolved* (a level to its agent and options) and
*hashed*: the resolved spec, the Python source of its code path (the modules of ``agents`` and ``training``
its class imports, followed statically; docstrings and comments left out, so that rewording changes
nothing), and, for the agents that read a network, every shipped model file. A game's *engine* hash covers
``envs/core`` and ``envs/<game>``. Records store these hashes (:func:`benchmarks.core.records.new_run`); runs whose
hashes differ never pool. ``benchmarks/schema/anchors.json`` holds the hashes of the current protocol version:
``tests/test_benchmarks_anchors.py`` fails when one changes while :data:`benchmarks.core.protocol.PROTOCOL` does not.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import envs
from agents import agent_kind, split_epsilon
from benchmarks.core.protocol import LADDERS, PROTOCOL
from envs.core.engine import shown

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "benchmarks" / "schema" / "anchors.json"
#: The packages an agent's code path is followed into (the engine has its own hash).
AGENT_PACKAGES = ("agents", "training")
#: The module each built-in kind of agent starts from (``agents.make_agent``'s dispatch, as modules).
ROOTS = {
    "random": "agents.random_agent",
    "heuristic": "agents.heuristic",
    "ismcts": "agents.ismcts",
    "best": "agents.best",
    "trained": "agents.ppo",
    "ppo": "agents.ppo",
}
#: The kinds that read a network: their hash covers every shipped model file.
NETWORK_KINDS = ("best", "trained")
MODELS = ROOT / "agents" / "models"


def resolve(name: str, options: dict[str, Any], game: str) -> dict[str, Any]:
    """What ``name`` with ``options`` plays in ``game``: a level as its agent and options; anything else as is."""
    if agent_kind(name) == "level":
        from agents.levels import parse_level_name

        level = parse_level_name(name, game)
        return {"name": level.agent, "options": {**level.options, **options}}
    return {"name": name, "options": dict(options)}


def _file(module: str) -> Path | None:
    path = ROOT.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path, package: str) -> set[str]:
    """The project modules ``path`` imports (anywhere in it; a package's ``__init__`` only at its top level,
    where its lazy registry imports are not followed)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if path.name == "__init__.py" else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return {m for m in found if m.split(".")[0] in AGENT_PACKAGES and _file(m) is not None}


@functools.cache
def code_path(module: str) -> tuple[Path, ...]:
    """The source files of ``module`` and of every module of :data:`AGENT_PACKAGES` it imports, transitively;
    a subpackage's every file (its modules may be loaded by name, as the heuristics are)."""
    todo, seen = [module], {}
    while todo:
        name = todo.pop()
        path = _file(name)
        if name in seen or path is None:
            continue
        seen[name] = path
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        todo += sorted(_imports(path, package))
        if path.name == "__init__.py" and "." in name:
            todo += [f"{name}.{p.stem}" for p in sorted(path.parent.glob("*.py")) if p.stem != "__init__"]
    return tuple(sorted(set(seen.values())))


def source_digest(path: Path) -> str:
    """A Python file's hash without its docstrings and comments (its syntax tree); any other file's bytes."""
    stat = path.stat()
    return _digest_of(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _digest_of(path: Path, mtime: int, size: int) -> str:
    """:func:`source_digest` once per version of a file (a run header hashes many; parsing them takes a while)."""
    if path.suffix != ".py":
        return hashlib.sha256(path.read_bytes()).hexdigest()
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


def _digest(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def files_digest(files) -> dict[str, str]:
    return {path.relative_to(ROOT).as_posix(): source_digest(path) for path in files}


def anchor_hash(name: str, options: dict[str, Any], game: str) -> str:
    """The content hash of a built-in agent as it plays in ``game`` (see the module docstring)."""
    spec = resolve(name, options, game)
    base, epsilon = split_epsilon(spec["name"])
    kind = agent_kind(base)
    if kind not in ROOTS:
        raise ValueError(f"agent {shown(name)} has no anchor hash; kinds hashed: {sorted(ROOTS)}")
    modules = [ROOTS[kind]] + (["agents.epsilon_greedy"] if epsilon is not None else [])
    modules += ["agents.guided"] if kind == "ismcts" and {"network", "evaluator"} & set(spec["options"]) else []
    files = sorted({f for module in modules for f in code_path(module)})
    if kind in NETWORK_KINDS:
        files += sorted(MODELS.glob("*.zip"))
    if kind == "ppo":
        files.append(Path(base.partition(":")[2]).resolve())
    return _digest({"spec": spec, "files": files_digest(files)})


def engine_hash(game: str) -> str:
    """The content hash of a game's engine: every Python file of ``envs/core`` and ``envs/<game>``."""
    files = sorted((ROOT / "envs" / "core").glob("*.py")) + sorted((ROOT / "envs" / game).glob("*.py"))
    return _digest(files_digest(files))


def table() -> dict[str, Any]:
    """The current hashes: every rung of every ladder in every game, and every engine."""
    rungs = {rung.label: rung for ladder in LADDERS.values() for rung in ladder.rungs}
    anchors = {
        game: {label: anchor_hash(rung.name, dict(rung.options), game) for label, rung in sorted(rungs.items())}
        for game in envs.GAMES
    }
    return {"protocol": PROTOCOL, "anchors": anchors, "engines": {game: engine_hash(game) for game in envs.GAMES}}


def changed(current: dict[str, Any], committed: dict[str, Any]) -> list[str]:
    """What differs between two tables: ``game/label`` of each anchor, ``engine/game`` of each engine."""
    out = [
        f"{game}/{label}"
        for game in sorted(set(current["anchors"]) | set(committed["anchors"]))
        for label in sorted(set(current["anchors"].get(game, {})) | set(committed["anchors"].get(game, {})))
        if current["anchors"].get(game, {}).get(label) != committed["anchors"].get(game, {}).get(label)
    ]
    engines = set(current["engines"]) | set(committed["engines"])
    return out + [f"engine/{g}" for g in sorted(engines) if current["engines"].get(g) != committed["engines"].get(g)]
