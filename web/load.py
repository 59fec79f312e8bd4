"""Load on the browser server (``python -m web``) over the loopback address, then a kill and a restart.

``--visitors`` simulated visitors (threads, each with its own keep-alive connection and its own client address,
named by ``X-Forwarded-For`` to a server that trusts 127.0.0.1 as its proxy) arrive over the first 10 s (or quarter
of the run) and play until ``--seconds`` have passed: each starts a game (one of the three, default configuration, a
random seat), then moves at a person's pace (``--pace`` seconds between moves, drawn uniformly) and, while the
opponents think, polls ``GET ?since=N`` as the page does (50 ms, then twice as long each time, up to 800 ms). A
``--best-share`` of the visitors play against ``best`` (the page's default thinking time, 1 s a turn), the others
against random and heuristic opponents. Measured: the latency of every GET and of every move's acknowledgement (the
answer to ``POST .../moves``, which never waits for the opponents), the server's peak resident memory (its process
and its workers together, sampled every 0.2 s) and every response of 500 or more.

Beside them (unless ``--no-hostile``) run one hostile client per attack of issue 48 and a probe timing another
visitor's 0.5 s opponent (``web.hostile``), the server at 1,024 open files, as a service, its log counted by minute.

Then the visitors stop where they are (mid-game), every game's view is read, the server is killed with SIGKILL (some
opponents still thinking) and started again on the same database, and every game is read again: a game is *lost* if
it is gone, *changed* if its configuration, seat, players or seed differ or its moves are not the moves read before
the kill followed by at most the opponents' moves the server was playing then.

    python -m web.load [--visitors 200] [--seconds 120] [--best-share 0.25] [--workers N] [--no-hostile]

Writes the report to ``--out`` (by default a new file under ``runs/bench/``; the committed ``benchmarks/results/
web_load.md`` only when ``--out`` names it) and the run's measurements beside it (``.json``), the report's source.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import resource
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

from web import hostile as hostile_clients

GAMES = {"wapi": 4, "wakanda": 2, "samurai": 2}  # players in the default configuration
#: Seconds over which the visitors arrive (at most a quarter of the run).
RAMP = 10.0
#: Targets of issue 36 on the project's 2-core machine.
TARGETS = {"get_p99_ms": 100, "peak_rss_mb": 2048, "server_errors": 0, "lost": 0, "changed": 0}


class Connection:
    """JSON over one keep-alive connection, from one client address; every call timed."""

    def __init__(self, port: int, address: str):
        self.port, self.address = port, address
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body=None) -> tuple[int, dict, float]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"X-Forwarded-For": self.address, **({"Content-Type": "application/json"} if data else {})}
        for attempt in range(2):
            try:
                begin = time.perf_counter()
                self.http.request(method, path, body=data, headers=headers)
                response = self.http.getresponse()
                payload = response.read()
                return response.status, json.loads(payload), time.perf_counter() - begin
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.http.close()  # the server closed an idle keep-alive connection: once more
                if attempt:
                    raise
        raise AssertionError("unreachable")


class Visitor(threading.Thread):
    """Plays games one after another until ``stop`` is set; keeps its timings and statuses."""

    def __init__(
        self, index: int, port: int, best: bool, pace: tuple[float, float], ramp: float, stop: threading.Event
    ):
        super().__init__(daemon=True)
        self.ramp = ramp
        self.rng = random.Random(index)
        self.connection = Connection(port, f"10.{index // 200}.{index % 200}.1")
        self.best, self.pace, self.stop = best, pace, stop
        self.gets: list[float] = []
        self.acks: list[float] = []
        self.creates: list[float] = []
        self.refused_creates = 0
        self.turns: list[float] = []  # against best: each wait for the opponents' moves
        self.statuses: Counter = Counter()
        self.games: list[str] = []
        self.failures: list[str] = []

    def call(self, method: str, path: str, body=None, times: list[float] | None = None) -> tuple[int, dict]:
        status, data, seconds = self.connection.call(method, path, body)
        self.statuses[status] += 1
        if times is not None:
            times.append(seconds)
        return status, data

    def follow(self, game_id: str, view: dict) -> dict:
        """``view`` followed while the opponents think; against ``best``, the turn's wall time is kept."""
        wait, begin, thought = 0.05, time.perf_counter(), view.get("thinking")
        while view.get("thinking") and not self.stop.is_set():
            time.sleep(wait)
            wait = min(2 * wait, 0.8)
            status, view = self.call("GET", f"/api/games/{game_id}?since={len(view['log'])}", times=self.gets)
        if self.best and thought and not view.get("thinking"):
            self.turns.append(time.perf_counter() - begin)
        return view

    def play_one(self) -> None:
        game = self.rng.choice(list(GAMES))
        others = GAMES[game] - 1
        opponents = (
            ["best"] * others if self.best else [self.rng.choice(["random", "heuristic"]) for _ in range(others)]
        )
        body = {"game": game, "seat": self.rng.randrange(GAMES[game]), "opponents": opponents}
        status, data = self.call("POST", "/api/games", body, times=self.creates)
        if status != 201:
            self.refused_creates += 1
            time.sleep(1.0)  # a limit (429): as a person would, wait
            return
        game_id = data["id"]
        self.games.append(game_id)
        view = self.follow(game_id, data["view"])
        while not view["done"] and not self.stop.is_set():
            if self.stop.wait(self.rng.uniform(*self.pace)):
                return
            if not view["your_turn"]:
                return  # an opponent could not play (the view says why): next game
            action = self.rng.choice(view["legal"])["action"]
            status, view = self.call("POST", f"/api/games/{game_id}/moves", {"action": action}, times=self.acks)
            if status != 200:
                self.failures.append(f"move {status}: {view}")
                return
            view = self.follow(game_id, view)

    def run(self) -> None:
        self.stop.wait(self.rng.uniform(0, self.ramp))  # visitors arrive over the first seconds, not at once
        while not self.stop.is_set():
            try:
                self.play_one()
            except (OSError, http.client.HTTPException, ValueError) as error:
                self.failures.append(repr(error))
                self.connection.http.close()


