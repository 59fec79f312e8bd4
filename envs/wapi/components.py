"""Wapi components as data (``docs/rules/wapi.md``, "Components"); the actions are in ``actions.py``."""

NUM_MINES = 6
SILVER_FIELDS = 5  # per mine
MASK_FIELDS = 4  # per mine, one mask tile per field
TOTEMS_PER_PLAYER = 3
COINS_TO_END = 30  # the game ends when the 30th silver field is filled
COIN_VALUES = (0, 1, 2, 3, 5)
DEFAULT_COINS = {0: 8, 1: 12, 2: 12, 3: 8, 5: 8}  # ours: no source gives the split
MAX_COINS = 1000  # ours: the most coins a configured bag may hold (a bound, so a typo cannot exhaust memory)
MAX_MINE_VALUE = max(COIN_VALUES) * SILVER_FIELDS
MAX_SCORE = TOTEMS_PER_PLAYER * MAX_MINE_VALUE  # the most one player's poles can score
NUM_TILE_KINDS = len(COIN_VALUES) + NUM_MINES
TILE_CODES = tuple(f"S{v}" for v in COIN_VALUES) + tuple(f"M{k}" for k in range(NUM_MINES))
TILE_OF_CODE = {code: t for t, code in enumerate(TILE_CODES)}
FIRST_MASK = len(COIN_VALUES)

SCORINGS = ("full", "shared")
PLAYER_COUNTS = (2, 3, 4, 5)  # 2 is our unofficial variant


def is_coin(tile: int) -> bool:
    """Silver coin tiles come first, then the masks."""
    return tile < FIRST_MASK


def mask_mine(tile: int) -> int:
    """The mine whose symbol a mask tile shows."""
    return tile - FIRST_MASK


def describe_tile(tile: int) -> str:
    """A tile in words: ``silver coin 3``, ``mask of mine 2``."""
    return f"silver coin {COIN_VALUES[tile]}" if is_coin(tile) else f"mask of mine {mask_mine(tile)}"
