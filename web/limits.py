"""What one server lets its visitors use, every bound an option of ``python -m web``.

A refused request is answered 429 with ``Retry-After`` and a message naming the option
(:class:`LimitReached`); it is refused before anything is built or searched.
"""

from __future__ import annotations

import math
import os
from collections import deque
from dataclasses import dataclass

from web.opponents import TIME_LIMIT_RANGE

#: The range of ``max_think``: from the shortest time an opponent may be given to ten minutes.
MIN_THINK, MAX_THINK = TIME_LIMIT_RANGE[0], 600.0


@dataclass(frozen=True)
class Limits:
    """The bounds, with the defaults of ``python -m web`` (docs/deployment.md says what each protects)."""

    max_games: int = 10_000  # games kept (in the database), finished or not
    live_per_client: int = 20  # unfinished games one client address may hold
    creates_per_minute: int = 30  # new games one client address may start in any 60 s
    max_think: float = 10.0  # CPU seconds an opponent may be given for one turn
    workers: int = os.cpu_count() or 1  # processes in which the opponents think
    memory_idle: float = 300.0  # seconds without a request before a game leaves memory (not the database)
    finished_ttl: float = 3600.0  # seconds without a request before a finished game is deleted
    idle_ttl: float = 7 * 86400.0  # seconds without a request before an unfinished game is deleted
    body_timeout: float = 10.0  # seconds to send a request's body
    max_body: int = 1_000_000  # bytes in a request's body

    def __post_init__(self):
        for name in ("max_games", "live_per_client", "creates_per_minute", "max_body", "workers"):
            value, low = getattr(self, name), 0 if name == "workers" else 1
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an int of at least {low}, got {value!r}")
        for name in ("max_think", "memory_idle", "finished_ttl", "idle_ttl", "body_timeout"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < math.inf:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        if not MIN_THINK <= self.max_think <= MAX_THINK:
            raise ValueError(f"max_think must be in [{MIN_THINK}, {MAX_THINK}] seconds, got {self.max_think!r}")


class LimitReached(Exception):
    """A request refused by a limit: 429, ``Retry-After: retry_after`` seconds."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = max(1, int(retry_after + 0.999))


class RateWindow:
    """Events per key in the last ``window`` seconds (creates per client address)."""

    def __init__(self, per_window: int, window: float = 60.0):
        self.per_window, self.window = per_window, window
        self._times: dict[str, deque[float]] = {}

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may act again (0: now), forgetting what fell out of the window."""
        times = self._times.get(key)
        if times is None:
            return 0.0
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._times[key]
            return 0.0
        return 0.0 if len(times) < self.per_window else times[0] + self.window - now

    def add(self, key: str, now: float) -> None:
        self._times.setdefault(key, deque()).append(now)

    def sweep(self, now: float) -> None:
        """Forget keys with nothing in the window (so that many addresses cannot fill memory)."""
        for key in list(self._times):
            self.wait(key, now)