#: Open files the server may hold, as a default service (systemd's soft limit).
SERVER_FILES = 1024


def start_server(port: int, db: str, workers: int | None, log: str | None = None) -> subprocess.Popen:
    """``python -m web`` behind a proxy at 127.0.0.1, at most SERVER_FILES open files, its log to ``log``."""
    args = [sys.executable, "-m", "web", "--port", str(port), "--db", db, "--forwarded-allow-ips", "127.0.0.1"]
    args += [] if workers is None else ["--workers", str(workers)]
    err = subprocess.DEVNULL if log is None else open(log, "ab")  # noqa: SIM115 (closed below: the child has its own)
    try:
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
    finally:
        if log is not None:
            err.close()
    resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (SERVER_FILES, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("python -m web did not start")


def resident_bytes(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo += children.get(current, [])
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def sample_memory(pid: int, stop: threading.Event, peak: list[int]) -> None:
    while not stop.wait(0.2):
        peak[0] = max(peak[0], resident_bytes(pid))


def read_games(port: int, ids: list[str]) -> dict[str, tuple[int, dict]]:
    connection = Connection(port, "10.255.0.1")
    return {game_id: connection.call("GET", f"/api/games/{game_id}")[:2] for game_id in ids}


def compare(before: dict[str, tuple[int, dict]], after: dict[str, tuple[int, dict]]) -> tuple[int, int]:
    """Games lost and games changed by the kill (see the module docstring)."""
    lost = changed = 0
    for game_id, (status, view) in before.items():
        status_after, view_after = after[game_id]
        if status == 200 and status_after != 200:
            lost += 1
            continue
        same = ("game", "config", "seat", "players")
        log, later = view["log"], view_after["log"]
        extra = later[len(log) :]
        if (
            any(view[key] != view_after[key] for key in same)
            or later[: len(log)] != log
            or any(entry["player"] == view["seat"] for entry in extra)
            or (view["seed"] is not None and view["seed"] != view_after["seed"])
        ):
            changed += 1
    return lost, changed


def percentiles(times: list[float], unit: str = "ms") -> dict:
    """The median and 99th percentile of ``times`` (seconds), in ``unit`` ("ms" or "s")."""
    if not times:
        return {"n": 0}
    scale, digits = (1000, 1) if unit == "ms" else (1, 2)
    p50, p99 = (round(float(p), digits) for p in np.percentile(np.array(times) * scale, [50, 99]))
    return {"n": len(times), f"p50_{unit}": p50, f"p99_{unit}": p99}


def run(
    visitors: int, seconds: float, best_share: float, pace: tuple[float, float], workers: int | None, hostile: bool
) -> dict:
    with tempfile.TemporaryDirectory(prefix="web_load_") as folder:
        db, log = str(Path(folder) / "web.sqlite3"), str(Path(folder) / "web.log")
        return _run(visitors, seconds, best_share, pace, workers, db, log if hostile else None)


def free_port() -> int:
    """A loopback port free now (the server binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run(
    visitors: int,
    seconds: float,
    best_share: float,
    pace: tuple[float, float],
    workers: int | None,
    db: str,
    log: str | None,
) -> dict:
    port = free_port()
    load_before = os.getloadavg()[0]
    server = start_server(port, db, workers, log)
    stop, sampling, peak = threading.Event(), threading.Event(), [0]
    sampler = threading.Thread(target=sample_memory, args=(server.pid, sampling, peak), daemon=True)
    sampler.start()
    best = round(visitors * best_share)
    ramp = min(RAMP, seconds / 4)
    crowd = [Visitor(i, port, i < best, pace, ramp, stop) for i in range(visitors)]
    begin = time.monotonic()
    for visitor in crowd:
        visitor.start()
    hostiles, half, end = hostile_clients.beside(port, db, stop, seconds) if log else ({}, {}, {})
    stop.set()
    for client in [*crowd, *hostiles.values()]:
        client.join(timeout=30)
    played = time.monotonic() - begin
    load_during = os.getloadavg()[0]
    ids = [game_id for visitor in crowd for game_id in visitor.games]
    sampling.set()
    before, after, restart = kill_and_restart(server, port, db, workers, ids)
    lost, changed = compare(before, after)
    statuses = sum((client.statuses for client in [*crowd, *hostiles.values()]), Counter())
    attacks = hostile_clients.summary(hostiles, half, end, seconds, log) if log else {}
    return {
        "visitors": visitors,
        "best_visitors": best,
        "seconds": seconds,
        "played_s": round(played, 1),
        "pace_s": list(pace),
        "workers": workers if workers is not None else os.cpu_count(),
        "cpus": os.cpu_count(),
        "load_average": [round(load_before, 1), round(load_during, 1)],  # 1-minute, before and at the end
        "get": percentiles([t for v in crowd for t in v.gets]),
        "ack": percentiles([t for v in crowd for t in v.acks]),
        "create": percentiles([t for v in crowd for t in v.creates]),
        "statuses": {str(k): n for k, n in sorted(statuses.items())},
        "server_errors": sum(n for status, n in statuses.items() if status >= 500),
        "client_failures": sum(len(v.failures) for v in crowd),
        "peak_rss_mb": round(peak[0] / 2**20),
        "games": len(ids),
        "unfinished_at_kill": sum(1 for status, view in before.values() if status == 200 and not view["done"]),
        "thinking_at_kill": sum(1 for status, view in before.values() if status == 200 and view.get("thinking")),
        "lost": lost,
        "changed": changed,
        "restart_and_read_s": round(restart, 1),
        "visitor_creates_refused": sum(v.refused_creates for v in crowd),
        "best_turn_wall": percentiles([t for v in crowd for t in v.turns], unit="s"),
        **attacks,
    }


def kill_and_restart(
    server: subprocess.Popen, port: int, db: str, workers: int | None, ids: list[str]
) -> tuple[dict, dict, float]:
    """Every game read, the server killed (SIGKILL) and restarted, every game read again (and how long that took)."""
    before = read_games(port, ids)
    server.send_signal(signal.SIGKILL)
    server.wait()
    begin = time.monotonic()
    server = start_server(port, db, workers)
    after = read_games(port, ids)
    restart = time.monotonic() - begin
    server.terminate()
    server.wait(timeout=30)
    return before, after, restart


def report(record: dict, argv: list[str], out: Path) -> None:
    """The results page, from the run's record."""
    get, ack, create = record["get"], record["ack"], record["create"]
    killed = f"{record['unfinished_at_kill']:,} / {record['thinking_at_kill']:,}"
    rows = [
        ("GET latency p50 / p99", f"{get['p50_ms']} / **{get['p99_ms']}** ms ({get['n']:,} GETs)", "p99 ≤ 100 ms"),
        ("move acknowledgement p50 / p99", f"{ack['p50_ms']} / {ack['p99_ms']} ms ({ack['n']:,} moves)", ""),
        ("create p50 / p99", f"{create['p50_ms']} / {create['p99_ms']} ms ({create['n']:,} creates)", ""),
        ("peak resident memory (server and workers)", f"**{record['peak_rss_mb']:,} MB**", "≤ 2 GB"),
        ("responses ≥ 500", f"**{record['server_errors']}**", "0"),
        ("statuses", ", ".join(f"{k}: {n:,}" for k, n in record["statuses"].items()), ""),
        ("visitors' connection failures", str(record["client_failures"]), ""),
        ("games started", f"{record['games']:,}", ""),
        ("at the SIGKILL: unfinished / opponents thinking", killed, ""),
        ("games lost / changed by the kill", f"**{record['lost']} / {record['changed']}**", "0 / 0"),
        ("restart and read every game", f"{record['restart_and_read_s']} s", ""),
    ]
    if "hostile" in record:
        refused = ("ordinary visitors' creates refused", f"**{record['visitor_creates_refused']}**", "0")
        rows += [refused, *hostile_clients.rows(record["hostile"], record["log_lines_per_minute"])]
    if record.get("best_turn_wall", {}).get("n"):
        turn = record["best_turn_wall"]
        wall = f"{turn['p50_s']} / {turn['p99_s']} s ({turn['n']:,} turns)"
        rows.append(("visitors against best: their 1 s turn, wall time p50 / p99", wall, ""))
    table = ["| measure | this run | target |", "|---|---|---|", *(f"| {a} | {b} | {c} |" for a, b, c in rows)]
    about = (
        f"{record['cpus']} CPUs, {record['workers']} search workers (and one for quick opponents). "
        f"{record['visitors']} visitors ({record['best_visitors']} against `best`) for {record['seconds']:g} s, "
        f"a move every {record['pace_s'][0]:g}-{record['pace_s'][1]:g} s; the visitors run on the same machine "
        "as the server (threads of one process), so their own CPU use is in every latency. "
        f"Load average (1 min) {record['load_average'][0]:g} before the run, {record['load_average'][1]:g} at its end "
        "(other work on the machine shares its CPUs)."
    )
    command = shlex.join(["python", "-m", "web.load", *argv])  # the page of benchmarks.search_speed.write_results
    lines = ["# The browser server under load, killed and restarted", "", f"Command: `{command}`", ""]
    lines += [f"Machine: {platform.machine()}, Python {platform.python_version()}. {about}", "", *table]
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines) + f"\nwritten to {out}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m web.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--visitors", type=int, default=200, help="simulated visitors at once (default 200)")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long they play (default 120)")
    parser.add_argument("--best-share", type=float, default=0.25, help="share against best (default 0.25)")
    parser.add_argument("--pace", type=float, nargs=2, default=[0.5, 2.0], metavar=("MIN", "MAX"),
                        help="seconds between a visitor's moves, drawn uniformly (default 0.5 2.0)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=None, help="python -m web --workers (default: its own)")
    parser.add_argument("--no-hostile", action="store_true", help="without the hostile clients of issue 48")
    parser.add_argument("--out", type=Path, help="the report (default runs/bench/web_load-TIME.md)")
    args = parser.parse_args(argv)
    if args.visitors < 1 or args.seconds <= 0 or not 0 <= args.best_share <= 1 or not 0 <= args.pace[0] <= args.pace[1]:
        parser.error("--visitors >= 1, --seconds > 0, --best-share in [0, 1] and 0 <= --pace MIN <= MAX")
    record = run(args.visitors, args.seconds, args.best_share, tuple(args.pace), args.workers, not args.no_hostile)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    args.out = args.out or Path(__file__).resolve().parent.parent / "runs" / "bench" / f"web_load-{stamp}.md"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    report(record, argv if argv is not None else sys.argv[1:], args.out)


if __name__ == "__main__":
    main()
