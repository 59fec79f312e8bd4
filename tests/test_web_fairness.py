"""Fair use of what every visitor shares (issue 48, attacks 3, 4 and 6).

- The thinking pool was first come, first served: another visitor's 0.5 s turn waited 58.6 s
  behind one address's twenty 2 s searches. Now turns queue per address (``web.fair``), free
  workers go to the addresses in turn, one address holds at most ``--client-share`` of the
  workers, and its queued thinking is capped (``--think-per-client``).
- Building an opponent was not counted in its turn (ten ``best`` turns with ten thinking times:
  1.05 s of budget, 9.2 CPU-s used): now it is, and opponents are kept by their options without
  the thinking time. A trained model's card was read (torch imported) in the request: now in a worker.
- ``POST /api/replays`` had no limit and ran in the server's process: now per address
  (``--replays-per-minute``), bounded (``--max-replay-bytes``) and played in a worker.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import OrderedDict

import pytest

import web.app
import web.thinking
from envs.games import make_game
from tests.test_web_thinking import random_moves
from tests.web_helpers import Client, serve, settle
from web import create_app
from web.fair import FairQueue
from web.limits import Limits
from web.thinking import MIN_SLICE, TurnTask, new_state, opponent_turn


def starts(slots: int, per_client: int, jobs: list[str]) -> list[str]:
    """The order in which ``jobs`` (one client name each, submitted in that order) start."""
    order: list[str] = []

    async def job(name: str) -> None:
        order.append(name)
        await asyncio.sleep(0.01)

    async def scenario() -> None:
        queue = FairQueue(slots, per_client)
        tasks = []
        for name in jobs:
            tasks.append(asyncio.create_task(queue.run(name, lambda name=name: job(name))))
            await asyncio.sleep(0)  # submitted in this order
        await asyncio.gather(*tasks)

    asyncio.run(scenario())
    return order


def test_free_workers_go_to_the_addresses_in_turn():
    """Five turns of a hog, then one of a visitor: the visitor's starts as soon as one worker frees."""
    assert starts(1, 1, ["hog"] * 5 + ["visitor"]) == ["hog", "visitor", "hog", "hog", "hog", "hog"]
    assert starts(1, 1, ["a", "a", "b", "b", "c"]) == ["a", "b", "c", "a", "b"]


def test_one_address_holds_at_most_its_share_of_the_workers():
    """Two workers, one each at most: the hog's second turn waits, the visitor's starts at once."""
    assert starts(2, 1, ["hog", "hog", "hog", "visitor"])[:2] == ["hog", "visitor"]
    assert starts(2, 2, ["hog", "hog", "hog", "visitor"])[:3] == ["hog", "hog", "visitor"]


def test_a_cancelled_wait_gives_its_place_back():
    async def scenario() -> list[str]:
        queue, order = FairQueue(1, 1), []
        release = asyncio.Event()

        async def job(name):
            order.append(name)
            await release.wait()

        first = asyncio.create_task(queue.run("a", lambda: job("a")))
        await asyncio.sleep(0)
        waiting = asyncio.create_task(queue.run("b", lambda: job("b")))
        await asyncio.sleep(0)
        waiting.cancel()
        third = asyncio.create_task(queue.run("c", lambda: job("c")))
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(first, third)
        return order

    assert asyncio.run(scenario()) == ["a", "c"]


def test_queued_thinking_per_address_is_capped():
    """A visitor with ``--think-per-client`` seconds of turns waiting or running is refused another
    (429 naming it) until they are played; another address is served meanwhile."""
    limits = Limits(workers=0, think_per_client=0.5, max_think=0.5)
    with serve(create_app(limits=limits)) as base:
        client = Client(base)
        body = {"game": "wakanda", "seat": 1, "opponents": [{"name": "ismcts", "time_limit": 0.5}]}
        hog = {"X-Forwarded-For": "10.0.0.1"}
        status, data = client.call("POST", "/api/games", body, headers=hog)
        assert status == 201 and data["view"]["thinking"]
        status, refused = client.call("POST", "/api/games", body, headers=hog)
        assert status == 429 and "--think-per-client" in refused["error"] and int(client.headers["retry-after"]) >= 1
        assert client.call("POST", "/api/games", {"game": "wakanda"}, headers={"X-Forwarded-For": "10.0.0.2"})[0] == 201
        settle(client, data["id"], data["view"])
        assert client.call("POST", "/api/games", body, headers=hog)[0] == 201


