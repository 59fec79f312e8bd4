"""Samurai rules, one scenario per rule of ``docs/rules/samurai.md``: load a
constructed position (or inject piles and figures), play scripted moves,
assert the exact state. The helpers at the top are shared by the other
``test_samurai_*`` files."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from envs.core import IllegalActionError
from envs.samurai import SamuraiGame
from envs.samurai.actions import END_TURN, figure_action, figure_of, hex_action, tile_action
from envs.samurai.board import CAPACITY, LAYOUTS, SETTLEMENTS
from envs.samurai.components import (
    CHOOSE_HAND,
    DRAFT,
    FIGURE_TYPES,
    KIND_OF_NAME,
    PLAY,
    PLAYER_TILES,
    TILE_NAMES,
    TYPE_OF_NAME,
)  # fmt: skip

A, B = 0, 1
EDO, AKITA = 82, 56


# --- helpers ------------------------------------------------------------------
def play(name: str) -> int:
    """The action choosing tile ``name`` from the hand."""
    return tile_action(KIND_OF_NAME[name])


at = hex_action  # the action naming hex ``h``


def fig(settlement: int, figure_type: str) -> int:
    """The action naming the ``figure_type`` figure of the settlement at hex ``settlement``."""
    return figure_action(settlement, TYPE_OF_NAME[figure_type])


def default_figures(
    n: int, wanted: dict[int, list[str]], off_board: dict[str, int] | None = None
) -> dict[str, list[str]]:
    """Figures for every settlement: ``wanted`` where given, the rest filled evenly from
    the supply less ``off_board`` (figures already captured or set aside)."""
    layout = LAYOUTS[n]
    left = Counter({t: layout.supply for t in FIGURE_TYPES})
    left.subtract(off_board or {})
    for types in wanted.values():
        left.subtract(types)
    figures = {}
    for s in layout.settlements:
        h = SETTLEMENTS[s]
        if h in wanted:
            figures[str(h)] = list(wanted[h])
            continue
        types = sorted(FIGURE_TYPES, key=lambda t: (-left[t], FIGURE_TYPES.index(t)))[: CAPACITY[h]]
        left.subtract(types)
        figures[str(h)] = sorted(types, key=FIGURE_TYPES.index)
    return figures


def position(
    n: int = 2,
    tiles: dict[int, tuple[str, int]] | None = None,
    hands: list[list[str]] | None = None,
    figures: dict[int, list[str]] | None = None,
    captured: list[dict[str, int]] | None = None,
    set_aside: dict[str, int] | None = None,
    current: int = 0,
    number: int | None = None,
    used_figure_swap: tuple[int, ...] = (),
):
    """A state_dict of a play position: ``tiles`` {hex: (tile, owner)} on the board,
    ``hands`` per player (default five samurai/type tiles not on the board), piles
    holding each player's remaining tiles in name order, figures from
    ``default_figures``. Figures neither on the board nor in ``set_aside`` are
    counted as captured by player 0 unless ``captured`` is given."""
    tiles = tiles or {}
    placed = [Counter(t for t, o in tiles.values() if o == p) for p in range(n)]
    remaining = []
    for p in range(n):
        rest = Counter(TILE_NAMES[k] for k in PLAYER_TILES) - placed[p]
        if p in used_figure_swap:
            rest -= Counter(["figure_swap"])
        remaining.append(rest)
    hands = list(hands or [None] * n)
    for p in range(n):
        if hands[p] is None:  # the first five non-quick tiles in kind order
            hands[p] = sorted(remaining[p].elements(), key=KIND_OF_NAME.__getitem__)[:5]
    piles = [sorted((remaining[p] - Counter(hands[p])).elements()) for p in range(n)]
    supply = LAYOUTS[n].supply
    set_aside = set_aside or dict.fromkeys(FIGURE_TYPES, 0)
    figs = default_figures(n, figures or {}, set_aside)
    if captured is None:
        on_board = Counter(t for types in figs.values() for t in types)
        captured = [dict.fromkeys(FIGURE_TYPES, 0) for _ in range(n)]
        captured[0] = {t: supply - on_board[t] - set_aside[t] for t in FIGURE_TYPES}
    return {
        "game": "samurai",
        "num_players": n,
        "current_player": current,
        "board": {str(h): {"tile": t, "owner": o} for h, (t, o) in tiles.items()},
        "figures": figs,
        "captured": captured,
        "set_aside": set_aside,
        "hands": [list(h) for h in hands],
        "piles": piles,
        "turn": {
            "number": current if number is None else number,
            "phase": PLAY,
            "played": [],
            "non_quick_used": False,
            "tile": None,
            "first_figure": None,
            "swap_from": None,
        },
        "terminal": False,
        "winners": [],
    }


def load(data: dict, **config):
    return SamuraiGame(data["num_players"], **config).state_from_dict(data)


def run(state, *actions: int):
    for action in actions:
        state.apply(action)
    return state


NON_QUICK_HAND = ["helmet2", "helmet3", "helmet4", "buddha2", "buddha3"]
#: A player's 14 land tiles (all but the ronin, the ships and the swaps), in kind order.
LAND_TILES = [
    *("helmet2", "helmet3", "helmet4", "buddha2", "buddha3", "buddha4", "rice2", "rice3", "rice4"),
    *("samurai1", "samurai1", "samurai2", "samurai2", "samurai3"),
]


# --- set-up ---------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_twenty_tiles_each_hands_of_five_player_0_starts(n):
    """Setup: each player has the same 20 tiles, shuffles them and draws 5 into a hidden hand; player_0 starts."""
    state = SamuraiGame(n).new_state(np.random.default_rng(7))
    assert state.current_player == 0 and state.phase == PLAY
    for p in range(n):
        assert len(state.hands[p]) == 5 and len(state.piles[p]) == 15
        assert sorted(state.hands[p] + state.piles[p]) == list(PLAYER_TILES)
    assert Counter(PLAYER_TILES) == Counter(
        {KIND_OF_NAME[k]: c for k, c in {"samurai1": 2, "samurai2": 2, "ship1": 2}.items()}
    ) + Counter(k for k in range(17) if TILE_NAMES[k] not in ("samurai1", "samurai2", "ship1"))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_figure_setup_respects_edo_city_village_constraints(n):
    """Setup: Edo gets one of each type; each city two different types; each village one; supply 7/10/13 per type."""
    for seed in range(30):
        data = SamuraiGame(n).new_state(np.random.default_rng(seed)).to_dict()
        count = Counter()
        for key, types in data["figures"].items():
            h = int(key)
            assert len(types) == CAPACITY[h] and len(set(types)) == len(types)
            count.update(types)
        assert data["figures"][str(EDO)] == ["helmet", "buddha", "rice"]
        assert count == dict.fromkeys(FIGURE_TYPES, {2: 7, 3: 10, 4: 13}[n])


def test_injected_piles_give_the_starting_hands():
    """Options: the first five tiles of each injected pile are the starting hand; the rest is the pile in order."""
    names = sorted(TILE_NAMES[k] for k in PLAYER_TILES)
    piles = [names, names[::-1]]
    state = SamuraiGame(2).new_state(np.random.default_rng(0), {"piles": piles})
    data = state.to_dict()
    assert data["hands"] == [names[:5], names[::-1][:5]]
    assert data["piles"] == [names[5:], names[::-1][5:]]


def test_choose_hand_lets_each_player_pick_five_and_keeps_the_pile_order():
    """Setup option choose_hand=True: each player picks their 5; the rest is the pile, order fixed at reset."""
    names = [TILE_NAMES[k] for k in PLAYER_TILES]
    state = SamuraiGame(2, choose_hand=True).new_state(np.random.default_rng(0), {"piles": [names, names]})
    assert state.phase == CHOOSE_HAND and state.current_player == A
    assert state.legal_actions() == [tile_action(k) for k in range(17)]
    run(state, play("tile_swap"), play("samurai3"), play("ship2"), play("ronin"), play("figure_swap"))
    assert state.current_player == B and state.phase == CHOOSE_HAND
    run(state, *[play(t) for t in ["helmet2", "helmet3", "helmet4", "buddha2", "buddha3"]])
    data = state.to_dict()
    assert data["turn"]["phase"] == PLAY and state.current_player == A
    assert data["hands"][A] == ["tile_swap", "samurai3", "ship2", "ronin", "figure_swap"]
    assert data["piles"][A] == [t for t in names if t not in ("tile_swap", "samurai3", "ship2", "ronin", "figure_swap")]


def test_figure_draft_edo_starts_full_then_cities_then_villages_one_figure_each_in_turn():
    """Setup option figure_setup="draft" (issue 11.5): Edo starts with one figure of each type, as in the
    original game; the players, clockwise from the start player, place the other figures one at a time,
    first filling the cities, then the villages; a city never holds two of a type."""
    state = SamuraiGame(2, figure_setup="draft").new_state(np.random.default_rng(0))
    assert state.phase == DRAFT and state.current_player == A
    assert state.to_dict()["figures"][str(EDO)] == ["helmet", "buddha", "rice"]
    assert state.figures_on_board == [1, 1, 1] and state.figures_in_supply() == [6, 6, 6]
    cities = {AKITA, 117}
    assert {SETTLEMENTS[figure_of(a)[0]] for a in state.legal_actions()} == cities, "Edo is full: not drafted"
    run(state, fig(AKITA, "helmet"))
    assert state.current_player == B
    assert fig(AKITA, "helmet") not in state.legal_actions()
    run(state, fig(AKITA, "rice"), fig(117, "helmet"))
    assert state.current_player == B
    assert state.legal_actions() == [fig(117, "buddha"), fig(117, "rice")]
    run(state, fig(117, "buddha"))
    assert {SETTLEMENTS[figure_of(a)[0]] for a in state.legal_actions()} == {
        SETTLEMENTS[s] for s in LAYOUTS[2].settlements
    } - cities - {EDO}
    while state.phase == DRAFT:
        state.apply(state.legal_actions()[-1])
    assert state.phase == PLAY and state.current_player == A
    assert state.figures_on_board == [7, 7, 7] and state.to_dict()["figures"][str(EDO)] == ["helmet", "buddha", "rice"]


# --- placement ----------------------------------------------------------------------
def test_land_tiles_go_on_empty_land_ships_on_empty_sea_never_on_settlements():
    """Turn: tiles go on empty hexes only, never on a settlement: ships only on sea, every other tile only on land."""
    state = load(
        position(
            tiles={55: ("samurai1", B), 41: ("ship1", B)},
            hands=[["helmet2", "ship1", "ronin", "samurai1", "rice4"], None],
        )
    )
    layout = LAYOUTS[2]
    run(state, play("helmet2"))
    assert state.legal_actions() == [at(h) for h in layout.land if h != 55]
    with pytest.raises(IllegalActionError):
        state.apply(at(54))  # a settlement
    run(state, at(57), play("ship1"))
    assert state.legal_actions() == [at(h) for h in layout.sea if h != 41]
    with pytest.raises(IllegalActionError):
        state.apply(at(59))  # land


def test_a_turn_needs_at_least_one_tile():
    """Turn: a player plays at least one tile: ending the turn is legal only once a tile was played."""
    state = load(position(hands=[["ronin", "ship1", "helmet2", "helmet3", "helmet4"], None]))
    assert END_TURN not in state.legal_actions()
    run(state, play("ronin"), at(57))
    assert END_TURN in state.legal_actions()


def test_quick_tiles_in_any_order_before_and_after_the_one_non_quick_tile():
    """Turn: at most one non-quick tile plus any number of quick tiles, in any order."""
    hand = ["ronin", "ship1", "helmet2", "ship2", "samurai3"]
    state = load(position(hands=[hand, None]))
    assert state.legal_actions() == [play(t) for t in ["helmet2", "samurai3", "ronin", "ship1", "ship2"]]
    run(state, play("ship1"), at(41), play("helmet2"), at(57))
    assert state.legal_actions() == [play("ronin"), play("ship2"), END_TURN], "no second non-quick tile"
    with pytest.raises(IllegalActionError):
        state.apply(play("samurai3"))
    run(state, play("ronin"), at(60), play("ship2"), at(42))
    assert state.current_player == B, "nothing playable left: the turn ended by itself"
    placed = [state.tile[h] for h in (41, 57, 60, 42)]
    assert placed == [KIND_OF_NAME[t] for t in ("ship1", "helmet2", "ronin", "ship2")]


def test_the_turn_ends_by_itself_when_ending_is_the_only_legal_action():
    """Turn: when ending the turn is the only legal action left, the turn ends automatically (no forced step)."""
    state = load(position(hands=[NON_QUICK_HAND, None]))
    run(state, play("helmet3"), at(57))
    assert state.current_player == B and state.turn_number == 1
    assert state.to_dict()["turn"]["played"] == []


def test_a_chosen_tile_stays_in_hand_until_its_last_sub_step():
    """State: a tile stays in the hand until the last sub-step of its action."""
    state = load(position(hands=[NON_QUICK_HAND, None]))
    run(state, play("helmet3"))
    data = state.to_dict()
    assert "helmet3" in data["hands"][A] and data["turn"]["tile"] == "helmet3" and data["turn"]["played"] == []
    run(state, at(57))
    assert "helmet3" not in state.to_dict()["hands"][A]


def test_refill_once_at_turn_end_from_own_pile():
    """Turn: at the end of the turn the player draws from their own pile back up to 5 tiles, not before."""
    data = position(hands=[["ronin", "ship1", "helmet2", "helmet3", "helmet4"], None])
    pile = list(data["piles"][A])
    state = load(data)
    run(state, play("ronin"), at(57), play("ship1"), at(41))
    assert len(state.hands[A]) == 3 and len(state.piles[A]) == 15, "no drawing during the turn"
    run(state, play("helmet2"), at(60))  # only non-quick tiles left: the turn ends
    assert state.current_player == B
    out = state.to_dict()
    assert sorted(out["hands"][A]) == sorted(["helmet3", "helmet4"] + pile[:3])
    assert out["piles"][A] == pile[3:]


def test_refill_stops_when_the_pile_is_empty():
    """Turn: the player draws back up to 5 tiles only while the pile lasts."""
    tiles = {h: (t, A) for h, t in zip([57, 59, 60, 61, 62, 77, 78, 79, 81, 83, 85, 88, 91, 96], LAND_TILES)}
    data = position(tiles=tiles, hands=[["ronin", "ship1", "ship1", "ship2", "figure_swap"], None])
    assert data["piles"][A] == ["tile_swap"]
    state = load(data)
    run(state, play("ronin"), at(92), play("ship1"), at(41), play("ship2"), at(42), END_TURN)
    assert sorted(state.to_dict()["hands"][A]) == ["figure_swap", "ship1", "tile_swap"]
    assert state.piles[A] == []


# --- capture --------------------------------------------------------------------------
def test_capture_by_strictly_highest_influence():
    """Capture: a surrounded settlement's figure goes to the player with strictly the highest influence."""
    state = load(position(figures={54: ["helmet"]}, hands=[NON_QUICK_HAND, NON_QUICK_HAND]))
    run(state, play("helmet3"), at(55))
    assert state.to_dict()["figures"]["54"] == ["helmet"], "not surrounded yet"
    before = [c[:] for c in state.captured]
    run(state, play("helmet2"), at(59))
    assert state.influence(SETTLEMENTS.index(54), 0) == [3, 2]
    assert state.to_dict()["figures"]["54"] == []
    assert state.captured == [[before[A][0] + 1] + before[A][1:], [0, 0, 0]]
    assert state.set_aside == [0, 0, 0]


