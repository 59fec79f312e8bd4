"""The settings of ``python -m training.expert_iteration`` (one dataclass, every field an option), their checks,
and the run folder's helpers; :mod:`~training.expert_iteration.command` parses, :mod:`~training.expert_iteration.loop`
runs.
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
from envs.games import flags, read_game_options

#: Flags a resumed run may change; every other setting is the interrupted run's.
RESUMABLE = ("generations", "processes", "progress_bar")
#: What ``--start`` accepts besides ``ppo:PATH`` and a model path.
STARTS = ("heuristic", "trained")


@dataclass
class Settings:
    """A run's settings; a field's help is its option's (:mod:`training.train_command`)."""

    game: str = field(default="samurai", metadata={"help": "game", "choices": list(envs.GAMES)})
    game_options: dict[str, str] = field(default_factory=dict, metadata={"option": False})  # the game's, as written
    start: str = field(
        default="heuristic",
        metadata={
            "help": "the first network: heuristic (a fresh network cloned from the heuristic's moves), trained "
            "(the shipped model), or ppo:PATH"
        },
    )
    generations: int = field(default=8, metadata={"help": "generations to run (a resumed run may raise it)"})
    games: int = field(default=64, metadata={"help": "self-play games per generation"})
    iterations: int = field(default=200, metadata={"help": "search simulations per move in self-play"})
    search_option: list[str] = field(
        default_factory=list,
        metadata={
            "help": "options of the guided search, KEY=VALUE with Python values (e.g. value_mix=0.5 widening=2.0 "
            "c_puct=1.5; see agents/guided.py)"
        },
    )
    explore_moves: int = field(
        default=4,
        metadata={"help": "each player's first decisions drawn from the visit distribution (then the most visited)"},
    )
    replay: int = field(default=3, metadata={"help": "generations of self-play data each fit uses"})
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
    gate_games: int = field(
        default=40, metadata={"help": "games of each gate (rounded up to whole deals, the candidate in every seat)"}
    )
    gate_iterations: int = field(default=100, metadata={"help": "search simulations per move in the gate"})
    warm_start_games: int = field(default=300, metadata={"help": "heuristic games cloned for --start heuristic"})
    seed: int = field(default=1, metadata={"help": "seeds every game, the fits and the first network"})
    processes: int = field(default=2, metadata={"help": "worker processes playing the games"})
    out: str = field(default="", metadata={"help": "output directory (default runs/<game>__exit__<seed>)"})
    resume: bool = field(
        default=False, metadata={"help": "continue the run in --out (its settings are kept)", "action": "store_true"}
    )
    progress_bar: bool = field(default=True, metadata={"help": "show progress bars"})

    def search(self, iterations: int) -> dict[str, Any]:
        """The guided search's options in this run."""
        return {**search_options(self.search_option), "iterations": iterations}


def search_options(pairs: list[str]) -> dict[str, Any]:
    """``["value_mix=0.5", "widening=None"]`` -> ``{"value_mix": 0.5, "widening": None}`` (Python literals;
    a bare word is a string); the search itself checks names and values."""
    from agents import parse_agent_options

    options = parse_agent_options(pairs, "--search-option")
    if "iterations" in options:
        raise ValueError("--search-option: the budget is --iterations (self-play) and --gate-iterations")
    return options


def validate(settings: Settings):
    """Every check before anything is written; returns the configured game."""
    from agents.guided import GuidedISMCTSAgent
    from agents.models.network import load_network

    description = envs.describe(settings.game)
    game = description.make(**read_game_options(settings.game, settings.game_options))
    for name in (
        "generations",
        "games",
        "iterations",
        "epochs",
        "batch_size",
        "gate_games",
        "gate_iterations",
        "warm_start_games",
        "processes",
        "replay",
    ):
        if getattr(settings, name) < 1:
            raise ValueError(f"{flags([name])} must be at least 1, got {getattr(settings, name)}")
    if settings.explore_moves < 0:
        raise ValueError(f"--explore-moves must be 0 or more, got {settings.explore_moves}")
    for name in ("learning_rate", "value_weight"):
        if not getattr(settings, name) > 0:
            raise ValueError(f"{flags([name])} must be positive, got {getattr(settings, name)}")
    if not 0 <= settings.search_value_weight <= 1:
        raise ValueError(f"--search-value-weight must be in [0, 1], got {settings.search_value_weight}")
    if settings.start not in STARTS and not settings.start.startswith("ppo:"):
        raise ValueError(f"--start must be one of {list(STARTS)} or ppo:PATH, got {settings.start!r}")
    if settings.start != "heuristic":
        load_network(settings.start, game)  # another game's model, or a corrupt file, is refused here
    from agents.models.card import network_description
    from training.network import new_network

    probe = new_network(game, network_description([1]), "probe")  # the search's own checks of its options
    try:
        GuidedISMCTSAgent(game, network=probe, **settings.search(settings.iterations))
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