@pytest.mark.alone  # CPU time: measured alone
def test_building_an_opponent_counts_in_its_turn_and_opponents_are_kept_by_their_options(monkeypatch):
    """An agent that takes 0.3 CPU-s to build, with a 0.1 s budget: the turn's CPU time includes
    the building and the search gets only what is left; ten thinking times build it once."""
    built = []
    real = web.thinking.build_agent

    def slow_build(agent, game, options):
        built.append(options["time_limit"])
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        return real(agent, game, options)

    monkeypatch.setattr(web.thinking, "build_agent", slow_build)
    moves = random_moves("wakanda", 1, 5)
    cache: OrderedDict = OrderedDict()
    first = opponent_turn(TurnTask("wakanda", {}, 1, moves, "ismcts", {"time_limit": 0.1}), cache)
    assert 0.3 <= first.cpu <= 0.3 + len(first.actions) * MIN_SLICE + 0.1, first
    for limit in (0.05, 0.06, 0.07, 0.08, 0.09):
        result = opponent_turn(TurnTask("wakanda", {}, 1, moves, "ismcts", {"time_limit": limit}), cache)
        assert result.cpu <= limit + len(result.actions) * MIN_SLICE + 0.1, result
    assert built == [0.1] and len(cache) == 1


def test_a_trained_models_card_is_read_in_a_worker_not_in_the_request(monkeypatch):
    """Reading a card imports torch: the create hands it to the pool's quick lane."""
    app = create_app(limits=Limits(workers=0))
    calls = []
    thinkers = app.state.games.thinkers
    real_call = thinkers.call

    async def call(client, function, *args):
        calls.append(function.__name__)
        return await real_call(client, function, *args)

    monkeypatch.setattr(thinkers, "call", call)
    with serve(app) as base:
        status, data = Client(base).call("POST", "/api/games", {"game": "wakanda", "opponents": ["trained"]})
    assert status in (201, 422), data
    assert calls == ["check_models"]


RECORD = {"format": "drawluck-web-game", "game": "samurai", "config": {}, "seat": 0, "seed": 5, "moves": []}


def long_record() -> dict:
    """A whole Samurai game of random moves, as a record."""
    state, _ = new_state(make_game("samurai"), 5)
    choose, moves = random.Random(5).choice, []
    while state.current_player is not None:
        moves.append({"player": state.current_player, "action": choose(state.legal_actions())})
        state.apply(moves[-1]["action"])
    return {**RECORD, "moves": moves}


def test_replays_are_counted_per_address_bounded_and_played_off_the_event_loop(monkeypatch):
    """Attack 3: replays per address per minute (429 naming it, another address served), an answer
    over ``--max-replay-bytes`` refused (413 naming it), and every replay played in the pool's thread."""
    threads = []
    real = web.app.replay
    monkeypatch.setattr(web.app, "replay", lambda *a: threads.append(threading.current_thread().name) or real(*a))
    limits = Limits(workers=0, replays_per_minute=2, max_replay_bytes=100_000)
    with serve(create_app(limits=limits)) as base:
        client = Client(base)
        first = {"X-Forwarded-For": "10.0.0.1"}
        assert client.call("POST", "/api/replays", RECORD, headers=first)[0] == 200
        status, data = client.call("POST", "/api/replays", long_record(), headers=first)
        assert status == 413 and "--max-replay-bytes" in data["error"]
        status, data = client.call("POST", "/api/replays", RECORD, headers=first)
        assert status == 429 and "--replays-per-minute" in data["error"] and "retry-after" in client.headers
        assert client.call("POST", "/api/replays", RECORD, headers={"X-Forwarded-For": "10.0.0.2"})[0] == 200
    assert len(threads) == 3 and all(name.startswith("drawluck-thinker") for name in threads)