def test_captures_are_resolved_at_once_mid_turn():
    """Capture: a surrounded settlement is resolved at once, before the next tile of the turn."""
    state = load(
        position(
            tiles={59: ("buddha2", B)},
            figures={54: ["buddha"]},
            hands=[["ronin", "ship1", "helmet2", "helmet3", "helmet4"], None],
            captured=None,
        )
    )
    before = state.captured[A][1]
    run(state, play("ronin"), at(55))
    assert state.current_player == A and state.figures[SETTLEMENTS.index(54)] == []
    assert state.captured[B][1] == 1 and state.captured[A][1] == before


@pytest.mark.parametrize("figure_type", FIGURE_TYPES)
def test_type_tiles_count_only_for_their_own_type(figure_type):
    """Capture: a helmet/buddha/rice tile counts its value for its own type only."""
    state = load(
        position(
            figures={54: [figure_type]}, hands=[NON_QUICK_HAND, ["rice2", "helmet2", "buddha2", "samurai1", "samurai1"]]
        )
    )
    run(state, play("helmet4"), at(55), play(f"{figure_type}2"), at(59))
    winner = A if figure_type == "helmet" else B
    assert state.captured[winner][FIGURE_TYPES.index(figure_type)] >= 1
    assert state.set_aside == [0, 0, 0]
    assert state.influence(SETTLEMENTS.index(54), FIGURE_TYPES.index(figure_type)) == (
        [4, 2] if figure_type == "helmet" else [0, 2]
    )


