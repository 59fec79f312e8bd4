"""Fair turns at a pool of workers: one queue per client address, served in turn.

The worker pools (``web.thinking``) run first come, first served: one address that sent
twenty 2 s searches made everyone else's 0.5 s turn wait a minute (issue 48). Here a job
waits in its address's own queue until a slot is free; free slots go to the waiting
addresses in turn (round-robin), and one address holds at most ``per_client`` slots at once
(``--client-share`` of the workers), so another address's job starts as soon as any slot
frees, and at once when the first address is at its share.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class FairQueue:
    """``slots`` jobs at once; a free slot goes to the waiting client with the fewest jobs running,
    and among those to the one served longest ago (round-robin)."""

    def __init__(self, slots: int, per_client: int):
        if slots < 1 or per_client < 1:
            raise ValueError(f"slots and per_client must be at least 1, got {slots} and {per_client}")
        self.slots, self.per_client = slots, per_client
        self._busy = 0
        self._running: Counter[str] = Counter()
        self._waiting: dict[str, deque[asyncio.Future]] = {}
        self._served: dict[str, int] = {}  # when each client with jobs last got a slot (a count of grants)
        self._grants = 0

    async def run(self, client: str, job: Callable[[], Awaitable[T]]) -> T:
        """``job()`` once a slot is ``client``'s turn; the slot is held until it returns or raises."""
        ticket = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(client, deque()).append(ticket)
        self._dispatch()
        try:
            await ticket
        except asyncio.CancelledError:
            if ticket.done() and not ticket.cancelled():
                self._release(client)  # granted, then cancelled before it ran
            else:
                self._withdraw(client, ticket)
            raise
        try:
            return await job()
        finally:
            self._release(client)

    def _withdraw(self, client: str, ticket: asyncio.Future) -> None:
        queue = self._waiting.get(client)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self._waiting[client]
                self._forget(client)

    def _release(self, client: str) -> None:
        self._busy -= 1
        self._running[client] -= 1
        self._forget(client)
        self._dispatch()

    def _forget(self, client: str) -> None:
        """A client with nothing running or waiting leaves the books (many addresses cannot fill memory)."""
        if self._running[client] <= 0 and client not in self._waiting:
            self._running.pop(client, None)
            self._served.pop(client, None)

    def _dispatch(self) -> None:
        while self._busy < self.slots:
            ready = [client for client in self._waiting if self._running[client] < self.per_client]
            if not ready:
                return
            client = min(ready, key=lambda c: (self._running[c], self._served.get(c, -1)))
            queue = self._waiting[client]
            ticket = queue.popleft()
            if not queue:
                del self._waiting[client]
            self._busy += 1
            self._running[client] += 1
            self._grants += 1
            self._served[client] = self._grants
            ticket.set_result(None)
