"""The Samurai board: a hex map of Japan as data, and lookup tables built once at import.

The map is written by columns of the odd-q offset layout (flat-top hexes,
odd columns half a hex lower). Each line is one column ``x``: the ``y`` of
its first hex, then its hexes from north to south as ``<id><code>``
(``-`` where the column has a gap). Hex ids follow the published map; the
board is described in our rules page, ``docs/rules/samurai.md`` ("The
board"), and ``tests/test_samurai_board.py`` checks this map against that
page, against the invariants of a hex map of islands, and against a digest
of the map as it was checked hex by hex against the published table.

Codes (two characters):
    ``~2`` ``~3`` ``~4``     sea, on the board from 2 / 3 / 4 players
    ``H.`` ``K.`` ``S.`` ``O.``  plain land of Honshu / Kyushu / Shikoku / hOkkaido
    ``H1`` ``H2`` ``H3`` ...   a settlement of that region holding 1 figure
                            (village), 2 (city) or 3 (Edo)
A land hex is on the board from its region's player count: Honshu 2,
Kyushu and Shikoku 3, Hokkaido 4.

Neighbours follow from the coordinates:
    even x: (x,y-1) (x,y+1) (x-1,y-1) (x-1,y) (x+1,y-1) (x+1,y)
    odd x:  (x,y-1) (x,y+1) (x-1,y)   (x-1,y+1) (x+1,y) (x+1,y+1)
"""

from __future__ import annotations

from dataclasses import dataclass

MAP = """
 0   3: 148~3 147~3
 1   2: 149~3 173K1 146~3 145~3
 2   2: 150~3 170K. 171K. 172K1 144~3
 3   1: 151~3 166K1 167K. 168K. 169K. 143~3
 4   0: 104~2 105~2 106~2 162K. 163K1 164K. 165K1 142~3
 5  -1: 103~2 130H. 131H1 107~2 138~3 139~3 140~3 141~3
 6  -1: 102~2 128H1 129H. 108~2 161S1 160S. 137~3
 7  -2: 101~2 126H. 127H. 109~2 157S. 158S. 159S1 136~3
 8  -2: 100~2 124H. 125H1 110~2 154S1 155S. 156S. 135~3
 9  -3:  99~2 122H1 123H. 112~2 111~2 152S. 153S1 134~3
10  -4:  69~2  97~2  98~2 119H. 120H. 121H1 113~2 132~3 133~3
11  -5:  68~2  94H.  95H1  96H. 117H2 118H. 114~2
12 -13:   0~4   1~4   2~4   3~4     -     -     -     -  67~2  90H1  91H.  92H.  93H. 116~2 115~2
13 -16:   4~4   5~4   6~4  20O1  21O.  22O1  41~2  42~2  43~2  44~2  66~2  77H.  78H.  79H.  80H1  76~2
14 -16:   7~4  23O1  24O.  25O.  26O.  27O.  45~2  54H1  55H.  56H2  57H.  58H1  81H.  82H3  83H.  75~2
15 -16:   8~4  28O.  29O1  30O.  31O2  32O.  46~2  59H.  60H.  61H.  62H.  84H.  85H.  86H.  74~2
16 -15:   9~4  10~4  33O.  34O.  35O.  36O1  47~2  63H1  64H.  65H1  53~2  87H1  88H.  89H1  73~2
17 -15:  11~4  37O.  38O1  17~4  18~4  19~4  48~2  49~2  50~2  51~2  52~2  70~2  71~2  72~2
18 -15:  12~4  39O1  40O.  16~4
19 -15:  13~4  14~4  15~4
"""

#: The named settlements (Edo is certain; the cities' names are probable).
NAMES = {82: "Edo", 56: "Akita", 117: "Kyoto", 31: "Sapporo"}

SEA, LAND, SETTLEMENT = 0, 1, 2
KIND_NAMES = ("sea", "land", "settlement")
REGIONS = {"H": "Honshu", "K": "Kyushu", "S": "Shikoku", "O": "Hokkaido"}
REGION_PLAYERS = {"Honshu": 2, "Kyushu": 3, "Shikoku": 3, "Hokkaido": 4}
PLAYER_COUNTS = (2, 3, 4)


def _parse(text: str) -> dict[int, tuple[int, int, int, int, str, int]]:
    """id -> (x, y, kind, capacity, region, min_players)."""
    hexes = {}
    for line in text.strip().splitlines():
        head, cells = line.split(":")
        x, y = (int(v) for v in head.split())
        for offset, cell in enumerate(cells.split()):
            if cell == "-":
                continue
            hex_id, code = int(cell[:-2]), cell[-2:]
            if code[0] == "~":
                hexes[hex_id] = (x, y + offset, SEA, 0, "sea", int(code[1]))
            else:
                region = REGIONS[code[0]]
                kind, capacity = (LAND, 0) if code[1] == "." else (SETTLEMENT, int(code[1]))
                hexes[hex_id] = (x, y + offset, kind, capacity, region, REGION_PLAYERS[region])
    return hexes


