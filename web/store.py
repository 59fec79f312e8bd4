"""The games the server holds, by unguessable id, each freed after a time limit.

Ids are 128 random bits (``secrets.token_urlsafe(16)``), so one visitor cannot reach
another's game by guessing. A finished game is freed ``finished_ttl`` seconds after its
last request, an abandoned one ``idle_ttl`` seconds after its last request; expired games
are swept on every request, so memory stays bounded without a background task.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable

from web.session import GameSession


class GameStore:
    """Games by id; ``clock`` is injectable so that expiry can be tested without waiting."""

    def __init__(
        self,
        finished_ttl: float = 600.0,
        idle_ttl: float = 3600.0,
        max_games: int = 1000,
        clock: Callable[[], float] = time.monotonic,
    ):
        if not finished_ttl > 0 or not idle_ttl > 0:
            raise ValueError(f"finished_ttl and idle_ttl must be positive seconds, got {finished_ttl}, {idle_ttl}")
        if not isinstance(max_games, int) or max_games < 1:
            raise ValueError(f"max_games must be a positive int, got {max_games!r}")
        self.finished_ttl, self.idle_ttl, self.max_games = finished_ttl, idle_ttl, max_games
        self.clock = clock
        self._games: dict[str, GameSession] = {}
        self._last_used: dict[str, float] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def sweep(self) -> None:
        """Free every game whose time is up."""
        now = self.clock()
        with self._lock:
            for game_id in list(self._games):
                ttl = self.finished_ttl if self._games[game_id].done else self.idle_ttl
                if now - self._last_used[game_id] > ttl:
                    del self._games[game_id], self._last_used[game_id]

    def add(self, session: GameSession) -> str | None:
        """Keep ``session`` under a new id; None when the server already holds ``max_games``."""
        self.sweep()
        with self._lock:
            if len(self._games) >= self.max_games:
                return None
            game_id = secrets.token_urlsafe(16)
            self._games[game_id] = session
            self._last_used[game_id] = self.clock()
            return game_id

    def get(self, game_id: str) -> GameSession | None:
        """The game with ``game_id`` (its clock restarted), or None if there is none (or it expired)."""
        self.sweep()
        with self._lock:
            session = self._games.get(game_id)
            if session is not None:
                self._last_used[game_id] = self.clock()
            return session
