"""Samurai rules, continued: the figure swap, the tile swap, forced passes, both end
conditions and every branch of the winner procedure (``samurai.md``)."""

from __future__ import annotations

import itertools

import pytest

from envs.core import IllegalActionError
from envs.samurai.actions import END_TURN, figure_of, settlement_figure_action
from envs.samurai.board import LAYOUTS, SETTLEMENTS
from envs.samurai.components import FIGURE_SWAP, FIGURE_TYPES
from envs.samurai.scoring import winners
from tests.test_samurai_rules import AKITA, EDO, LAND_TILES, A, B, at, fig, load, play, position, run

SWAP_FIGURES = {
    54: ["helmet"],
    63: ["helmet"],
    65: ["buddha"],
    131: ["rice"],
    AKITA: ["helmet", "buddha"],
    EDO: ["helmet", "buddha", "rice"],
}
SWAP_HAND = ["figure_swap", "helmet2", "helmet3", "ronin", "ship1"]


def brute_force_partners(state, s1: int, t1: int) -> list[int]:
    """Second figures for a swap, by trying each exchange: different types, and no
    settlement holding two figures of one type afterwards."""
    out = []
    for s2 in LAYOUTS[2].settlements:
        for t2 in state.figures[s2]:
            if s2 == s1 or t2 == t1:
                continue
            after1 = [t for t in state.figures[s1] if t != t1] + [t2]
            after2 = [t for t in state.figures[s2] if t != t2] + [t1]
            if len(set(after1)) == len(after1) and len(set(after2)) == len(after2):
                out.append(settlement_figure_action(s2, t2))
    return sorted(out)


# --- figure swap ------------------------------------------------------------------
def test_figure_swap_exchanges_figures_of_different_types_only():
    """Figure swap: exchange two figures of different types in different settlements
    (two of one type would change nothing: not allowed)."""
    state = load(position(figures=SWAP_FIGURES, hands=[SWAP_HAND, None]))
    run(state, play("figure_swap"), fig(54, "helmet"))
    legal = state.legal_actions()
    assert fig(63, "helmet") not in legal, "same type"
    assert fig(65, "buddha") in legal and fig(131, "rice") in legal
    assert legal == brute_force_partners(state, SETTLEMENTS.index(54), 0)


def test_figure_swap_never_leaves_two_figures_of_a_type_in_a_settlement():
    """Figure swap: afterwards no settlement may hold two figures of one type."""
    state = load(position(figures=SWAP_FIGURES, hands=[SWAP_HAND, None]))
    run(state, play("figure_swap"))
    first = state.legal_actions()
    assert not any(fig(EDO, t) in first for t in FIGURE_TYPES), "any exchange would give Edo a duplicate"
    run(state, fig(54, "helmet"))
    assert fig(AKITA, "buddha") not in state.legal_actions(), "Akita would hold two helmets"
    for a in first:  # every offered first figure has a partner, and the partners are exactly the legal exchanges
        s1, t1 = figure_of(a)
        assert brute_force_partners(state, s1, t1)


def test_figure_swap_moves_the_figures_and_is_discarded_as_a_quick_tile():
    """Figure swap (quick): the two figures change places; then the tile is discarded, and the turn goes on."""
    state = load(position(figures=SWAP_FIGURES, hands=[SWAP_HAND, None]))
    run(state, play("figure_swap"), fig(54, "helmet"), fig(65, "buddha"))
    data = state.to_dict()
    assert data["figures"]["54"] == ["buddha"] and data["figures"]["65"] == ["helmet"]
    assert "figure_swap" not in data["hands"][A] and "figure_swap" not in data["piles"][A]
    assert all(cell["tile"] != "figure_swap" for cell in data["board"].values())
    assert data["turn"]["played"] == ["figure_swap"] and data["turn"]["non_quick_used"] is False
    assert state.current_player == A and play("helmet2") in state.legal_actions()


def test_figure_swap_without_a_legal_exchange_is_not_offered():
    """Forced pass rule: a figure swap with no legal exchange cannot be played."""
    state = load(
        position(
            figures={EDO: ["helmet", "buddha", "rice"], 90: ["helmet"]}
            | {SETTLEMENTS[s]: [] for s in LAYOUTS[2].settlements if SETTLEMENTS[s] not in (EDO, 90)},
            tiles=forced_pass_tiles(),
            hands=[["ship1", "ship1", "ship2", "figure_swap", "ronin"], ["figure_swap"]],
        )
    )
    assert not state.figure_swap_possible()
    assert play("figure_swap") not in state.legal_actions()


