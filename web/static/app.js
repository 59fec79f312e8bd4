// The page: a set-up form built from /api/catalog, then the game through the JSON API only.
// The server judges every move: a click sends the action it means, and a refusal is shown.
"use strict";
const page = {
  catalog: null, id: null, view: null, static: null, selected: null, replay: null, replayAt: 0,
  delay: Number(new URLSearchParams(location.search).get("delay") ?? 450),
};
const $ = id => document.getElementById(id);

async function api(method, path, body) {
  const response = await fetch(path, {method: method, headers: {"Content-Type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.error || `HTTP ${response.status}`), {status: response.status});
  return data;
}

function setState(state) { document.body.dataset.state = state; }
function message(text) { $("message").textContent = text || ""; }
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

// --- set-up -------------------------------------------------------------------------------
function gameEntry() { return page.catalog.games.find(g => g.name === $("game").value); }

function optionInput(option) {
  const wrap = document.createElement("label");
  wrap.title = option.help;
  wrap.append(option.name.replace(/_/g, " ") + " ");
  let input;
  if (option.choices) {
    input = document.createElement("select");
    for (const choice of option.choices) input.add(new Option(String(choice), JSON.stringify(choice)));
    input.value = JSON.stringify(option.default);
  } else {
    input = document.createElement("input");
    input.placeholder = option.default === null ? "default" : JSON.stringify(option.default);
  }
  input.dataset.option = option.name;
  if (option.name === "num_players") input.addEventListener("change", renderSeats);
  else input.addEventListener("change", describeOpponents);  // a level's rating is per configuration
  wrap.append(input);
  return wrap;
}

function readConfig() {
  const config = {};
  for (const input of document.querySelectorAll("[data-option]")) {
    if (input.value === "") continue;
    try {
      config[input.dataset.option] = JSON.parse(input.value);
    } catch (error) {
      throw new Error(`${input.dataset.option} must be written in JSON, e.g. ${input.placeholder}`);
    }
  }
  return config;
}

function renderOptions() {
  $("options").replaceChildren(...gameEntry().options.map(optionInput));
  renderSeats();
}

function renderSeats() {
  const count = document.querySelector("[data-option=num_players]");
  const players = count ? JSON.parse(count.value) : gameEntry().num_players;
  const seat = Math.min(Number($("seat").value || 0), players - 1);
  const seats = Array.from({length: players}, (_, p) => new Option(`${PLAYER_LETTERS[p]} (player_${p})`, p));
  $("seat").replaceChildren(...seats);
  $("seat").value = seat;
  const rows = [];
  for (let i = 0; i < players - 1; i++) {
    const wrap = document.createElement("label");
    wrap.append(`Opponent ${i + 1} `);
    const select = document.createElement("select");
    select.className = "opponent";
    // the levels first (the default choice), then the agents by name under "advanced"
    for (const [group, label] of [["level", "Levels"], ["advanced", "Advanced: agents by name"]]) {
      const choices = page.catalog.opponents.filter(c => c.group === group);
      if (!choices.length) continue;
      const optgroup = document.createElement("optgroup");
      optgroup.label = label;
      for (const choice of choices) optgroup.append(new Option(choice.title, choice.name));
      select.append(optgroup);
    }
    const names = page.catalog.opponents.map(c => c.name);
    select.value = ["level:3", "heuristic"].find(name => names.includes(name)) ?? names[0];
    const think = document.createElement("input");
    Object.assign(think, {type: "number", min: "0.05", max: String(page.catalog.max_think), step: "0.05", value: "1",
      title: "seconds of thinking per turn"});
    think.className = "think";
    const about = document.createElement("span");
    about.className = "about";
    const sync = () => {
      const options = page.catalog.opponents.find(c => c.name === select.value).options;
      think.hidden = !("time_limit" in options);
      if (!think.hidden) think.value = options.time_limit;
      describeOpponents();
    };
    select.addEventListener("change", sync);
    wrap.append(select, think, about);
    rows.push(wrap);
    sync();
  }
  $("opponents").replaceChildren(...rows);
  describeOpponents();
}

// A level's measured rating on the chosen configuration (random 0, heuristic 1,000), or null.
function measuredRating(choice) {
  let config;
  try { config = readConfig(); } catch (error) { return null; }
  const game = gameEntry();
  const value = name => JSON.stringify(config[name] ?? game.options.find(o => o.name === name)?.default);
  return choice.ratings.find(r => r.game === game.name &&
    Object.entries(r.options).every(([name, v]) => value(name) === JSON.stringify(v))) ?? null;
}

// Beside each opponent: its rating where measured for this configuration, else what it is.
function describeOpponents() {
  for (const row of document.querySelectorAll("#opponents label")) {
    const select = row.querySelector(".opponent"), about = row.querySelector(".about");
    const choice = page.catalog.opponents.find(c => c.name === select.value);
    const rating = choice.ratings.length ? measuredRating(choice) : null;
    const bound = x => x === null ? "?" : x.toLocaleString("en");
    about.textContent = rating
      ? `rating ${bound(rating.rating)} [${bound(rating.low)}, ${bound(rating.high)}] (heuristic 1,000, ${rating.games} games)`
      : choice.help;
    select.title = choice.help;
  }
}

async function startGame(event) {
  event.preventDefault();
  message("");
  try {
    const opponents = [...document.querySelectorAll("#opponents label")].map(row => {
      const name = row.querySelector(".opponent").value, think = row.querySelector(".think");
      return think.hidden ? name : {name: name, time_limit: Number(think.value)};
    });
    const seed = $("seed").value === "" ? null : Number($("seed").value);
    const body = {game: $("game").value, config: readConfig(), seat: Number($("seat").value),
      opponents: opponents, seed: seed};
    setState("waiting");
    const created = await api("POST", "/api/games", body);
    page.id = created.id;
    page.selected = null;
    closeReplay();
    $("setup").hidden = true;
    $("play").hidden = false;
    await show(created.view);
  } catch (error) {
    setState("setup");
    message(error.message);
  }
}

// --- playing ------------------------------------------------------------------------------
function context(view, legal) {
  return {legal: new Set(legal.map(m => m.action)), seat: view.seat, players: view.players, selected: page.selected,
    static: view.static};
}

function drawBoard(view, board, legal) {
  const svg = BOARDS[view.game].draw(board, context(view, legal));
  svg.addEventListener("click", onBoardClick);
  $("board").replaceChildren(svg);
}

function who(view, player) {
  return player === view.seat ? "You" : `${PLAYER_LETTERS[player]} (${view.players[player]})`;
}

function renderPlayers(view, board, toAct) {
  const rows = view.players.map((name, p) => {
    const row = document.createElement("div");
    row.className = "seat-row" + (p === toAct ? " to-act" : "");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = PLAYER_COLORS[p];
    const info = BOARDS[view.game].seatInfo(board, p, view.static);
    row.append(swatch, `${PLAYER_LETTERS[p]} ${p === view.seat ? "you" : name}: ${info}`);
    return row;
  });
  $("players").replaceChildren(...rows);
}

function renderLog(view, count) {
  const items = view.log.slice(0, count).map((entry, i) => {
    const li = document.createElement("li");
    li.textContent = `${who(view, entry.player)}: ${entry.text}`;
    if (i === count - 1) li.className = "latest";
    return li;
  });
  $("log").replaceChildren(...items);
  $("log").scrollTop = $("log").scrollHeight;
}

function renderLegal(view) {
  const items = view.legal.map(move => {
    const li = document.createElement("li"), button = document.createElement("button");
    button.textContent = move.text;
    button.dataset.action = move.action;
    button.addEventListener("click", () => send(move.action));
    li.append(button);
    return li;
  });
  $("legal").replaceChildren(...items);
}

function renderResult(view) {
  $("result").hidden = !view.done;
  if (!view.done) return;
  const winners = view.winners.map(p => who(view, p)).join(" and ");
  const scores = view.scores.map((s, p) => `${PLAYER_LETTERS[p]} ${s}`).join(", ");
  const won = view.winners.includes(view.seat);
  const verdict = won ? (view.winners.length > 1 ? "A shared win!" : "You win!") : "You lose.";
  $("result-text").textContent = `Game over. ${verdict} Winner${view.winners.length > 1 ? "s" : ""}: ${winners}. `
    + `Scores: ${scores}.`;
}

// The moves just played appear one by one, then the position with your moves; while the
// opponents think (in the server's worker pool), the page asks for their moves again and again.
async function show(view) {
  const id = page.id;
  await animate(view);
  let wait = 50;
  while (view.thinking && page.id === id) {
    await sleep(wait);
    wait = Math.min(wait * 2, 800);
    let next;
    try {
      next = await api("GET", `/api/games/${id}?since=${view.log.length}`);
    } catch (error) {  // the network or the server out for a moment: ask again (a game gone: stop)
      if (error.status === 404) throw error;
      message(`${error.message}; asking again`);
      continue;
    }
    message("");
    view = next;
    if (page.id === id) await animate(view);
  }
}

async function animate(view) {
  view.static = view.static || page.static;  // a move's answer leaves out what never changes
  page.static = view.static;
  const frames = view.frames || [];
  const before = view.log.length - frames.length;
  setState("animating");
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i];
    drawBoard(view, frame.board, []);
    renderPlayers(view, frame.board, frame.to_act);
    renderLog(view, before + i + 1);
    $("status").textContent = `${who(view, frame.player)}: ${frame.text}`;
    if (frame.player !== view.seat && page.delay > 0) await sleep(page.delay);
  }
  render(view);
}

function render(view) {
  page.view = view;
  drawBoard(view, view.board, view.legal);
  renderPlayers(view, view.board, view.to_act);
  renderLog(view, view.log.length);
  renderLegal(view);
  renderResult(view);
  $("moves").hidden = view.done;
  if (view.done) {
    $("status").textContent = "Game over";
    setState("done");
  } else if (view.error) {
    $("status").textContent = `The game cannot go on: ${view.error}`;
    setState("stuck");
  } else if (!view.your_turn) {
    $("status").textContent = `${who(view, view.to_act)} is thinking…`;
    setState("thinking");
  } else {
    const hint = BOARDS[view.game].hint(view, context(view, view.legal));
    $("status").textContent = `Your turn. ${hint}`;
    setState("your-turn");
  }
}

function onBoardClick(event) {
  if (document.body.dataset.state !== "your-turn") return;
  const target = event.target.closest("[data-action], [data-select]");
  if (!target) return;
  if (target.dataset.select !== undefined) {  // a piece chosen from the supply (Wakanda): no request yet
    page.selected = page.selected === target.dataset.select ? null : target.dataset.select;
    render(page.view);
    return;
  }
  send(Number(target.dataset.action));
}

async function send(action) {
  if (document.body.dataset.state !== "your-turn") return;
  setState("waiting");
  message("");
  try {
    const view = await api("POST", `/api/games/${page.id}/moves`, {action: action});
    page.selected = null;
    await show(view);
  } catch (error) {
    message(error.message);
    render(page.view);
  }
}

// --- download and replay -------------------------------------------------------------------
function download() {
  const record = page.view.record;
  const blob = new Blob([JSON.stringify(record, null, 1)], {type: "application/json"});
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `drawluck-${record.game}-${record.seed}.json`;
  link.click();
  URL.revokeObjectURL(link.href);
}

async function startReplay(record) {
  message("");
  try {
    page.replay = await api("POST", "/api/replays", record);
    page.replayAt = 0;
    $("setup").hidden = true;
    $("play").hidden = false;
    $("replayer").hidden = false;
    $("moves").hidden = true;
    $("result").hidden = true;
    showReplay();
  } catch (error) {
    message(error.message);
  }
}

function showReplay() {
  const replay = page.replay, frame = replay.frames[page.replayAt];
  const view = {game: replay.game, seat: replay.seat, players: replay.players, static: replay.static,
    log: replay.frames.slice(1).map(f => ({player: f.player, text: f.text}))};
  drawBoard(view, frame.board, []);
  renderPlayers(view, frame.board, frame.to_act);
  renderLog(view, page.replayAt);
  const last = replay.frames.length - 1;
  $("replay-step").textContent = `Move ${page.replayAt} of ${last}`
    + (page.replayAt ? `: ${who(view, frame.player)}: ${frame.text}` : " (the deal)");
  const winners = replay.done ? replay.winners.map(p => PLAYER_LETTERS[p]).join(", ") : "";
  $("status").textContent = page.replayAt === last && replay.done
    ? `Replay: the end. Scores: ${replay.scores.join(", ")}; winners: ${winners}` : "Replay";
  setState("replay");
}

function stepReplay(to) {
  page.replayAt = Math.max(0, Math.min(page.replay.frames.length - 1, to));
  showReplay();
}

function closeReplay() {
  page.replay = null;
  $("replayer").hidden = true;
  if (page.view) {
    render(page.view);
  } else {
    $("play").hidden = true;
    $("setup").hidden = false;
    setState("setup");
  }
}

async function loadRecord(event) {
  const file = event.target.files[0];
  if (!file) return;
  event.target.value = "";  // so that choosing the same file again reads it again
  try {
    await startReplay(JSON.parse(await file.text()));
  } catch (error) {
    message(`not a game record: ${error.message}`);
  }
}

// --- start -----------------------------------------------------------------------------------
async function main() {
  page.catalog = await api("GET", "/api/catalog");
  for (const game of page.catalog.games) $("game").add(new Option(game.name, game.name));
  $("game").addEventListener("change", renderOptions);
  renderOptions();
  $("setup-form").addEventListener("submit", startGame);
  $("new-game").addEventListener("click", () => {
    $("play").hidden = true;
    $("setup").hidden = false;
    setState("setup");
  });
  $("download").addEventListener("click", download);
  $("replay").addEventListener("click", () => startReplay(page.view.record));
  $("record-file").addEventListener("change", loadRecord);
  $("replay-first").addEventListener("click", () => stepReplay(0));
  $("replay-prev").addEventListener("click", () => stepReplay(page.replayAt - 1));
  $("replay-next").addEventListener("click", () => stepReplay(page.replayAt + 1));
  $("replay-last").addEventListener("click", () => stepReplay(Infinity));
  $("replay-close").addEventListener("click", closeReplay);
  setState("setup");
}
main().catch(error => message(error.message));