@pytest.mark.parametrize("figure_type", FIGURE_TYPES)
def test_samurai_ronin_and_ships_count_for_every_type(figure_type):
    """Capture: samurai, ronin and ships count for every type (wild tiles)."""
    t = FIGURE_TYPES.index(figure_type)
    other = "rice2" if figure_type != "rice" else "buddha2"
    state = load(
        position(
            figures={54: [figure_type], 131: [figure_type]},
            hands=[
                ["samurai2", "ronin", "ship2", "tile_swap", "helmet2"],
                ["samurai3", "buddha2", "rice2", "helmet2", "helmet3"],
            ],
        )
    )
    # Village 54: A's ship 2 (on the sea) + ronin 1 against B's samurai 3: 3 to 3, set aside.
    run(state, play("ship2"), at(41), play("ronin"), at(55), play("samurai2"), at(129))
    assert state.current_player == B
    run(state, play("samurai3"), at(59))
    assert state.influence(SETTLEMENTS.index(54), t) == [3, 3]
    assert state.set_aside == [int(i == t) for i in range(3)]
    # Village 131: A's samurai 2 against B's tile of another type (0): A captures.
    run(state, play("helmet2"), at(57))
    before = state.captured[A][t]
    run(state, play(other), at(130))
    assert state.influence(SETTLEMENTS.index(131), t) == [2, 0]
    assert state.captured[A][t] == before + 1 and state.captured[B] == [0, 0, 0]


