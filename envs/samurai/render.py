"""Samurai pictures: a text hex map and an RGB hex-map image (action descriptions: ``actions.describe_action``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from envs.core.render import INK, PLAYER_COLORS, PLAYER_LETTERS, new_canvas, player_label, to_array
from envs.samurai.board import HEX_KIND, HEX_X, HEX_Y, LAND, NUM_HEXES, SEA, SETTLEMENT_INDEX
from envs.samurai.components import FIGURE_TYPES, PLAY, TILE_NAMES, describe_tile

if TYPE_CHECKING:
    from envs.samurai.rules import SamuraiState

#: Two-letter tile codes on the map: type/samurai/ronin(N)/ship(W)/tile swap(T) and value.
CODES = tuple(
    ("S" if name.startswith("samurai") else "W" if name.startswith("ship") else name[0].upper()) + name[-1]
    if name[-1].isdigit()
    else {"ronin": "N1", "tile_swap": "T0", "figure_swap": "F-"}[name]
    for name in TILE_NAMES
)
FIGURE_LETTERS = "hbr"


def _cell(state: SamuraiState, h: int) -> str:
    if state.tile[h] >= 0:
        return f"{PLAYER_LETTERS[state.owner[h]]}:{CODES[state.tile[h]]}"
    if HEX_KIND[h] == SEA:
        return "~"
    if HEX_KIND[h] == LAND:
        return "."
    return "[" + "".join(FIGURE_LETTERS[t] for t in state.figures[SETTLEMENT_INDEX[h]]) + "]"


def status_lines(state: SamuraiState, perspective: int | None = None) -> list[str]:
    """The public situation below the map, and one hand: ``perspective``'s, or (None) the
    player to act's."""
    game = state.game
    lines = [f"Samurai - {game.num_players} players - turn {state.turn_number}, phase {state.phase}"]
    for p in range(game.num_players):
        caught = " ".join(f"{t} {c}" for t, c in zip(FIGURE_TYPES, state.captured[p]))
        lines.append(f"  {player_label(p)}: captured {caught}; hand {len(state.hands[p])}, pile {len(state.piles[p])}")
    lines.append(
        "  set aside: "
        + " ".join(f"{t} {c}" for t, c in zip(FIGURE_TYPES, state.set_aside))
        + "; on the board: "
        + " ".join(f"{t} {c}" for t, c in zip(FIGURE_TYPES, state.figures_on_board))
    )
    if state.current_player is None:
        winners = ", ".join(player_label(p) for p in state.winners())
        lines.append(f"  game over - winner{'s' if len(state.winners()) > 1 else ''}: {winners}")
        return lines
    p = state.current_player if perspective is None else perspective
    hand = ", ".join(describe_tile(k) for k in sorted(state.hands[p]))
    lines.append(f"  to act: {player_label(state.current_player)}; hand of {player_label(p)}: {hand or '-'}")
    if state.phase == PLAY:
        played = ", ".join(describe_tile(k) for k in state.played) or "nothing"
        doing = f"; choosing targets for {describe_tile(state.pending)}" if state.pending >= 0 else ""
        lines.append(f"  played this turn: {played}{doing}")
    return lines


def render_text(state: SamuraiState, perspective: int | None = None) -> str:
    """The map in odd-q columns (odd columns half a row lower), then the status.
    Tiles are ``owner:code`` (H B R type tiles, S samurai, N ronin, W ship, T tile swap,
    with the value); settlements show their figures ``[hbr]``; ``~`` sea, ``.`` land."""
    on = [h for h in range(NUM_HEXES) if state.layout.on_board[h]]
    x0, y0, y1 = min(HEX_X[h] for h in on), min(HEX_Y[h] for h in on), max(HEX_Y[h] for h in on)
    width = (max(HEX_X[h] for h in on) - x0 + 1) * 6
    rows = [[" "] * width for _ in range(2 * (y1 - y0 + 1) + 1)]
    for h in on:
        text = _cell(state, h).center(6)
        row, col = 2 * (HEX_Y[h] - y0) + HEX_X[h] % 2, (HEX_X[h] - x0) * 6
        rows[row][col : col + 6] = text
    lines = ["".join(r).rstrip() for r in rows]
    return "\n".join([line for line in lines if line] + status_lines(state, perspective))


SEA_COLOR, LAND_COLOR, TOWN_COLOR = (120, 165, 215), (205, 190, 140), (240, 230, 200)
FIGURE_COLORS = ((110, 110, 120), (225, 170, 40), (90, 160, 70))


def render_image(state: SamuraiState) -> np.ndarray:
    """Flat-top hexes: sea, land, settlements with their figures (h b r discs), tiles in
    player colours with their code; the status beside the map."""
    radius, margin, panel = 18, 12, 440
    on = [h for h in range(NUM_HEXES) if state.layout.on_board[h]]
    x0, y0 = min(HEX_X[h] for h in on), min(HEX_Y[h] for h in on)
    step_y = math.sqrt(3) * radius
    cols = max(HEX_X[h] for h in on) - x0 + 1
    rows = max(HEX_Y[h] for h in on) - y0 + 2
    width = int(margin * 2 + cols * 1.5 * radius + radius) + panel
    height = max(int(margin * 2 + rows * step_y), 260)
    image, draw, font = new_canvas(width, height)
    for h in on:
        cx = margin + radius + (HEX_X[h] - x0) * 1.5 * radius
        cy = margin + step_y / 2 + (HEX_Y[h] - y0 + 0.5 * (HEX_X[h] % 2)) * step_y
        corners = [(cx + radius * math.cos(math.pi / 3 * i), cy + radius * math.sin(math.pi / 3 * i)) for i in range(6)]
        kind, tile = HEX_KIND[h], state.tile[h]
        fill = (
            PLAYER_COLORS[state.owner[h]]
            if tile >= 0
            else SEA_COLOR
            if kind == SEA
            else (LAND_COLOR if kind == LAND else TOWN_COLOR)
        )
        draw.polygon(corners, fill=fill, outline=(90, 90, 90))
        if tile >= 0:
            draw.text((cx - 6, cy - 6), CODES[tile], fill=(255, 255, 255), font=font)
        elif kind not in (SEA, LAND):
            figures = state.figures[SETTLEMENT_INDEX[h]]
            draw.polygon(corners, outline=INK)
            for i, t in enumerate(figures):
                fx = cx + (i - (len(figures) - 1) / 2) * 11
                draw.ellipse([fx - 5, cy - 5, fx + 5, cy + 5], fill=FIGURE_COLORS[t], outline=INK)
                draw.text((fx - 3, cy - 6), FIGURE_LETTERS[t], fill=(255, 255, 255), font=font)
    text_x = width - panel + 4
    for i, line in enumerate(status_lines(state)):
        draw.text((text_x, margin + 14 * i), line.strip(), fill=INK, font=font)
    for p in range(state.game.num_players):
        y = margin + 14 * (len(status_lines(state)) + 1 + p)
        draw.rectangle([text_x, y, text_x + 10, y + 10], fill=PLAYER_COLORS[p])
        draw.text((text_x + 16, y), f"{PLAYER_LETTERS[p]}", fill=INK, font=font)
    draw.text((text_x, height - 34), "tiles: H B R helmet/buddha/rice, S samurai, N ronin,", fill=INK, font=font)
    draw.text((text_x, height - 20), "W ship, T tile swap (with value); figures: h b r", fill=INK, font=font)
    return to_array(image)
