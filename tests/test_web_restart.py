"""Games survive a restart (``web.database``): each is stored as its configuration, seed and moves,
every move before the response that reports it, and a new server on the same file goes on
with every game exactly (same deal, same hidden state, same opponents). Issue 36: every game
lived in one process's memory."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from tests.web_helpers import Client, free_port, serve, settle, start_cli
from web import create_app
from web.database import Database
from web.limits import Limits

ROOMY = Limits(workers=0, creates_per_minute=1000, live_per_client=1000)

#: (game, config, seat, opponents, seed or None for one drawn by the server, moves to play before the restart)
GAMES = [
    ("wapi", {}, 1, ["random", "heuristic", "random"], 5, 6),
    ("wapi", {"num_players": 2, "coins": {0: 4, 1: 10, 2: 10, 3: 8, 5: 4}}, 0, ["heuristic"], None, 3),
    ("wakanda", {"advanced": True}, 0, ["heuristic"], None, 4),
    ("wakanda", {}, 1, ["random"], 9, 0),
    ("samurai", {}, 1, ["random"], 8, 10),
    ("samurai", {"num_players": 3, "choose_hand": True}, 2, ["random", "heuristic"], None, 7),
    ("wakanda", {}, 0, ["random"], 4, 10_000),  # played to the end
]


def play(client: Client, game_id: str, action: int) -> dict:
    status, view = client.call("POST", f"/api/games/{game_id}/moves", {"action": action})
    assert status == 200, view
    return settle(client, game_id, view)


def start_games(client: Client) -> list[str]:
    """Every game of GAMES, with its moves played (random legal ones)."""
    ids = []
    for index, (game, config, seat, opponents, seed, moves) in enumerate(GAMES):
        body = {"game": game, "config": config, "seat": seat, "opponents": opponents, "seed": seed}
        status, data = client.call("POST", "/api/games", body)
        assert status == 201, data
        view = settle(client, data["id"], data["view"])
        choose = random.Random(index).choice
        for _ in range(moves):
            if view["done"]:
                break
            status, view = client.call(
                "POST", f"/api/games/{data['id']}/moves", {"action": choose(view["legal"])["action"]}
            )
            view = settle(client, data["id"], view)
        ids.append(data["id"])
    return ids


def snapshot(client: Client, app, ids: list[str]) -> dict:
    """Per game: its view, and everything the server knows (hidden state included), freshly loaded."""
    games = app.state.games
    out = {}
    for game_id in ids:
        status, view = client.call("GET", f"/api/games/{game_id}")
        assert status == 200, view
        session = games.get(game_id)
        out[game_id] = (view, session.state.to_dict(), session.players, session.opponents, session.moves)
    return out


def test_a_restarted_server_resumes_every_game_exactly(tmp_path):
    db = tmp_path / "web.sqlite3"
    app = create_app(limits=ROOMY, db=db)
    with serve(app) as base:
        client = Client(base)
        ids = start_games(client)
        before = snapshot(client, app, ids)
    assert sum(view["done"] for view, *_ in before.values()) == 1
    again = create_app(limits=ROOMY, db=db)
    assert not again.state.games.live
    with serve(again) as base:
        client = Client(base)
        after = snapshot(client, again, ids)
        assert after == before
        for game_id in ids:  # and every game goes on to its end
            view = after[game_id][0]
            while not view["done"]:
                status, view = client.call(
                    "POST", f"/api/games/{game_id}/moves", {"action": view["legal"][0]["action"]}
                )
                view = settle(client, game_id, view)


def test_a_move_is_stored_before_its_answer_and_a_turn_cut_by_a_restart_is_played_after_it(tmp_path):
    db = tmp_path / "web.sqlite3"
    # The opponent thinks for 3 CPU seconds, so that the first server is surely stopped while it
    # thinks, however slowly it stops on a loaded machine (0.5 s was not enough in CI).
    body = {"game": "wakanda", "opponents": [{"name": "ismcts", "time_limit": 3.0}], "seed": 2}
    with serve(create_app(limits=ROOMY, db=db)) as base:
        client = Client(base)
        status, data = client.call("POST", "/api/games", body)
        game_id, action = data["id"], data["view"]["legal"][0]["action"]
        status, view = client.call("POST", f"/api/games/{game_id}/moves", {"action": action})
        assert status == 200 and view["thinking"]  # answered while the opponent thinks...
        assert Database(db).load(game_id).moves == [(0, action)]  # ...and already on disk
    assert Database(db).load(game_id).moves == [(0, action)]  # stopped while the opponent thought
    with serve(create_app(limits=ROOMY, db=db)) as base:
        client = Client(base)
        status, view = client.call("GET", f"/api/games/{game_id}")
        # The new server takes the cut turn up at once: on a slow machine it may be over by now.
        assert status == 200 and len(view["log"]) == (1 if view["thinking"] else 2)
        view = settle(client, game_id, view)
        assert view["your_turn"] and view["log"][1]["player"] == 1


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_python_m_web_killed_with_sigkill_loses_nothing(tmp_path):
    """The server process killed outright (no shutdown at all; its workers end by themselves),
    then started again on its database."""
    db = str(tmp_path / "web.sqlite3")
    port = free_port()
    args = ["--db", db, "--creates-per-minute", "100", "--workers", "1"]
    process = start_cli(port, args)
    try:
        client = Client(f"http://127.0.0.1:{port}")
        ids = start_games(client)
        before = {game_id: client.call("GET", f"/api/games/{game_id}") for game_id in ids}
        workers = children(process.pid)
        assert workers  # the quick opponents' worker (and multiprocessing's resource tracker)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers):  # the workers end with their server
        assert time.monotonic() < deadline, "the workers outlived their server"
        time.sleep(0.1)
    process = start_cli(port, args)
    try:
        client = Client(f"http://127.0.0.1:{port}")
        assert {game_id: client.call("GET", f"/api/games/{game_id}") for game_id in ids} == before
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_move_that_cannot_be_stored_is_refused_and_changes_nothing(monkeypatch):
    """A full disk or a locked file: the move is answered 500 and the game is as it was on disk."""
    app = create_app(limits=ROOMY)
    database = app.state.games.database
    with serve(app) as base:
        client = Client(base)
        status, data = client.call("POST", "/api/games", {"game": "wakanda", "opponents": ["random"], "seed": 6})
        game_id, view = data["id"], settle(client, data["id"], data["view"])
        before = client.call("GET", f"/api/games/{game_id}")

        def full(*args, **kwargs):
            raise sqlite3.OperationalError("database or disk is full")

        monkeypatch.setattr(database, "add_moves", full)
        status, data = client.call("POST", f"/api/games/{game_id}/moves", {"action": view["legal"][0]["action"]})
        assert status == 500 and data == {"error": "the server failed: OperationalError"}
        monkeypatch.undo()
        assert client.call("GET", f"/api/games/{game_id}") == before
        assert play(client, game_id, view["legal"][0]["action"])["log"][0]["player"] == 0  # and it goes on


def test_a_database_of_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "web.sqlite3"
    Database(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 99")
    with pytest.raises(ValueError, match="newer drawluck"):
        Database(path)
