// The page: a game (positions and moves with undo and redo), played on the
// board by click, touch or keyboard, against perfect play or in analysis,
// with every move's outcome from the tables.

import { Board, step } from "./board.js";
import { Engine } from "./engine.js";

const START = "W: B: w 9 9";
const params = new URLSearchParams(location.search);
const engine = new Engine({
  tables: params.get("tables") || "tables/",
  probe: params.get("probe") || "auto",
});

const $ = (id) => document.getElementById(id);

const state = {
  /** Positions of the game; `history[i].move` led to `history[i].position`. */
  history: [{ position: params.get("position") || START, move: null }],
  index: 0,
  mode: ["white", "black"].includes(params.get("mode")) ? params.get("mode") : "analyse",
  showValues: true,
  /** The legal moves of the current position (the worker's `moves` answer). */
  info: null,
  /** What the tables say about the current position (`probe --json`). */
  report: null,
  selected: null,
  /** A move waiting for the stone to remove: {from, to}. */
  pending: null,
  cursor: null,
  message: "",
  /** Bumped at each change so that late answers are dropped. */
  token: 0,
  /** The tables' no-capture limit (turns without a capture), null without the rule. */
  limit: null,
  /** The counter of the first position (`?counter=` in the URL, else 0). */
  startCounter: /^\d+$/.test(params.get("counter") || "") ? Number(params.get("counter")) : 0,
};

const board = new Board($("board"), (point) => {
  state.cursor = null;
  choose(point);
});

// ---- Moves and outcomes -------------------------------------------------

const MOVE = /^(?:([a-g][1-7])-)?([a-g][1-7])(?:x([a-g][1-7]))?$/;

function parseMove(text) {
  const [, from = null, to, remove = null] = MOVE.exec(text);
  return { text, from, to, remove };
}

function rank(o) {
  if (!o) return -Infinity;
  if (o.outcome === "win") return 1e6 - o.distance;
  if (o.outcome === "loss") return -1e6 + o.distance;
  return 0;
}

/** `win 3`, `draw`, `loss 20`: the words of `moulin probe`. */
function outcomeText(o) {
  return o.outcome === "draw" ? "draw" : `${o.outcome} ${o.distance}`;
}

function current() {
  return state.history[state.index].position;
}

function legalMoves() {
  return state.info && !state.info.error ? state.info.moves.map((m) => ({ ...parseMove(m.move), next: m.next })) : [];
}

/** The outcome of each move by its text, when the tables answered. */
function outcomes() {
  const map = new Map();
  if (state.report && !state.report.error) {
    for (const m of state.report.moves) map.set(m.move, m);
  }
  return map;
}

function sideName(side) {
  return side === "w" ? "White" : "Black";
}

function placing() {
  const info = state.info;
  return info && (info.side === "w" ? info.white_hand : info.black_hand) > 0;
}

/** Stones of a position text: {point: "w" | "b"}. */
function stones(position) {
  const out = {};
  const white = /W:([^ ]*)/.exec(position);
  const black = /B:([^ ]*)/.exec(position);
  for (const [match, colour] of [[white, "w"], [black, "b"]]) {
    for (const p of (match ? match[1] : "").split(",").filter(Boolean)) out[p] = colour;
  }
  return out;
}

function repeated() {
  const info = state.info;
  if (!info || info.white_hand || info.black_hand) return false;
  const here = current();
  return state.history.slice(0, state.index + 1).filter((h) => h.position === here).length >= 3;
}

/**
 * Turns since the last capture or placement at the current position: 0
 * after a placement (`d2`, `d2xg4`) or a capture (`...x..`), one more after
 * any other move.
 */
function counter() {
  let c = state.startCounter;
  for (const h of state.history.slice(1, state.index + 1)) {
    c = !h.move.includes("-") || h.move.includes("x") ? 0 : c + 1;
  }
  return c;
}

/** Whether the no-capture rule has ended the game in a draw. */
function drawnByRule() {
  return state.limit !== null && Boolean(state.info) && !state.info.over && counter() >= state.limit;
}

function gameOver() {
  return Boolean(state.info && (state.info.over || repeated() || drawnByRule()));
}

function humanToMove() {
  return state.mode === "analyse" || (state.info && state.info.side === state.mode[0]);
}

// ---- Choosing points ----------------------------------------------------

