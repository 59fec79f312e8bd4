"""Wakanda pictures: the village line with its totem stacks, as text and as an RGB image.

Both show what the players see: face-down villages (advanced rules) stay
face down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.render import INK, PLAYER_COLORS, PLAYER_LETTERS, new_canvas, player_label, to_array
from envs.wakanda.components import NUM_PIECE_KINDS, NUM_SLOTS, PIECES

if TYPE_CHECKING:
    from envs.wakanda.rules import WakandaState

ABBREVIATIONS = ("EAG", "CHF", "TOM", "SKN", "TIP", "SUN")
PIECE_COLORS = ((245, 245, 245), (150, 40, 120), (110, 110, 110), (165, 110, 60), (60, 150, 60), (250, 200, 0))
VILLAGE_COLORS = PIECE_COLORS + ((90, 170, 200), (200, 120, 160))  # variety, height
FACE_DOWN = (90, 70, 50)
COLUMN = 12


def supply_text(state: WakandaState, player: int) -> str:
    supply = state.supplies[player]
    return ", ".join(f"{supply[k]} {PIECES[k]}" for k in range(NUM_PIECE_KINDS) if supply[k]) or "empty"


def status_text(state: WakandaState) -> str:
    if state.current_player is not None:
        return f"{player_label(state.current_player)} to act"
    winner = state.winner()
    return "game over - " + ("a draw" if winner is None else f"winner: {player_label(winner)}")


def render_text(state: WakandaState, perspective: int | None = None) -> str:
    """The village line as columns, each totem a stack (top piece first), owners above. Everything
    shown is public, so every ``perspective`` (checked by the game) gets the same picture."""
    rules = "advanced" if state.game.advanced else "basic"
    lines = [f"Wakanda ({rules}) - {status_text(state)} - {len(state.bag)} pieces in the bag"]
    lines.append("  " + "".join(f"{v:<{COLUMN}}" for v in range(NUM_SLOTS)))
    lines.append("  " + "".join(f"{state.village_label(v)[: COLUMN - 1]:<{COLUMN}}" for v in range(NUM_SLOTS)))
    marks = []
    for v in range(NUM_SLOTS):
        owner = state.owner[v]
        if owner is not None:
            marks.append("owned " + PLAYER_LETTERS[owner])
        else:
            marks.append("open" if v < state.revealed else "tilted")
    lines.append("  " + "".join(f"{m:<{COLUMN}}" for m in marks))
    tallest = max((len(t) for t in state.totems), default=0)
    for level in range(tallest - 1, -1, -1):
        cells = [ABBREVIATIONS[t[level]] if level < len(t) else "" for t in state.totems]
        lines.append("  " + "".join(f"{c:<{COLUMN}}" for c in cells))
    lines.append("  " + "".join(f"{'-' * (COLUMN - 2):<{COLUMN}}" for _ in range(NUM_SLOTS)))
    scores = state.int_scores()
    for p in range(2):
        lines.append(
            f"  {player_label(p)}: score {scores[p]:>3}, headdresses {state.headdresses[p]}, "
            f"supply: {supply_text(state, p)}"
        )
    return "\n".join(lines)


def render_image(state: WakandaState) -> np.ndarray:
    """Six village tiles in a line (tilted ones turned aside), totems as stacks of coloured blocks."""
    col, block, width, height = 120, 22, 120 * NUM_SLOTS + 20, 700
    base = 600
    image, draw, font = new_canvas(width, height)
    draw.text(
        (10, 10),
        f"Wakanda ({'advanced' if state.game.advanced else 'basic'}) - {status_text(state)} - "
        f"{len(state.bag)} pieces in the bag",
        fill=INK,
        font=font,
    )
    for v in range(NUM_SLOTS):
        x = 10 + v * col
        cx = x + col // 2
        if v < state.revealed:  # upright tile
            tile = [x + 10, base, x + col - 10, base + 50]
        else:  # tilted: turned 90 degrees, not yet available
            tile = [cx - 25, base - 10, cx + 25, base + 60]
        face_up = state.face_up(v)
        color = VILLAGE_COLORS[state.villages[v]] if face_up else FACE_DOWN
        draw.rectangle(tile, fill=color, outline=INK, width=2)
        draw.text(
            (tile[0] + 4, tile[1] + 4), state.village_label(v), fill=INK if face_up else (240, 240, 240), font=font
        )
        for level, piece in enumerate(state.totems[v]):
            y = base - 8 - (level + 1) * block
            draw.rectangle([cx - 24, y, cx + 24, y + block - 2], fill=PIECE_COLORS[piece], outline=INK)
            draw.text((cx - 10, y + 5), ABBREVIATIONS[piece], fill=INK if piece != 1 else (255, 255, 255), font=font)
        owner = state.owner[v]
        if owner is not None:  # the headdress on top
            y = base - 8 - (len(state.totems[v]) + 1) * block
            draw.polygon(
                [(cx - 28, y + block - 2), (cx, y), (cx + 28, y + block - 2)], fill=PLAYER_COLORS[owner], outline=INK
            )
            draw.text((cx - 3, y + 8), PLAYER_LETTERS[owner], fill=(255, 255, 255), font=font)
    scores = state.int_scores()
    for p in range(2):
        y = 665 + p * 16
        draw.rectangle([10, y, 22, y + 12], fill=PLAYER_COLORS[p])
        draw.text(
            (28, y),
            f"{PLAYER_LETTERS[p]}: score {scores[p]}, headdresses {state.headdresses[p]}, "
            f"supply: {supply_text(state, p)}",
            fill=INK,
            font=font,
        )
    return to_array(image)