# --- tile swap ------------------------------------------------------------------------
TILE_SWAP_BOARD = {57: ("helmet2", A), 60: ("samurai1", A), 62: ("ronin", A), 41: ("ship1", A), 59: ("buddha3", B)}


def test_tile_swap_picks_only_own_non_quick_tiles():
    """Tile swap: pick one of your own non-quick tiles on the board (not a ship, not the ronin, not another's)."""
    state = load(
        position(
            tiles=TILE_SWAP_BOARD,
            figures={54: ["helmet"]},
            hands=[["tile_swap", "helmet3", "helmet4", "ship1", "buddha2"], None],
        )
    )
    run(state, play("tile_swap"))
    assert state.legal_actions() == [at(57), at(60)]
    run(state, at(57))
    assert state.legal_actions() == [at(h) for h in state.empty_land], "the picked tile goes to any empty land hex"


def test_tile_swap_moves_the_tile_and_can_capture():
    """Tile swap: the swap tile takes the picked tile's hex; the picked tile moves to an empty land hex,
    which can complete a settlement's surround (and capture)."""
    state = load(
        position(
            tiles=TILE_SWAP_BOARD,
            figures={54: ["helmet"]},
            hands=[["tile_swap", "helmet3", "helmet4", "ship1", "buddha2"], None],
        )
    )
    before = state.captured[A][0]
    run(state, play("tile_swap"), at(57), at(55))
    data = state.to_dict()
    assert data["board"]["57"] == {"tile": "tile_swap", "owner": A}
    assert data["board"]["55"] == {"tile": "helmet2", "owner": A}
    assert data["figures"]["54"] == [] and state.captured[A][0] == before + 1  # A 2 + ship 1 against B 0
    assert data["turn"]["non_quick_used"] is True
    assert state.legal_actions() == [play("ship1"), END_TURN], "the tile swap was the turn's non-quick tile"


def test_tile_swap_needs_an_own_movable_tile_on_the_board():
    """Tile swap: without an own helmet/buddha/rice/samurai tile on the board it cannot be played
    (a ronin, a ship or another player's tile does not count)."""
    hand = ["tile_swap", "helmet3", "helmet4", "ship1", "buddha2"]
    state = load(position(tiles={62: ("ronin", A), 41: ("ship1", A), 59: ("helmet2", B)}, hands=[hand, None]))
    assert play("tile_swap") not in state.legal_actions()
    state = load(position(tiles={62: ("ronin", A), 41: ("ship1", A), 59: ("helmet2", A)}, hands=[hand, None]))
    assert play("tile_swap") in state.legal_actions()


def test_tile_swap_is_the_turns_non_quick_tile():
    """Tile swap: it is the turn's non-quick tile, so not after another non-quick tile."""
    state = load(
        position(tiles={59: ("helmet2", A)}, hands=[["tile_swap", "helmet3", "helmet4", "ship1", "ronin"], None])
    )
    run(state, play("helmet3"), at(57))
    assert state.legal_actions() == [play("ronin"), play("ship1"), END_TURN]


# --- forced pass -------------------------------------------------------------------
def forced_pass_tiles() -> dict[int, tuple[str, int]]:
    """Every plain land hex but 78 filled: A 13 tiles, B 16 tiles and 3 ships; only Edo and village 90 stand."""
    land = [h for h in LAYOUTS[2].land if h != 78]
    a_tiles = LAND_TILES[:13]
    b_tiles = LAND_TILES + ["ronin", "tile_swap"]
    tiles = {h: (t, A) for h, t in zip(land[:13], a_tiles)}
    tiles |= {h: (t, B) for h, t in zip(land[13:], b_tiles)}
    tiles |= {41: ("ship1", B), 42: ("ship1", B), 43: ("ship2", B)}
    return tiles


def forced_pass_position() -> dict:
    figures = {EDO: ["helmet", "buddha", "rice"], 90: ["helmet"]}
    figures |= {SETTLEMENTS[s]: [] for s in LAYOUTS[2].settlements if SETTLEMENTS[s] not in figures}
    return position(
        tiles=forced_pass_tiles(),
        figures=figures,
        hands=[["ship1", "ship1", "ship2", "figure_swap", "ronin"], ["figure_swap"]],
    )


