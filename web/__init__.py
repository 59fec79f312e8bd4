"""Play the drawluck games in a browser: ``python -m web`` (or ``make play``), then open the page.

The server holds each game; the page gets only the human player's view through a small
JSON API (:mod:`web.app`), draws the board as SVG and sends the moves that are clicked.
Every rule stays in the engine: the page never decides what is legal.
"""

from web.app import create_app

__all__ = ["create_app"]
