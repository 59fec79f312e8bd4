"""The web application: the page and its JSON API (Starlette).

=====================================  ==================================================
``GET  /``                             the page (``web/static``: HTML, CSS, JS, no build)
``GET  /api/catalog``                  games with their options, and the opponents offered
``POST /api/games``                    ``{"game", "config", "seat", "opponents", "seed"}``
                                       -> 201 ``{"id", "view"}``
``GET  /api/games/{id}[?since=N]``     the view; with ``since``, the frames of the moves
                                       from number N on (what the page has not shown yet)
``POST /api/games/{id}/moves``         ``{"action": int}`` -> the view after the move, its
                                       frame in ``frames`` (without ``static``, which never
                                       changes); ``thinking`` while the opponents answer
``POST /api/replays``                  a game's record -> every position as frames (in a worker)
=====================================  ==================================================

No request waits for a search: the opponents think in a pool of processes
(``web.thinking``) and the view says ``"thinking": true`` until their moves are in; the
page polls ``GET ?since=N`` meanwhile. Every game is in the database (``web.database``)
before a response reports it, so a restarted server goes on with every game.

A view holds only what the human player may see (``web.views``). Errors are JSON
``{"error": message}``: 400 for a body that is not JSON, a move not legal now or a Host
not served, 403 for another site's page, 404 for an unknown or expired game, 408 for a body
too slow, 413 for a body, a configuration or a replay over its size limit, 415 for a body
that is not ``application/json``, 422 for JSON of the wrong shape, 429 (with ``Retry-After``)
when a limit of ``web.limits`` is reached. A refused request changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import envs
from web.bodies import BadRequest, parse_config, parse_move, parse_new_game
from web.database import MEMORY, Database
from web.games import Games
from web.guard import Guard, default_hosts, read_json
from web.limits import LimitReached, Limits, client_key
from web.opponents import OpponentChoice, offered_opponents
from web.session import replay
from web.thinking import Thinkers

STATIC = Path(__file__).parent / "static"


def catalog(offered: Mapping[str, OpponentChoice], max_think: float) -> dict[str, Any]:
    """Every game with its options (from ``envs.describe``) and player counts, the opponents (a
    default thinking time at most ``max_think``) and ``max_think``, the most a turn may be given."""
    games = []
    for name in envs.GAMES:
        description = envs.describe(name)
        options = [
            {
                "name": o.name,
                "kind": o.kind,
                "default": o.default,
                "help": o.help,
                "choices": None if o.choices is None else list(o.choices),
            }
            for o in description.options
        ]
        games.append({"name": name, "options": options, "num_players": description.make().num_players})
    opponents = [choice.listing(max_think) for choice in offered.values()]
    return {"games": games, "opponents": opponents, "max_think": max_think}


def client_of(request: Request) -> str:
    """The client address the per-client limits count (an IPv6 one as its /64: ``web.limits.client_key``)."""
    return client_key(request.client.host if request.client else None)


def check_models(name: str, config: dict[str, Any], choices: list[OpponentChoice]) -> None:
    """422 unless each trained model plays this configuration (read from its card). Run in a
    worker: reading a card imports torch (issue 48: the first such create took 2.7-3.4 s and
    grew the server's own process from 58 to 268 MB)."""
    description = envs.describe(name)
    game = description.make(**parse_config(description, config))
    try:
        for choice in choices:
            choice.check_game(game)
    except ValueError as error:
        raise BadRequest(str(error)) from None


def parse_since(text: str | None) -> int | None:
    """The ``since`` query parameter: a move number (a non-negative integer), or absent."""
    if text is None:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        raise BadRequest(f"since must be a move number (a non-negative integer), got {text[:40]!r}")
    return int(text)


class Endpoints:
    """The API's endpoints over one server's games: a class, so that each is a short method rather than a
    closure inside :func:`create_app`."""

    def __init__(self, games: Games, offered: Mapping[str, OpponentChoice], limits: Limits):
        self.games, self.offered, self.limits = games, offered, limits
        self.listing = catalog(offered, limits.max_think)

    def session_of(self, request: Request):
        session = self.games.get(request.path_params["game_id"])
        if session is None:
            raise HTTPException(404, "no such game: unknown id, or the game has expired")
        return session

    async def body(self, request: Request) -> Any:
        return await read_json(request, self.limits.max_body, self.limits.body_timeout)

    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def get_catalog(self, request: Request) -> Response:
        return JSONResponse(self.listing)

    async def create_game(self, request: Request) -> Response:
        limits = self.limits
        new = parse_new_game(await self.body(request), self.offered, limits.max_think, limits.max_config_bytes)
        client = client_of(request)
        self.games.check_create(client)  # before anything is built
        models = [choice for choice, _ in new.opponents if choice.plays_a_model]
        if models:
            await self.games.thinkers.call(client, check_models, new.game, new.config, models)
        game_id, session = self.games.create(new, client)
        return JSONResponse({"id": game_id, "view": session.view(since=0)}, status_code=201)

    async def get_game(self, request: Request) -> Response:
        since = parse_since(request.query_params.get("since"))
        session = self.session_of(request)
        return JSONResponse(session.view(since=since, static=since is None))

    async def post_move(self, request: Request) -> Response:
        session = self.session_of(request)
        action = parse_move(await self.body(request))
        before = len(session.moves)
        self.games.play(session, action)
        return JSONResponse(session.view(since=before, static=False))

    async def post_replay(self, request: Request) -> Response:
        """Counted per address (``--replays-per-minute``) and played in a worker, bounded (``--max-replay-bytes``).
        It answers the same whether or not a game of its seed is being played (issue 48: a refusal told
        which seeds were): a seed the server draws is secret until its game ends, and a visitor who
        chose a seed can deal it with the open engine anyway."""
        client = client_of(request)
        record = await self.body(request)
        self.games.check_replay(client)
        bounds = (self.limits.max_replay_bytes, self.limits.max_config_bytes)
        answer = await self.games.thinkers.call(client, replay, record, *bounds)
        return Response(answer, media_type="application/json")

    def routes(self) -> list:
        return [
            Route("/", self.index),
            Route("/api/catalog", self.get_catalog),
            Route("/api/games", self.create_game, methods=["POST"]),
            Route("/api/games/{game_id}", self.get_game),
            Route("/api/games/{game_id}/moves", self.post_move, methods=["POST"]),
            Route("/api/replays", self.post_replay, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]


async def refused(request: Request, error: Exception) -> Response:
    assert isinstance(error, BadRequest)
    headers = {"Connection": "close"} if error.status == 408 else None
    return JSONResponse({"error": str(error)}, status_code=error.status, headers=headers)


async def limited(request: Request, error: Exception) -> Response:
    assert isinstance(error, LimitReached)
    headers = {"Retry-After": str(error.retry_after)}
    return JSONResponse({"error": f"limit reached: {error}"}, status_code=429, headers=headers)


async def server_error(request: Request, error: Exception) -> Response:
    return JSONResponse({"error": f"the server failed: {type(error).__name__}"}, status_code=500)


async def http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    return JSONResponse({"error": error.detail}, status_code=error.status_code, headers=error.headers)


#: every error as JSON ``{"error": message}`` (see the module docstring for the statuses)
HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    BadRequest: refused,
    LimitReached: limited,
    HTTPException: http_error,
    Exception: server_error,
}


def create_app(
    models: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    db: str | Path = MEMORY,
    allowed_hosts: Iterable[str] | None = None,
    clock: Callable[[], float] = time.time,
) -> Starlette:
    """The application; ``models`` are the trained models offered (``NAME -> PATH``), ``db`` the
    database file (by default one in memory, which a restart loses), ``allowed_hosts`` the names
    of this server (by default the loopback names). ``app.state.games`` holds the games."""
    offered = offered_opponents(models)
    limits = limits or Limits()
    thinkers = Thinkers(limits.workers, limits.share(limits.workers))
    games = Games(Database(db), offered, limits, thinkers, clock)

    @asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        games.close()

    hosts = list(allowed_hosts) if allowed_hosts is not None else default_hosts("127.0.0.1")
    app = Starlette(
        routes=Endpoints(games, offered, limits).routes(),
        exception_handlers=HANDLERS,
        middleware=[Middleware(Guard, allowed_hosts=hosts)],
        lifespan=lifespan,
    )
    app.state.games = games
    return app