def test_a_player_who_cannot_play_passes_automatically_without_drawing():
    """Turn: a player who, at the start of their turn, cannot legally play any tile in hand (here only a
    figure swap with no legal exchange) passes automatically, without drawing."""
    data = forced_pass_position()
    assert data["piles"] == [["samurai3", "tile_swap"], []]
    state = load(data)
    run(state, play("ship1"), at(44), END_TURN)
    assert state.current_player == A, "B passed"
    assert state.turn_number == 2, "A's turn and B's pass"
    assert state.hands[B] == [FIGURE_SWAP]
    assert sorted(state.to_dict()["hands"][A]) == ["figure_swap", "ronin", "samurai3", "ship1", "ship2"]


def test_the_game_ends_when_every_player_would_pass():
    """Turn (ours): if every player would pass in turn, the game ends at once and the winner procedure applies.
    No valid position reaches it (land tiles are always playable while a settlement stands), so the
    engine's turn start is driven directly with hands nobody can play."""
    state = load(forced_pass_position())
    state.hands = [[FIGURE_SWAP], [FIGURE_SWAP]]
    state.start_turn(A)
    assert state.current_player is None and state.legal_actions() == []
    assert state.winners() == winners(state.captured) == [A]


# --- end of the game ------------------------------------------------------------------
def last_rice_position() -> dict:
    """Edo and villages 80, 87, 89 already surrounded; the last rice figure stands in village 131."""
    fills_a = {78: "helmet2", 79: "helmet3", 81: "helmet4", 83: "buddha2", 84: "buddha3"}
    fills_b = {85: "helmet2", 86: "helmet3", 88: "helmet4", 92: "buddha2", 93: "buddha3", 129: "rice4"}
    tiles = {h: (t, A) for h, t in fills_a.items()} | {h: (t, B) for h, t in fills_b.items()}
    villages_hb = [54, 58, 63, 65, 90, 95, 121, 122, 125, 128]
    figures = {EDO: [], 80: [], 87: [], 89: [], AKITA: ["helmet", "buddha"], 117: ["helmet", "buddha"], 131: ["rice"]}
    figures |= {h: ["helmet" if i % 2 else "buddha"] for i, h in enumerate(villages_hb)}
    return position(tiles=tiles, figures=figures, hands=[["ronin", "ship1", "ship1", "ship2", "figure_swap"], None])


def test_the_game_ends_when_the_last_figure_of_a_type_leaves_the_board():
    """End (a): the game ends right after the placement that makes the last figure of a type leave the board,
    even with quick tiles still in hand."""
    state = load(last_rice_position())
    assert state.figures_on_board == [7, 7, 1]
    run(state, play("ronin"), at(130))  # rice: A 1, B 4 -> B captures the last rice
    assert state.current_player is None and state.figures_on_board == [7, 7, 0]
    assert state.captured[B] == [0, 0, 1]
    data = state.to_dict()
    assert data["terminal"] is True and data["winners"] == [A]  # A: the rice majority, 6 to 1
    with pytest.raises(IllegalActionError):
        state.apply(play("ship1"))


def test_four_figures_set_aside_are_counted_as_figures_not_settlements():
    """End (b): count figures, not settlements: a city setting aside two figures brings 2 to 4."""
    tiles = {55: ("helmet4", A), 57: ("helmet4", B), 60: ("buddha2", A)} | SURROUND_131_121
    data = position(
        tiles=tiles,
        figures={AKITA: ["helmet", "buddha"], 131: [], 121: []},
        set_aside={"helmet": 0, "buddha": 0, "rice": 2},
        current=B,
        number=1,
    )
    state = load(data)
    run(state, play("buddha2"), at(61))  # helmet 4 : 4, buddha 2 : 2 -> both set aside
    assert state.set_aside == [1, 1, 2]
    assert state.current_player is None


#: B's tiles surrounding villages 131, 121 and 89 (whose figures were set aside earlier).
SURROUND_131_121 = {129: ("rice2", B), 130: ("rice3", B), 118: ("rice4", B), 120: ("samurai1", B)}
SURROUND_89 = {86: ("samurai1", B), 88: ("samurai2", B)}


