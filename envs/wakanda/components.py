"""Wakanda components as data (``docs/rules/wakanda.md``, "Components" and "Scoring"; actions: ``actions.py``).

Pieces and villages are small ints inside; their names appear only at the
edges (options, ``to_dict``, descriptions). Village kinds 0..5 are named
after the piece they score, so ``EAGLE`` is both the eagle piece and the
eagle village.
"""

PIECES = ("eagle", "chief", "tomahawk", "skin", "tipi", "sun")
PIECE_COUNTS = (1, 2, 3, 4, 5, 6)  # 21 pieces in the bag
NUM_PIECE_KINDS = len(PIECES)
NUM_PIECES = sum(PIECE_COUNTS)
EAGLE, CHIEF, TOMAHAWK, SKIN, TIPI, SUN = range(NUM_PIECE_KINDS)
PIECE_OF_NAME = {name: k for k, name in enumerate(PIECES)}
#: The full bag, in kind order (shuffled once per game).
ALL_PIECES = tuple(k for k, count in enumerate(PIECE_COUNTS) for _ in range(count))

VILLAGES = PIECES + ("variety", "height")
NUM_VILLAGE_KINDS = len(VILLAGES)
VARIETY, HEIGHT = 6, 7
VILLAGE_OF_NAME = {name: k for k, name in enumerate(VILLAGES)}
#: Points per piece of the village's own symbol (eagle .. sun).
POINTS_PER_PIECE = (8, 5, 4, 3, 2, 1)
VARIETY_POINTS = 2  # per distinct symbol on the owner's totems
HEIGHT_POINTS = 2  # per piece of the owner's tallest totem
SUN_PENALTY = 1  # per sun, for every player who does not own the sun village
MIN_SCORE = -6  # six suns, sun village not owned
MAX_SCORE = 66  # height (2 x 21) and two villages paying at most 12 (tomahawk, skin, variety)

NUM_SLOTS = 6  # villages in play, in line order
NUM_REMOVED = NUM_VILLAGE_KINDS - NUM_SLOTS  # back in the box, unseen
FIRST_AVAILABLE = 3  # the first three are available; the other three are tilted
HEADDRESSES = 3  # per player
NUM_PLAYERS = 2
FIRST_PLAYER = 0  # player_0 starts (and draws first)
