"""Bounded resources (``web.limits``), each an option of ``python -m web``: games in all, unfinished
games and creates per minute per client address, thinking time per turn. A refused create is
429 with ``Retry-After`` and names the option. Issue 36: one client filled all 1,000 slots in
5 s, and every other visitor then got 503 for an hour; the cap was neither an option nor documented.
Issue 48 (attack 1): one address created and finished 25 games, filling ``--max-games`` (only
unfinished games were counted per address) and GETs kept them past ``--finished-ttl``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web_helpers import Client, serve, settle
from web import create_app
from web.__main__ import build_parser, main
from web.limits import Limits, client_key

NEW = {"game": "wakanda", "opponents": ["random"]}


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def create(client: Client, address: str, body: dict = NEW) -> tuple[int, dict]:
    """A create from ``address`` (named by X-Forwarded-For, which the test server trusts from 127.0.0.1)."""
    return client.call("POST", "/api/games", body, headers={"X-Forwarded-For": address})


def test_one_client_cannot_fill_the_server():
    """One address gets ``live_per_client`` unfinished games; every other address still gets its own."""
    limits = Limits(workers=0, live_per_client=3, creates_per_minute=100, max_games=10, client_share=0.5)
    app = create_app(limits=limits)
    with serve(app) as base:
        client = Client(base)
        for _ in range(3):
            assert create(client, "10.0.0.1")[0] == 201
        status, data = create(client, "10.0.0.1")
        assert status == 429 and "--live-per-client" in data["error"]
        assert int(client.headers["retry-after"]) > 0
        assert create(client, "10.0.0.2")[0] == 201
        assert app.state.games.database.count() == 4  # the refused create stored nothing


def test_creates_per_minute_per_address():
    clock = Clock()
    limits = Limits(workers=0, creates_per_minute=2, live_per_client=100)
    with serve(create_app(limits=limits, clock=clock)) as base:
        client = Client(base)
        assert create(client, "10.0.0.1")[0] == 201
        clock.now += 20
        assert create(client, "10.0.0.1")[0] == 201
        clock.now += 10
        status, data = create(client, "10.0.0.1")
        assert status == 429 and "--creates-per-minute" in data["error"]
        assert client.headers["retry-after"] == "30"  # when the first create leaves the minute
        assert create(client, "10.0.0.2")[0] == 201
        clock.now += 31
        assert create(client, "10.0.0.1")[0] == 201


def finish(client: Client, address: str) -> int:
    """A Wakanda game from ``address`` played to its end (first legal move each turn); the create's status."""
    status, data = create(client, address)
    if status != 201:
        return status
    game_id, view = data["id"], settle(client, data["id"], data["view"])
    while not view["done"]:
        body = {"action": view["legal"][0]["action"]}
        view = settle(client, game_id, client.call("POST", f"/api/games/{game_id}/moves", body)[1])
    return status


def test_finished_games_count_and_no_address_takes_more_than_its_share():
    """Attack 1: one address finishing games could fill ``--max-games``. Now an address keeps at most
    ``--client-share`` of it, finished or not; a second address is served while the first gets 429."""
    limits = Limits(workers=0, max_games=25, creates_per_minute=1000, client_share=0.1)
    app = create_app(limits=limits)
    with serve(app) as base:
        client = Client(base)
        assert [finish(client, "10.0.0.1") for _ in range(3)] == [201, 201, 429]  # 10 % of 25: 2 games
        error = create(client, "10.0.0.1")[1]["error"]
        assert "--games-per-client and --client-share of --max-games" in error and "finished or not" in error
        assert int(client.headers["retry-after"]) > 0
        assert app.state.games.database.usage("10.0.0.1").unfinished == 0  # both were finished
        assert create(client, "10.0.0.2")[0] == 201


def test_games_kept_per_address_and_bytes_per_address():
    with serve(create_app(limits=Limits(workers=0, games_per_client=2, creates_per_minute=1000))) as base:
        client = Client(base)
        assert [finish(client, "10.0.0.1") for _ in range(3)] == [201, 201, 429]
        assert "--games-per-client" in create(client, "10.0.0.1")[1]["error"]
    app = create_app(limits=Limits(workers=0, bytes_per_client=1000, creates_per_minute=1000))
    with serve(app) as base:
        client = Client(base)
        statuses = [create(client, "10.0.0.1")[0] for _ in range(5)]
        assert statuses[0] == 201 and statuses[-1] == 429
        assert "--bytes-per-client" in create(client, "10.0.0.1")[1]["error"]
        assert app.state.games.database.usage("10.0.0.1").bytes >= 1000
        assert create(client, "10.0.0.2")[0] == 201