def test_the_game_ends_at_the_fourth_figure_set_aside():
    """End (b): the game ends when the 4th figure has been set aside; three do not end it."""
    state = load(
        position(
            figures={54: ["helmet"], 131: [], 121: []},
            tiles=SURROUND_131_121,
            set_aside={"helmet": 0, "buddha": 1, "rice": 1},
            hands=[
                ["helmet3", "helmet4", "buddha2", "buddha3", "buddha4"],
                ["helmet3", "helmet4", "buddha2", "buddha3", "buddha4"],
            ],
        )
    )
    run(state, play("helmet3"), at(55), play("helmet3"), at(59))
    assert state.set_aside == [1, 1, 1] and state.current_player == A
    state = load(
        position(
            figures={54: ["helmet"], 131: [], 121: [], 89: []},
            tiles=SURROUND_131_121 | SURROUND_89,
            set_aside={"helmet": 0, "buddha": 2, "rice": 1},
            hands=[
                ["helmet3", "helmet4", "buddha2", "buddha3", "buddha4"],
                ["helmet3", "helmet4", "buddha2", "buddha3", "buddha4"],
            ],
        )
    )
    run(state, play("helmet3"), at(55), play("helmet3"), at(59))
    assert state.set_aside == [1, 2, 1] and state.current_player is None


# --- winner procedure -------------------------------------------------------------------
@pytest.mark.parametrize(
    "captured,expected,rule",
    [
        ([[3, 2, 0], [1, 1, 5]], [0], "2: majority in two types wins"),
        ([[3, 3, 3], [2, 2, 2]], [0], "2: majority in all three types wins"),
        ([[4, 1, 1], [1, 4, 0], [0, 0, 3]], [0], "3: contenders count their other two types; most wins"),
        ([[1, 0, 4], [3, 1, 0], [0, 2, 1]], [0], "3: each contender counts the two types outside their majority"),
        (
            [[3, 1, 0], [0, 3, 1], [2, 2, 1]],
            [0, 1],
            "3+4: only contenders (C's 5 figures do not count); tied on others and total: shared",
        ),
        ([[4, 1, 1], [1, 3, 1]], [0], "4: contenders tied on the other types: most figures in total"),
        ([[2, 2, 2], [2, 2, 0], [0, 0, 2], [0, 0, 0]], [0], "4: nobody with a majority: most figures in total"),
        ([[2, 2, 0], [2, 2, 0], [1, 1, 0]], [0, 1], "4: nobody with a majority, tied totals share the win"),
        ([[0, 0, 0], [0, 0, 0]], [0, 1], "4: nobody captured anything: everyone shares"),
        ([[1, 0, 0], [0, 0, 0]], [0], "1: a majority needs strictly more than every other player (1 > 0)"),
    ],
)
def test_winner_procedure(captured, expected, rule):
    """Winner: 1. majority = strictly more than every other player; 2. majority in two or more types wins;
    3. otherwise contenders (exactly one majority) count their other two types, most wins; 4. (ours)
    still tied: most figures in total, then shared; nobody with a majority: most in total, ties shared."""
    assert winners(captured) == expected, rule


def test_every_two_player_capture_split_has_a_consistent_winner():
    """Winner: with two players and 7 figures per type the procedure always names someone (exhaustive)."""
    for a in itertools.product(range(4), repeat=3):
        for b in itertools.product(range(4), repeat=3):
            result = winners([list(a), list(b)])
            assert result and set(result) <= {0, 1}
            if sum(x > y for x, y in zip(a, b)) >= 2:
                assert result == [0]


def test_illegal_actions_raise_and_leave_the_state_untouched():
    """Bad input: an illegal action raises IllegalActionError and changes nothing."""
    state = load(position(figures=SWAP_FIGURES, hands=[SWAP_HAND, None]))
    for prefix in ([], [play("figure_swap")], [fig(54, "helmet")]):
        run(state, *prefix)
        before = state.to_dict()
        for action in (END_TURN, play("samurai3"), at(54), at(55), fig(EDO, "rice"), fig(63, "helmet")):
            if action in state.legal_actions():
                continue
            with pytest.raises(IllegalActionError, match="not legal"):
                state.apply(action)
            assert state.to_dict() == before
    with pytest.raises(ValueError):
        state.apply(10_000)
