"""The settings of ``python -m training.distill`` (one dataclass, every field an option), their checks,
and the run folder's helpers; :mod:`~training.distill.command` parses, :mod:`~training.distill.loop` runs.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import envs
from cli import flags
from envs.games import read_game_options

#: Flags a resumed run may change; every other setting is the interrupted run's. A run that changes
#: ``teacher``, ``iterations``, ``games`` or ``gate`` goes on from the generation it reached with the new ones
#: (the games already played stay as they were).
RESUMABLE = (
    "generations",
    "games",
    "teacher",
    "iterations",
    "gate",
    "processes",
    "backend",
    "ray_address",
    "progress_bar",
)
#: What ``--start`` accepts besides ``ppo:PATH`` and ``transfer:PATH``.
STARTS = ("heuristic", "trained")
#: ``--start transfer:PATH``: the weights of a model of another configuration of the game.
TRANSFER = "transfer:"
#: Who plays the teacher's games: ``best``, the configuration's best search as it is (``agents/best.py``:
#: guided by the shipped model, by the heuristic, or plain ISMCTS), fixed for the whole run; ``guided``, the
#: guided search with the run's best network so far as its evaluator (expert iteration).
TEACHERS = ("best", "guided")
#: The network each game's students are made of: the structured ones where they exist (Samurai's hex
#: graph, Wapi's mines: ``agents/models/``), else the game's MLP of train.py.
STUDENT_NETWORKS = {"samurai": "samurai_graph", "wapi": "wapi_mines", "wakanda": "mlp"}


@dataclass
class Settings:
    """A run's settings; a field's help is its option's (:mod:`training.train_command`)."""

    game: str = field(default="wakanda", metadata={"help": "game", "choices": list(envs.GAMES)})
    game_options: dict[str, str] = field(default_factory=dict, metadata={"option": False})  # the game's, as written
    start: str = field(
        default="heuristic",
        metadata={
            "help": "the first network: heuristic (a fresh network cloned from the heuristic's moves), trained "
            "(the shipped model), ppo:PATH, or transfer:PATH (the weights of a model made for another "
            "configuration of the game, e.g. transfer:agents/models/samurai2.zip for three-player Samurai)"
        },
    )
    teacher: str = field(
        default="best",
        metadata={
            "help": "who plays the games the network learns from: best (the configuration's best search, "
            "fixed) or guided (the search guided by the run's best network: expert iteration)",
            "choices": list(TEACHERS),
        },
    )
    generations: int = field(default=8, metadata={"help": "generations to run (a resumed run may raise it)"})
    games: int = field(default=64, metadata={"help": "teacher games per generation"})
    iterations: int = field(default=200, metadata={"help": "search simulations per move of the teacher"})
    search_option: list[str] = field(
        default_factory=list,
        metadata={
            "help": "options of the teacher's search, KEY=VALUE with Python values (e.g. c_puct=1.5 for the "
            "guided search; see agents/README.md)"
        },
    )
    explore_moves: int = field(
        default=4,
        metadata={"help": "each player's first decisions drawn from the visit distribution (then the most visited)"},
    )
    shard_games: int = field(default=4, metadata={"help": "teacher games in one shard of data (a unit of resuming)"})
    replay: int = field(default=4, metadata={"help": "generations of teacher data each fit uses"})
    epochs: int = field(default=4, metadata={"help": "passes over the data per generation"})
    batch_size: int = field(default=256, metadata={"help": "minibatch size"})
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam learning rate"})
    value_weight: float = field(default=1.0, metadata={"help": "weight of the value loss"})
    search_value_weight: float = field(
        default=0.5,
        metadata={
            "help": "value target: this much of the search's own value of the position, the rest the game's result"
        },
    )
    gate: str = field(
        default="network",
        metadata={
            "help": "what a new network must beat to replace the best: network (the best network, head to head) "
            "or heuristic (the best network's share against the heuristic(s), on the curve's deals)",
            "choices": ["network", "heuristic"],
        },
    )
    gate_games: int = field(
        default=200,
        metadata={
            "help": "games of each gate, the new network alone against the last kept one alone (rounded up to "
            "whole deals, the new one in every seat)"
        },
    )
    heuristic_games: int = field(
        default=200,
        metadata={"help": "games of the network alone against the heuristic(s) each generation (its learning curve)"},
    )
    warm_start_games: int = field(default=300, metadata={"help": "heuristic games cloned for --start heuristic"})
    seed: int = field(default=1, metadata={"help": "seeds every game, the fits and the first network"})
    processes: int = field(default=2, metadata={"help": "local backend: worker processes playing the games"})
    backend: str = field(
        default="local",
        metadata={"help": "local: a process pool here; ray: Ray tasks on a cluster", "choices": ["local", "ray"]},
    )
    ray_address: str = field(
        default="",
        metadata={"help": "with --backend ray: the cluster to join (default: $RAY_ADDRESS, else a local Ray)"},
    )
    out: str = field(default="", metadata={"help": "output directory (default runs/<game>__distill__<seed>)"})
    resume: bool = field(
        default=False, metadata={"help": "continue the run in --out (its settings are kept)", "action": "store_true"}
    )
    progress_bar: bool = field(default=True, metadata={"help": "show progress bars"})

    def search(self) -> dict[str, Any]:
        """The teacher's search options in this run, its budget included."""
        return {**search_options(self.search_option), "iterations": self.iterations}