def test_ships_count_from_the_sea():
    """Capture: every player sums their influence on the adjacent hexes, land and sea (ships count from the sea)."""
    hands = [["ship1", "buddha2", "helmet2", "helmet3", "helmet4"], ["buddha2", "rice2", "rice3", "rice4", "samurai1"]]
    state = load(position(figures={54: ["helmet"]}, hands=hands))
    start = state.captured[A][0]
    run(state, play("ship1"), at(45), play("buddha2"), at(55))  # A: ship 1 for helmet, buddha 0
    run(state, play("buddha2"), at(59))  # B: 0 for helmet
    assert state.captured[A][0] == start + 1 and state.set_aside == [0, 0, 0]


def test_sea_hexes_need_not_be_filled_to_surround():
    """Capture: a settlement is surrounded when every adjacent land hex holds a tile (sea hexes need not be filled)."""
    state = load(position(figures={54: ["rice"]}, hands=[NON_QUICK_HAND, ["rice4"] + NON_QUICK_HAND[:4]]))
    run(state, play("helmet2"), at(55), play("rice4"), at(59))
    assert all(state.tile[h] < 0 for h in (41, 42, 45, 46))
    assert state.figures[SETTLEMENTS.index(54)] == [] and state.captured[B][2] == 1


def test_a_tie_for_the_highest_sets_the_figure_aside():
    """Capture: a tie for the highest influence sets the figure aside (out of the game)."""
    state = load(position(figures={54: ["helmet"]}, hands=[NON_QUICK_HAND, NON_QUICK_HAND]))
    captured = [c[:] for c in state.captured]
    run(state, play("helmet3"), at(55), play("helmet3"), at(59))
    assert state.set_aside == [1, 0, 0] and state.captured == captured
    assert state.to_dict()["figures"]["54"] == []


