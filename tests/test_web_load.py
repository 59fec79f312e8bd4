"""A bounded load test of ``python -m web`` on the loopback address: 50 games played at once
by 50 threads (the three games in turn, against random opponents, who think in the worker
pool while the threads poll), every response checked (how fast they come is the load benchmark's figure,
``python -m web.load``, not a bound here). It sends at most 50 x MAX_REQUESTS moves to 127.0.0.1 (and the
polls between them) and stops by itself after DEADLINE seconds at the latest."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

import envs
from tests.web_helpers import Client, serve_cli, settle

GAMES = 50
MAX_REQUESTS = 400  # per game: far above a real game's moves (Samurai: about 100)
DEADLINE = 600.0  # seconds after which the test stops a hung run (a guard, not a speed: web.load measures that)


def check_view(view: dict, seat: int) -> None:
    """Every view: the human's legal moves exactly on the human's turn, the result at the end."""
    assert view["seat"] == seat and view["done"] == (view["to_act"] is None)
    assert bool(view["legal"]) == view["your_turn"] == (view["to_act"] == seat)
    assert all(isinstance(m["action"], int) and m["text"] for m in view["legal"])
    if view["done"]:
        assert len(view["scores"]) == len(view["players"]) and view["winners"]


def play(base: str, index: int, start: threading.Barrier, times: list[float], failures: list[str]) -> None:
    game = envs.GAMES[index % len(envs.GAMES)]
    seat = index % 2
    players = envs.describe(game).make().num_players
    client, choose = Client(base, timeout=30), random.Random(index).choice

    def call(method: str, path: str, body=None):
        begin = time.perf_counter()
        status, data = client.call(method, path, body)
        times.append(time.perf_counter() - begin)
        return status, data

    try:
        start.wait(timeout=60)
        status, data = call(
            "POST", "/api/games", {"game": game, "seat": seat, "seed": index, "opponents": ["random"] * (players - 1)}
        )
        assert status == 201, data
        game_id = data["id"]
        view = settle(client, game_id, data["view"])
        check_view(view, seat)
        for _ in range(MAX_REQUESTS):
            if view["done"]:
                break
            before = len(view["log"])
            status, view = call("POST", f"/api/games/{game_id}/moves", {"action": choose(view["legal"])["action"]})
            assert status == 200, view
            view = settle(client, game_id, view)
            check_view(view, seat)
            assert len(view["log"]) == before + len(view["frames"]) and view["frames"][0]["player"] == seat
        assert view["done"], f"{game} did not end in {MAX_REQUESTS} moves"
        status, again = call("GET", f"/api/games/{game_id}")
        assert status == 200 and again["log"] == view["log"]
    except Exception as error:  # reported by the test, thread by thread
        failures.append(f"game {index} ({game}): {error!r}")
    finally:
        client.close()


@pytest.mark.alone  # make test runs it after the rest: a parallel test on the other core would time it too
def test_fifty_games_at_once_every_response_correct():
    times: list[float] = []
    failures: list[str] = []
    with serve_cli("--creates-per-minute", "100", "--live-per-client", "100", "--client-share", "1") as base:
        start = threading.Barrier(GAMES)
        threads = [
            threading.Thread(target=play, args=(base, i, start, times, failures), daemon=True) for i in range(GAMES)
        ]
        begin = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=max(0.0, DEADLINE - (time.monotonic() - begin)))
        assert not any(thread.is_alive() for thread in threads), f"games still running after {DEADLINE} s"
    assert not failures, failures
    assert len(times) > GAMES * 3
    slowest = max(times)
    print(
        f"{len(times)} requests, slowest {slowest * 1000:.0f} ms, "
        f"mean {sum(times) / len(times) * 1000:.1f} ms, {time.monotonic() - begin:.1f} s in all"
    )


def test_the_load_benchmark_tells_lost_and_changed_games():
    """web/load.py's verdict on the kill: a game gone is lost; a game whose start,
    seed or moves read before the kill differ, or that has a move of the human's it never
    sent, is changed; the opponents' moves that were being thought at the kill are allowed."""
    from web.load import compare

    view = {"game": "wapi", "config": {}, "seat": 1, "players": ["random", "you"], "seed": None,
            "log": [{"player": 0, "text": "a"}, {"player": 1, "text": "b"}]}  # fmt: skip
    later = {**view, "log": [*view["log"], {"player": 0, "text": "c"}]}
    before = {"same": (200, view), "opponent moved": (200, view), "gone": (200, view), "other seed": (200, view)}
    before.update({"rewritten": (200, view), "human moved": (200, view)})
    after = {
        "same": (200, view),
        "opponent moved": (200, later),
        "gone": (404, {"error": "no such game"}),
        "other seed": (200, {**view, "seed": 5, "players": ["heuristic", "you"]}),
        "rewritten": (200, {**view, "log": view["log"][:1]}),
        "human moved": (200, {**view, "log": [*view["log"], {"player": 1, "text": "d"}]}),
    }
    assert compare(before, after) == (1, 3)


def test_the_hostile_clients_send_what_the_issue_describes(tmp_path):
    """web/hostile.py: the bloater's large configuration is over --max-config-bytes and its
    other one the largest within it; a log's lines are counted by the minute, tracebacks included."""
    from web.hostile import Bloater, bloated_coins, log_lines_per_minute
    from web.limits import Limits

    limit = Limits().max_config_bytes
    assert len(Bloater.LARGE) > 200 * limit
    assert limit - 100 < len(b'{"coins": }' + Bloater.LET_THROUGH) <= limit
    assert json.loads(bloated_coins(3)) == {"0": 8, "1": 12, "2": 12, "3": 8, "05": 8, "005": 8, "0005": 8}
    log = tmp_path / "web.log"
    log.write_text(
        "2026-12-04 18:00:01,000 WARNING a\nTraceback:\n  line\n2026-12-04 18:00:59,000 WARNING b\n"
        "2026-12-04 18:01:00,000 WARNING c\n"
    )
    assert log_lines_per_minute(str(log)) == 4