def search_options(pairs: list[str]) -> dict[str, Any]:
    """``["c_puct=1.5", "widening=None"]`` -> ``{"c_puct": 1.5, "widening": None}`` (Python literals;
    a bare word is a string); the search itself checks names and values."""
    from agents import parse_agent_options

    options = parse_agent_options(pairs, "--search-option")
    if "iterations" in options:
        raise ValueError("--search-option: the budget is --iterations")
    return options


#: The settings that count something and must be at least 1.
COUNTS = (
    "generations",
    "games",
    "iterations",
    "shard_games",
    "epochs",
    "batch_size",
    "gate_games",
    "heuristic_games",
    "warm_start_games",
    "processes",
    "replay",
)


def validate(settings: Settings):
    """Every check before anything is written; returns the configured game."""
    from agents.models.network import load_network

    description = envs.describe(settings.game)
    game = description.make(**read_game_options(settings.game, settings.game_options))
    for name in COUNTS:
        if getattr(settings, name) < 1:
            raise ValueError(f"{flags([name])} must be at least 1, got {getattr(settings, name)}")
    if settings.explore_moves < 0:
        raise ValueError(f"--explore-moves must be 0 or more, got {settings.explore_moves}")
    for name in ("learning_rate", "value_weight"):
        if not getattr(settings, name) > 0:
            raise ValueError(f"{flags([name])} must be positive, got {getattr(settings, name)}")
    if not 0 <= settings.search_value_weight <= 1:
        raise ValueError(f"--search-value-weight must be in [0, 1], got {settings.search_value_weight}")
    if settings.start not in STARTS and not settings.start.startswith(("ppo:", TRANSFER)):
        raise ValueError(f"--start must be one of {list(STARTS)}, ppo:PATH or transfer:PATH, got {settings.start!r}")
    if settings.ray_address and settings.backend != "ray":
        raise ValueError("--ray-address is an option of --backend ray")
    if settings.start.startswith(TRANSFER):
        from training.network import transferred_network

        transferred_network(settings.start.removeprefix(TRANSFER), game, "check")  # another game's is refused here
    elif settings.start != "heuristic":
        load_network(settings.start, game)  # another game's model, or a corrupt file, is refused here
    from agents.models.card import network_description
    from training.distill.selfplay import teacher_agents
    from training.network import new_network

    probe = new_network(game, network_description([1]), "probe")  # the search's own checks of its options
    try:
        teacher_agents(game, settings.teacher, probe, settings.search(), [0])
    except TypeError as error:
        raise ValueError(f"--search-option: {error}") from None
    return game


def resumed_settings(out: Path, given_settings: Settings, given: set[str]) -> Settings:
    """The interrupted run's settings, with only the :data:`RESUMABLE` ones taken from the command line."""
    path = out / "settings.json"
    if not path.exists():
        raise ValueError(f"--resume: {out} holds no run to continue (no settings.json)")
    saved = json.loads(path.read_text())
    fixed = sorted(given - set(RESUMABLE) - {"resume", "out"})
    if fixed:
        raise ValueError(f"--resume keeps the run's settings; only {flags(RESUMABLE)} may be given, not {flags(fixed)}")
    settings = Settings(**{**saved, "resume": True, "out": str(out)})
    for name in RESUMABLE:
        if name in given:
            setattr(settings, name, getattr(given_settings, name))
    return settings


def write_json(path: Path, value: Any) -> None:
    """Write atomically: an interruption leaves the old file or the new one, never half of one."""
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(value, indent=1))
    os.replace(partial, path)


def copy_model(source: Path, target: Path) -> None:
    shutil.copyfile(source, target.with_suffix(".partial"))
    os.replace(target.with_suffix(".partial"), target)


def elapsed(started: float) -> float:
    return round(time.time() - started, 1)
