// Wakanda: the line of six villages with their totems; below, both supplies. Choose a piece
// from your supply, then click a village to build it there; the headdress button finishes a totem.
"use strict";
const WAKANDA_COLORS = {eagle: "#f5f5f5", chief: "#962878", tomahawk: "#6e6e6e", skin: "#a56e3c", tipi: "#3c963c",
  sun: "#fac800", variety: "#5aaac8", height: "#c878a0"};
const WAKANDA_INK = {eagle: "#1e1e1e", sun: "#1e1e1e"};

BOARDS.wakanda = {
  draw(board, ctx) {
    const col = 128, width = 20 + col * 6, top = 30, height = 490;
    const svg = svgRoot(width, height);
    const selected = ctx.selected, actions = ctx.static.villages;
    label(svg, 12, 14, ctx.static.advanced ? "Advanced rules: tilted villages lie face down" : "Basic rules",
      {"text-anchor": "start", "font-size": 13});
    board.villages.forEach((village, slot) => {
      const x = 10 + slot * col;
      const build = selected ? actions[slot].build[selected] : null;
      const card = build === null ? el("g", {}, svg) : clickable(svg, build, ctx, `village ${slot}`);
      card.setAttribute("data-village", slot);
      const fill = village.kind ? WAKANDA_COLORS[village.kind] : "#5a4632";
      el("rect", {class: "hit", x: x + 3, y: top, width: col - 8, height: 300, rx: 8, stroke: "#1e1e1e",
        fill: village.status === "tilted" ? "#d9d0bd" : "#fffdf6"}, card);
      el("rect", {x: x + 10, y: top + 8, width: col - 22, height: 26, rx: 4, fill: fill, stroke: "#1e1e1e"}, card);
      label(card, x + col / 2 - 1, top + 21, village.kind || "face down",
        {"font-weight": 700, fill: village.kind ? (WAKANDA_INK[village.kind] || "white") : "white"});
      label(card, x + col / 2 - 1, top + 48, `${slot}: ${village.status}`, {"font-size": 11});
      const size = Math.min(22, 220 / Math.max(1, village.totem.length));
      village.totem.forEach((piece, level) => {
        const y = top + 290 - (level + 1) * size;
        el("rect", {x: x + 30, y: y, width: col - 66, height: size - 2, rx: 3, fill: WAKANDA_COLORS[piece],
          stroke: "#1e1e1e"}, card);
        if (size >= 12) {
          label(card, x + col / 2 - 1, y + size / 2 - 1, piece, {fill: WAKANDA_INK[piece] || "white", "font-size": 10});
        }
      });
      if (village.owner !== null) {
        const headdress = [[40, 66], [62, 56], [84, 66], [62, 80]].map(([dx, dy]) => `${x + dx},${top + dy}`);
        el("polygon", {points: headdress.join(" "), fill: PLAYER_COLORS[village.owner], stroke: "#1e1e1e"}, card);
      } else if (village.status === "open") {
        const finish = clickable(svg, actions[slot].finish, ctx, `finish the totem on village ${slot}`);
        el("rect", {class: "hit", x: x + 24, y: top + 58, width: col - 56, height: 22, rx: 5, fill: "#f0e6d0",
          stroke: "#1e1e1e"}, finish);
        label(finish, x + col / 2 - 1, top + 69, "finish", {"font-size": 11});
      }
    });
    this.drawSupplies(svg, board, ctx, top + 320);
    return svg;
  },

  drawSupplies(svg, board, ctx, y0) {
    board.supplies.forEach((supply, player) => {
      const y = y0 + player * 56, mine = player === ctx.seat;
      const left = board.headdresses[player];
      const title = `${PLAYER_LETTERS[player]} ${ctx.players[player]}: supply, ${left} headdresses left`;
      label(svg, 12, y + 10, title, {"text-anchor": "start", "font-size": 12, fill: PLAYER_COLORS[player],
        "font-weight": 700});
      ctx.static.pieces.forEach((piece, i) => {
        const x = 12 + i * 92, count = supply[piece];
        const usable = mine && ctx.static.villages.some(v => ctx.legal.has(v.build[piece]));
        const chip = el("g", mine && count ? {"data-select": piece} : {}, svg);
        if (usable) chip.classList.add("legal");
        if (mine && ctx.selected === piece) chip.classList.add("selected");
        el("rect", {class: "hit", x: x, y: y + 20, width: 86, height: 26, rx: 5, fill: WAKANDA_COLORS[piece],
          stroke: "#1e1e1e", opacity: count ? 1 : 0.3}, chip);
        label(chip, x + 43, y + 33, `${piece} ×${count}`, {fill: WAKANDA_INK[piece] || "white", "font-size": 11});
      });
    });
    const bag = Object.entries(board.bag).filter(([, n]) => n > 0).map(([p, n]) => `${p}×${n}`).join("  ");
    label(svg, 12, y0 + 122, `In the bag: ${bag || "nothing"}`, {"text-anchor": "start", "font-size": 11});
  },

  hint(view, ctx) {
    if (ctx.selected) return `Click a village to build your ${ctx.selected} there (or choose another piece).`;
    return "Choose a piece from your supply and then a village, or finish a totem with a headdress.";
  },

  seatInfo(board, p) {
    return `${board.points[p]} points, ${board.headdresses[p]} headdresses left`;
  },
};
