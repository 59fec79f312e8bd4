"""The JSON bodies the API accepts, checked before anything is built: a new game and a move.

A body that is not JSON is refused with 400; JSON of the wrong shape or type (an unknown
key, ``"3"`` or ``3.0`` or ``true`` where an int is wanted, an unknown opponent) with 422.
Types are checked, not compared: ``True`` and ``1.0`` are not ints.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import envs
from envs.core.description import GameDescription
from envs.core.engine import is_int, shown
from web.opponents import TIME_LIMIT_RANGE, OpponentChoice

#: Seeds are what ``numpy.random.SeedSequence`` takes, bounded so a record stays small.
SEED_LIMIT = 2**63


class BadRequest(ValueError):
    """A request the API refuses, with its HTTP status (400 or 422) and a message for the page."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.status = status

    def __reduce__(self):  # raised in a worker process (a replay): its status comes back with it
        return (BadRequest, (str(self), self.status))


def check_size(name: str, value: Any, limit: int, flag: str) -> None:
    """413 naming ``flag`` when ``value`` as JSON is longer than ``limit`` bytes."""
    try:
        size = len(json.dumps(value).encode())
    except RecursionError:
        raise BadRequest(f"{name} nests too deep") from None
    if size > limit:
        raise BadRequest(f"{name} takes {size} bytes as JSON, more than {limit} ({flag})", status=413)


def parse_json(body: bytes) -> Any:
    """The request body as JSON; 400 when it is not JSON."""
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError) as error:
        raise BadRequest(f"the request body must be JSON: {shown(str(error))}", status=400) from None


