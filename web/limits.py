"""What one server lets its visitors use, every bound an option of ``python -m web``.

A refused request is answered 429 with ``Retry-After`` and a message naming the option
(:class:`LimitReached`); it is refused before anything is built or searched. A per-client
limit counts a client *address* as :func:`client_key` names it (an IPv6 visitor as its /64),
and no address may take more than ``client_share`` of a global limit (games, workers,
connections), so a second visitor is served while the first is refused.
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections import deque
from dataclasses import dataclass

from web.opponents import TIME_LIMIT_RANGE

#: The range of ``max_think``: from the shortest time an opponent may be given to ten minutes.
MIN_THINK, MAX_THINK = TIME_LIMIT_RANGE[0], 600.0

_COUNTS = ("max_games", "live_per_client", "games_per_client", "bytes_per_client", "creates_per_minute")
_COUNTS += ("replays_per_minute", "max_body", "max_config_bytes", "max_replay_bytes", "max_connections")
_COUNTS += ("log_lines_per_minute",)
_SECONDS = ("max_think", "think_per_client", "memory_idle", "finished_ttl", "idle_ttl", "body_timeout")
_SECONDS += ("header_timeout", "keep_alive")


@dataclass(frozen=True)
class Limits:
    """The bounds, with the defaults of ``python -m web`` (docs/deployment.md says what each protects)."""

    max_games: int = 10_000  # games kept (in the database), finished or not
    live_per_client: int = 20  # unfinished games one client address may hold
    games_per_client: int = 100  # games one client address may have kept, finished or not
    bytes_per_client: int = 1_000_000  # bytes one client address's games may take in the database
    creates_per_minute: int = 30  # new games one client address may start in any 60 s
    replays_per_minute: int = 20  # replays one client address may ask for in any 60 s
    max_think: float = 10.0  # CPU seconds an opponent may be given for one turn
    think_per_client: float = 30.0  # CPU seconds of opponents' turns one client address may have waiting or running
    client_share: float = 0.1  # the most one client address may take of games, workers and connections
    workers: int = os.cpu_count() or 1  # processes in which the opponents think
    memory_idle: float = 300.0  # seconds without a request before a game leaves memory (not the database)
    finished_ttl: float = 3600.0  # seconds after its end before a finished game is deleted (requests do not extend it)
    idle_ttl: float = 7 * 86400.0  # seconds without a request before an unfinished game is deleted
    body_timeout: float = 10.0  # seconds to send a request's body
    header_timeout: float = 10.0  # seconds to send a request's headers, from the connection's start or last answer
    keep_alive: float = 5.0  # seconds an idle keep-alive connection stays open
    max_connections: int = 500  # connections open at once (keep it well under the file limit, LimitNOFILE)
    max_body: int = 1_000_000  # bytes in a request's body
    max_config_bytes: int = 4_096  # bytes of a game's configuration as JSON
    max_replay_bytes: int = 4_000_000  # bytes of a replay's answer
    log_lines_per_minute: int = 120  # log lines written in any minute (the rest are counted, then summed up)

    def __post_init__(self):
        for name in (*_COUNTS, "workers"):
            value, low = getattr(self, name), 0 if name == "workers" else 1
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an int of at least {low}, got {value!r}")
        for name in _SECONDS:
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < math.inf:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        if not MIN_THINK <= self.max_think <= MAX_THINK:
            raise ValueError(f"max_think must be in [{MIN_THINK}, {MAX_THINK}] seconds, got {self.max_think!r}")
        share = self.client_share
        if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 < share <= 1:
            raise ValueError(f"client_share must be a fraction in (0, 1], got {share!r}")

    def share(self, total: int) -> int:
        """What one client address may take of a global limit of ``total``: ``client_share`` of it, at least 1."""
        return max(1, int(total * self.client_share))


def client_key(host: str | None) -> str:
    """The address a per-client limit counts: an IPv4 address as it is, an IPv6 one as its /64
    (one visitor commonly holds a whole /64), an IPv4-mapped IPv6 one as its IPv4 address."""
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class LimitReached(Exception):
    """A request refused by a limit: 429, ``Retry-After: retry_after`` seconds."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = max(1, int(retry_after + 0.999))


class RateWindow:
    """Events per key in the last ``window`` seconds (creates or replays per client address)."""

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

    def check(self, key: str, now: float, message: str) -> None:
        """LimitReached with ``message`` unless ``key`` may act now; if it may, the act is counted."""
        wait = self.wait(key, now)
        if wait > 0:
            raise LimitReached(message, wait)
        self.add(key, now)

    def add(self, key: str, now: float) -> None:
        self._times.setdefault(key, deque()).append(now)

    def sweep(self, now: float) -> None:
        """Forget keys with nothing in the window (so that many addresses cannot fill memory)."""
        for key in list(self._times):
            self.wait(key, now)
