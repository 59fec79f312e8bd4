"""The Samurai board in ``envs/samurai/board.py`` against what our rules page
(``docs/rules/samurai.md``, "The board") states, against the invariants of a hex
map of islands, and against a digest of the map as it was checked hex by hex
against the published map table. Everything it needs is in the repository: it never skips."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from envs.samurai.board import (
    CAPACITY,
    HEX_KIND,
    HEX_X,
    HEX_Y,
    KIND_NAMES,
    LAND,
    LAYOUTS,
    MIN_PLAYERS,
    NAMES,
    NEIGHBOURS,
    NUM_HEXES,
    REGION,
    REGION_PLAYERS,
    SEA,
    SETTLEMENT,
    SETTLEMENTS,
)  # fmt: skip

#: docs/rules/samurai.md, "The board": the islands in play and the figures of each kind, per player count.
ISLANDS = {2: {"Honshu"}, 3: {"Honshu", "Kyushu", "Shikoku"}, 4: {"Honshu", "Kyushu", "Shikoku", "Hokkaido"}}
FIGURES_PER_KIND = {2: 7, 3: 10, 4: 13}


def components(hexes: set[int]) -> list[set[int]]:
    """The connected pieces of ``hexes`` under the board's adjacency."""
    left, pieces = set(hexes), []
    while left:
        piece, stack = set(), [min(left)]
        while stack:
            h = stack.pop()
            if h not in piece:
                piece.add(h)
                stack += [q for q in NEIGHBOURS[h] if q in left and q not in piece]
        left -= piece
        pieces.append(piece)
    return pieces


def cube(h: int) -> tuple[int, int, int]:
    """Cube coordinates of hex ``h`` from its odd-q offset coordinates (odd columns half a hex lower)."""
    q = HEX_X[h]
    r = HEX_Y[h] - (q - (q & 1)) // 2
    return q, r, -q - r


# --- what the rules page states ---------------------------------------------------------------------
def test_the_map_has_174_hexes_of_three_kinds():
    """Board: the map has 174 hexes (ids 0..173, each at its own place): sea, plain land and settlements."""
    assert NUM_HEXES == 174
    assert len({(HEX_X[h], HEX_Y[h]) for h in range(NUM_HEXES)}) == NUM_HEXES
    assert {KIND_NAMES[k] for k in HEX_KIND} == {"sea", "land", "settlement"}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_islands_and_figures_in_play_per_player_count(n):
    """Board: 2 players play Honshu, 3 add Kyushu and Shikoku, 4 all four islands; the hexes of islands not
    in play do not exist for that game; 7/10/13 figures of each kind exactly fill the settlements in play."""
    layout = LAYOUTS[n]
    on_board = {h for h in range(NUM_HEXES) if layout.on_board[h]}
    assert {REGION[h] for h in on_board if HEX_KIND[h] != SEA} == ISLANDS[n]
    assert all(layout.on_board[h] == (REGION[h] in ISLANDS[n]) for h in range(NUM_HEXES) if HEX_KIND[h] != SEA)
    assert layout.supply == FIGURES_PER_KIND[n]
    assert sum(CAPACITY[SETTLEMENTS[s]] for s in layout.settlements) == 3 * FIGURES_PER_KIND[n]
    assert set(layout.land) | {SETTLEMENTS[s] for s in layout.settlements} | set(layout.sea) == on_board
    for s in layout.settlements:  # nothing off the board counts: neither to surround a settlement nor for influence
        assert set(layout.around[s]) == {q for q in NEIGHBOURS[SETTLEMENTS[s]] if q in on_board}
        assert set(layout.land_around[s]) == {q for q in layout.around[s] if HEX_KIND[q] == LAND}


def test_settlement_sizes_edo_and_cities():
    """Board: a village holds one figure, a city two, Edo (the capital) three; Edo is hex 82, the
    three cities are 31, 56 and 117; every settlement stands on an island."""
    assert {CAPACITY[h] for h in SETTLEMENTS} == {1, 2, 3}
    assert [h for h in SETTLEMENTS if CAPACITY[h] == 3] == [82] and NAMES[82] == "Edo"
    assert sorted(h for h in SETTLEMENTS if CAPACITY[h] == 2) == [31, 56, 117]
    assert all(CAPACITY[h] == 0 for h in range(NUM_HEXES) if HEX_KIND[h] != SETTLEMENT)
    for h in SETTLEMENTS:
        assert HEX_KIND[h] == SETTLEMENT and REGION[h] in REGION_PLAYERS
        assert MIN_PLAYERS[h] == REGION_PLAYERS[REGION[h]]


