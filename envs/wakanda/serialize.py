"""Wakanda state as JSON-safe data, and back with every rule checked (issue 3, item 7)."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Any

from envs.core.engine import as_list, check_keys, check_state_header, invalid_state, is_int
from envs.wakanda.components import (
    ALL_PIECES,
    FIRST_AVAILABLE,
    HEADDRESSES,
    NUM_PIECE_KINDS,
    NUM_PLAYERS,
    NUM_REMOVED,
    NUM_SLOTS,
    NUM_VILLAGE_KINDS,
    PIECE_OF_NAME,
    PIECES,
    VILLAGE_OF_NAME,
    VILLAGES,
)

if TYPE_CHECKING:
    from envs.wakanda.rules import WakandaGame, WakandaState

KEYS = {
    "game", "advanced", "current_player", "villages", "removed_villages", "supplies", "headdresses_left",
    "bag", "scores", "third_headdress_first", "terminal", "winner",
}
VILLAGE_KEYS = {"kind", "available", "face_up", "owner", "totem"}


def state_to_dict(state: WakandaState) -> dict[str, Any]:
    return {
        "game": "wakanda",
        "advanced": state.game.advanced,
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


_fail = partial(invalid_state, "Wakanda")
_list = partial(as_list, "Wakanda")




def _player_or_none(value: Any, name: str) -> int | None:
    if value is not None and (not is_int(value) or not 0 <= value < NUM_PLAYERS):
        _fail(f"{name} must be null or a player index 0..{NUM_PLAYERS - 1}, got {value!r}")
    return value


def _pieces(names: Any, where: str) -> list[int]:
    for name in _list(names, where):
        if name not in PIECE_OF_NAME:
            _fail(f"{where} holds {name!r}; piece names are {list(PIECES)}")
    return [PIECE_OF_NAME[name] for name in names]


def _village(name: Any, where: str) -> int:
    if name not in VILLAGE_OF_NAME:
        _fail(f"{where} is {name!r}; village names are {list(VILLAGES)}")
    return VILLAGE_OF_NAME[name]


def state_from_dict(game: WakandaGame, data: dict[str, Any]) -> WakandaState:
    from envs.wakanda.rules import WakandaState

    check_state_header(game, data, KEYS, "Wakanda", ("advanced",))
    villages = _list(data["villages"], "villages")
    if len(villages) != NUM_SLOTS:
        _fail(f"villages must list {NUM_SLOTS} objects in line order, got {len(villages)}")
    for v, village in enumerate(villages):
        check_keys(f"villages[{v}]", village, VILLAGE_KEYS, VILLAGE_KEYS)
    kinds = [_village(village["kind"], f"villages[{v}].kind") for v, village in enumerate(villages)]
    removed_names = _list(data["removed_villages"], "removed_villages")
    removed = [_village(name, "removed_villages[]") for name in removed_names]
    if len(removed) != NUM_REMOVED or sorted(kinds + removed) != list(range(NUM_VILLAGE_KINDS)):
        _fail(f"the {NUM_SLOTS} villages and {NUM_REMOVED} removed_villages must be the {NUM_VILLAGE_KINDS} "
              f"village kinds {list(VILLAGES)}, each once")
    bag = _pieces(data["bag"], "bag")
    state = WakandaState(game, kinds, removed, bag)

    owners = [_player_or_none(village["owner"], f"villages[{v}].owner") for v, village in enumerate(villages)]
    state.owner = owners
    state.finished = sum(owner is not None for owner in owners)
    state.revealed = min(NUM_SLOTS, FIRST_AVAILABLE + state.finished)
    for v, village in enumerate(villages):
        state.totems[v] = _pieces(village["totem"], f"villages[{v}].totem")
        available = v < state.revealed
        if village["available"] is not available:
            _fail(f"villages[{v}].available must be {available}: the first {FIRST_AVAILABLE} villages plus one "
                  f"per finished totem ({state.finished}) are available")
        if village["face_up"] is not state.face_up(v):
            rule = "only available villages are face up (advanced rules)" if game.advanced else \
                "every village is face up in the basic game"
            _fail(f"villages[{v}].face_up must be {state.face_up(v)}: {rule}")
        if not available and state.totems[v]:
            _fail(f"villages[{v}] is not available yet, so its totem must be empty")
        if owners[v] is not None and not state.totems[v]:
            _fail(f"villages[{v}] is owned but its totem is empty; an empty totem cannot be finished")

    supplies = _list(data["supplies"], "supplies")
    if len(supplies) != NUM_PLAYERS:
        _fail(f"supplies must list {NUM_PLAYERS} players' pieces")
    for p, supply in enumerate(supplies):
        for kind in _pieces(supply, f"supplies[{p}]"):
            state.supplies[p][kind] += 1
    _check_conservation(state)
    _check_headdresses(data, state)
    _check_turn(data, state)
    state._scores, state._slot_obs = None, [None] * NUM_SLOTS  # drop memos of the fields set above
    _check_result(data, state)
    return state


def _check_conservation(state: WakandaState) -> None:
    placed = [k for totem in state.totems for k in totem]
    held = [k for supply in state.supplies for k in range(NUM_PIECE_KINDS) for _ in range(supply[k])]
    seen, full = Counter(state.bag + placed + held), Counter(ALL_PIECES)
    if seen != full:
        names = lambda c: {PIECES[k]: m for k, m in sorted(c.items())}  # noqa: E731
        _fail(f"pieces are not conserved (bag + totems + supplies must be the 21 pieces): "
              f"extra {names(seen - full) or 'none'}, missing {names(full - seen) or 'none'}")


def _check_headdresses(data: dict[str, Any], state: WakandaState) -> None:
    left = _list(data["headdresses_left"], "headdresses_left")
    owned = [state.owner.count(p) for p in range(NUM_PLAYERS)]
    if any(n > HEADDRESSES for n in owned):
        _fail(f"a player owns {max(owned)} villages; each has only {HEADDRESSES} headdresses")
    expected = [HEADDRESSES - n for n in owned]
    if left != expected:
        _fail(f"headdresses_left must be {expected}: {HEADDRESSES} minus the villages each player owns")
    state.headdresses = expected
    first = _player_or_none(data["third_headdress_first"], "third_headdress_first")
    done = [p for p in range(NUM_PLAYERS) if expected[p] == 0]
    if (first is None) != (not done) or (first is not None and first not in done):
        _fail(f"third_headdress_first is {first!r} but the players with no headdress left are {done}")
    state.third_headdress_first = first


def _check_turn(data: dict[str, Any], state: WakandaState) -> None:
    """The player to act has drawn and can act; while the bag lasts nobody is skipped, so the
    players alternate and every turn drew exactly one piece."""
    terminal = state.finished == NUM_SLOTS or (not state.bag and not any(map(state.can_act, range(NUM_PLAYERS))))
    if data["terminal"] is not terminal:
        _fail(f"terminal is {data['terminal']!r} but the position is {'over' if terminal else 'in play'}: the game "
              f"ends when all {NUM_SLOTS} totems are finished or neither player can act")
    player = data["current_player"]
    if terminal and player is not None:
        _fail("a finished game has current_player null")
    if not terminal and (not is_int(player) or not 0 <= player < NUM_PLAYERS):
        _fail(f"current_player must be a player index 0..{NUM_PLAYERS - 1} in a game in play, got {player!r}")
    if state.bag:
        actions = sum(len(t) for t in state.totems) + state.finished
        turns = actions if terminal else actions + 1  # the player to act has drawn already
        drawn = len(ALL_PIECES) - len(state.bag)
        if drawn != turns:
            _fail(f"{drawn} pieces are drawn but {turns} turns have begun ({actions} actions played): "
                  f"while the bag lasts every turn draws one piece")
        if not terminal and player != actions % NUM_PLAYERS:
            _fail(f"current_player must be {actions % NUM_PLAYERS}: while the bag lasts the players alternate "
                  f"and {actions} actions have been played")
        for p, supply in enumerate(state.supplies):
            draws = (turns + 1 - p) // NUM_PLAYERS
            if sum(supply) > draws:
                _fail(f"supplies[{p}] holds {sum(supply)} pieces but player {p} has drawn only {draws}")
    if terminal:
        state.current_player, state._legal = None, []
        return
    if not state.can_act(player):
        _fail(f"current_player {player} cannot act; a player who cannot act is skipped")
    state.current_player = player
    state._legal = state._compute_legal(player)


def _check_result(data: dict[str, Any], state: WakandaState) -> None:
    scores = state.int_scores()
    if data["scores"] != scores or not all(is_int(s) or isinstance(s, float) for s in _list(data["scores"], "scores")):
        _fail(f"scores {data['scores']!r} disagree with the position, which scores {scores}")
    winner = state.winner()
    if data["winner"] != winner or isinstance(data["winner"], bool):
        _fail(f"winner is {data['winner']!r} but the position gives {winner!r} (null while playing or for a draw)")
