// Samurai: the hex map of Japan (flat-top hexes, odd columns half a hex lower) with tiles and
// figures; below it your hand. A turn is several clicks: a tile from the hand, then its hex
// (a figure swap: two figures; a tile swap: your tile on the board, then an empty land hex).
"use strict";
const SAMURAI_COLORS = {sea: "#78a5d7", land: "#cdbe8c", settlement: "#f0e6c8"};
const FIGURE_COLORS = {helmet: "#6e6e78", buddha: "#e1aa28", rice: "#5aa046"};

function tileCode(kind) {
  if (kind === "figure_swap") return "F";
  if (kind === "tile_swap") return "T0";
  if (kind === "ronin") return "N1";
  const value = kind.slice(-1), name = kind.slice(0, -1);
  return ({helmet: "H", buddha: "B", rice: "R", samurai: "S", ship: "W"})[name] + value;
}

BOARDS.samurai = {
  draw(board, ctx) {
    const R = 22, step = Math.sqrt(3) * R, margin = 10;
    const hexes = ctx.static.hexes, xs = hexes.map(h => h.x), ys = hexes.map(h => h.y);
    const x0 = Math.min(...xs), y0 = Math.min(...ys);
    const mapWidth = 2 * margin + (Math.max(...xs) - x0) * 1.5 * R + 2 * R;
    const mapHeight = 2 * margin + (Math.max(...ys) - y0 + 1.5) * step;
    const width = Math.max(mapWidth, 560), height = mapHeight + 150;
    const svg = svgRoot(Math.round(width), Math.round(height));
    const turn = board.turn;
    for (const hex of hexes) {
      const tile = board.tiles[hex.id];
      const cx = margin + R + (hex.x - x0) * 1.5 * R;
      const cy = margin + step / 2 + (hex.y - y0 + 0.5 * (hex.x % 2)) * step;
      const corners = [0, 1, 2, 3, 4, 5].map(i => {
        const angle = Math.PI / 3 * i;
        return `${cx + R * Math.cos(angle)},${cy + R * Math.sin(angle)}`;
      });
      // a settlement is never a tile's target: only its figures are clicked
      const title = this.hexTitle(hex, board);
      const group = hex.kind === "settlement" ? el("g", {}, svg) : clickable(svg, hex.action, ctx, title);
      group.setAttribute("data-hex", hex.id);
      if (hex.kind === "settlement") el("title", {}, group).textContent = title;
      if (turn.swap_from === hex.id) group.classList.add("selected");
      const fill = tile ? PLAYER_COLORS[tile.owner] : SAMURAI_COLORS[hex.kind];
      el("polygon", {class: "hit", points: corners.join(" "), fill: fill, stroke: "#5a5a5a"}, group);
      if (tile) label(group, cx, cy, tileCode(tile.kind), {fill: "white", "font-weight": 700, "font-size": 11});
      if (hex.kind === "settlement") this.drawFigures(svg, hex, board.figures[hex.id], cx, cy, ctx, turn);
    }
    this.drawHand(svg, board, ctx, mapHeight + 8, width);
    return svg;
  },

  hexTitle(hex, board) {
    const tile = board.tiles[hex.id];
    if (hex.kind === "settlement") {
      return `${hex.name} (hex ${hex.id}): ${board.figures[hex.id].join(", ") || "no figures"}`;
    }
    if (tile) return `hex ${hex.id}: ${tile.text} of ${PLAYER_LETTERS[tile.owner]}`;
    return `hex ${hex.id} (${hex.kind})`;
  },

  // The figures standing there (each a click for a figure swap); in the draft, the types that may go there.
  drawFigures(svg, hex, figures, cx, cy, ctx, turn) {
    const shown = figures.slice();
    for (const [type, action] of Object.entries(hex.figure_actions)) {
      if (!shown.includes(type) && ctx.legal.has(action)) shown.push(type);
    }
    shown.forEach((type, i) => {
      const fx = cx + (i - (shown.length - 1) / 2) * 12, ghost = !figures.includes(type);
      const group = clickable(svg, hex.figure_actions[type], ctx, `${type} on ${hex.name} (hex ${hex.id})`);
      const first = turn.first_figure;
      if (first && first.settlement === hex.id && first.type === type) group.classList.add("selected");
      el("circle", {class: "hit", cx: fx, cy: cy, r: 6, fill: FIGURE_COLORS[type], stroke: "#1e1e1e",
        "stroke-dasharray": ghost ? "2 2" : "none", opacity: ghost ? 0.6 : 1}, group);
      label(group, fx, cy, type[0], {fill: "white", "font-size": 8, "font-weight": 700});
    });
    if (!figures.length && !shown.length) {
      el("circle", {cx: cx, cy: cy, r: 4, fill: "none", stroke: "#8a8a8a"}, svg);
    }
  },

  drawHand(svg, board, ctx, y, width) {
    const choosing = board.pile !== null;
    label(svg, 12, y + 10, choosing ? "Choose your starting hand from your tiles:" : "Your hand:",
      {"text-anchor": "start", "font-size": 13, "font-weight": 700});
    const tiles = choosing ? board.pile : board.hand;
    const pending = choosing ? -1 : board.hand.findIndex(t => t.text === board.turn.pending);
    tiles.forEach((tile, i) => {
      const x = 12 + (i % 10) * 54, ty = y + 22 + Math.floor(i / 10) * 40;
      const group = clickable(svg, tile.action, ctx, tile.text + (tile.quick ? " (quick)" : ""));
      if (i === pending) group.classList.add("selected");
      el("rect", {class: "hit", x: x, y: ty, width: 48, height: 34, rx: 5,
        fill: PLAYER_COLORS[ctx.seat], stroke: "#1e1e1e", "stroke-dasharray": tile.quick ? "4 2" : "none"}, group);
      label(group, x + 24, ty + 17, tileCode(tile.kind), {fill: "white", "font-weight": 700});
    });
    if (!choosing) {
      const group = clickable(svg, ctx.static.end_turn, ctx, "end the turn");
      el("rect", {class: "hit", x: width - 112, y: y + 22, width: 100, height: 34, rx: 6, fill: "#f0e6d0",
        stroke: "#1e1e1e"}, group);
      label(group, width - 62, y + 39, "end turn");
      const played = board.turn.played.length ? board.turn.played.join(", ") : "nothing yet";
      label(svg, 12, y + 80, `Played this turn: ${played}`, {"text-anchor": "start", "font-size": 12});
    }
    label(svg, 12, y + 100, "Tiles: H B R helmet/buddha/rice, S samurai, N ronin, W ship, T tile swap, F figure swap;"
      + " dashed = quick", {"text-anchor": "start", "font-size": 10});
  },

  hint(view) {
    const board = view.board, turn = board.turn;
    if (board.phase === "choose_hand") return "Choose your five starting tiles, one click each.";
    if (board.phase === "draft") return "Draft: click a figure type on a settlement to place that figure.";
    if (turn.pending === "figure swap") {
      return turn.first_figure ? `Figure swap: now click the figure to exchange with the ${turn.first_figure.type}.`
        : "Figure swap: click the first figure to exchange.";
    }
    if (turn.pending === "tile swap") {
      return turn.swap_from === null ? "Tile swap: click one of your tiles on the board to pick it up."
        : `Tile swap: click the empty land hex where the tile from hex ${turn.swap_from} goes.`;
    }
    if (turn.pending) return `Click a hex for your ${turn.pending}.`;
    return turn.played.length ? "Play another (quick) tile from your hand, or end the turn."
      : "Choose a tile from your hand.";
  },

  seatInfo(board, p) {
    const c = board.players[p].captured, player = board.players[p];
    return `captured helmet ${c.helmet}, buddha ${c.buddha}, rice ${c.rice}; `
      + `hand ${player.hand_size}, pile ${player.pile_size}`;
  },
};