_HEXES = _parse(MAP)
NUM_HEXES = len(_HEXES)
assert sorted(_HEXES) == list(range(NUM_HEXES)), "hex ids must be 0..173"

HEX_X = tuple(_HEXES[h][0] for h in range(NUM_HEXES))
HEX_Y = tuple(_HEXES[h][1] for h in range(NUM_HEXES))
HEX_KIND = tuple(_HEXES[h][2] for h in range(NUM_HEXES))
CAPACITY = tuple(_HEXES[h][3] for h in range(NUM_HEXES))
REGION = tuple(_HEXES[h][4] for h in range(NUM_HEXES))
MIN_PLAYERS = tuple(_HEXES[h][5] for h in range(NUM_HEXES))
_AT = {(HEX_X[h], HEX_Y[h]): h for h in range(NUM_HEXES)}


def _neighbours(h: int) -> tuple[int, ...]:
    x, y = HEX_X[h], HEX_Y[h]
    if x % 2 == 0:
        cells = ((x, y - 1), (x, y + 1), (x - 1, y - 1), (x - 1, y), (x + 1, y - 1), (x + 1, y))
    else:
        cells = ((x, y - 1), (x, y + 1), (x - 1, y), (x - 1, y + 1), (x + 1, y), (x + 1, y + 1))
    return tuple(sorted(_AT[c] for c in cells if c in _AT))


#: Adjacent hex ids of every hex, all player counts.
NEIGHBOURS = tuple(_neighbours(h) for h in range(NUM_HEXES))
#: Every settlement's hex id, ascending; a settlement's *index* is its position here.
SETTLEMENTS = tuple(h for h in range(NUM_HEXES) if HEX_KIND[h] == SETTLEMENT)
NUM_SETTLEMENTS = len(SETTLEMENTS)
SETTLEMENT_INDEX = {h: s for s, h in enumerate(SETTLEMENTS)}


def hex_label(h: int) -> str:
    """``"hex 57 (land, Honshu)"``, ``"hex 82 (Edo, Honshu)"``, ``"hex 44 (sea)"``."""
    if HEX_KIND[h] == SEA:
        return f"hex {h} (sea)"
    if HEX_KIND[h] == LAND:
        return f"hex {h} (land, {REGION[h]})"
    kind = NAMES.get(h) or ("village" if CAPACITY[h] == 1 else "city")
    return f"settlement {h} ({kind}, {REGION[h]})"


@dataclass(frozen=True)
class Layout:
    """The board for one player count, with the lookup tables the rules need."""

    num_players: int
    on_board: tuple[bool, ...]  # per hex id
    land: tuple[int, ...]  # plain land hex ids on the board, ascending
    sea: tuple[int, ...]  # sea hex ids on the board, ascending
    settlements: tuple[int, ...]  # settlement indices on the board, ascending
    #: per settlement index: adjacent plain land hexes on the board (must be filled to surround it)
    land_around: tuple[tuple[int, ...], ...]
    #: per settlement index: adjacent hexes on the board, land and sea (whose tiles give influence)
    around: tuple[tuple[int, ...], ...]
    #: per hex id: indices of the adjacent settlements on the board
    settlements_near: tuple[tuple[int, ...], ...]
    supply: int  # figures per type: exactly the capacity of the board's settlements


def _layout(n: int) -> Layout:
    on = tuple(MIN_PLAYERS[h] <= n for h in range(NUM_HEXES))
    settlements = tuple(s for s, h in enumerate(SETTLEMENTS) if on[h])
    land_around, around = [], []
    for h in SETTLEMENTS:
        near = [q for q in NEIGHBOURS[h] if on[q]] if on[h] else []
        around.append(tuple(near))
        land_around.append(tuple(q for q in near if HEX_KIND[q] == LAND))
    near_settlement = tuple(
        tuple(SETTLEMENT_INDEX[q] for q in NEIGHBOURS[h] if HEX_KIND[q] == SETTLEMENT and on[q]) if on[h] else ()
        for h in range(NUM_HEXES)
    )
    capacity = sum(CAPACITY[SETTLEMENTS[s]] for s in settlements)
    assert capacity % 3 == 0
    return Layout(
        num_players=n,
        on_board=on,
        land=tuple(h for h in range(NUM_HEXES) if on[h] and HEX_KIND[h] == LAND),
        sea=tuple(h for h in range(NUM_HEXES) if on[h] and HEX_KIND[h] == SEA),
        settlements=settlements,
        land_around=tuple(land_around),
        around=tuple(around),
        settlements_near=near_settlement,
        supply=capacity // 3,
    )


LAYOUTS = {n: _layout(n) for n in PLAYER_COUNTS}
