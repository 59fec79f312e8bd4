"""``python -m training.distill``'s command line: parse the settings, check them, run.

The settings, their checks and resuming are :mod:`~training.distill.settings`; the
generations are :mod:`~training.distill.loop`.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from training.distill.settings import Settings, resumed_settings, validate
from training.train_command import parse
from training.train_command import settings_parser as options_parser


def build_parser():
    """One option per :class:`Settings` field, and every game's options (from the descriptions)."""
    from training.distill import __doc__ as overview

    return options_parser(Settings, "python -m training.distill", overview.split("\n\n")[0])


def parse_settings(argv: list[str]) -> tuple[Settings, set[str]]:
    """The settings, and the names of those given on the command line."""
    settings, texts, given = parse(build_parser(), argv)
    return Settings(**settings, game_options=texts), set(given)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else argv
    settings, given = parse_settings(argv)
    out = Path(settings.out or f"runs/{settings.game}__distill__{settings.seed}")
    try:
        if settings.resume:
            settings = resumed_settings(out, settings, given)
        elif (out / "state.json").exists():
            raise ValueError(f"{out} holds a run already: pass --resume to continue it, or another --out")
        game = validate(settings)
    except ValueError as error:
        sys.exit(f"distill: error: {error}")
    from training.distill.loop import run

    return run(settings, game, out, shlex.join(["python", "-m", "training.distill", *argv]))
