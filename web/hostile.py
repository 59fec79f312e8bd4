"""The hostile clients of the load benchmark (``web.load``, issue 48): one per attack,
each from an address of its own, beside the ordinary visitors, and a probe that times another
visitor's 0.5 s opponent meanwhile.

1. :class:`Hoarder` creates and finishes Wakanda games as fast as it may, and GETs them all.
2. :class:`Bloater` sends Wapi configurations of 1,400 ``coins`` keys that all read as 5, and
   the largest such configuration the limit lets through.
3. :class:`ReplayFlooder` posts the record of a whole Samurai game to ``/api/replays`` in a loop.
4. :class:`PoolHog` keeps twenty games against ``ismcts`` at 2 s a turn going.
5. :class:`HalfOpen` holds up to 1,100 connections that never finish their headers, from a
   loopback address of its own (127.0.0.5: not the proxy, so not trusted).

Each counts the statuses it gets; nothing here decides a verdict (``web.load`` does).
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import random
import socket
import threading
import time
from collections import Counter

import numpy as np

from envs.games import make_game
from web.limits import Limits
from web.session import RECORD_FORMAT

HOG_GAMES, HOG_THINK, PROBE_THINK = 20, 2.0, 0.5
HALF_OPEN, HALF_OPEN_SOURCE = 1100, "127.0.0.5"


class Hostile(threading.Thread):
    """A client that repeats ``attack`` until ``stop`` is set, from ``address`` (X-Forwarded-For)."""

    def __init__(self, port: int, address: str, stop: threading.Event):
        super().__init__(daemon=True)
        self.port, self.address, self.stop = port, address, stop
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.statuses: Counter = Counter()
        self.failures: list[str] = []

    def call(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        headers = {"X-Forwarded-For": self.address, **({"Content-Type": "application/json"} if body else {})}
        try:
            self.http.request(method, path, body=body, headers=headers)
            response = self.http.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.failures.append(repr(error))
            self.http.close()
            return 0, b""
        self.statuses[response.status] += 1
        return response.status, payload

    def json(self, method: str, path: str, body=None) -> tuple[int, dict]:
        status, payload = self.call(method, path, None if body is None else json.dumps(body).encode())
        return status, (json.loads(payload) if payload else {})

    def run(self) -> None:
        while not self.stop.is_set():
            self.attack()

    def attack(self) -> None:
        raise NotImplementedError


class Hoarder(Hostile):
    """Attack 1: finished games, kept alive by GETs."""

    def __init__(self, *args):
        super().__init__(*args)
        self.ids: list[str] = []

    def attack(self) -> None:
        status, data = self.json("POST", "/api/games", {"game": "wakanda", "opponents": ["random"]})
        if status == 201:
            self.ids.append(data["id"])
            view = data["view"]
            while not view.get("done", True) and not self.stop.is_set():
                if view["your_turn"]:
                    view = self.json("POST", f"/api/games/{data['id']}/moves", {"action": view["legal"][0]["action"]})[
                        1
                    ]
                else:
                    time.sleep(0.02)
                    view = self.json("GET", f"/api/games/{data['id']}")[1]
        for game_id in self.ids[-30:]:
            self.json("GET", f"/api/games/{game_id}")
        self.stop.wait(0.2)


def bloated_coins(keys: int) -> str:
    """Wapi's default bag, then ``keys`` more keys that all read as 5 (``"05"``, ``"005"``, ...)."""
    extra = ", ".join(f'"{"0" * n}5": 8' for n in range(1, keys + 1))
    return '{"0": 8, "1": 12, "2": 12, "3": 8, ' + extra + "}"


class Bloater(Hostile):
    """Attack 2: configurations as large as will be sent, and the largest one let through."""

    LARGE = bloated_coins(1400).encode()
    #: the most such keys whose configuration ``{"coins": ...}`` is within the default --max-config-bytes
    LET_THROUGH = bloated_coins(
        max(k for k in range(200) if len('{"coins": }') + len(bloated_coins(k)) <= Limits().max_config_bytes)
    ).encode()

    def attack(self) -> None:
        for coins in (self.LARGE, self.LET_THROUGH):
            self.call("POST", "/api/games", b'{"game": "wapi", "config": {"coins": ' + coins + b"}}")
        self.stop.wait(0.05)


