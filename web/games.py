"""The games the server holds: in the database always, in memory while they are played.

A game comes into memory on its first request after a start or after it left (played
again from its record) and leaves after ``memory_idle`` seconds without a request; it is
deleted ``finished_ttl`` seconds after the last request once over, ``idle_ttl`` seconds
after if abandoned. Ids are 128 random bits (``secrets.token_urlsafe(16)``), so one
visitor cannot reach another's game by guessing.

Every session is read and changed on the server's event loop only, so no request ever
waits on a lock: an opponent's turn is a task in the pool (``web.thinking``) and the view
says ``thinking`` until its actions come back and are stored.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Mapping

from web.bodies import SEED_LIMIT, NewGame
from web.database import Database, GameRecord
from web.limits import LimitReached, Limits, RateWindow
from web.opponents import OpponentChoice
from web.session import GameSession
from web.thinking import Thinkers

#: Seconds between two sweeps (games leaving memory, expired games deleted).
SWEEP_EVERY = 5.0
#: Retry-After of the limits that free up when some game ends or expires.
RETRY_LATER = 60


class Games:
    """Games by id; ``clock`` (wall-clock seconds) is injectable so that expiry can be tested without waiting."""

    def __init__(
        self,
        database: Database,
        offered: Mapping[str, OpponentChoice],
        limits: Limits,
        thinkers: Thinkers,
        clock: Callable[[], float] = time.time,
    ):
        self.database, self.offered, self.limits, self.thinkers = database, offered, limits, thinkers
        self.clock = clock
        self.live: dict[str, GameSession] = {}
        self._last_used: dict[str, float] = {}
        self._creates = RateWindow(limits.creates_per_minute)
        self._tasks: set[asyncio.Task] = set()
        self._swept = -float("inf")

    # --- limits ----------------------------------------------------------------------------------
    def check_create(self, client: str) -> None:
        """LimitReached unless ``client`` may start a game now (checked before anything is built)."""
        now = self.clock()
        wait = self._creates.wait(client, now)
        if wait > 0:
            raise LimitReached(
                f"at most {self.limits.creates_per_minute} new games a minute from one address (--creates-per-minute)",
                wait,
            )
        if self.database.count_unfinished(client) >= self.limits.live_per_client:
            raise LimitReached(
                f"at most {self.limits.live_per_client} unfinished games per address (--live-per-client): "
                f"finish one, or wait until an abandoned one is deleted (--idle-ttl)",
                RETRY_LATER,
            )
        if self.database.count() >= self.limits.max_games:
            raise LimitReached(f"the server holds its most games, {self.limits.max_games} (--max-games)", RETRY_LATER)

    # --- requests ---------------------------------------------------------------------------------
    def create(self, new: NewGame, client: str) -> tuple[str, GameSession]:
        """A new game, stored before it is answered; the opponents start thinking if they move first."""
        self.sweep()
        self.check_create(client)
        now = self.clock()
        seed = new.seed if new.seed is not None else secrets.randbelow(SEED_LIMIT)
        record = GameRecord(
            id=secrets.token_urlsafe(16),
            client=client,
            game=new.game,
            config=new.config,
            seat=new.seat,
            opponents=[{"name": choice.name, "options": options} for choice, options in new.opponents],
            seed=seed,
            seed_given=new.seed is not None,
            created=now,
            used=now,
        )
        session = GameSession(record, self.offered)
        self.database.create(record)
        self._creates.add(client, now)
        self._keep(session)
        return record.id, session

    def get(self, game_id: str) -> GameSession | None:
        """The game (loaded from the database if it is not in memory; its clock restarted), or None."""
        self.sweep()
        session = self.live.get(game_id)
        if session is None:
            record = self.database.load(game_id)
            if record is None:
                return None
            session = GameSession(record, self.offered)
            self._keep(session)
        self._last_used[game_id] = self.clock()
        return session

    def play(self, session: GameSession, action: int) -> None:
        """The human's move, stored before it is answered; then the opponents start thinking."""
        session.play(action)
        self._save(session)
        self._schedule(session)

    def seed_in_play(self, game: str, seed: int) -> bool:
        """Whether an unfinished game of ``game`` was dealt from ``seed`` (its replay would show hidden state)."""
        return self.database.unfinished_with_seed(game, seed)

    # --- in memory, on disk --------------------------------------------------------------------------
    def _keep(self, session: GameSession) -> None:
        self.live[session.record.id] = session
        self._last_used[session.record.id] = self.clock()
        self._schedule(session)

    def _save(self, session: GameSession) -> None:
        """The session's new moves to disk; if that fails, the session leaves memory (its next
        request loads it from disk again, as it was before those moves) and the error goes on."""
        first, moves = session.unsaved()
        if moves:
            try:
                self.database.add_moves(session.record.id, first, moves, session.done, self.clock())
            except Exception:
                self.live.pop(session.record.id, None)
                self._last_used.pop(session.record.id, None)
                raise
            session.mark_saved()

    def sweep(self) -> None:
        """At most every SWEEP_EVERY seconds: games idle for ``memory_idle`` leave memory (not while
        their opponents think), and expired games are deleted from the database."""
        now = self.clock()
        if now - self._swept < SWEEP_EVERY:
            return
        self._swept = now
        leaving = {
            game_id: used
            for game_id, used in self._last_used.items()
            if now - used > self.limits.memory_idle and not self.live[game_id].thinking
        }
        if leaving:
            self.database.touch(leaving)
        for game_id in leaving:
            del self.live[game_id], self._last_used[game_id]
        finished_before, unfinished_before = now - self.limits.finished_ttl, now - self.limits.idle_ttl
        self.database.delete_expired(finished_before, unfinished_before, keep=set(self.live))
        self._creates.sweep(now)

    # --- the opponents' turns -------------------------------------------------------------------------
    def _schedule(self, session: GameSession) -> None:
        """Send the turn of the opponent to act (if one is and none is on its way) to the pool."""
        if session.opponent_to_act and not session.thinking and session.failure is None:
            session.thinking = True
            task = asyncio.get_running_loop().create_task(self._think(session))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _think(self, session: GameSession) -> None:
        player = session.state.current_player
        try:
            session.apply_turn(await self.thinkers.turn(session.turn_task()))
            self._save(session)
        except Exception as error:  # the game waits, saying why; a restart tries the turn again
            session.failure = f"{session.players[player]} in seat {player} could not play: {type(error).__name__}"
        finally:
            session.thinking = False
        self._schedule(session)

    async def idle(self) -> None:
        """Until no opponent is thinking (tests and the benchmark wait on it)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        self.thinkers.close()
        self.database.close()