def test_everyone_at_zero_sets_the_figure_aside():
    """Capture: a tie for the highest, including everyone at 0, sets the figure aside."""
    state = load(position(figures={54: ["rice"]}, hands=[NON_QUICK_HAND, NON_QUICK_HAND]))
    run(state, play("helmet3"), at(55), play("buddha2"), at(59))
    assert state.set_aside == [0, 0, 1]
    assert state.influence(SETTLEMENTS.index(54), 2) == [0, 0]


def test_the_tile_swap_counts_zero():
    """Capture: the tile swap counts 0 for every type."""
    state = load(
        position(
            tiles={55: ("helmet2", A)},
            figures={54: ["helmet"]},
            hands=[["tile_swap", "helmet3", "helmet4", "buddha2", "buddha3"], NON_QUICK_HAND],
        )
    )
    # A's tile swap takes hex 55; the helmet 2 moves to 59, surrounding village 54: A has 2 (+0 for the swap tile).
    run(state, play("tile_swap"), at(55), at(59))
    assert state.influence(SETTLEMENTS.index(54), 0) == [2, 0]
    assert state.figures[SETTLEMENTS.index(54)] == []


def test_each_figure_of_a_city_is_resolved_separately():
    """Capture: for each figure in a city, separately, the strictly highest influence for its type captures it."""
    tiles = {55: ("helmet4", A), 57: ("buddha3", B), 60: ("samurai1", A)}
    state = load(position(tiles=tiles, figures={AKITA: ["helmet", "buddha"]}, current=B, number=1))
    run(state, play("buddha2"), at(61))  # helmet: A 5, B 0; buddha: A 1, B 5
    assert state.figures[SETTLEMENTS.index(AKITA)] == []
    assert state.influence(SETTLEMENTS.index(AKITA), 0) == [5, 0]
    assert state.influence(SETTLEMENTS.index(AKITA), 1) == [1, 5]
    data = position(tiles=tiles, figures={AKITA: ["helmet", "buddha"]})
    assert state.captured[A] == [
        data["captured"][A]["helmet"] + 1,
        data["captured"][A]["buddha"],
        data["captured"][A]["rice"],
    ]
    assert state.captured[B] == [0, 1, 0]


