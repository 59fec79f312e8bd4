"""Rendering helpers shared by every game: player colours and letters, a PIL canvas."""

from __future__ import annotations

import numpy as np

PLAYER_LETTERS = "ABCDE"
PLAYER_COLORS = [(214, 39, 40), (31, 119, 180), (44, 160, 44), (255, 127, 14), (148, 103, 189)]
INK = (30, 30, 30)
PAPER = (245, 240, 225)


def player_label(player: int) -> str:
    """``"A (player_0)"``: the letter used on boards, with the agent name."""
    return f"{PLAYER_LETTERS[player]} (player_{player})"


def new_canvas(width: int, height: int, color: tuple[int, int, int] = PAPER):
    """A blank PIL image with a drawing context and the default font."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (width, height), color)
    return image, ImageDraw.Draw(image), ImageFont.load_default()


def to_array(image) -> np.ndarray:
    """A PIL image as an H x W x 3 uint8 array."""
    return np.asarray(image, dtype=np.uint8).copy()
