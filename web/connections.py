"""Connections held to a bound (issue 48, attack 5), and a log that an attack cannot fill.

uvicorn times out only an idle keep-alive connection after an answer, and the server itself
timed only bodies that a handler read: a new connection that sent nothing, headers sent a byte
at a time, and a request answered before its body (415, an unknown id) stayed open at least
40 s, and 1,100 half-sent requests from one client exhausted 1,024 open files, made every other
client time out and wrote 287,777 tracebacks (117 MB of log) in 23 s. :class:`Bounded` is
uvicorn's h11 protocol with

- a **header deadline**: a connection must deliver a whole request's headers within
  ``header_timeout`` seconds of its start or of its last answer, else it is closed;
- a **connection cap**: past ``max_connections`` open at once, or past ``client_share`` of them
  from one address (an IPv6 one as its /64; a trusted proxy is exempt), a new connection is
  closed at once, so the server's open files stay under the cap plus :data:`ACCEPT_BURST`.

:class:`LogBudget` lets at most ``log_lines_per_minute`` log lines through in each minute
(a traceback counts its lines) and then says how many it dropped.
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from web.limits import Limits, client_key

LOG = logging.getLogger("web.connections")


#: Seconds between two log lines about connections closed at once (each line gives their number).
REFUSALS_LOGGED_EVERY = 10.0
#: Connections accepted in one go (uvicorn's ``backlog``, also the kernel's queue of connections
#: not yet accepted). asyncio accepts up to this many before it closes any refused one, so open
#: files reach ``--max-connections`` plus this at most: with uvicorn's 2,048, a flood of connections
#: exhausted 1,024 open files although each past the cap was closed at once.
ACCEPT_BURST = 128


class Bounded(H11Protocol):
    """h11 with a header deadline and a connection cap. :func:`protocol` makes a subclass per server
    with its settings and its own counts (open connections per address, connections refused)."""

    # set by protocol(), from Limits (a server's own counts, never shared with another's)
    header_timeout: float
    max_connections: int
    per_address: int
    trusted: frozenset[str]
    open_by_address: Counter[str]
    refusals: dict[str, float]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """A connection past a cap is closed before anything is set up for it (an attack opens
        them by the thousand: each must cost little, and be counted in O(1))."""
        self._deadline: asyncio.TimerHandle | None = None
        self._address: str | None = None
        peer = transport.get_extra_info("peername")
        address = client_key(peer[0] if isinstance(peer, tuple) else None)
        refusal = self._refusal(address)
        if refusal is not None:
            self._log_refusal(refusal)
            transport.abort()
            return
        self._address = address
        self.open_by_address[address] += 1
        super().connection_made(transport)
        self._arm()

    def _refusal(self, address: str) -> str | None:
        if len(self.connections) >= self.max_connections:
            return f"{self.max_connections} connections were open (--max-connections)"
        if address not in self.trusted and self.open_by_address[address] >= self.per_address:
            return f"{self.per_address} connections from one address were open (--client-share of --max-connections)"
        return None

    def _log_refusal(self, reason: str) -> None:
        """One log line every REFUSALS_LOGGED_EVERY seconds at most, with the number refused since."""
        self.refusals["count"] += 1
        now = self.loop.time()
        if now - self.refusals["logged"] >= REFUSALS_LOGGED_EVERY:
            LOG.warning("%d connections closed at once, the last because %s", self.refusals["count"], reason)
            self.refusals.update(count=0, logged=now)

    def _arm(self) -> None:
        """From now, the next request's headers have ``header_timeout`` seconds to arrive."""
        self._disarm()
        self._waiting_for = self.cycle
        self._deadline = self.loop.call_later(self.header_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._deadline is not None and self.cycle is not self._waiting_for:
            self._disarm()  # a new request's headers are in: its handler times its body

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._address is None:
            return  # closed at once: nothing was set up
        self._disarm()
        self.open_by_address[self._address] -= 1
        if self.open_by_address[self._address] <= 0:
            del self.open_by_address[self._address]
        super().connection_lost(exc)


def protocol(limits: Limits, trusted: Iterable[str] = ()) -> type[Bounded]:
    """:class:`Bounded` with ``limits``' header timeout and connection caps; ``trusted`` are the
    addresses of reverse proxies (every visitor comes through them: no per-address cap)."""
    settings = {
        "header_timeout": limits.header_timeout,
        "max_connections": limits.max_connections,
        "per_address": limits.share(limits.max_connections),
        "trusted": frozenset(client_key(address) for address in trusted),
        "open_by_address": Counter(),
        "refusals": {"count": 0, "logged": -float("inf")},
    }
    return type("BoundedH11", (Bounded,), settings)


def server_options(limits: Limits, forwarded_allow_ips: str | None) -> dict[str, Any]:
    """uvicorn's options for ``limits``: the bounded protocol and the keep-alive timeout (``python -m
    web`` adds :func:`log_config`; a test server leaves the test process's logging alone)."""
    trusted = [] if forwarded_allow_ips is None else [a.strip() for a in forwarded_allow_ips.split(",")]
    return {"http": protocol(limits, trusted), "timeout_keep_alive": limits.keep_alive, "backlog": ACCEPT_BURST}


class LogBudget(logging.Filter):
    """At most ``per_minute`` lines in each minute (a record with a traceback counts its lines); the
    first record let through after some were dropped says how many."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.per_minute, self.clock = per_minute, clock
        self._start, self._lines, self._dropped = clock(), 0, 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        if now - self._start >= 60:
            self._start, self._lines = now, 0
        lines = 1
        if record.exc_info:
            lines += sum(part.count("\n") for part in traceback.format_exception(*record.exc_info))
        if self._lines + lines > self.per_minute:
            self._dropped += 1
            return False
        self._lines += lines
        if self._dropped:
            record.msg = f"[{self._dropped} log records dropped before this one: --log-lines-per-minute] " + str(
                record.msg
            )
            self._dropped = 0
        return True


def log_config(per_minute: int) -> dict[str, Any]:
    """Every logger (uvicorn's, asyncio's, ours) to stderr through one :class:`LogBudget`."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"budget": {"()": LogBudget, "per_minute": per_minute}},
        "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "filters": ["budget"], "formatter": "plain"}},
        "root": {"handlers": ["stderr"], "level": "WARNING"},
    }