def test_one_figure_of_a_city_captured_the_other_set_aside():
    """Capture: figures of one city resolved separately: one captured, the other tied and set aside."""
    tiles = {55: ("helmet4", A), 57: ("rice3", B), 60: ("samurai1", A)}
    state = load(position(tiles=tiles, figures={AKITA: ["helmet", "rice"]}, current=B, number=1))
    run(state, play("buddha2"), at(61))  # helmet: A 5, B 0; rice: A 1, B 3... plus nothing: B captures rice
    assert state.captured[B] == [0, 0, 1]
    state = load(
        position(
            tiles={55: ("helmet4", A), 57: ("samurai1", B), 60: ("ronin", A)},
            figures={EDO: ["helmet", "buddha", "rice"], AKITA: ["helmet", "rice"]},
            current=B,
            number=1,
        )
    )
    run(state, play("buddha2"), at(61))  # helmet A 5 : B 1; rice A 1 : B 1 -> set aside
    assert state.captured[B] == [0, 0, 0] and state.set_aside == [0, 0, 1]


def test_edo_resolves_each_of_its_three_figures():
    """Capture: Edo's three figures are resolved one by one by the influence for each type."""
    tiles = {78: ("helmet4", A), 79: ("buddha4", B), 81: ("rice2", A), 83: ("rice3", B), 85: ("samurai1", A)}
    state = load(position(tiles=tiles, current=B, number=1))
    run(state, play("buddha2"), at(86))
    edo = SETTLEMENTS.index(EDO)
    assert [state.influence(edo, t) for t in range(3)] == [[5, 0], [1, 6], [3, 3]]
    assert state.captured[B] == [0, 1, 0] and state.set_aside == [0, 0, 1]
