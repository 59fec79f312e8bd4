"""The sealed agent's side: ``python -m benchmarks.core.sealed.host``, a fresh process that runs one user's agent.

The referee (:mod:`benchmarks.core.sealed.referee`) starts this module with ``subprocess`` (a new program, never a
fork of the referee, so no object of the referee's exists here) and talks to it in JSON lines over its stdin
and stdout. Messages in, each answered by one line out (``{"ok": true}``, ``{"action": A}`` or ``{"error": TEXT}``):

- ``{"op": "game", "game": NAME, "config": {...}, "agent": "module:Class", "options": {...}}``: load the game
  and the user's class (importing the user's code happens here, in this process only);
- ``{"op": "agent", "seed": S, "budget": B}``: a fresh instance of the class for the next game, seeded by the
  referee; ``B``, its CPU seconds a move on this machine (the reference budget scaled by the machine's
  calibration, :mod:`benchmarks.core.calibration`), is passed to a class whose ``__init__`` takes ``budget``;
- ``{"op": "act", "player": P, "legal": [...], "state": {...}}``: one move. ``state`` is a *determinization*
  the referee drew (:meth:`GameState.determinize`: everything the player cannot see re-sampled), so the
  view built here holds nothing the player may not know.

Before the user's code is imported, the protocol's pipes are moved off file descriptors 0 and 1 (the agent's
``print`` goes to stderr), the address space is capped (:data:`benchmarks.core.protocol.MEMORY_LIMIT`, soft and
hard, so the agent cannot raise it) and the process gives up its privileges
(:func:`benchmarks.core.sealed.isolation.unprivileged`: started as root, it becomes ``nobody``, since a root
process could read the referee's memory); then it says ``{"ok": true}`` (or ``{"error": TEXT}``: it cannot run
unprivileged) before reading any message. Any ``BaseException`` of the agent (``SystemExit`` and
``KeyboardInterrupt`` included) is reported as an error line, and the referee scores it as a loss.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import traceback
from pathlib import Path
from typing import Any

import numpy as np

import envs
from agents.protocol import PlayerView
from benchmarks.core import user_agents
from benchmarks.core.protocol import MEMORY_LIMIT
from benchmarks.core.sealed.isolation import unprivileged
from envs.core.engine import Game, GameState

ROOT = Path(__file__).resolve().parents[3]


class SealedView(PlayerView):
    """A :class:`PlayerView` built from the referee's determinization and legal actions (the true state never
    reaches this process)."""

    __slots__ = ()

    def __init__(self, snapshot: GameState, player: int, legal: list[int]):  # noqa: D107 - no super(): no true state
        self.player = player
        self.game = snapshot.game
        self.legal_actions = tuple(legal)
        self._snapshot = snapshot
        self._observation = None
        self._mask = None


class Host:
    """The agent's game, class and current instance; :meth:`handle` answers one message."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.name = ""
        self.options: dict[str, Any] = {}
        self.agent = None

    def handle(self, message: dict) -> dict:
        op = message["op"]
        if op == "game":
            self.game = envs.describe(message["game"]).make_from_json(message["config"])
            self.name, self.options = message["agent"], message["options"]
            user_agents.agent_class(self.name)  # import the user's code now, so a broken file fails at once
            return {"ok": True}
        if op == "agent":
            self.agent = user_agents.build(self.name, self.game, message["seed"], self.options, message.get("budget"))
            self.agent.reset()
            return {"ok": True}
        if op == "act":
            snapshot = self.game.state_from_dict(message["state"])
            action = self.agent.act(SealedView(snapshot, message["player"], message["legal"]))
            return {"action": int(action) if isinstance(action, (int, np.integer)) else repr(action)[:80]}
        raise ValueError(f"unknown op {op!r}")


def serve(reader, writer) -> None:
    """Answer every message until the referee closes the pipe; a failure is answered, then this process ends."""
    host = Host()
    for text in reader:
        try:
            answer = host.handle(json.loads(text))
        except BaseException as error:  # noqa: BLE001 - every exception of the agent is its failure, reported
            where = traceback.extract_tb(error.__traceback__)[-1:]
            at = f" (at {where[0].filename}:{where[0].lineno})" if where else ""
            writer.write(json.dumps({"error": f"{type(error).__name__}: {error}"[:500] + at}) + "\n")
            writer.flush()
            return
        writer.write(json.dumps(answer) + "\n")
        writer.flush()


def main() -> None:
    reader = os.fdopen(os.dup(0), "r", encoding="utf-8")
    writer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)  # the agent's prints go to stderr, never into the protocol's pipe
    sys.stdout = sys.stderr
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    try:  # the interpreter's folder, the standard library's, the virtual environment's and the project's
        unprivileged([Path(sys.executable).resolve().parent, Path(sys.base_prefix), Path(sys.prefix), ROOT])
    except OSError as error:
        writer.write(json.dumps({"error": f"cannot give up its privileges: {error}"}) + "\n")
        writer.flush()
        os._exit(1)
    writer.write(json.dumps({"ok": True}) + "\n")
    writer.flush()
    serve(reader, writer)
    writer.flush()
    os._exit(0)  # no atexit hook or thread of the agent's outlives the conversation


if __name__ == "__main__":
    main()
