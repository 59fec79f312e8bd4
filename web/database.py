"""The games on disk: one SQLite file (standard library ``sqlite3``), so that a restart loses nothing.

A game is kept as what it was started with (game, configuration, seat, opponents, seed)
and its moves; its position is never stored but played again from the seed, so the same
deal and the same hidden state come back. A move is committed before the response that
reports it (WAL journal: a committed move survives the server being killed; ``synchronous
= NORMAL`` trades the last moves before a power cut for speed, see docs/deployment.md).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The version of the tables below (``PRAGMA user_version``); a file of a newer one is refused.
SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    client TEXT NOT NULL,        -- the address that created it (per-client limits)
    game TEXT NOT NULL,
    config TEXT NOT NULL,        -- JSON, the canonical form (Game.config()), parsed again on load
    seat INTEGER NOT NULL,
    opponents TEXT NOT NULL,     -- JSON: [{"name", "options"}] for the other seats in order
    seed INTEGER NOT NULL,
    seed_given INTEGER NOT NULL, -- 0: drawn by the server, hidden until the end
    done INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    used REAL NOT NULL           -- the last request, or the end once over (wall clock, seconds), for expiry
);
CREATE INDEX IF NOT EXISTS games_by_client ON games (client, done);
DROP INDEX IF EXISTS games_by_seed;
CREATE INDEX IF NOT EXISTS games_by_use ON games (done, used);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    player INTEGER NOT NULL,
    action INTEGER NOT NULL,
    PRIMARY KEY (game_id, number)
) WITHOUT ROWID;
"""


@dataclass
class GameRecord:
    """One game as stored: how it was started, and its moves as ``(player, action)``."""

    id: str
    client: str
    game: str
    config: dict[str, Any]
    seat: int
    opponents: list[dict[str, Any]]
    seed: int
    seed_given: bool
    created: float
    used: float
    done: bool = False
    moves: list[tuple[int, int]] = field(default_factory=list)


#: Bytes a game's row takes beyond its JSON (id, client, numbers, three index entries) and a move's row:
#: :meth:`Database.usage` counts with them, and tests/test_web_storage.py checks that they are not under
#: what SQLite actually takes.
GAME_ROW_BYTES, MOVE_ROW_BYTES = 320, 64


@dataclass(frozen=True)
class Usage:
    """What one client address holds in the database."""

    games: int  # finished or not
    unfinished: int
    bytes: int  # an upper estimate: JSON text plus GAME_ROW_BYTES a game and MOVE_ROW_BYTES a move


#: The path of a database that lives in memory only (the tests' default: nothing survives a restart).
MEMORY = ":memory:"


class Database:
    """The games table and the moves table; every method is one short transaction.

    The server calls it from its event loop only; the lock makes it safe to call from
    another thread as well (tests, the benchmark)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != MEMORY:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            version = self._connection.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                self._connection.close()
                raise ValueError(
                    f"{path} holds games of a newer drawluck (schema {version}, this one reads {SCHEMA_VERSION})"
                )
            self._connection.execute("PRAGMA journal_mode = WAL")
            self._connection.execute("PRAGMA synchronous = NORMAL")
            self._connection.execute("PRAGMA foreign_keys = ON")
            self._connection.executescript(SCHEMA)
            self._connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def _write(self, statements: list[tuple[str, tuple]]) -> None:
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    self._connection.execute(sql, args)
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._connection.execute(sql, args).fetchall()

    def create(self, record: GameRecord) -> None:
        """Keep a new game (with the moves it already has)."""
        row = (
            record.id,
            record.client,
            record.game,
            json.dumps(record.config),
            record.seat,
            json.dumps(record.opponents),
            record.seed,
            int(record.seed_given),
            int(record.done),
            record.created,
            record.used,
        )
        statements = [("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)]
        statements += self._move_rows(record.id, 0, record.moves)
        self._write(statements)

    @staticmethod
    def _move_rows(game_id: str, first: int, moves: list[tuple[int, int]]) -> list[tuple[str, tuple]]:
        sql = "INSERT INTO moves VALUES (?, ?, ?, ?)"
        return [(sql, (game_id, first + i, player, action)) for i, (player, action) in enumerate(moves)]

    def add_moves(self, game_id: str, first: int, moves: list[tuple[int, int]], done: bool, used: float) -> None:
        """Moves ``first, first + 1, ...`` of a game, with whether it is now over, in one transaction."""
        statements = self._move_rows(game_id, first, moves)
        statements.append(("UPDATE games SET done = ?, used = ? WHERE id = ?", (int(done), used, game_id)))
        self._write(statements)

    def touch(self, uses: dict[str, float]) -> None:
        """The last request of unfinished games that leave memory (their expiry counts from it); a
        finished game's expiry counts from its end, which no request moves."""
        sql = "UPDATE games SET used = ? WHERE id = ? AND done = 0"
        self._write([(sql, (used, game_id)) for game_id, used in uses.items()])

    def load(self, game_id: str) -> GameRecord | None:
        rows = self._read("SELECT * FROM games WHERE id = ?", (game_id,))
        if not rows:
            return None
        (gid, client, game, config, seat, opponents, seed, seed_given, done, created, used) = rows[0]
        moves = self._read("SELECT player, action FROM moves WHERE game_id = ? ORDER BY number", (game_id,))
        return GameRecord(
            gid,
            client,
            game,
            json.loads(config),
            seat,
            json.loads(opponents),
            seed,
            bool(seed_given),
            created,
            used,
            bool(done),
            [(p, a) for p, a in moves],
        )

    def count(self) -> int:
        """Games kept, finished or not."""
        return self._read("SELECT COUNT(*) FROM games")[0][0]

    def usage(self, client: str) -> Usage:
        """The games of ``client`` (finished or not, unfinished) and the bytes they take (estimated from above)."""
        sql = "SELECT COUNT(*), COALESCE(SUM(done = 0), 0), COALESCE(SUM(length(config) + length(opponents)), 0)"
        games, unfinished, text = self._read(sql + " FROM games WHERE client = ?", (client,))[0]
        sql = "SELECT COUNT(*) FROM moves WHERE game_id IN (SELECT id FROM games WHERE client = ?)"
        moves = self._read(sql, (client,))[0][0]
        return Usage(games, unfinished, text + games * GAME_ROW_BYTES + moves * MOVE_ROW_BYTES)

    def ids(self) -> list[str]:
        return [row[0] for row in self._read("SELECT id FROM games ORDER BY created, id")]

    def delete_expired(self, finished_before: float, unfinished_before: float, keep: set[str]) -> list[str]:
        """Delete finished games last used before ``finished_before`` and unfinished ones before
        ``unfinished_before`` (except ``keep``: games in memory, whose clock is there); their ids."""
        rows = self._read(
            "SELECT id FROM games WHERE (done = 1 AND used < ?) OR (done = 0 AND used < ?)",
            (finished_before, unfinished_before),
        )
        gone = [row[0] for row in rows if row[0] not in keep]
        self._write([("DELETE FROM games WHERE id = ?", (game_id,)) for game_id in gone])
        return gone
