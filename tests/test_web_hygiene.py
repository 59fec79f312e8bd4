"""Cross-site and protocol hygiene (``web.guard``, ``web.bodies``): regressions of issue 36.

- Any page a visitor opened could create games or fill the slots by a simple cross-site POST
  (``text/plain`` was read) or by DNS rebinding: now only ``application/json`` bodies (415),
  the Host header must name this server (400) and a POST's Origin must be this server (403).
- A connection with an unfinished body stayed open for ever: now 408 and closed.
- Wapi ``coins`` keys such as ``"--5"``, ``"²"`` or 5,000 digits, and ``coins`` nested ~960
  deep, gave 500s on create and on replay: now 422 naming the option.
- The replay endpoint would show a live game's hidden state (its seed replayed from another
  seat): now refused while a game dealt from that seed is being played.
Every refusal changes nothing.
"""

from __future__ import annotations

import json
import socket
import time

import pytest

import envs
from tests.web_helpers import Client, serve, settle
from web import create_app
from web.limits import Limits

ROOMY = Limits(workers=0, creates_per_minute=10_000, live_per_client=10_000, body_timeout=0.5)


@pytest.fixture(scope="module")
def server():
    app = create_app(limits=ROOMY)
    with serve(app) as base:
        yield app, base


@pytest.fixture
def client(server):
    client = Client(server[1])
    yield client
    client.close()


def games_kept(server) -> int:
    return server[0].state.games.database.count()


NEW = {"game": "wakanda", "opponents": ["random"], "seed": 3}


# --- Host, Origin, Content-Type -----------------------------------------------------------------
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.2", "localhost.evil.example", ""])
def test_a_host_not_served_is_refused(server, client, host):
    """DNS rebinding: another site's name resolving to this server is refused, on every path."""
    kept = games_kept(server)
    for method, path, body in [("GET", "/", None), ("GET", "/api/catalog", None), ("POST", "/api/games", NEW)]:
        status, data = client.call(method, path, body, headers={"Host": host})
        assert status == 400 and "--allowed-hosts" in data["error"], (host, data)
    assert games_kept(server) == kept


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost:8000", "LOCALHOST", "[::1]:8000"])
def test_the_loopback_names_are_served(client, host):
    assert client.call("GET", "/api/catalog", headers={"Host": host})[0] == 200


def test_allowed_hosts_name_the_public_server():
    with serve(create_app(limits=ROOMY, allowed_hosts=["play.example.org"])) as base:
        client = Client(base)
        assert client.call("GET", "/api/catalog", headers={"Host": "play.example.org"})[0] == 200
        assert client.call("GET", "/api/catalog")[0] == 400  # 127.0.0.1 is not named
    with serve(create_app(limits=ROOMY, allowed_hosts=["*"])) as base:
        assert Client(base).call("GET", "/api/catalog", headers={"Host": "any.example"})[0] == 200


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://localhost"])
def test_a_post_from_another_sites_page_is_refused(server, client, origin):
    kept = games_kept(server)
    status, data = client.call("POST", "/api/games", NEW, headers={"Origin": origin})
    assert status == 403 and "another site" in data["error"]
    assert games_kept(server) == kept


def test_a_post_from_the_page_itself_is_served(server, client):
    origin = server[1]  # http://127.0.0.1:PORT, as a browser on the page sends it
    status, data = client.call("POST", "/api/games", NEW, headers={"Origin": origin})
    assert status == 201, data


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""])
def test_only_json_bodies_are_read(server, client, kind):
    """A cross-site form or text/plain POST needs no preflight: such bodies are never read."""
    kept = games_kept(server)
    status, data = client.call("POST", "/api/games", NEW, headers={"Content-Type": kind})
    assert status == 415 and "application/json" in data["error"]
    game_id = client.call("POST", "/api/games", NEW)[1]["id"]
    status, data = client.call("POST", f"/api/games/{game_id}/moves", {"action": 0}, headers={"Content-Type": kind})
    assert status == 415
    assert games_kept(server) == kept + 1
    assert client.call("POST", "/api/games", NEW, headers={"Content-Type": "application/json; charset=utf-8"})[0] == 201


