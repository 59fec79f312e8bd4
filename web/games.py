"""The games the server holds: in the database always, in memory while they are played.

A game comes into memory on its first request after a start or after it left (played
again from its record) and leaves after ``memory_idle`` seconds without a request; it is
deleted ``finished_ttl`` seconds after its end once over (no request extends it: issue 48,
GETs kept finished games, which filled ``--max-games``), ``idle_ttl`` seconds after the last
request if abandoned. Ids are 128 random bits (``secrets.token_urlsafe(16)``), so one
visitor cannot reach another's game by guessing.

Every session is read and changed on the server's event loop only, so no request ever
waits on a lock: an opponent's turn is a task in the pool (``web.thinking``) and the view
says ``thinking`` until its actions come back and are stored.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
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
        self._ended: dict[str, float] = {}  # when each finished game in memory ended (its expiry counts from it)
        self._creates = RateWindow(limits.creates_per_minute)
        self._replays = RateWindow(limits.replays_per_minute)
        self._queued: Counter[str] = Counter()  # CPU seconds of turns waiting or running, per client address
        self._tasks: set[asyncio.Task] = set()
        self._swept = -float("inf")

    # --- limits ----------------------------------------------------------------------------------
    def _cap(self, own: int, flag: str) -> tuple[int, str]:
        """A per-client limit and its name: ``own``, or ``--client-share`` of ``--max-games`` when less."""
        shared = self.limits.share(self.limits.max_games)
        return (own, flag) if own <= shared else (shared, f"{flag} and --client-share of --max-games")

    def check_create(self, client: str) -> None:
        """LimitReached unless ``client`` may start a game now (checked before anything is built)."""
        limits = self.limits
        wait = self._creates.wait(client, self.clock())
        if wait > 0:
            raise LimitReached(
                f"at most {limits.creates_per_minute} new games a minute from one address (--creates-per-minute)", wait
            )
        self.check_thinking(client)
        usage = self.database.usage(client)
        live, live_flag = self._cap(limits.live_per_client, "--live-per-client")
        kept, kept_flag = self._cap(limits.games_per_client, "--games-per-client")
        bounds = [  # (what is used, its limit, the refusal)
            (usage.unfinished, live, f"at most {live} unfinished games per address ({live_flag}): finish one, "
             "or wait until an abandoned one is deleted (--idle-ttl)"),
            (usage.games, kept, f"at most {kept} games kept per address, finished or not ({kept_flag}): a finished "
             f"game is deleted {limits.finished_ttl:g} s after its end (--finished-ttl)"),
            (usage.bytes, limits.bytes_per_client,
             f"the games of one address may take at most {limits.bytes_per_client} bytes (--bytes-per-client)"),
            (self.database.count(), limits.max_games,
             f"the server holds its most games, {limits.max_games} (--max-games)"),
        ]  # fmt: skip
        for used, most, refusal in bounds:
            if used >= most:
                raise LimitReached(refusal, RETRY_LATER)

    def check_thinking(self, client: str) -> None:
        """LimitReached while ``client``'s opponents have ``think_per_client`` CPU seconds waiting or running."""
        queued, most = self._queued[client], self.limits.think_per_client
        if queued >= most:
            raise LimitReached(
                f"at most {most:g} CPU seconds of opponents' turns waiting or running per address "
                f"(--think-per-client); {queued:g} s now",
                queued,
            )

    def check_replay(self, client: str) -> None:
        """LimitReached unless ``client`` may replay a record now (the replay is then counted)."""
        per_minute = self.limits.replays_per_minute
        message = f"at most {per_minute} replays a minute from one address (--replays-per-minute)"
        self._replays.check(client, self.clock(), message)

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
        """The game (loaded from the database if it is not in memory; its clock restarted, unless it
        is over: a finished game is deleted ``finished_ttl`` after its end, whatever is asked), or None."""
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
        """The human's move, stored before it is answered; then the opponents start thinking.
        Refused while the game's address has ``think_per_client`` seconds of turns queued."""
        if not session.done:
            self.check_thinking(session.record.client)
        session.play(action)
        self._save(session)
        self._schedule(session)

    # --- in memory, on disk --------------------------------------------------------------------------
    def _keep(self, session: GameSession) -> None:
        self.live[session.record.id] = session
        self._last_used[session.record.id] = self.clock()
        if session.done:
            self._ended[session.record.id] = session.record.used  # stored at its end, never moved since
        self._schedule(session)

    def _save(self, session: GameSession) -> None:
        """The session's new moves to disk; if that fails, the session leaves memory (its next
        request loads it from disk again, as it was before those moves) and the error goes on."""
        first, moves = session.unsaved()
        if moves:
            now = self.clock()
            try:
                self.database.add_moves(session.record.id, first, moves, session.done, now)
            except Exception:
                self._forget(session.record.id)
                raise
            session.mark_saved()
            if session.done:
                self._ended.setdefault(session.record.id, now)  # the end as stored

    def _forget(self, game_id: str) -> None:
        """The game leaves memory (it stays in the database)."""
        self.live.pop(game_id, None)
        self._last_used.pop(game_id, None)
        self._ended.pop(game_id, None)

    def sweep(self) -> None:
        """At most every SWEEP_EVERY seconds: games idle for ``memory_idle`` leave memory (not while
        their opponents think), finished games leave it ``finished_ttl`` after their end, and expired
        games are deleted from the database."""
        now = self.clock()
        if now - self._swept < SWEEP_EVERY:
            return
        self._swept = now
        finished_before, unfinished_before = now - self.limits.finished_ttl, now - self.limits.idle_ttl
        leaving = {
            game_id: used
            for game_id, used in self._last_used.items()
            if (now - used > self.limits.memory_idle or self._ended.get(game_id, now) < finished_before)
            and not self.live[game_id].thinking
        }
        if leaving:
            self.database.touch(leaving)
        for game_id in leaving:
            self._forget(game_id)
        self.database.delete_expired(finished_before, unfinished_before, keep=set(self.live))
        self._creates.sweep(now)
        self._replays.sweep(now)

    # --- the opponents' turns -------------------------------------------------------------------------
    def _schedule(self, session: GameSession) -> None:
        """Send the turn of the opponent to act (if one is and none is on its way) to the pool."""
        if session.opponent_to_act and not session.thinking and session.failure is None:
            session.thinking = True
            task = asyncio.get_running_loop().create_task(self._think(session))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _think(self, session: GameSession) -> None:
        """One opponent's turn through the pool, its CPU budget counted in its address's queued
        thinking (``think_per_client``) from when it is sent until it is back."""
        player, client, cost = session.state.current_player, session.record.client, 0.0
        try:
            task = session.turn_task()
            cost = task.cost
            self._queued[client] += cost
            session.apply_turn(await self.thinkers.turn(task, client))
            self._save(session)
        except Exception as error:  # the game waits, saying why; a restart tries the turn again
            session.failure = f"{session.players[player]} in seat {player} could not play: {type(error).__name__}"
        finally:
            session.thinking = False
            self._queued[client] -= cost
            if self._queued[client] <= 1e-9:
                del self._queued[client]
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