/** A click, a touch or Enter on a point. */
function choose(point) {
  if (!state.info || state.info.error || gameOver() || !humanToMove()) return;
  const moves = legalMoves();
  if (state.pending) {
    const { from, to } = state.pending;
    const move = moves.find((m) => m.from === from && m.to === to && m.remove === point);
    // Only the stones the rules allow can be taken; any other point does nothing.
    if (move) play(move);
    return;
  }
  let options = [];
  if (placing()) {
    options = moves.filter((m) => m.to === point);
  } else if (state.selected && point !== state.selected) {
    options = moves.filter((m) => m.from === state.selected && m.to === point);
  }
  if (options.length === 0) {
    const movable = !placing() && moves.some((m) => m.from === point);
    state.selected = movable && state.selected !== point ? point : null;
    state.message = "";
    render();
    return;
  }
  if (options[0].remove) {
    state.pending = { from: options[0].from, to: point };
    state.message = `${sideName(state.info.side)} closed a mill: remove one of the opponent's stones.`;
    render();
    return;
  }
  play(options[0]);
}

function cancel() {
  state.selected = null;
  state.pending = null;
  state.message = "";
  render();
}

function play(move) {
  state.history = state.history.slice(0, state.index + 1);
  state.history.push({ position: move.next, move: move.text });
  state.index += 1;
  refresh();
}

// ---- Loading a position -------------------------------------------------

/** Asks the worker and the tables about the current position. */
async function refresh() {
  const token = ++state.token;
  state.selected = null;
  state.pending = null;
  state.message = "";
  state.report = null;
  const position = current();
  const info = await engine.moves(position);
  if (token !== state.token) return;
  state.info = info;
  if (info.error) {
    render();
    return;
  }
  state.history[state.index].position = info.position;
  syncUrl();
  render();
  if (drawnByRule()) {
    render();
    showRules();
    return;
  }
  const report = await engine.probe(info.position, state.limit === null ? null : counter());
  if (token !== state.token) return;
  state.report = report;
  render();
  showRules();
  computerTurn(token);
}

function computerTurn(token) {
  if (state.mode === "analyse" || gameOver() || humanToMove()) return;
  const report = state.report;
  if (!report || report.error) {
    state.message = "The computer needs the table of this position to play (see below).";
    render();
    return;
  }
  const best = report.best_moves;
  const choice = best[Math.floor(Math.random() * best.length)];
  const move = legalMoves().find((m) => m.text === choice);
  setTimeout(() => {
    if (token === state.token && move) play(move);
  }, 450);
}

/** Starts from a position typed by the user; false if it is refused. */
async function setPosition(text) {
  const info = await engine.moves(text.trim());
  if (info.error) {
    $("position-error").textContent = info.error;
    $("position-error").hidden = false;
    return false;
  }
  $("position-error").hidden = true;
  state.history = [{ position: info.position, move: null }];
  state.index = 0;
  await refresh();
  return true;
}

function syncUrl() {
  const url = new URL(location.href);
  url.searchParams.set("position", current());
  if (state.mode === "analyse") url.searchParams.delete("mode");
  else url.searchParams.set("mode", state.mode);
  history.replaceState(null, "", url);
}

async function showRules() {
  const rules = await engine.rules();
  const limit = rules.no_capture_limit ?? null;
  $("rules").innerHTML =
    `Rules of the tables: flying with three stones <b>${rules.flying ? "on" : "off"}</b>` +
    (limit === null
      ? " · no-capture rule: <b>off</b> (these tables have no counter; with it, the turns without a mill will show here)"
      : ` · no-capture rule: a draw after <b>${limit}</b> turns without a capture; ` +
        `<span data-testid="counter">${counter()}</span> since the last capture or placement`) +
    " · threefold repetition: a draw, counted by this page.";
  const source = $("source");
  source.dataset.ms = engine.lastMs.toFixed(2);
  source.dataset.openMs = engine.openMs.toFixed(2);
  if (engine.remote) {
    source.textContent = `Probes answered by moulin serve (/api/probe), last in ${engine.lastMs.toFixed(1)} ms.`;
  } else {
    const f = await engine.fetched();
    source.dataset.bytes = f.bytes;
    source.dataset.workerMs = engine.lastWorkerMs.toFixed(2);
    source.dataset.requests = f.requests;
    source.textContent =
      `Probes run in this browser (WebAssembly): ${(f.bytes / 1024).toFixed(1)} kB of tables fetched in ` +
      `${f.requests} requests, last probe ${engine.lastMs.toFixed(1)} ms.`;
  }
}

// ---- Drawing --------------------------------------------------------------

function markerOf(o) {
  if (!o) return null;
  const turns = o.distance === 1 ? "turn" : "turns";
  return {
    kind: o.outcome,
    text: o.outcome === "draw" ? "=" : String(o.distance),
    title: o.outcome === "draw" ? "draw" : `${o.outcome} in ${o.distance} ${turns}`,
  };
}