def test_an_ipv6_client_is_counted_by_its_64():
    """One visitor holds a whole /64: its addresses share one count; the next /64 is another visitor."""
    assert client_key("2001:db8:0:0:aaaa::1") == client_key("2001:db8::ffff:1") == "2001:db8::/64"
    assert client_key("2001:db8:0:1::1") == "2001:db8:0:1::/64"
    assert client_key("::ffff:10.0.0.1") == "10.0.0.1" and client_key("10.0.0.1") == "10.0.0.1"
    with serve(create_app(limits=Limits(workers=0, live_per_client=2))) as base:
        client = Client(base)
        assert [create(client, f"2001:db8::{i}")[0] for i in range(1, 4)] == [201, 201, 429]
        assert create(client, "2001:db8:0:1::1")[0] == 201


def test_games_in_all():
    limits = Limits(workers=0, max_games=2)
    with serve(create_app(limits=limits)) as base:
        client = Client(base)
        assert create(client, "10.0.0.1")[0] == 201 and create(client, "10.0.0.2")[0] == 201
        status, data = create(client, "10.0.0.3")
        assert status == 429 and "--max-games" in data["error"] and client.headers["retry-after"] == "60"


def test_thinking_time_per_turn_is_bounded():
    """A visitor may give an opponent at most ``max_think`` seconds a turn; the default is lowered to it."""
    app = create_app(limits=Limits(workers=0, max_think=0.5))
    with serve(app) as base:
        client = Client(base)
        status, data = client.call(
            "POST", "/api/games", {"game": "wakanda", "opponents": [{"name": "ismcts", "time_limit": 0.6}]}
        )
        assert status == 422 and "time_limit must be a number of seconds in [0.05, 0.5]" in data["error"]
        status, data = client.call("POST", "/api/games", {"game": "wakanda", "opponents": ["ismcts"]})
        assert status == 201
        choice, options = app.state.games.get(data["id"]).opponents[1]
        assert choice.name == "ismcts" and options == {"time_limit": 0.5}
        listing = client.call("GET", "/api/catalog")[1]  # the page offers what the server allows
        assert listing["max_think"] == 0.5
        assert next(o for o in listing["opponents"] if o["name"] == "best")["options"] == {"time_limit": 0.5}


@pytest.mark.parametrize(
    "options,match",
    [
        ({"max_games": 0}, "max_games"),
        ({"live_per_client": 1.5}, "live_per_client"),
        ({"workers": -1}, "workers"),
        ({"max_think": 0.01}, "max_think"),
        ({"memory_idle": 0}, "memory_idle"),
        ({"idle_ttl": float("inf")}, "idle_ttl"),
        ({"body_timeout": True}, "body_timeout"),
        ({"client_share": 0}, "client_share"),
        ({"client_share": 1.5}, "client_share"),
        ({"games_per_client": 0}, "games_per_client"),
        ({"think_per_client": -1}, "think_per_client"),
        ({"header_timeout": 0}, "header_timeout"),
        ({"max_connections": 0}, "max_connections"),
    ],
)
def test_limits_refuse_bad_values(options, match):
    with pytest.raises(ValueError, match=match):
        Limits(**options)


def test_every_limit_is_an_option_of_python_m_web(capsys):
    text = build_parser().format_help()
    readme, deployment = (Path(__file__).parent.parent / name for name in ("README.md", "docs/deployment.md"))
    for name in vars(Limits()):
        flag = f"--{name.replace('_', '-')}"
        assert flag in text and flag in readme.read_text() and f"| `{flag} " in deployment.read_text(), flag
    for flag in ["--db", "--allowed-hosts", "--forwarded-allow-ips"]:
        assert flag in text
    for argv, match in [(["--max-games", "0"], "--max-games must be"), (["--max-think", "1000"], "--max-think")]:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2 and match in capsys.readouterr().err
