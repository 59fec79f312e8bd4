"""Protocol hygiene, before any handler runs: the Host header, the Origin of a POST, JSON bodies only,
and a body that must arrive in time.

- **Host** must be one of ``allowed_hosts`` (``--allowed-hosts``; by default the loopback
  names and the address served): a page of another site that makes its own name resolve
  to this server (DNS rebinding) is refused.
- **Origin**, when a POST carries one (browsers always do), must be this server's own
  (its host and port as the Host header names them): another site's page cannot create
  games or play moves through a visitor's browser.
- **Content-Type** of a POST must be ``application/json`` (415 otherwise): a plain
  cross-site form or ``text/plain`` request is never read.
- A body must arrive within ``body_timeout`` seconds (408, connection closed) and be at
  most ``max_body`` bytes (413).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from envs.core.engine import shown
from web.bodies import BadRequest, parse_json

#: The names of this machine that a browser on it uses.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def default_hosts(bound: str) -> list[str]:
    """The loopback names, and the address served when it is one a browser can name."""
    return list(LOOPBACK_HOSTS) + ([] if bound in ("", "0.0.0.0", "::") or bound in LOOPBACK_HOSTS else [bound])


def host_name(host: str) -> str | None:
    """The name in a Host header (``"Example.org:8000"`` -> ``"example.org"``, ``"[::1]:80"`` -> ``"::1"``)."""
    try:
        return urlsplit("//" + host).hostname
    except ValueError:
        return None


class Guard:
    """ASGI middleware refusing, with a JSON error, what no page of this server sends."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]):
        self.app = app
        self.allowed = {name.lower().strip("[]") for name in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope["method"], Headers(scope=scope))
            if refusal is not None:
                status, message = refusal
                await JSONResponse({"error": message}, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, method: str, headers: Headers) -> tuple[int, str] | None:
        host = headers.get("host", "")
        name = host_name(host)
        if name is None or ("*" not in self.allowed and name not in self.allowed):
            return 400, f"the Host header {shown(host)} is not a name of this server (--allowed-hosts)"
        if method == "POST":
            origin = headers.get("origin")
            if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != host.lower()):
                return 403, f"a request from another site's page ({shown(origin)}) is refused: Origin must be {host}"
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return 415, f"the request body must be application/json, got Content-Type {shown(kind)}"
        return None


async def read_json(request: Request, max_body: int, timeout: float) -> Any:
    """The request's body as JSON: 413 past ``max_body`` bytes, 408 when it is not all there in
    ``timeout`` seconds (the connection is then closed), 400 when it is not JSON."""
    body = bytearray()
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > max_body:
                    raise BadRequest(f"the request body is larger than {max_body} bytes", status=413)
    except TimeoutError:
        raise BadRequest(f"the request body did not arrive within {timeout:g} s (--body-timeout)", status=408) from None
    return parse_json(bytes(body))