/** The best outcome among moves, by the point `key` picks from each. */
function bestBy(moves, key, values) {
  const best = {};
  for (const m of moves) {
    const o = values.get(m.text);
    const p = key(m);
    if (o && (!best[p] || rank(o) > rank(best[p]))) best[p] = o;
  }
  return best;
}

function view() {
  const position = current();
  const shown = stones(position);
  const moves = legalMoves();
  const values = outcomes();
  let removable = [];
  let best = {};
  if (state.pending) {
    const { from, to } = state.pending;
    const options = moves.filter((m) => m.from === from && m.to === to);
    removable = options.map((m) => m.remove);
    best = bestBy(options, (m) => m.remove, values);
    if (from) delete shown[from];
    shown[to] = state.info.side;
  } else if (state.info && !gameOver() && humanToMove()) {
    if (placing()) best = bestBy(moves, (m) => m.to, values);
    else if (state.selected) best = bestBy(moves.filter((m) => m.from === state.selected), (m) => m.to, values);
    else best = bestBy(moves, (m) => m.from, values);
  }
  const markers = {};
  if (state.showValues) {
    for (const [p, o] of Object.entries(best)) markers[p] = markerOf(o);
  }
  const lastMove = state.history[state.index].move;
  const last = lastMove ? [parseMove(lastMove).from, parseMove(lastMove).to].filter(Boolean) : [];
  return { stones: shown, markers, selected: state.pending ? state.pending.from : state.selected, removable, last, cursor: state.cursor };
}

function render() {
  board.draw(view());
  const info = state.info;
  $("position").textContent = current();
  for (const b of document.querySelectorAll("[data-mode]")) {
    b.setAttribute("aria-checked", String(b.dataset.mode === state.mode));
  }
  $("undo").disabled = state.index === 0;
  $("redo").disabled = state.index === state.history.length - 1;
  if (!info) return;
  if (info.error) {
    $("turn").textContent = "Position refused";
    $("outcome").textContent = "—";
    $("explain").textContent = "";
    $("probe-error").textContent = info.error;
    $("probe-error").hidden = false;
    return;
  }
  const side = sideName(info.side);
  $("turn-stone").dataset.side = info.side;
  $("turn").textContent = `${side} to move`;
  const phase = (hand) => (hand > 0 ? `${hand} in hand` : "all placed");
  $("hands").textContent = `White: ${phase(info.white_hand)} · Black: ${phase(info.black_hand)}`;
  renderVerdict(side);
  renderMoves();
  renderRecord();
}

function renderVerdict(side) {
  const report = state.report;
  const outcome = $("outcome");
  const explain = $("explain");
  $("probe-error").hidden = true;
  outcome.className = "outcome";
  let message = state.message;
  if (state.info.over) message = `${state.info.over}: ${sideName(state.info.side === "w" ? "b" : "w")} wins.`;
  else if (repeated()) message = "Draw by threefold repetition.";
  else if (drawnByRule()) message = `Draw: ${state.limit} turns without a capture (the no-capture rule).`;
  $("message").textContent = message;
  if (drawnByRule()) {
    outcome.textContent = "draw";
    outcome.classList.add("draw");
    explain.textContent = "the no-capture rule ended the game";
    return;
  }
  if (!report) {
    outcome.textContent = "…";
    explain.textContent = "asking the tables";
    return;
  }
  if (report.error) {
    outcome.textContent = "unknown";
    outcome.classList.add("unknown");
    explain.textContent = "";
    const missing = /no table for sector (\S+)/.exec(report.error);
    $("probe-error").textContent = missing
      ? `No table for sector ${missing[1]} here: the tables were not solved that far (moulin solve --moving for the moving phase, --all for the whole game). You can still play the moves.`
      : report.error;
    $("probe-error").hidden = false;
    return;
  }
  outcome.textContent = outcomeText(report);
  outcome.classList.add(report.outcome);
  const d = report.distance;
  const turns = d === 1 ? "turn" : "turns";
  // Under the no-capture rule the distance is to the next conversion (a
  // capture or the end of the game), not to the end.
  const rule = state.limit !== null;
  explain.textContent = {
    win: rule
      ? `${side} wins: the next capture or the win within ${d} ${turns}, before the counter runs out`
      : `${side} wins in ${d} ${turns} with perfect play`,
    loss: d === 0
      ? `${side} has lost`
      : rule
        ? `${side} loses: the opponent's next capture or win within ${d} ${turns} at the longest`
        : `${side} loses in ${d} ${turns} against the best defence`,
    draw: "a draw with perfect play",
    "cursed-win": `a draw by the no-capture rule (${side} would win without it)`,
    "blessed-loss": `a draw by the no-capture rule (${side} would lose without it)`,
  }[report.outcome];
}

