"""What a game takes in the database (``web.database``), bounded whatever a visitor sends.

Issue 48 (attack 2): the configuration was stored as sent, so a Wapi ``coins`` object of 1,400
keys that all read as 5 (``"05"``, ``"005"``, ...) took about 1 MB a game, and one address stored
55 MB in 130 s. Now a configuration over ``--max-config-bytes`` is refused (413) and the stored
one is the game's canonical form (``Game.config()``), whatever keys were sent.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

import envs
from envs.wapi.components import COIN_VALUES, MAX_COINS
from tests.web_helpers import Client, serve
from web import create_app
from web.bodies import parse_config
from web.database import GAME_ROW_BYTES, MOVE_ROW_BYTES
from web.limits import Limits

ROOMY = Limits(workers=0, creates_per_minute=10_000, live_per_client=10_000, games_per_client=10_000)


def largest_config(game: str) -> dict:
    """Each option at its largest: the most players, every bool set, the longest choice, and Wapi's
    bag holding ``MAX_COINS`` coins spread over every value."""
    config = {}
    for option in envs.describe(game).options:
        if option.kind == "json":  # Wapi's coins
            config[option.name] = {str(v): MAX_COINS // len(COIN_VALUES) for v in COIN_VALUES}
        elif option.kind == "bool":
            config[option.name] = True
        else:
            config[option.name] = max(option.choices, key=lambda c: (len(str(c)), c))
    return config


def used_bytes(path) -> int:
    """Bytes of the database file's pages in use (the WAL's committed pages included)."""
    with sqlite3.connect(path) as connection:
        pages, free, size = (
            connection.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "freelist_count", "page_size")
        )
    return (pages - free) * size


def test_a_bloated_configuration_is_refused_and_a_short_one_stored_canonical():
    """1,400 keys that all read as 5: 413 naming --max-config-bytes. 60 such keys fit the limit,
    and are stored as the game's one count per coin value, not as sent."""
    app = create_app(limits=ROOMY)
    with serve(app) as base:
        client = Client(base)
        bloated = {"0" * n + "5": 3 for n in range(1, 1401)} | {"0": 8, "1": 12, "2": 12, "3": 8}
        status, data = client.call("POST", "/api/games", {"game": "wapi", "config": {"coins": bloated}})
        assert status == 413 and "--max-config-bytes" in data["error"]
        assert app.state.games.database.count() == 0
        sent = {"0" * n + "5": 3 for n in range(1, 61)} | {"0": 8, "1": 12, "2": 12, "3": 8}
        assert len(json.dumps(sent)) > 2000
        status, data = client.call("POST", "/api/games", {"game": "wapi", "config": {"coins": sent}})
        assert status == 201, data
        ((stored,),) = app.state.games.database._read("SELECT config FROM games")
        game = envs.describe("wapi").make(coins={0: 8, 1: 12, 2: 12, 3: 8, 5: 3})
        assert json.loads(stored) == json.loads(json.dumps(game.config())) and len(stored) < 200
        assert data["view"]["config"]["coins"] == {"0": 8, "1": 12, "2": 12, "3": 8, "5": 3}


@pytest.mark.parametrize("game", envs.GAMES)
def test_a_game_of_the_largest_configuration_takes_a_bounded_number_of_bytes(game, tmp_path):
    """Twenty games of the largest configuration, with the longest opponent entries: the bytes each
    takes in the file stay under what the per-client limit counts (``Database.usage``) and 1,500."""
    db = tmp_path / "web.sqlite3"
    app = create_app(limits=ROOMY, db=db)
    config = largest_config(game)
    description = envs.describe(game)
    players = description.make(**parse_config(description, config)).num_players
    opponents = [{"name": "ismcts", "time_limit": 0.05}] * (players - 1)
    with serve(app) as base:
        client = Client(base)
        before = used_bytes(db)
        for _ in range(20):
            status, data = client.call(
                "POST", "/api/games", {"game": game, "config": config, "seat": 0, "opponents": opponents}
            )
            assert status == 201, data
        per_game = (used_bytes(db) - before) / 20
        counted = app.state.games.database.usage("127.0.0.1").bytes / 20
    assert per_game <= counted <= 1500, (per_game, counted)


def test_a_move_takes_no_more_than_counted(tmp_path):
    db = tmp_path / "web.sqlite3"
    app = create_app(limits=ROOMY, db=db)
    with serve(app) as base:
        game_id = Client(base).call("POST", "/api/games", {"game": "wakanda", "seat": 0})[1]["id"]
        before = used_bytes(db)
        moves = [(0, 1)] * 2000  # the database stores what it is given; the engine is not asked here
        app.state.games.database.add_moves(game_id, 1000, moves, False, 0.0)
        assert (used_bytes(db) - before) / len(moves) <= MOVE_ROW_BYTES
    assert GAME_ROW_BYTES > 0
