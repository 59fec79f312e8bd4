"""Wakanda state as JSON-safe data, and back with every field and rule checked.

``state_from_dict`` reads in three stages and refuses at the first fault,
with a ValueError naming the field and quoting the value (cut by ``shown``):

1. **fields**: each has its type and range (integers are ``int``, never a
   bool, float or numpy scalar; lists are lists of the right length; names
   are known names);
2. **position**: the eight village kinds each once, the 21 pieces conserved
   over bag, totems and supplies, availability and faces following the
   finished totems, headdresses and the third-headdress mark following the
   owned villages;
3. **turn and result**: the position is built through the constructor (a
   fresh object nobody else holds yet) and the rules decide the rest: is the
   game over, can the player to act act, do the draws match the turns
   played, are the scores and the winner the ones given.

Only then is the state handed out, so a refused load never changes a game.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from envs.core.engine import check_keys, shown
from envs.core.fields import FieldReader
from envs.wakanda.components import (
    ALL_PIECES,
    FIRST_AVAILABLE,
    HEADDRESSES,
    MAX_SCORE,
    MIN_SCORE,
    NUM_PIECE_KINDS,
    NUM_PIECES,
    NUM_PLAYERS,
    NUM_REMOVED,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
    PIECE_OF_NAME,
    PIECES,
    VILLAGE_OF_NAME,
    VILLAGES,
)
from envs.wakanda.rules import WakandaState

if TYPE_CHECKING:
    from envs.wakanda.game import WakandaGame

KEYS = {
    "game",
    "advanced",
    "current_player",
    "villages",
    "removed_villages",
    "supplies",
    "headdresses_left",
    "bag",
    "scores",
    "third_headdress_first",
    "terminal",
    "winner",
}
VILLAGE_KEYS = {"kind", "available", "face_up", "owner", "totem"}

_read = FieldReader("Wakanda", ("advanced",))
_fail = _read.fail


def state_to_dict(state: WakandaState) -> dict[str, Any]:
    return {
        **_read.header(state.game),
        "current_player": state.current_player,
        "villages": [
            {
                "kind": VILLAGES[state.villages[v]],
                "available": v < state.revealed,
                "face_up": state.face_up(v),
                "owner": state.owner[v],
                "totem": [PIECES[k] for k in state.totems[v]],
            }
            for v in range(NUM_SLOTS)
        ],
        "removed_villages": [VILLAGES[k] for k in state.removed],
        "supplies": [[PIECES[k] for k in range(NUM_PIECE_KINDS) for _ in range(s[k])] for s in state.supplies],
        "headdresses_left": list(state.headdresses),
        "bag": [PIECES[k] for k in state.bag],
        "scores": state.int_scores(),
        "third_headdress_first": state.third_headdress_first,
        "terminal": state.current_player is None,
        "winner": state.winner(),
    }


def state_from_dict(game: WakandaGame, data: Any) -> WakandaState:
    _read.check_header(game, data, KEYS)
    line = _read_villages(data["villages"])
    removed = [
        _village_name(name, f"removed_villages[{i}]")
        for i, name in enumerate(_read.as_list(data["removed_villages"], "removed_villages", NUM_REMOVED))
    ]
    supplies = [
        _piece_names(supply, f"supplies[{p}]")
        for p, supply in enumerate(_read.as_list(data["supplies"], "supplies", NUM_PLAYERS))
    ]
    bag = _piece_names(data["bag"], "bag")
    headdresses = [
        _read.as_int(n, f"headdresses_left[{p}]", 0, HEADDRESSES)
        for p, n in enumerate(_read.as_list(data["headdresses_left"], "headdresses_left", NUM_PLAYERS))
    ]
    third = _seat_or_none(data["third_headdress_first"], "third_headdress_first")
    player = _seat_or_none(data["current_player"], "current_player")
    terminal = _read.as_bool(data["terminal"], "terminal")
    scores = [
        _read.as_int(s, f"scores[{p}]", MIN_SCORE, MAX_SCORE)
        for p, s in enumerate(_read.as_list(data["scores"], "scores", NUM_PLAYERS))
    ]
    winner = _seat_or_none(data["winner"], "winner")

    kinds, owners, totems = [v["kind"] for v in line], [v["owner"] for v in line], [v["totem"] for v in line]
    _check_villages(game, line, removed)
    _check_conservation(bag, totems, supplies)
    _check_headdresses(owners, headdresses, third)

    state = WakandaState(game, kinds, removed, bag)
    state.bag = bag
    state.owner = owners
    state.totems = totems
    state.supplies = [[supply.count(k) for k in range(NUM_PIECE_KINDS)] for supply in supplies]
    state.headdresses = headdresses
    state.finished = NUM_SLOTS - owners.count(None)
    state.revealed = min(NUM_SLOTS, FIRST_AVAILABLE + state.finished)
    state.third_headdress_first = third
    state.current_player = player
    _check_turn(state, terminal)
    _check_result(state, scores, winner)
    return state


# --- stage 1: fields ------------------------------------------------------------------------
def _seat_or_none(value: Any, name: str) -> int | None:
    return _read.as_optional_int(value, name, 0, NUM_PLAYERS - 1)


def _piece_names(names: Any, name: str) -> list[int]:
    """A list of at most 21 piece names, as kinds."""
    return _read.as_names(names, name, "piece name", PIECE_OF_NAME, NUM_PIECES)


def _village_name(value: Any, name: str) -> int:
    return _read.as_name(value, name, "village name", VILLAGE_OF_NAME)


def _read_villages(value: Any) -> list[dict[str, Any]]:
    """The six villages in line order, each field read: kind as a kind, totem as kinds."""
    line = []
    for v, village in enumerate(_read.as_list(value, "villages", NUM_SLOTS)):
        where = f"villages[{v}]"
        check_keys(where, village, VILLAGE_KEYS, VILLAGE_KEYS)
        line.append(
            {
                "kind": _village_name(village["kind"], f"{where}.kind"),
                "available": _read.as_bool(village["available"], f"{where}.available"),
                "face_up": _read.as_bool(village["face_up"], f"{where}.face_up"),
                "owner": _seat_or_none(village["owner"], f"{where}.owner"),
                "totem": _piece_names(village["totem"], f"{where}.totem"),
            }
        )
    return line


# --- stage 2: position ----------------------------------------------------------------------
def _check_villages(game: WakandaGame, line: list[dict[str, Any]], removed: list[int]) -> None:
    """The eight kinds each once; availability and faces follow the finished totems; only available
    villages hold pieces, and an owned one holds at least one."""
    if sorted([v["kind"] for v in line] + removed) != list(range(NUM_VILLAGE_KINDS)):
        _fail(
            f"the {NUM_SLOTS} villages and {NUM_REMOVED} removed_villages must be the {NUM_VILLAGE_KINDS} "
            f"village kinds {list(VILLAGES)}, each once"
        )
    finished = sum(v["owner"] is not None for v in line)
    revealed = min(NUM_SLOTS, FIRST_AVAILABLE + finished)
    for slot, village in enumerate(line):
        available = slot < revealed
        face_up = available or not game.advanced
        if village["available"] is not available:
            _fail(
                f"villages[{slot}].available must be {available}: the first {FIRST_AVAILABLE} villages plus one "
                f"per finished totem ({finished}) are available"
            )
        if village["face_up"] is not face_up:
            rule = (
                "only available villages are face up (advanced rules)"
                if game.advanced
                else "every village is face up in the basic game"
            )
            _fail(f"villages[{slot}].face_up must be {face_up}: {rule}")
        if not available and village["totem"]:
            _fail(f"villages[{slot}].totem must be empty: the village is not available yet")
        if village["owner"] is not None and not village["totem"]:
            _fail(
                f"villages[{slot}].owner is {village['owner']} but its totem is empty; "
                f"an empty totem cannot be finished"
            )


def _check_conservation(bag: list[int], totems: list[list[int]], supplies: list[list[int]]) -> None:
    seen = Counter(bag + [k for totem in totems for k in totem] + [k for supply in supplies for k in supply])
    full = Counter(ALL_PIECES)
    if seen != full:
        names = lambda c: {PIECES[k]: m for k, m in sorted(c.items())}  # noqa: E731
        _fail(
            f"pieces are not conserved (bag + villages[].totem + supplies must be the {NUM_PIECES} pieces): "
            f"extra {names(seen - full) or 'none'}, missing {names(full - seen) or 'none'}"
        )


def _check_headdresses(owners: list[int | None], left: list[int], third: int | None) -> None:
    owned = [owners.count(p) for p in range(NUM_PLAYERS)]
    if max(owned) > HEADDRESSES:
        _fail(f"villages[].owner: a player owns {max(owned)} villages; each has only {HEADDRESSES} headdresses")
    expected = [HEADDRESSES - n for n in owned]
    if left != expected:
        _fail(
            f"headdresses_left must be {expected}: {HEADDRESSES} minus the villages each player owns, got {shown(left)}"
        )
    done = [p for p in range(NUM_PLAYERS) if expected[p] == 0]
    if (third is None) != (not done) or (third is not None and third not in done):
        _fail(f"third_headdress_first is {shown(third)} but the players with no headdress left are {done}")


# --- stage 3: turn and result (the rules on the fresh candidate) ---------------------------------
def _check_turn(state: WakandaState, terminal: bool) -> None:
    """The game is over exactly when the rules say; the player to act can act; while the bag lasts
    nobody is skipped, so the players alternate and every turn drew exactly one piece."""
    over = state.finished == NUM_SLOTS or (not state.bag and not any(map(state.can_act, range(NUM_PLAYERS))))
    if terminal is not over:
        _fail(
            f"terminal is {terminal} but the position is {'over' if over else 'in play'}: the game "
            f"ends when all {NUM_SLOTS} totems are finished or neither player can act"
        )
    player = state.current_player
    if over and player is not None:
        _fail(f"current_player must be null in a finished game, got {shown(player)}")
    if not over and player is None:
        _fail("current_player must be a player index in a game in play, got None")
    if state.bag:
        actions = sum(len(totem) for totem in state.totems) + state.finished
        turns = actions if over else actions + 1  # the player to act has drawn already
        drawn = NUM_PIECES - len(state.bag)
        if drawn != turns:
            _fail(
                f"bag: {drawn} pieces are drawn but {turns} turns have begun ({actions} actions played): "
                f"while the bag lasts every turn draws one piece"
            )
        if not over and player != actions % NUM_PLAYERS:
            _fail(
                f"current_player must be {actions % NUM_PLAYERS}: while the bag lasts the players alternate "
                f"and {actions} actions have been played"
            )
        for p, supply in enumerate(state.supplies):
            draws = (turns + 1 - p) // NUM_PLAYERS
            if sum(supply) > draws:
                _fail(f"supplies[{p}] holds {sum(supply)} pieces but player {p} has drawn only {draws}")
    if not over and not state.can_act(player):
        _fail(f"current_player {player} cannot act; a player who cannot act is skipped")


def _check_result(state: WakandaState, scores: list[int], winner: int | None) -> None:
    if scores != state.int_scores():
        _fail(f"scores {scores} disagree with the position, which scores {state.int_scores()}")
    if winner != state.winner():
        _fail(f"winner is {winner} but the position gives {state.winner()} (null while playing or for a draw)")
