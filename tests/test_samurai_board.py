"""The Samurai board in ``envs/samurai/board.py`` against the published table
``shared/rules/samurai_map.tsv`` (skipped where the shared folder is absent),
and the board facts the rules rely on."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.samurai.board import (
    CAPACITY,
    HEX_KIND,
    HEX_X,
    HEX_Y,
    KIND_NAMES,
    LAYOUTS,
    MIN_PLAYERS,
    NAMES,
    NEIGHBOURS,
    NUM_HEXES,
    REGION,
    SETTLEMENT,
    SETTLEMENTS,
)  # fmt: skip

TSV = Path(__file__).resolve().parents[1] / ".." / "shared" / "rules" / "samurai_map.tsv"


def read_tsv() -> list[dict[str, str]]:
    lines = [line.rstrip("\n") for line in TSV.read_text().splitlines() if line and not line.startswith("#")]
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


@pytest.mark.skipif(not TSV.exists(), reason="../shared/rules/samurai_map.tsv is not present")
def test_board_matches_the_published_map_hex_for_hex():
    """Board: the same 174 hexes as samurai_map.tsv, with their coordinates, kinds, capacities,
    regions, player counts, names and neighbours."""
    rows = read_tsv()
    assert len(rows) == NUM_HEXES == 174
    for row in rows:
        h = int(row["id"])
        assert (HEX_X[h], HEX_Y[h]) == (int(row["x"]), int(row["y"])), h
        assert KIND_NAMES[HEX_KIND[h]] == row["kind"], h
        assert CAPACITY[h] == int(row["capacity"]), h
        assert REGION[h] == row["region"], h
        assert MIN_PLAYERS[h] == int(row["min_players"]), h
        assert NAMES.get(h, "") == row["name"], h
        assert NEIGHBOURS[h] == tuple(sorted(int(q) for q in row["neighbors"].split())), h


@pytest.mark.parametrize("n,land,sea,figures", [(2, 47, 44, 21), (3, 69, 64, 30), (4, 90, 84, 39)])
def test_board_totals_per_player_count(n, land, sea, figures):
    """Board: 2 players Honshu only, 3 + Kyushu and Shikoku, 4 + Hokkaido: 47/69/90 land hexes
    (settlements included), 44/64/84 sea hexes, 21/30/39 figures (supply 7/10/13 per type)."""
    layout = LAYOUTS[n]
    assert len(layout.land) + len(layout.settlements) == land
    assert len(layout.sea) == sea
    assert sum(CAPACITY[SETTLEMENTS[s]] for s in layout.settlements) == figures == 3 * layout.supply
    regions = {REGION[h] for h in range(NUM_HEXES) if layout.on_board[h]} - {"sea"}
    assert (
        regions
        == {2: {"Honshu"}, 3: {"Honshu", "Kyushu", "Shikoku"}, 4: {"Honshu", "Kyushu", "Shikoku", "Hokkaido"}}[n]
    )


def test_settlements_edo_and_cities():
    """Board: villages hold 1 figure, cities 2, Edo 3; settlements never touch each other."""
    assert CAPACITY[82] == 3 and NAMES[82] == "Edo"
    assert sorted(h for h in SETTLEMENTS if CAPACITY[h] == 2) == [31, 56, 117]
    for h in SETTLEMENTS:
        assert HEX_KIND[h] == SETTLEMENT
        assert not any(HEX_KIND[q] == SETTLEMENT for q in NEIGHBOURS[h])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_settlement_needs_land_tiles_to_be_surrounded(n):
    """Capture: a settlement is surrounded when every adjacent land hex on the board holds a tile;
    on every board each settlement has such hexes, so none starts surrounded."""
    layout = LAYOUTS[n]
    for s in layout.settlements:
        assert layout.land_around[s], SETTLEMENTS[s]
        assert set(layout.land_around[s]) <= set(layout.around[s])
        assert all(layout.on_board[q] for q in layout.around[s])


def test_neighbourhood_is_symmetric():
    """Board: adjacency is symmetric (odd-q offset layout)."""
    for h in range(NUM_HEXES):
        for q in NEIGHBOURS[h]:
            assert h in NEIGHBOURS[q]
