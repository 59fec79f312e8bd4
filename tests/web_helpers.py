"""Helpers of the web tests: a real server on a loopback port, and a small JSON client.

The server is uvicorn running the application in a thread of the test process (``serve``)
or ``python -m web`` in a child process (``serve_cli``); the client is the standard
library's ``http.client``, so the tests speak plain HTTP like a browser does.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def serve(app, **options) -> Iterator[str]:
    """``app`` served on a free loopback port for the duration (``options`` for ``uvicorn.Config``);
    yields its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve_cli(*args: str) -> Iterator[str]:
    """``python -m web --port P ARGS`` in a child process (with a database of its own in a
    temporary folder unless ARGS name one); yields its base URL once it answers."""
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        db = [] if "--db" in args else ["--db", str(Path(folder) / "web.sqlite3")]
        process = start_cli(port, [*db, *args])
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(timeout=10)


def start_cli(port: int, args: list[str]) -> subprocess.Popen:
    """``python -m web --port P ARGS`` in a child process, once it answers (stopped by the caller)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "web", "--port", str(port), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            Client(base).call("GET", "/api/catalog")
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                output = process.stdout.read().decode() if process.poll() is not None else ""
                raise RuntimeError(f"python -m web did not start: {output}") from None
            time.sleep(0.1)


def settle(client: Client, game_id: str, view: dict, timeout: float = 60) -> dict:
    """``view`` followed while the opponents think, as the page does (``GET ?since=N``): the
    last view, its ``frames`` being every frame since ``view``'s own."""
    frames = list(view.get("frames", []))
    deadline = time.monotonic() + timeout
    while view["thinking"]:
        assert time.monotonic() < deadline, f"the opponents still think after {timeout} s"
        time.sleep(0.005)
        status, view = client.call("GET", f"/api/games/{game_id}?since={len(view['log'])}")
        assert status == 200, view
        frames += view["frames"]
    return {**view, "frames": frames}


class Client:
    """JSON over one keep-alive HTTP connection: ``call(method, path, body) -> (status, data)``."""

    def __init__(self, base: str, timeout: float = 60):
        host, port = base.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=timeout)

    def call(
        self, method: str, path: str, body: Any = None, raw: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, Any]:
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        headers = {**({"Content-Type": "application/json"} if data is not None else {}), **(headers or {})}
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # the server closed the idle keep-alive connection before reading this request: send it again
            self.connection.close()
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
        payload = response.read()
        self.headers = dict(response.getheaders())
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(payload) if "json" in kind else payload.decode()

    def close(self) -> None:
        self.connection.close()
