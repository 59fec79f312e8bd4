"""Agents written by a user: ``module:Class`` or ``path/to/file.py:Class``, for ``benchmarks.rate``.

Naming a Python file on the command line is the user's explicit wish to run
it, so the file is imported as a module (model files are still only read by
the safe loaders of ``ppo:`` and ``rllib:``), but only in a sealed process of
its own (:mod:`benchmarks.core.sealed`), never in the referee's: the referee only
hashes the code (:func:`code_hash`), finding its files without importing them. The class implements the agent
protocol (:mod:`agents.protocol`: ``act(view) -> int``, optional ``reset()``)
and is built as ``Class(game=..., seed=..., **options)``, ``game`` and ``seed``
passed only when its ``__init__`` takes them, and ``budget`` (its CPU seconds a
move on this machine: the ``--budget`` in reference seconds scaled by the
machine's calibration, :mod:`benchmarks.core.calibration`) only when it names it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any

from agents import AGENT_NAMES, PREFIXED_AGENTS, Agent
from envs.core.engine import Game, shown


def is_user_agent(name: str) -> bool:
    """``module:Class`` or ``file.py:Class``, as opposed to a built-in name (``ppo:PATH``, ``rllib:PATH``,
    ``level:N`` among them)."""
    kind, sep, rest = name.partition(":")
    return bool(sep) and kind not in PREFIXED_AGENTS and bool(rest)


def _module(where: str) -> Any:
    if where.endswith(".py") or "/" in where:
        path = Path(where).resolve()
        if not path.is_file():
            raise ValueError(f"agent file {where} does not exist")
        name = f"drawluck_user_agent_{abs(hash(str(path)))}"
        if name not in sys.modules:  # once per process, so every game gets the same class
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
        return sys.modules[name]
    try:
        return importlib.import_module(where)
    except ImportError as error:
        raise ValueError(f"cannot import agent module {where!r}: {error}") from None


def agent_class(name: str) -> type:
    """The class ``name`` (``module:Class`` or ``file.py:Class``) names; ValueError if it is not an agent."""
    where, _, class_name = name.rpartition(":")
    cls = getattr(_module(where), class_name, None)
    if not inspect.isclass(cls):
        raise ValueError(f"{where} has no class {class_name!r}")
    if not callable(getattr(cls, "act", None)):
        raise ValueError(f"{name} is not an agent: it has no act(view) method (see agents/protocol.py)")
    return cls


def build(name: str, game: Game, seed: int | None, options: dict[str, Any], budget: float | None = None) -> Agent:
    """An instance of the user's class for one game; its options checked against its ``__init__``. ``budget``
    (CPU seconds a move on this machine, :mod:`benchmarks.core.calibration`) is passed when ``__init__`` names it."""
    cls = agent_class(name)
    params = inspect.signature(cls).parameters  # of __init__ without self; () when it has none
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    unknown = sorted(set(options) - set(params)) if not takes_any else []
    if unknown:
        raise ValueError(f"unknown options {shown(unknown)} for {name}; its __init__ takes {list(params)}")
    if "budget" in options:
        raise ValueError(f"budget is not an option of {name}: the protocol gives it (--budget, scaled to this machine)")
    given = {"game": game, "seed": seed}
    kwargs = {k: v for k, v in given.items() if k in params or takes_any}
    if "budget" in params:  # named only: an agent that takes **options never gets a budget it did not ask for
        kwargs["budget"] = budget
    return cls(**kwargs, **options)


def describe_names() -> str:
    """The agent names ``rate`` takes, for help texts."""
    return ", ".join(AGENT_NAMES) + ", module:Class, path/to/file.py:Class"


def code_files(name: str) -> list[Path]:
    """The Python files of a user's agent, found without running them: ``file.py:Class``'s file, or every
    ``.py`` file of ``module:Class``'s top-level package (its one file for a plain module) on ``sys.path``."""
    where = name.rpartition(":")[0]
    if where.endswith(".py") or "/" in where:
        path = Path(where).resolve()
        if not path.is_file():
            raise ValueError(f"agent file {where} does not exist")
        return [path]
    top = where.split(".")[0]
    for entry in [Path.cwd(), *map(Path, sys.path[1:])]:
        if (entry / top / "__init__.py").is_file():
            return sorted((entry / top).rglob("*.py"))
        if (entry / f"{top}.py").is_file():
            return [entry / f"{top}.py"]
    raise ValueError(f"cannot find agent module {where!r} on the Python path")


def code_hash(name: str) -> str:
    """SHA-256 over the agent's code files (their names relative to the first one's folder, and contents)."""
    files = code_files(name)
    base = Path(os.path.commonpath([path.parent for path in files]))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(base).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
