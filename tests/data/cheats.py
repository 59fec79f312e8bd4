"""Agents built to cheat, rated by tests/test_sealed_agent.py: each shows that a sealed agent gains nothing.

A user could hand in any of these. Each writes what it managed to find to the JSON-lines file ``log`` (a test's
scratch file, in a folder anyone may write: a root referee's sealed agent runs as nobody), then plays: the tests
compare its games with an honest twin's and read its log.
"""

import gc
import json
import os
import subprocess
import sys
import time

import numpy as np

from envs.core.engine import GameState


class Logged:
    """Plays the last legal action; ``note`` appends a line to the log."""

    def __init__(self, seed=None, log=""):
        self.seed, self.log = seed, log

    def note(self, **fields):
        if self.log:
            with open(self.log, "a") as f:
                f.write(json.dumps(fields) + "\n")

    def reset(self):
        pass

    def act(self, view):
        return view.legal_actions[-1]


class Honest(Logged):
    """The twin every cheat is compared with: the last legal action, nothing else."""


class FrameWalker(Logged):
    """Walks every frame of every thread up to the referee's game loop, where v1 found the true state."""

    def act(self, view):
        frames = []
        for frame in sys._current_frames().values():
            while frame is not None:
                frames.append(f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name}")
                frame = frame.f_back
        self.note(frames=frames)
        return super().act(view)


class Tamperer(Logged):
    """Plays every GameState object it can reach to its end (v1: the referee's own state), then the last action;
    on its first move of a game (walking every object of the process takes a while)."""

    def reset(self):
        self.done = False

    def act(self, view):
        if self.done:
            return super().act(view)
        self.done = True
        states = [obj for obj in gc.get_objects() if isinstance(obj, GameState)]
        for state in states:
            while state.current_player is not None:
                state.apply(state.legal_actions()[0])
        self.note(tampered=len(states))
        return super().act(view)


class SeedInverter(Logged):
    """Tries v1's derivation of its own seed from the test deals (``agent_seed(0, deal, rotation, seat)``)."""

    def __init__(self, seed=None, log=""):
        super().__init__(seed, log)
        from benchmarks.core.matches import agent_seed

        hits = [
            deal
            for deal in range(2**40, 2**40 + 64)
            for rotation in range(2)
            for seat in range(2)
            if agent_seed(0, deal, rotation, seat) == seed
        ]
        self.note(seed=seed, hits=hits)


class Steady(Logged):
    """The game's heuristic, honestly: the twin of :class:`Quitter`."""

    def __init__(self, game=None, seed=None, log=""):
        super().__init__(seed, log)
        from agents import make_agent

        self.heuristic = make_agent("heuristic", game, seed=seed)

    def reset(self):
        self.moves = 0
        self.heuristic.reset()

    def act(self, view):
        self.moves += 1
        return self.heuristic.act(view)


class Quitter(Steady):
    """The heuristic's moves, but it raises as soon as it is behind on the score after its 10th move (v1
    dropped such games, and rated the agent higher than its honest twin)."""

    def act(self, view):
        scores = view.sample_determinization(np.random.default_rng(0)).scores()
        if self.moves >= 10 and scores[view.player] < max(scores):
            raise RuntimeError("behind: not playing on")
        return super().act(view)


class Exiter(Logged):
    def act(self, view):
        raise SystemExit(0)


class Interrupted(Logged):
    def act(self, view):
        raise KeyboardInterrupt


class Vanisher(Logged):
    def act(self, view):
        os._exit(3)


class Nester(Logged):
    """Answers its first move itself, on the host's reply pipe, with JSON nested too deep to parse (v2 at first
    dropped the deal as an engine error instead of charging the agent)."""

    def act(self, view):
        for fd in map(int, os.listdir("/proc/self/fd")):
            try:
                if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                    os.write(fd, b"[" * 30_000 + b"]" * 30_000 + b"\n")  # under the reply limit
                    self.note(wrote=fd)
            except OSError:
                pass
        return super().act(view)


class Sleeper(Logged):
    """Spends no CPU at all: only a wall clock can stop it."""

    def act(self, view):
        time.sleep(60)
        return super().act(view)


class ChildBurner(Logged):
    """Hands its thinking to a child process it waits for (v1 recorded 0.5 CPU s of it as 0.44 ms)."""

    def act(self, view):
        burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass"
        subprocess.run([sys.executable, "-c", burn], check=True)
        return super().act(view)


class Ponderer(Logged):
    """Starts a child that thinks in the background, during the other players' moves, and returns at once."""

    def act(self, view):
        if not hasattr(self, "child"):
            self.child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.3)
        return super().act(view)


def peek(pid, address, length):
    """What process ``pid``'s memory gives away: its ``maps`` (the first mapping's start, the interpreter's ELF
    header), its ``environ``, and through ``mem`` ``length`` bytes at ``address`` and that header, in hex; or,
    for each, the name of the error that refused it."""
    found, start = {}, None
    try:
        with open(f"/proc/{pid}/maps") as f:
            start = int(f.readline().split("-")[0], 16)
        found["maps"] = "read"
    except OSError as error:
        found["maps"] = type(error).__name__
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            found["environ"] = f"{len(f.read())} bytes"
    except OSError as error:
        found["environ"] = type(error).__name__
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as f:
            f.seek(address)
            found["secret"] = f.read(length).hex()
            if start is not None:
                f.seek(start)
                found["header"] = f.read(4).hex()
        found["mem"] = "read"
    except OSError as error:
        found["mem"] = type(error).__name__
    return found


class MemoryReader(Logged):
    """Reads its parent's memory, the referee's (v2 run as root: the true state and the run's secret key lay
    there, open to a root child through /proc), on its first move of each game: ``address`` and ``length``,
    a secret the test planted in the referee."""

    def __init__(self, seed=None, log="", address=0, length=0):
        super().__init__(seed, log)
        self.address, self.length = address, length

    def reset(self):
        self.done = False

    def act(self, view):
        if not self.done:
            self.done = True
            self.note(ppid=os.getppid(), uid=os.geteuid(), **peek(os.getppid(), self.address, self.length))
        return super().act(view)
