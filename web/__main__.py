"""``python -m web [--host 127.0.0.1] [--port 8000] [--db PATH] [--model NAME=PATH ...] [limits]``: serve the page.

    python -m web                              # http://127.0.0.1:8000
    python -m web --port 8080 --model mine=runs/RUN/model.zip

``--model NAME=PATH`` offers the MaskablePPO model at PATH as the opponent NAME (it plays
the game and configuration it was trained for; any other is refused when a game starts).
Every game is kept in the database (``--db``) as it is played: a restarted server goes
on with every unfinished game. Each limit below is what one visitor, or all of them, may
use; docs/deployment.md says what each one protects and how to serve the page publicly.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from web.limits import Limits
from web.opponents import parse_model

DEFAULTS = Limits()


def default_db() -> Path:
    """``$XDG_DATA_HOME/drawluck/web.sqlite3`` (``~/.local/share/drawluck/web.sqlite3`` by default)."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "drawluck" / "web.sqlite3"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m web", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--db", type=Path, default=None, help=f"the games' SQLite file (default {default_db()})")
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="offer a trained MaskablePPO model as opponent NAME (repeatable)",
    )
    parser.add_argument(
        "--allowed-hosts",
        default=None,
        metavar="NAME,...",
        help="the names this server answers to in the Host header, comma-separated, * for any "
        "(default: 127.0.0.1, localhost, ::1 and --host); set the public name behind a proxy",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IP,...",
        help="addresses of reverse proxies whose X-Forwarded-For names the client (default: none; "
        "behind a proxy, its address, or every per-client limit counts all visitors as one)",
    )
    limits = parser.add_argument_group("limits (docs/deployment.md)")
    for flag, kind, metavar, text in [
        ("--workers", int, "N", "processes in which the opponents think"),
        ("--max-games", int, "N", "games kept in all, finished or not; a new one past it is refused"),
        ("--live-per-client", int, "N", "unfinished games one client address may hold"),
        ("--games-per-client", int, "N", "games one client address may have kept, finished or not"),
        ("--bytes-per-client", int, "BYTES", "bytes one client address's games may take in the database"),
        ("--creates-per-minute", int, "N", "new games one client address may start in any minute"),
        ("--replays-per-minute", int, "N", "replays one client address may ask for in any minute"),
        ("--max-think", float, "SECONDS", "the longest CPU time an opponent may be given for one turn"),
        ("--think-per-client", float, "SECONDS", "CPU time of opponents' turns one address may have queued"),
        ("--client-share", float, "FRACTION", "the most one address may take of games, workers, connections"),
        ("--memory-idle", float, "SECONDS", "a game without a request this long leaves memory (not the database)"),
        ("--finished-ttl", float, "SECONDS", "a finished game is deleted this long after its end"),
        ("--idle-ttl", float, "SECONDS", "an unfinished game is deleted this long after its last request"),
        ("--body-timeout", float, "SECONDS", "the time a client has to send a request's body"),
        ("--header-timeout", float, "SECONDS", "the time a connection has to send a request's headers"),
        ("--keep-alive", float, "SECONDS", "an idle keep-alive connection is closed after this long"),
        ("--max-connections", int, "N", "connections open at once (keep it under the file limit)"),
        ("--max-body", int, "BYTES", "the largest request body read"),
        ("--max-config-bytes", int, "BYTES", "the largest game configuration, as JSON"),
        ("--max-replay-bytes", int, "BYTES", "the largest replay answered"),
        ("--log-lines-per-minute", int, "N", "log lines written in any minute (the rest counted)"),
    ]:
        name = flag.removeprefix("--").replace("-", "_")
        default = getattr(DEFAULTS, name)
        core = "one per core, here " if name == "workers" else ""
        limits.add_argument(flag, type=kind, default=default, metavar=metavar, help=f"{text} (default {core}{default})")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.port < 65536:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    names = [field for field in vars(DEFAULTS)]
    try:
        limits = Limits(**{name: getattr(args, name) for name in names})
        models = dict(parse_model(text) for text in args.model)
        hosts = None if args.allowed_hosts is None else [h.strip() for h in args.allowed_hosts.split(",") if h.strip()]
        from web.app import create_app
        from web.connections import log_config, server_options
        from web.guard import default_hosts

        db = args.db if args.db is not None else default_db()
        app = create_app(models, limits, db, hosts if hosts is not None else default_hosts(args.host))
    except ValueError as error:
        message, first = str(error), str(error).split(" ")[0]
        parser.error("--" + message.replace(first, first.replace("_", "-"), 1) if first in names else message)
    import uvicorn

    print(f"drawluck: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops); games in {db}")
    forwarded = args.forwarded_allow_ips
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        proxy_headers=forwarded is not None,
        forwarded_allow_ips=forwarded,
        log_config=log_config(limits.log_lines_per_minute),
        **server_options(limits, forwarded),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
