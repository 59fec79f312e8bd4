// Small SVG helpers shared by the three boards, and the players' colours (as in envs/core/render.py).
"use strict";
const SVG_NS = "http://www.w3.org/2000/svg";
const PLAYER_COLORS = ["rgb(214,39,40)", "rgb(31,119,180)", "rgb(44,160,44)", "rgb(255,127,14)", "rgb(148,103,189)"];
const PLAYER_LETTERS = "ABCDE";
const BOARDS = {};  // game name -> {draw(board, ctx) -> <svg>, hint(view, ctx) -> text}

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function label(parent, x, y, text, attrs) {
  const node = el("text", Object.assign({x: x, y: y, "text-anchor": "middle", "dominant-baseline": "central",
    "font-size": 12}, attrs || {}), parent);
  node.textContent = text;
  return node;
}

function svgRoot(width, height) {
  return el("svg", {viewBox: `0 0 ${width} ${height}`, width: width, height: height, xmlns: SVG_NS});
}

// A group that a click turns into `action` (sent to the server, which judges it); `legal` outlines it.
function clickable(parent, action, ctx, title) {
  const group = el("g", {"data-action": action}, parent);
  if (ctx.legal.has(action)) group.classList.add("legal");
  if (title) el("title", {}, group).textContent = title;
  return group;
}