def check_object(name: str, value: Any, allowed: set[str], required: set[str] = frozenset()) -> dict:
    """``value`` must be a JSON object with only ``allowed`` keys and every ``required`` one."""
    if not isinstance(value, dict):
        raise BadRequest(f"{name} must be a JSON object, got {shown(value)}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise BadRequest(f"{name} has unknown keys {shown(unknown)}; allowed: {sorted(allowed)}")
    missing = sorted(required - set(value))
    if missing:
        raise BadRequest(f"{name} is missing {missing}")
    return value


def make_game(description: GameDescription, config: dict[str, Any]):
    """The game of a parsed configuration; 422 naming the reason when the game refuses it."""
    try:
        return description.make(**config)
    except (ValueError, TypeError, OverflowError, RecursionError) as error:
        raise BadRequest(brief(str(error))) from None


def check_int(name: str, value: Any, low: int, high: int) -> int:
    """An int (not a bool, not a float) in ``low..high-1``."""
    if not is_int(value) or not low <= value < high:
        raise BadRequest(f"{name} must be an integer in {low}..{high - 1}, got {shown(value)}")
    return value


_KINDS = {"int": is_int, "bool": lambda v: isinstance(v, bool), "str": lambda v: isinstance(v, str)}


def parse_config(description: GameDescription, config: Any) -> dict[str, Any]:
    """The game's constructor options from JSON: known names, each of its option's kind.
    A ``json`` option goes through ``Option.parse`` (object keys written as ints become ints)."""
    names = {option.name for option in description.options}
    check_object("config", config, names)
    parsed = {}
    for name, value in config.items():
        option = description.option(name)
        if option.kind == "json":
            parsed[name] = _parse_json_option(option, value)
            continue
        if not _KINDS[option.kind](value):
            choices = f", one of {list(option.choices)}" if option.choices else ""
            raise BadRequest(f"config[{name!r}] must be a {option.kind}{choices}; got {shown(value)}")
        parsed[name] = value
    return parsed


#: How deep a JSON option may nest (Wapi's coins: one level).
MAX_OPTION_DEPTH = 8


def _depth(value: Any) -> int:
    """How deep ``value`` nests in lists and objects (a scalar: 0), counted level by level without
    recursion and stopping once past :data:`MAX_OPTION_DEPTH`."""
    depth, level = 0, [value]
    while depth <= MAX_OPTION_DEPTH:
        containers = [x for x in level if isinstance(x, (dict, list))]
        if not containers:
            break
        depth += 1
        level = [v for x in containers for v in (x.values() if isinstance(x, dict) else x)]
    return depth


def brief(text: str, limit: int = 300) -> str:
    """A message cut to about ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def _parse_json_option(option, value: Any) -> Any:
    """A ``json`` option through ``Option.parse`` (object keys written as ints become ints); any
    failure is a 422 naming the option, never a 500."""
    where = f"config[{option.name!r}]"
    if _depth(value) > MAX_OPTION_DEPTH:
        raise BadRequest(f"{where} nests deeper than {MAX_OPTION_DEPTH} levels")
    try:
        return option.parse(json.dumps(value))
    except (ValueError, RecursionError) as error:  # e.g. keys such as "--5", "²" or 5,000 digits
        raise BadRequest(f"{where} is not a valid value: {brief(str(error))}") from None


@dataclass(frozen=True)
class NewGame:
    """A checked ``POST /api/games`` body."""

    game: str
    #: the canonical form (``Game.config()`` as JSON: every option, Wapi's coins as one count per
    #: value), what is stored and parsed again on load; never the keys as sent (issue 48: 1,400 keys
    #: that all read as 5 were stored as 1 MB a game)
    config: dict[str, Any]
    seat: int
    opponents: list[tuple[OpponentChoice, dict[str, Any]]]  # one per other seat, in seat order; options checked
    seed: int | None


def _opponent(
    index: int, entry: Any, offered: Mapping[str, OpponentChoice], max_think: float, game: str
) -> tuple[OpponentChoice, dict]:
    """``"heuristic"`` or ``{"name": "ismcts", "time_limit": 2}``: the choice and its checked options."""
    where = f"opponents[{index}]"
    if isinstance(entry, dict):
        check_object(where, entry, {"name"} | {key for choice in offered.values() for key in choice.options}, {"name"})
        name, options = entry["name"], {k: v for k, v in entry.items() if k != "name"}
    else:
        name, options = entry, {}
    if not isinstance(name, str) or name not in offered:
        raise BadRequest(f"{where} must name one of the offered opponents {sorted(offered)}, got {shown(name)}")
    try:
        return offered[name], offered[name].check_options(options, max_think, game)
    except ValueError as error:
        raise BadRequest(f"{where}: {error}") from None


def parse_new_game(
    body: Any,
    offered: Mapping[str, OpponentChoice],
    max_think: float = TIME_LIMIT_RANGE[1],
    max_config_bytes: int = 4096,
) -> NewGame:
    """``{"game", "config", "seat", "opponents", "seed"}``: only ``game`` is required; by default
    the game's own options, seat 0, the heuristic in every other seat and a seed drawn by the server.
    An opponent's ``time_limit`` is at most ``max_think`` seconds; the configuration as sent at most
    ``max_config_bytes`` bytes of JSON (413)."""
    check_object("the body", body, {"game", "config", "seat", "opponents", "seed"}, {"game"})
    if not isinstance(body["game"], str) or body["game"] not in envs.GAMES:
        raise BadRequest(f"game must be one of {list(envs.GAMES)}, got {shown(body['game'])}")
    description = envs.describe(body["game"])
    check_size("config", body.get("config", {}), max_config_bytes, "--max-config-bytes")
    game = make_game(description, parse_config(description, body.get("config", {})))
    config = json.loads(json.dumps(game.config()))
    num_players = game.num_players
    seat = check_int("seat", body.get("seat", 0), 0, num_players)
    entries = body.get("opponents", ["heuristic"] * (num_players - 1))
    if not isinstance(entries, list) or len(entries) != num_players - 1:
        raise BadRequest(
            f"opponents must be a list of {num_players - 1} (one per other seat of {num_players}), got {shown(entries)}"
        )
    opponents = [_opponent(i, entry, offered, max_think, description.name) for i, entry in enumerate(entries)]
    seed = body.get("seed")
    if seed is not None:
        check_int("seed", seed, 0, SEED_LIMIT)
    return NewGame(description.name, config, seat, opponents, seed)


def parse_move(body: Any) -> int:
    """``{"action": int}``."""
    check_object("the body", body, {"action"}, {"action"})
    if not is_int(body["action"]):
        raise BadRequest(f"action must be an integer, got {shown(body['action'])}")
    return body["action"]