function renderMoves() {
  const list = $("moves");
  list.replaceChildren();
  const values = outcomes();
  const best = new Set(state.report && !state.report.error ? state.report.best_moves : []);
  const moves = legalMoves();
  if (state.report && !state.report.error) {
    moves.sort((a, b) => state.report.moves.findIndex((m) => m.move === a.text) - state.report.moves.findIndex((m) => m.move === b.text));
  }
  list.classList.toggle("hidden-values", !state.showValues);
  for (const m of moves) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    li.dataset.move = m.text;
    const o = values.get(m.text);
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = m.text;
    const value = document.createElement("span");
    value.className = "value";
    if (o) {
      li.dataset.outcome = outcomeText(o);
      li.classList.add(o.outcome);
      value.textContent = o.outcome === "draw" ? "draw" : `${o.outcome} ${o.distance}`;
      if (best.has(m.text)) li.classList.add("best");
    } else {
      value.textContent = state.report ? "?" : "…";
    }
    button.append(name, value);
    button.disabled = gameOver() || !humanToMove();
    button.addEventListener("click", () => play(m));
    li.append(button);
    list.append(li);
  }
  if (moves.length === 0) {
    const li = document.createElement("li");
    li.className = "none";
    li.textContent = "No move: the game is over.";
    list.append(li);
  }
}

function renderRecord() {
  const list = $("record");
  list.replaceChildren();
  state.history.forEach((h, i) => {
    if (i === 0) return;
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = h.move;
    button.className = i === state.index ? "now" : i > state.index ? "future" : "";
    button.addEventListener("click", () => {
      state.index = i;
      refresh();
    });
    li.append(button);
    list.append(li);
  });
}

// ---- Controls -------------------------------------------------------------

function undo() {
  if (state.index === 0) return;
  state.index -= 1;
  // Against the computer, go back to a position where it is the player's turn.
  if (state.mode !== "analyse" && state.index > 0) {
    const side = stonesSide(state.history[state.index].position);
    if (side !== state.mode[0]) state.index -= 1;
  }
  refresh();
}

function redo() {
  if (state.index >= state.history.length - 1) return;
  state.index += 1;
  if (state.mode !== "analyse" && state.index < state.history.length - 1) {
    const side = stonesSide(state.history[state.index].position);
    if (side !== state.mode[0]) state.index += 1;
  }
  refresh();
}

function stonesSide(position) {
  return / ([wb])( |$)/.exec(position)[1];
}

for (const b of document.querySelectorAll("[data-mode]")) {
  b.addEventListener("click", () => {
    state.mode = b.dataset.mode;
    state.showValues = state.mode === "analyse";
    $("show-values").checked = state.showValues;
    refresh();
  });
}
$("undo").addEventListener("click", undo);
$("redo").addEventListener("click", redo);
$("new-game").addEventListener("click", () => setPosition(START));
$("show-values").addEventListener("change", (e) => {
  state.showValues = e.target.checked;
  render();
});
$("position-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (await setPosition($("position-input").value)) $("position-input").value = "";
});

const wrap = $("board-wrap");
wrap.addEventListener("keydown", (e) => {
  if (e.key.startsWith("Arrow")) {
    state.cursor = state.cursor ? step(state.cursor, e.key) : state.selected || "d2";
    render();
  } else if (e.key === "Enter" || e.key === " ") {
    if (!state.cursor) state.cursor = state.selected || "d2";
    else choose(state.cursor);
    render();
  } else if (e.key === "Escape") {
    cancel();
  } else {
    return;
  }
  e.preventDefault();
});
wrap.addEventListener("blur", () => {
  state.cursor = null;
  render();
});
document.addEventListener("keydown", (e) => {
  if (e.target.closest("input")) return;
  const key = e.key.toLowerCase();
  if ((e.ctrlKey || e.metaKey) && key === "z") {
    (e.shiftKey ? redo : undo)();
    e.preventDefault();
  } else if ((e.ctrlKey || e.metaKey) && key === "y") {
    redo();
    e.preventDefault();
  }
});

// ---- Start ------------------------------------------------------------------

async function main() {
  state.showValues = state.mode === "analyse";
  $("show-values").checked = state.showValues;
  render();
  try {
    await engine.start();
  } catch (e) {
    $("probe-error").textContent = `The probe could not start: ${e.message}`;
    $("probe-error").hidden = false;
    return;
  }
  state.limit = (await engine.rules()).no_capture_limit ?? null;
  const first = current();
  const info = await engine.moves(first);
  if (info.error) {
    $("position-input").value = first;
    $("position-error").textContent = info.error;
    $("position-error").hidden = false;
    state.history = [{ position: START, move: null }];
  }
  await refresh();
  document.body.dataset.ready = "true";
}

main();
