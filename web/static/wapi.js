// Wapi: six mines side by side, each with its silver fields, mask fields and totem poles.
"use strict";
BOARDS.wapi = {
  draw(board, ctx) {
    const col = 122, width = 20 + col * board.mines.length, height = 330, rules = ctx.static;
    const svg = svgRoot(width, height);
    const drawn = board.drawn;
    label(svg, 12, 16, `Silver placed ${board.coins_placed}/${rules.coins_to_end} · ${rules.scoring} scoring`,
      {"text-anchor": "start", "font-size": 14});
    if (drawn) {
      label(svg, width - 12, 16, `Drawn: ${drawn.text}`, {"text-anchor": "end", "font-size": 14, "font-weight": 700});
    }
    board.mines.forEach((mine, k) => {
      const x = 10 + k * col;
      const group = clickable(svg, mine.action, ctx, `mine ${k}`);
      const maskDrawn = drawn && drawn.kind === "mask" && drawn.mine === k;
      el("rect", {class: "hit", x: x + 3, y: 32, width: col - 8, height: 228, rx: 8,
        fill: maskDrawn ? "#ead9b5" : "#cdbea0", stroke: "#1e1e1e"}, group);
      label(group, x + col / 2 - 1, 48, `mine ${k} = ${mine.value}`, {"font-weight": 700});
      for (let i = 0; i < rules.silver_fields; i++) {
        const cx = x + 26 + (i % 3) * 34, cy = 76 + Math.floor(i / 3) * 34;
        const filled = i < mine.silver.length;
        el("circle", {cx: cx, cy: cy, r: 14, fill: filled ? "#c0c0c8" : "none", stroke: "#1e1e1e"}, group);
        if (filled) label(group, cx, cy, mine.silver[i], {"font-weight": 700});
      }
      for (let i = 0; i < rules.mask_fields; i++) {
        el("rect", {x: x + 12 + i * 25, y: 140, width: 19, height: 19,
          fill: i < mine.masks ? "#784628" : "none", stroke: "#1e1e1e"}, group);
      }
      mine.totems.forEach((player, i) => {
        const tx = x + 14 + i * 25;
        el("rect", {x: tx, y: 172, width: 18, height: 78, rx: 3, fill: PLAYER_COLORS[player], stroke: "#1e1e1e"},
          group);
        label(group, tx + 9, 211, PLAYER_LETTERS[player], {fill: "white", "font-weight": 700});
      });
    });
    if (drawn && drawn.kind === "mask") {
      const group = clickable(svg, rules.decline, ctx, "no totem");
      el("rect", {class: "hit", x: width - 132, y: 270, width: 120, height: 28, rx: 6, fill: "#f0e6d0",
        stroke: "#1e1e1e"}, group);
      label(group, width - 72, 284, "no totem");
    }
    const bag = Object.entries(board.bag).filter(([, n]) => n > 0).map(([kind, n]) => `${kind}×${n}`).join("  ");
    label(svg, 12, 316, `In the bag: ${bag || "nothing"}`, {"text-anchor": "start", "font-size": 11});
    return svg;
  },

  hint(view) {
    const drawn = view.board.drawn;
    if (!drawn) return "";
    if (drawn.kind === "silver") return `You drew a silver coin worth ${drawn.value}: click a mine to put it in.`;
    return `You drew the mask of mine ${drawn.mine}: click that mine to put a totem on it, or "no totem".`;
  },

  seatInfo(board, p) {
    return `${board.points[p]} points, ${board.totems_left[p]} totems left`;
  },
};
