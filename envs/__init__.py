"""drawluck environments. Importing this package registers them with PettingZoo
(from PettingZoo 1.27, which has a registry): ``pettingzoo.make("aec", "drawluck/wapi-v0", num_players=3)``.

``GAMES`` is the one list of games; everything else about a game comes from its
package's :class:`~envs.core.description.GameDescription` (``describe(name)``).
"""

from __future__ import annotations

import importlib

from envs.core.description import GameDescription
from envs.core.engine import shown

#: The games, by package name. Adding a game: write ``envs/<name>/`` (with its
#: ``DESCRIPTION``) and ``envs/<name>_v0.py``, and add its name here.
GAMES = ("wapi", "wakanda", "samurai")

#: game name -> PettingZoo id; the entry point is ``envs.<game>_v0:env``.
ENV_IDS = {name: f"drawluck/{name}-v0" for name in GAMES}


def describe(name: str) -> GameDescription:
    """The description of game ``name``; ValueError naming the games if there is none."""
    if name not in GAMES:
        raise ValueError(f"unknown game {shown(name)}; available: {list(GAMES)}")
    return importlib.import_module(f"envs.{name}").DESCRIPTION


def _register() -> None:
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # PettingZoo before 1.27 has no registry; the entry points work as they are
        return
    for name, env_id in ENV_IDS.items():
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"envs.{name}_v0:env")


_register()
