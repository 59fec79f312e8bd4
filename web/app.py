"""The web application: the page and its JSON API (Starlette).

=====================================  ==================================================
``GET  /``                             the page (``web/static``: HTML, CSS, JS, no build)
``GET  /api/catalog``                  games with their options, and the opponents offered
``POST /api/games``                    ``{"game", "config", "seat", "opponents", "seed"}``
                                       -> 201 ``{"id", "view"}``
``GET  /api/games/{id}``               the view
``POST /api/games/{id}/moves``         ``{"action": int}`` -> the view after the opponents
                                       have answered, with their moves as ``frames`` (and
                                       without ``static``, which never changes)
``POST /api/replays``                  a finished game's record -> every position as frames
=====================================  ==================================================

A view holds only what the human player may see (``web.views``). Errors are JSON
``{"error": message}``: 400 for a body that is not JSON or a move not legal now, 422 for
JSON of the wrong shape, 404 for an unknown or expired game, 413 for a body too large,
503 when the server holds as many games as it may. A refused request changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import envs
from web.bodies import BadRequest, parse_json, parse_move, parse_new_game
from web.opponents import OpponentChoice, offered_opponents
from web.session import GameSession, replay
from web.store import GameStore

STATIC = Path(__file__).parent / "static"
#: The largest request body read (a record of a long game is well under it).
MAX_BODY = 1_000_000


def catalog(offered: Mapping[str, OpponentChoice]) -> dict[str, Any]:
    """Every game with its options (from ``envs.describe``) and player counts, and the opponents."""
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
    opponents = [{"name": c.name, "help": c.help, "options": c.options} for c in offered.values()]
    return {"games": games, "opponents": opponents}


async def _body(request: Request) -> Any:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise BadRequest(f"the request body is larger than {MAX_BODY} bytes", status=413)
    return parse_json(body)


def create_app(models: Mapping[str, str] | None = None, store: GameStore | None = None) -> Starlette:
    """The application; ``models`` are the trained models offered (``NAME -> PATH``)."""
    offered = offered_opponents(models)
    games = store if store is not None else GameStore()

    def session_of(request: Request) -> GameSession:
        session = games.get(request.path_params["game_id"])
        if session is None:
            raise HTTPException(404, "no such game: unknown id, or the game has expired")
        return session

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def get_catalog(request: Request) -> Response:
        return JSONResponse(catalog(offered))

    async def create_game(request: Request) -> Response:
        new = parse_new_game(await _body(request), offered)

        def start() -> dict[str, Any]:
            try:
                session = GameSession(new)
            except ValueError as error:  # an agent refused its options or model
                raise BadRequest(str(error)) from None
            with session.lock:
                frames = session.advance()
                game_id = games.add(session)
                if game_id is None:
                    raise HTTPException(503, f"the server holds {games.max_games} games: try again later")
                return {"id": game_id, "view": session.view(frames)}

        return JSONResponse(await run_in_threadpool(start), status_code=201)

    async def get_game(request: Request) -> Response:
        session = session_of(request)

        def view() -> dict[str, Any]:
            with session.lock:
                return session.view()

        return JSONResponse(await run_in_threadpool(view))

    async def post_move(request: Request) -> Response:
        session = session_of(request)
        action = parse_move(await _body(request))

        def move() -> dict[str, Any]:
            with session.lock:
                return session.view(session.play(action), static=False)

        return JSONResponse(await run_in_threadpool(move))

    async def post_replay(request: Request) -> Response:
        record = await _body(request)
        return JSONResponse(await run_in_threadpool(replay, record))

    async def refused(request: Request, error: Exception) -> Response:
        assert isinstance(error, BadRequest)
        return JSONResponse({"error": str(error)}, status_code=error.status)

    async def server_error(request: Request, error: Exception) -> Response:
        return JSONResponse({"error": f"the server failed: {type(error).__name__}"}, status_code=500)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return JSONResponse({"error": error.detail}, status_code=error.status_code, headers=error.headers)

    routes = [
        Route("/", index),
        Route("/api/catalog", get_catalog),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/moves", post_move, methods=["POST"]),
        Route("/api/replays", post_replay, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        BadRequest: refused,
        HTTPException: http_error,
        Exception: server_error,
    }
    return Starlette(routes=routes, exception_handlers=handlers)