def samurai_record(seed: int = 4) -> bytes:
    """The record of a whole random Samurai game (about 200 moves)."""
    from web.thinking import new_state

    state, _ = new_state(make_game("samurai"), seed)
    choose, moves = random.Random(seed).choice, []
    while state.current_player is not None:
        moves.append({"player": state.current_player, "action": int(choose(state.legal_actions()))})
        state.apply(moves[-1]["action"])
    record = {"format": RECORD_FORMAT, "game": "samurai", "config": {}, "seat": 0, "seed": seed, "moves": moves}
    return json.dumps(record).encode()


class ReplayFlooder(Hostile):
    """Attack 3: replays of a long game, back to back."""

    def __init__(self, *args):
        super().__init__(*args)
        self.record = samurai_record()

    def attack(self) -> None:
        self.call("POST", "/api/replays", self.record)
        self.stop.wait(0.01)


class PoolHog(Hostile):
    """Attack 4: twenty games against a 2 s search, every human move played at once."""

    def __init__(self, *args):
        super().__init__(*args)
        self.games: dict[str, dict] = {}

    def attack(self) -> None:
        body = {"game": "wakanda", "seat": 1, "opponents": [{"name": "ismcts", "time_limit": HOG_THINK}]}
        while len(self.games) < HOG_GAMES and not self.stop.is_set():
            status, data = self.json("POST", "/api/games", body)
            if status != 201:
                break
            self.games[data["id"]] = data["view"]
        for game_id, view in list(self.games.items()):
            if view.get("done", True):
                del self.games[game_id]
            elif view["your_turn"]:
                self.games[game_id] = self.json(
                    "POST", f"/api/games/{game_id}/moves", {"action": view["legal"][0]["action"]}
                )[1]
            else:
                self.games[game_id] = self.json("GET", f"/api/games/{game_id}")[1]
        self.stop.wait(0.2)


def hold_half_open(port: int, stop, opened, refused) -> None:
    """Up to HALF_OPEN connections that never finish their headers, reopened as the server closes
    them, until ``stop`` (a process of its own: its loop would otherwise take the GIL from the
    visitors' threads, and their latencies would measure the benchmark, not the server)."""
    held: list[socket.socket] = []
    while not stop.is_set():
        while len(held) < HALF_OPEN and not stop.is_set():
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=1, source_address=(HALF_OPEN_SOURCE, 0))
                sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
            except OSError:
                refused.value += 1
                break
            sock.setblocking(False)
            held.append(sock)
            opened.value += 1
        held = [sock for sock in held if not _closed(sock)]
        stop.wait(0.5)
    for sock in held:
        sock.close()


def _closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (which is then closed here too)."""
    try:
        closed = sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        closed = True
    if closed:
        sock.close()
    return closed


class HalfOpen(Hostile):
    """Attack 5: :func:`hold_half_open` in a process of its own, while this thread waits."""

    def run(self) -> None:
        context = multiprocessing.get_context("spawn")
        stop, self._opened, self._refused = context.Event(), context.Value("l", 0), context.Value("l", 0)
        process = context.Process(target=hold_half_open, args=(self.port, stop, self._opened, self._refused))
        process.start()
        self.stop.wait()
        stop.set()
        process.join(timeout=30)

    @property
    def opened(self) -> int:
        return self._opened.value

    @property
    def refused(self) -> int:
        return self._refused.value


class Probe(Hostile):
    """An ordinary visitor against ``ismcts`` at 0.5 s: the wall time of each of its opponent's
    turns, from the answer that starts it to the first view with the turn played (polled every 20 ms)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.turns: list[float] = []

    def follow(self, game_id: str, view: dict, begin: float) -> dict:
        thought = view.get("thinking")
        while view.get("thinking") and not self.stop.is_set():
            time.sleep(0.02)
            view = self.json("GET", f"/api/games/{game_id}?since={len(view['log'])}")[1]
        if thought and not view.get("thinking"):
            self.turns.append(time.perf_counter() - begin)
        return view

    def attack(self) -> None:
        body = {"game": "wakanda", "seat": 1, "opponents": [{"name": "ismcts", "time_limit": PROBE_THINK}]}
        begin = time.perf_counter()
        status, data = self.json("POST", "/api/games", body)
        if status != 201:
            self.stop.wait(1.0)
            return
        view = self.follow(data["id"], data["view"], begin)
        while not view.get("done", True) and view.get("your_turn") and not self.stop.is_set():
            begin = time.perf_counter()
            status, view = self.json("POST", f"/api/games/{data['id']}/moves", {"action": view["legal"][0]["action"]})
            view = self.follow(data["id"], view, begin) if status == 200 else {}


