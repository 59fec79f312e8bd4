"""``python -m web [--host 127.0.0.1] [--port 8000] [--model NAME=PATH ...]``: serve the page.

    python -m web                              # http://127.0.0.1:8000
    python -m web --port 8080 --model mine=runs/RUN/model.zip

``--model NAME=PATH`` offers the MaskablePPO model at PATH as the opponent NAME (it plays
the game and configuration it was trained for; any other is refused when a game starts).
"""

from __future__ import annotations

import argparse
import sys

from web.opponents import parse_model


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m web", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="offer a trained MaskablePPO model as opponent NAME (repeatable)",
    )
    parser.add_argument(
        "--finished-ttl",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="free a finished game this long after its last request (default 600)",
    )
    parser.add_argument(
        "--idle-ttl",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="free an abandoned game this long after its last request (default 3600)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.port < 65536:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    try:
        models = dict(parse_model(text) for text in args.model)
        from web.app import create_app
        from web.store import GameStore

        app = create_app(models, GameStore(finished_ttl=args.finished_ttl, idle_ttl=args.idle_ttl))
    except ValueError as error:
        parser.error(str(error))
    import uvicorn

    print(f"drawluck: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