def test_an_unfinished_body_times_out_and_the_connection_closes(server):
    """Issue 36: a connection with an unfinished body stayed open indefinitely."""
    port = int(server[1].rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"game": '
        )
        begin = time.monotonic()
        answer = b""
        while chunk := sock.recv(4096):  # until the server closes the connection
            answer += chunk
        assert time.monotonic() - begin < 15
    assert answer.startswith(b"HTTP/1.1 408") and b"--body-timeout" in answer


# --- options that once gave 500s ------------------------------------------------------------------
def nested(depth: int) -> str:
    """JSON text of objects nested ``depth`` deep (written out: too deep for ``json.dumps``)."""
    return '{"1": ' * depth + "1" + "}" * depth


#: ``coins`` values as JSON text.
BAD_COINS = {
    "minus-minus": '{"--5": 3}',
    "superscript": '{"\u00b2": 3}',
    "5000-digits": '{"' + "9" * 5000 + '": 3}',
    "dash": '{"-": 3}',
    "20-digits": '{"' + "1" * 20 + '": 3}',
    "960-deep": nested(960),
    "20-deep": nested(20),
    "lists": "[[[]]]",
}


@pytest.mark.parametrize("coins", BAD_COINS.values(), ids=BAD_COINS.keys())
def test_bad_wapi_coins_are_422_naming_coins_on_create_and_on_replay(server, client, coins):
    kept = games_kept(server)
    body = '{"game": "wapi", "config": {"coins": COINS}}'.replace("COINS", coins)
    status, data = client.call("POST", "/api/games", raw=body.encode())
    assert status == 422 and "coins" in data["error"], data
    assert games_kept(server) == kept
    record = (
        '{"format": "drawluck-web-game", "game": "wapi", "config": {"coins": %s}, "seat": 0, "seed": 1, "moves": []}'
    )
    status, data = client.call("POST", "/api/replays", raw=(record % coins).encode())
    assert status == 422 and "coins" in data["error"], data


ODD_VALUES = [None, -1, 0, 2**80, 1.5, True, "", "x" * 300, "²", [], {}, {"a": 1}, [1, [2]], json.loads(nested(50))]


@pytest.mark.parametrize("game", envs.GAMES)
def test_no_value_of_any_option_gives_a_500(client, game):
    """Every option of every game, given odd values of every JSON type: created or 422 naming it."""
    for option in envs.describe(game).options:
        for value in ODD_VALUES:
            body = {"game": game, "config": {option.name: value}, "opponents": ["random"] * 5}
            status, data = client.call("POST", "/api/games", body)
            assert status == 422, (option.name, value, data)  # 5 opponents: refused in any case, never a 500
            config = {option.name: value}
            status, data = client.call("POST", "/api/games", {"game": game, "config": config})
            assert status in (201, 422), (option.name, value, data)
            if status == 422:
                assert option.name in data["error"], (option.name, value, data)


# --- the replay of a live game ------------------------------------------------------------------------
def test_the_replay_of_a_game_being_played_is_refused_until_it_is_over(client):
    """A player who gave the seed could replay their live game from another seat and see the
    other hands: refused while any game dealt from that seed is being played."""
    status, data = client.call("POST", "/api/games", {"game": "samurai", "opponents": ["random"], "seed": 77})
    game_id, view = data["id"], settle(client, data["id"], data["view"])
    # what the player knows: the seed; replayed from the other seat, the deal would show the other hand
    record = {"format": "drawluck-web-game", "game": "samurai", "config": {}, "seat": 1, "seed": 77, "moves": []}
    status, data = client.call("POST", "/api/replays", record)
    assert status == 422 and "being played" in data["error"]
    while not view["done"]:
        action = view["legal"][0]["action"]
        view = settle(client, game_id, client.call("POST", f"/api/games/{game_id}/moves", {"action": action})[1])
    status, data = client.call("POST", "/api/replays", json.loads(json.dumps(view["record"])))
    assert status == 200 and data["done"]
    status, data = client.call("POST", "/api/replays", {**view["record"], "seat": 1})
    assert status == 200  # once over, any seat may be replayed
