"""The referee's side of a sealed agent: a host process per deal, spoken to in JSON lines, timed and watched.

:class:`HostProcess` starts ``python -m benchmarks.core.sealed.host`` in a session of its own and reads its replies
with a wall-clock deadline (``select``): a host that does not answer in time is killed with its whole session.
:func:`tree_cpu` is the CPU time of the host's process tree read from ``/proc`` (the host's own clock to the
nanosecond; every process of its session or descended from it; children it has reaped through their
``cutime``), so work handed to a child process is counted. :class:`Sealed` is the agent the game loop sees:
it sends a determinization drawn with the referee's own generator, never the true state, and turns every
misdeed (an error, an illegal or malformed reply, an overrun, a dead or silent process) into
:class:`~benchmarks.core.matches.AgentFailure`. The referee only ever parses JSON from the host: nothing the host
sends is unpickled or executed. Importing this module makes the process non-dumpable, and a referee running as
root has its hosts run as ``nobody`` (:mod:`benchmarks.core.sealed.isolation`), so that no host can read the
referee's memory.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from agents import Agent, PlayerView
from benchmarks.core import user_agents
from benchmarks.core.matches import AgentFailure
from benchmarks.core.protocol import START_LIMIT, WALL_MARGIN, WALL_SLACK, move_limit
from benchmarks.core.sealed.isolation import NOBODY, refuse_tracing, uids, unreadable
from envs.core.engine import shown

ROOT = Path(__file__).resolve().parents[3]
#: The longest reply line read from a host; a longer one is a failure (the referee's memory is not the agent's).
MAX_REPLY = 65536
TICK = os.sysconf("SC_CLK_TCK")
refuse_tracing()  # here, so before any key is drawn or host started, in every process that may hold either


class HostGone(Exception):
    """The host broke the conversation: no reply in time, a dead process, or a reply that is not one."""


def _stat(pid: str) -> tuple[int, int, int, float, float] | None:
    """(pid, parent, session, own CPU s, reaped children's CPU s) of a process, from ``/proc/PID/stat``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    own = (int(fields[11]) + int(fields[12])) / TICK
    return int(pid), int(fields[1]), int(fields[3]), own, (int(fields[13]) + int(fields[14])) / TICK


def _process_clock(pid: int) -> float | None:
    """The process's CPU seconds (every thread) to the nanosecond: Linux's per-process CPU clock."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except OSError:
        return None


def tree_cpu(host: int) -> float:
    """CPU seconds of ``host`` and of every process of its session or below it, live or reaped by one of them."""
    stats = [s for s in map(_stat, (p for p in os.listdir("/proc") if p.isdigit())) if s is not None]
    parent = {pid: ppid for pid, ppid, *_ in stats}

    def below(pid: int) -> bool:
        for _ in range(64):
            if pid == host:
                return True
            pid = parent.get(pid, 0)
            if pid <= 1:
                return False
        return False

    total = 0.0
    for pid, _, session, own, reaped in stats:
        if session == host or below(pid):
            precise = _process_clock(pid) if pid == host else None
            total += (own if precise is None else precise) + reaped
    return total


class HostProcess:
    """One running host: send a message, read its one-line reply before a deadline, kill it with its session."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.core.sealed.host"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # its session id is its pid: every process it starts is found by it
        )
        os.set_blocking(self.process.stdin.fileno(), False)
        self.pid = self.process.pid
        self.buffer = b""
        self._check_unprivileged()

    def _check_unprivileged(self) -> None:
        """Wait for the host's first line, sent once it runs unprivileged, before anything of the agent's is sent;
        RuntimeError (the machine's fault, not the agent's: none of its code has run) if it cannot, or if a root
        referee's host is not ``nobody`` by every uid it has."""
        try:
            hello = self._reply(time.monotonic() + START_LIMIT, START_LIMIT)
            if "error" in hello:
                raise HostGone(str(hello["error"])[:500])
            if os.geteuid() == 0 and uids(self.pid) != {NOBODY}:
                raise HostGone(f"it runs as uid {sorted(uids(self.pid))}, not as nobody ({NOBODY})")
        except (HostGone, OSError) as error:
            self.close()
            raise RuntimeError(f"the sealed host cannot start unprivileged: {error}") from None

    def ask(self, message: dict, limit: float) -> dict:
        """Send ``message`` and return the reply (a JSON object) within ``limit`` wall seconds; HostGone otherwise."""
        deadline = time.monotonic() + limit
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        out = self.process.stdin.fileno()
        try:
            while data:
                if not select.select([], [out], [], max(0.0, deadline - time.monotonic()))[1]:
                    raise HostGone(f"did not read its input within {limit:.2f} s (wall clock)")
                data = data[os.write(out, data) :]
        except OSError as error:
            raise HostGone(f"its process is gone ({self._ended()})") from error
        return self._reply(deadline, limit)

    def _reply(self, deadline: float, limit: float) -> dict:
        source = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_REPLY:
                raise HostGone(f"its reply is longer than {MAX_REPLY} bytes")
            if not select.select([source], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise HostGone(f"gave no answer within {limit:.2f} s (wall clock)")
            chunk = os.read(source, MAX_REPLY)
            if not chunk:
                raise HostGone(f"its process ended without an answer ({self._ended()})")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            reply = json.loads(line)
        except Exception:  # not only ValueError: deeply nested JSON raises RecursionError, and it must cost the agent
            raise HostGone(f"its reply is not JSON: {shown(line[:80])}") from None
        if not isinstance(reply, dict):
            raise HostGone(f"its reply is not a JSON object: {shown(reply)}")
        return reply

    def _ended(self) -> str:
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"exit status {code}"

    def close(self) -> None:
        """End the host and everything of its session, whatever state they are in."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.process.wait()


class Sealed(Agent):
    """The rated agent as the game loop sees it: each move asked of the host, timed on the host's process tree.

    One host serves a seat through the deal's games (:meth:`start` once, then :meth:`begin` a fresh agent each
    game, seeded by the referee). ``cpu`` (each move's CPU seconds), ``move``, ``label`` and ``log`` (the game's
    actions, shared by its seats) are those of :class:`benchmarks.core.arena.Refereed`. A move is charged the CPU
    its process tree spent since the end of the previous one, so thinking during the others' moves counts."""

    def __init__(self, host: HostProcess, label: str, budget: float, log: list[int]):
        self.host, self.label, self.name, self.budget, self.log = host, label, label, budget, log
        self.cpu: list[float] = []
        self.move = 0
        self.clock = 0.0
        self.rng = np.random.default_rng()

    def _ask(self, message: dict, limit: float, seat: int, what: str) -> dict:
        try:
            reply = self.host.ask(message, limit)
        except HostGone as error:
            self.host.close()
            raise AgentFailure(self.label, seat, f"{what}: {error}") from None
        if "error" in reply:
            self.host.close()
            raise AgentFailure(self.label, seat, f"{what}: crashed: {str(reply['error'])[:500]}")
        return reply

    def start(self, game: str, config: dict, agent: str, options: dict, seat: int) -> None:
        """Load the game and the user's class in the host (its imports are not timed, only bounded); ValueError
        naming the path when the host, ``nobody`` under a root referee, could not read the agent's code."""
        for path in user_agents.code_files(agent) if os.geteuid() == 0 else []:
            denied = unreadable(path)
            if denied is not None:
                raise ValueError(
                    f"the sealed agent runs as nobody (uid {NOBODY}), which cannot read {denied} (for {path}): "
                    "let others enter its folders (chmod o+x) and read the file (o+r), or rate as another user"
                )
        message = {"op": "game", "game": game, "config": config, "agent": agent, "options": options}
        self._ask(message, START_LIMIT, seat, "starting")

    def begin(self, seat: int, seed: int, rng: np.random.Generator, log: list[int]) -> None:
        """A fresh agent seeded ``seed`` for the next game, ``rng`` the referee's for its determinizations, ``log``
        the game's actions; the clock starts when the agent is built."""
        self.cpu, self.move, self.rng, self.log = [], 0, rng, log
        self._ask({"op": "agent", "seed": seed, "budget": self.budget}, START_LIMIT, seat, "building it")
        self.clock = tree_cpu(self.host.pid)

    def act(self, view: PlayerView) -> int:
        self.move = move = len(self.cpu) + 1
        state = view.sample_determinization(self.rng).to_dict()
        message = {"op": "act", "player": view.player, "legal": list(view.legal_actions), "state": state}
        limit = self.budget * WALL_MARGIN + WALL_SLACK
        reply = self._ask(message, limit, view.player, f"its move {move}")
        clock = tree_cpu(self.host.pid)
        spent, self.clock = max(0.0, clock - self.clock), clock  # a process reaped outside the tree takes its time
        self.cpu.append(spent)
        allowed = move_limit(self.budget)
        if spent > allowed:
            self.host.close()
            message = f"its move {move}: {spent:.3f} CPU s of its process tree, over its budget of {self.budget} s"
            raise AgentFailure(self.label, view.player, message + f" (the protocol allows {allowed:.3f} s a move)")
        action = reply.get("action")
        if type(action) is not int or action not in view.legal_actions:
            self.host.close()
            raise AgentFailure(self.label, view.player, f"its move {move}: illegal action {shown(action)}")
        self.log.append(action)
        return action