def test_no_two_settlements_touch():
    """Board: no two settlements touch."""
    for h in SETTLEMENTS:
        assert not any(HEX_KIND[q] == SETTLEMENT for q in NEIGHBOURS[h]), h


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_settlement_needs_land_tiles_to_be_surrounded(n):
    """Capture: a settlement is surrounded when every land hex next to it (of the islands in play) holds a
    tile, sea hexes need not be filled; every settlement has such land hexes, so none starts surrounded."""
    layout = LAYOUTS[n]
    for s in layout.settlements:
        assert layout.land_around[s], SETTLEMENTS[s]
        assert all(HEX_KIND[q] == LAND and REGION[q] == REGION[SETTLEMENTS[s]] for q in layout.land_around[s])


def test_the_draft_can_always_fill_the_cities():
    """Set-up (draft): after Edo, each kind has at least as many figures left as there are city places."""
    for n, layout in LAYOUTS.items():
        city_places = sum(CAPACITY[SETTLEMENTS[s]] for s in layout.settlements if CAPACITY[SETTLEMENTS[s]] == 2)
        assert layout.supply - 1 >= city_places, n


# --- the invariants of a hex map of islands -------------------------------------------------------
def test_neighbours_are_the_hexes_at_distance_one():
    """Board: adjacency is symmetric, at most six neighbours, and exactly the existing hexes at hex distance 1
    (computed here in cube coordinates, independently of the board's offset rule)."""
    at = {cube(h): h for h in range(NUM_HEXES)}
    for h in range(NUM_HEXES):
        q, r, s = cube(h)
        around = [(q + dq, r + dr, s - dq - dr) for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))]
        assert NEIGHBOURS[h] == tuple(sorted(at[c] for c in around if c in at)), h
        assert all(h in NEIGHBOURS[q] for q in NEIGHBOURS[h]) and len(NEIGHBOURS[h]) <= 6


def test_islands_are_connected_and_apart():
    """Board: each island's land (settlements included) is one piece, and the sea separates the islands:
    no land hex touches land of another island."""
    for region in REGION_PLAYERS:
        land = {h for h in range(NUM_HEXES) if HEX_KIND[h] != SEA and REGION[h] == region}
        assert len(components(land)) == 1, region
    for h in range(NUM_HEXES):
        if HEX_KIND[h] != SEA:
            assert all(HEX_KIND[q] == SEA or REGION[q] == REGION[h] for q in NEIGHBOURS[h]), h


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_board_in_play_is_one_piece_and_so_is_its_sea(n):
    """Board: for every player count the hexes in play form one piece, and so does their sea (no part of
    the map in play is cut off from the rest), and only sea of that player count is in play."""
    layout = LAYOUTS[n]
    assert len(components({h for h in range(NUM_HEXES) if layout.on_board[h]})) == 1
    assert len(components(set(layout.sea))) == 1
    assert all(MIN_PLAYERS[h] <= n for h in layout.sea)


# --- known values of our map ---------------------------------------------------------------------
@pytest.mark.parametrize("n,land,sea,figures", [(2, 47, 44, 21), (3, 69, 64, 30), (4, 90, 84, 39)])
def test_board_totals_per_player_count(n, land, sea, figures):
    """Board: 47/69/90 land hexes (settlements included), 44/64/84 sea hexes, 21/30/39 figures."""
    layout = LAYOUTS[n]
    assert len(layout.land) + len(layout.settlements) == land
    assert len(layout.sea) == sea
    assert sum(CAPACITY[SETTLEMENTS[s]] for s in layout.settlements) == figures == 3 * layout.supply


def test_islands_hold_their_settlements():
    """Board: per island, its plain land hexes and its settlements by size (villages, cities, Edo)."""
    counts = {
        region: (
            sum(HEX_KIND[h] == LAND and REGION[h] == region for h in range(NUM_HEXES)),
            Counter(CAPACITY[h] for h in SETTLEMENTS if REGION[h] == region),
        )
        for region in REGION_PLAYERS
    }
    assert counts == {
        "Honshu": (30, Counter({1: 14, 2: 2, 3: 1})),
        "Kyushu": (7, Counter({1: 5})),
        "Shikoku": (6, Counter({1: 4})),
        "Hokkaido": (13, Counter({1: 7, 2: 1})),
    }


def test_the_map_is_the_one_checked_against_the_published_table():
    """Board: hex for hex (coordinates, kind, capacity, island, player count, name, neighbours) the map
    is the one that was checked against the published map table; a change to any hex changes this
    digest, and whoever makes it checks the map against the published one again."""
    rows = [
        (h, HEX_X[h], HEX_Y[h], KIND_NAMES[HEX_KIND[h]], CAPACITY[h], REGION[h], MIN_PLAYERS[h], NAMES.get(h, ""))
        for h in range(NUM_HEXES)
    ]
    rows = [row + (NEIGHBOURS[row[0]],) for row in rows]
    digest = hashlib.sha256(repr(rows).encode()).hexdigest()
    assert digest == "da3eab4d40676b46d53f31bccb94df99371642ed2ee42ed2ced161c3d037de3d"