ATTACKS = {"hoarder": Hoarder, "bloater": Bloater, "replays": ReplayFlooder, "pool_hog": PoolHog, "half_open": HalfOpen}


def start(port: int, stop: threading.Event) -> dict[str, Hostile]:
    """Every hostile client and the probe, started, each from an address of its own."""
    clients = {name: kind(port, f"10.250.{i}.1", stop) for i, (name, kind) in enumerate(ATTACKS.items())}
    clients["probe"] = Probe(port, "10.251.0.1", stop)
    for client in clients.values():
        client.start()
    return clients


def beside(port: int, db: str, stop: threading.Event, seconds: float) -> tuple[dict, dict, dict]:
    """Every hostile client run for ``seconds`` (then ``stop`` is the caller's to set); with the
    bytes each address holds half-way and at the end."""
    clients = start(port, stop)
    time.sleep(seconds / 2)
    half = held_bytes(db, clients)
    time.sleep(seconds / 2)
    return clients, half, held_bytes(db, clients)


def held_bytes(db: str, clients: dict[str, Hostile]) -> dict[str, int]:
    """What each hostile address holds in the database now (``Database.usage``, counted from above)."""
    from web.database import Database

    database = Database(db)
    try:
        return {name: database.usage(client.address).bytes for name, client in clients.items()}
    finally:
        database.close()


def log_lines_per_minute(path: str) -> int:
    """The most lines the server wrote in one minute of its log (a traceback's lines count in the
    minute of the line before them)."""
    minutes: Counter = Counter()
    minute = ""
    with open(path, errors="replace") as log:
        for line in log:
            if line[:4].isdigit() and line[4:5] == "-":
                minute = line[:16]
            minutes[minute] += 1
    return max(minutes.values(), default=0)


def summary(clients: dict[str, Hostile], half: dict[str, int], end: dict[str, int], seconds: float, log: str) -> dict:
    """For the run's record: each hostile client's statuses and bytes held, the probe's turn times,
    the half-open count, and the most lines the server's log (at ``log``) took in a minute."""
    out = {}
    for name, client in clients.items():
        growth = (end.get(name, 0) - half.get(name, 0)) / (seconds / 2) * 3600
        out[name] = {
            "statuses": {str(k): n for k, n in sorted(client.statuses.items())},
            "failures": len(client.failures),
            "held_bytes": end.get(name, 0),
            "growth_mb_per_hour": round(growth / 1e6, 2),
        }
    turns = clients["probe"].turns
    out["probe"]["turns"] = len(turns)
    out["probe"]["turn_p50_s"] = None if not turns else round(float(np.percentile(turns, 50)), 2)
    out["probe"]["turn_max_s"] = None if not turns else round(max(turns), 2)
    out["half_open"].update(opened=clients["half_open"].opened, refused=clients["half_open"].refused)
    return {"hostile": out, "log_lines_per_minute": log_lines_per_minute(log)}


def rows(hostile: dict, log_lines: int) -> list[tuple[str, str, str]]:
    """The report's rows for the hostile clients."""

    def statuses(name: str) -> str:
        return ", ".join(f"{k}: {n:,}" for k, n in hostile[name]["statuses"].items()) or "none"

    probe, bloater, half = hostile["probe"], hostile["bloater"], hostile["half_open"]
    most_held = max(entry["held_bytes"] for entry in hostile.values())
    turns = f"{probe['turn_p50_s']} / **{probe['turn_max_s']}** s ({probe['turns']} turns)"
    held = f"{bloater['held_bytes']:,} B / **{bloater['growth_mb_per_hour']} MB an hour**"
    return [
        ("probe: a 0.5 s opponent's turn, wall time p50 / max", turns, "≤ 3 s"),
        ("1. hoarder (finished games, GETs)", statuses("hoarder"), "429 past its limits"),
        ("2. bloater (1,400 keys; the largest let through)", statuses("bloater"), "413"),
        ("2. bloater: bytes held at the end / growth in the second half", held, "≤ 50 MB an hour"),
        ("most bytes held by one hostile address", f"{most_held:,} B", ""),
        ("3. replay flooder", statuses("replays"), "429 past --replays-per-minute"),
        ("4. pool hog (20 games of ismcts at 2 s)", statuses("pool_hog"), ""),
        ("5. half-open connections: opened / refused by the OS", f"{half['opened']:,} / {half['refused']:,}", ""),
        ("most log lines in one minute", f"**{log_lines:,}**", "≤ 1,000"),
    ]
