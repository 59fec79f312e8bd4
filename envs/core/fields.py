"""Reading ``state_dict`` data: the field readers every game's serializer uses.

A load reads each field with its type and range before anything is built, so
that refused data never changes a game. Types are checked, not compared:
``1.0``, ``True`` and numpy scalars are not ints, a list is a ``list``.
Every refusal is one ValueError, ``invalid <Game> state_dict: <field> ...``,
naming the field and quoting the value cut short (``shown``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from envs.core.engine import check_keys, is_int, shown

if TYPE_CHECKING:
    from envs.core.engine import Game


def invalid_state(game: str, message: str) -> NoReturn:
    """Refuse ``state_dict`` data that breaks the rules of ``game``."""
    raise ValueError(f"invalid {game} state_dict: {message}")


class FieldReader:
    """The readers of one game's ``state_dict`` fields (``label`` names the game in messages;
    ``config_keys``, the keys of ``game.config()`` a state_dict records, are written by :meth:`header` and
    read back by :meth:`check_header`, so that both sides name them once).

    Each reader returns the value read (a name as its index) or refuses the data."""

    def __init__(self, label: str, config_keys: tuple[str, ...] = ()):
        self.label = label
        self.config_keys = config_keys

    def fail(self, message: str) -> NoReturn:
        invalid_state(self.label, message)

    def header(self, game: Game) -> dict[str, Any]:
        """The start of every ``state_dict``: the game's name, then its configuration's ``config_keys``."""
        config = game.config()
        return {"game": game.name, **{key: config[key] for key in self.config_keys}}

    def check_header(self, game: Game, data: Any, keys: set[str]) -> None:
        """The start of every load: exactly ``keys``, this game's name, and the configuration
        (``config_keys`` of ``game.config()``) of this table."""
        check_keys("state_dict", data, keys, keys)
        if type(data["game"]) is not str or data["game"] != game.name:  # a str first: arrays compare ambiguously
            self.fail(f"game is {shown(data['game'])}, expected {game.name!r}")
        config = game.config()
        given = {key: data[key] for key in self.config_keys}
        if any(type(given[key]) is not type(config[key]) or given[key] != config[key] for key in self.config_keys):
            have = ", ".join(f"{key}={shown(given[key])}" for key in self.config_keys)
            want = ", ".join(f"{key}={config[key]!r}" for key in self.config_keys)
            self.fail(f"it is for {have}; this environment has {want}")

    def as_list(self, value: Any, name: str, length: int | None = None, most: int | None = None) -> list:
        """A list, of exactly ``length`` or at most ``most`` items when given."""
        if not isinstance(value, list):
            self.fail(f"{name} must be a list, got {shown(value)}")
        if length is not None and len(value) != length:
            self.fail(f"{name} must be a list of {length}, got {len(value)} items: {shown(value)}")
        if most is not None and len(value) > most:
            self.fail(f"{name} must be a list of at most {most} items, got {len(value)}: {shown(value)}")
        return value

    def as_int(self, value: Any, name: str, low: int, high: int) -> int:
        """An int in ``low..high``."""
        if not (is_int(value) and low <= value <= high):
            self.fail(f"{name} must be an int in {low}..{high}, got {shown(value)}")
        return value

    def as_optional_int(self, value: Any, name: str, low: int, high: int) -> int | None:
        """None (JSON null) or an int in ``low..high``."""
        if value is not None and not (is_int(value) and low <= value <= high):
            self.fail(f"{name} must be null or an int in {low}..{high}, got {shown(value)}")
        return value

    def as_bool(self, value: Any, name: str) -> bool:
        """True or False (never 0 or 1)."""
        if not isinstance(value, bool):
            self.fail(f"{name} must be true or false, got {shown(value)}")
        return value

    def as_name(self, value: Any, name: str, what: str, index: Mapping[str, int]) -> int:
        """One of the names ``index`` maps to ints (``what`` they are: "tile name"), as its int."""
        if not isinstance(value, str) or value not in index:
            self.fail(f"{name} must be a {what} from {list(index)}, got {shown(value)}")
        return index[value]

    def as_names(self, value: Any, name: str, what: str, index: Mapping[str, int], most: int) -> list[int]:
        """A list of at most ``most`` names, as their ints."""
        return [
            self.as_name(item, f"{name}[{i}]", what, index)
            for i, item in enumerate(self.as_list(value, name, most=most))
        ]
