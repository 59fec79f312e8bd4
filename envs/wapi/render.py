"""Wapi pictures: a text board for terminals and logs, and an RGB image."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.render import INK, PLAYER_COLORS, PLAYER_LETTERS, new_canvas, player_label, to_array
from envs.wapi.components import (
    COINS_TO_END,
    MASK_FIELDS,
    NUM_MINES,
    SILVER_FIELDS,
    describe_tile,
)

if TYPE_CHECKING:
    from envs.wapi.rules import WapiState


def _fmt(score: float) -> str:
    return f"{score:g}" if score == int(score) else f"{score:.2f}"


def render_text(state: WapiState, perspective: int | None = None) -> str:
    """The mines, their silver, masks and poles, and the scores. Everything in Wapi is public,
    so every ``perspective`` (checked by the game) gets the same picture."""
    game = state.game
    lines = [
        f"Wapi - {game.num_players} players{' (unofficial)' if game.num_players == 2 else ''}, "
        f"{game.scoring} scoring - silver {state.coins_placed}/{COINS_TO_END}, {len(state.bag)} tiles in the bag"
    ]
    for k in range(NUM_MINES):
        coins = " ".join(str(v) for v in state.silver[k]) + " _" * (SILVER_FIELDS - len(state.silver[k]))
        masks = "#" * state.masks[k] + "." * (MASK_FIELDS - state.masks[k])
        poles = " ".join(PLAYER_LETTERS[p] for p in state.totems[k]) or "-"
        value = state.mine_value(k)
        lines.append(f"  mine {k}: silver [{coins.strip()}] = {value:>2}   masks {masks}   totems {poles}")
    left = "  ".join(f"{PLAYER_LETTERS[p]}:{t}" for p, t in enumerate(state.totems_left))
    scores = "  ".join(f"{PLAYER_LETTERS[p]}:{_fmt(s)}" for p, s in enumerate(state.scores()))
    lines.append(f"  totems left  {left}")
    lines.append(f"  scores       {scores}")
    if state.current_player is None:
        winners = ", ".join(player_label(p) for p in state.winners())
        lines.append(f"  game over - winner{'s' if len(state.winners()) > 1 else ''}: {winners}")
    else:
        lines.append(f"  {player_label(state.current_player)} drew a {describe_tile(state.drawn)}")
    return "\n".join(lines)


def render_image(state: WapiState) -> np.ndarray:
    """Six mines side by side: coins (circles with their value), masks, coloured totem poles."""
    col, width, height = 110, 110 * NUM_MINES + 20, 330
    image, draw, font = new_canvas(width, height)
    for k in range(NUM_MINES):
        x = 10 + k * col
        draw.rectangle([x + 4, 40, x + col - 4, 250], outline=INK, fill=(205, 190, 160))
        draw.text((x + 10, 44), f"mine {k}  = {state.mine_value(k)}", fill=INK, font=font)
        for i in range(SILVER_FIELDS):
            cx, cy = x + 20 + (i % 3) * 30, 75 + (i // 3) * 30
            filled = i < len(state.silver[k])
            draw.ellipse([cx - 12, cy - 12, cx + 12, cy + 12], outline=INK, fill=(192, 192, 200) if filled else None)
            if filled:
                draw.text((cx - 3, cy - 6), str(state.silver[k][i]), fill=INK, font=font)
        for i in range(MASK_FIELDS):
            mx = x + 10 + i * 24
            draw.rectangle([mx, 140, mx + 18, 158], outline=INK, fill=(120, 70, 40) if i < state.masks[k] else None)
        for i, player in enumerate(state.totems[k]):
            tx = x + 12 + i * 24
            draw.rectangle([tx, 175, tx + 16, 240], outline=INK, fill=PLAYER_COLORS[player])
            draw.text((tx + 4, 200), PLAYER_LETTERS[player], fill=(255, 255, 255), font=font)
    y = 262
    for p, score in enumerate(state.scores()):
        x = 10 + p * 130
        draw.rectangle([x, y, x + 12, y + 12], fill=PLAYER_COLORS[p])
        draw.text((x + 18, y), f"{PLAYER_LETTERS[p]}: {_fmt(score)} ({state.totems_left[p]} left)", fill=INK, font=font)
    status = (
        "game over"
        if state.current_player is None
        else (f"{player_label(state.current_player)} drew a {describe_tile(state.drawn)}")
    )
    draw.text((10, 12), f"Wapi - silver {state.coins_placed}/{COINS_TO_END} - {status}", fill=INK, font=font)
    draw.text((10, 290), f"{game_line(state)}", fill=INK, font=font)
    return to_array(image)


def game_line(state: WapiState) -> str:
    return f"{state.game.num_players} players, {state.game.scoring} scoring, {len(state.bag)} tiles in the bag"
