// The page in a real browser: Debian's chromium driven by playwright-core,
// over tables solved up to 5 stones a side, served by `moulin serve` with its
// API and with --static-only (probes in WebAssembly). Expected values come
// from `moulin probe --json` and from the rules of seed 001's capture example.
//
//   cargo build --release -p moulin && scripts/build-web.sh
//   cd web/tests && npm ci && npm test
//
// MOULIN_TABLES=<dir> reuses solved tables; SCREENSHOT=<file.png> saves the
// page's picture; MOULIN_FIGURES=1 prints the browser figures of docs/benchmarks.md.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const moulin = process.env.MOULIN_BIN || join(repo, "target", "release", "moulin");
const CAPTURE = "W:a4,c4,b2,d2,e5,g1 B:b6,d6,f6,e4,g4,c3 w";

let tables;
let playTables;
let ownTables = false;
/** Tables up to 4 a side under a no-capture limit of 6 turns. */
let ruleTables;
const LIMIT = 6;
/** The browser context (a fresh profile). */
let browser;
const servers = {};

/** Starts `moulin serve` on a free port; resolves to its base URL. */
function serve(extra, dir = tables) {
  const child = spawn(moulin, ["serve", "--port", "0", "--quiet", "--dir", dir, "--web", join(repo, "web"), ...extra], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => {
      const m = /^moulin serve: (http:\/\/\S+)\/$/.exec(line);
      if (m) resolve({ child, url: m[1] });
      else reject(new Error(`moulin serve said: ${line}`));
    });
    child.once("exit", (code) => reject(new Error(`moulin serve exited with ${code}`)));
  });
}

before(async () => {
  assert.ok(existsSync(moulin), `${moulin} is missing: cargo build --release -p moulin`);
  assert.ok(existsSync(join(repo, "web", "moulin_wasm.wasm")), "web/moulin_wasm.wasm is missing: scripts/build-web.sh");
  tables = process.env.MOULIN_TABLES;
  if (!tables) {
    tables = mkdtempSync(join(tmpdir(), "moulin-web-"));
    ownTables = true;
    execFileSync(moulin, ["solve", "--max-stones", "5", "--dir", tables], { stdio: "ignore" });
  }
  servers.api = await serve([]);
  servers.static = await serve(["--static-only"]);
  // The play set of the same tables (`moulin pack`): the same answers.
  playTables = mkdtempSync(join(tmpdir(), "moulin-web-play-"));
  execFileSync(moulin, ["pack", "-q", "--dir", tables, "--out", playTables], { stdio: "ignore" });
  servers.playApi = await serve([], playTables);
  servers.playStatic = await serve(["--static-only"], playTables);
  ruleTables = mkdtempSync(join(tmpdir(), "moulin-web-rule-"));
  execFileSync(moulin, ["solve", "--max-stones", "4", "--no-capture-limit", String(LIMIT), "--dir", ruleTables], { stdio: "ignore" });
  servers.ruleApi = await serve([], ruleTables);
  servers.ruleStatic = await serve(["--static-only"], ruleTables);
  const profile = mkdtempSync(join(tmpdir(), "moulin-chromium-"));
  // A fresh profile (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    viewport: { width: 1180, height: 860 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
});

after(async () => {
  await browser?.close();
  for (const s of Object.values(servers)) s.child.kill();
  if (ownTables) rmSync(tables, { recursive: true, force: true });
  if (playTables) rmSync(playTables, { recursive: true, force: true });
  if (ruleTables) rmSync(ruleTables, { recursive: true, force: true });
});

/** A fresh page at a position; fails the test on any page error. */
async function open(server, position, query = "", { fakeClock = false } = {}) {
  const page = await browser.newPage();
  // A fake clock (still running) that a test can move on past the pause
  // before the computer's reply.
  if (fakeClock) await page.clock.install();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    // 404s are expected: /api/info on a static host, tables not solved.
    if (m.type() === "error" && !/status of 404/.test(m.text())) errors.push(m.text());
  });
  page.errors = errors;
  await page.goto(`${servers[server].url}/?position=${encodeURIComponent(position)}${query}`);
  await settled(page);
  return page;
}

/** Waits until the tables have answered about the position shown. */
async function settled(page) {
  await page.waitForFunction(() => {
    const o = document.querySelector('[data-testid="outcome"]');
    return o && o.textContent !== "…";
  });
}

/** Waits until the position shown is no longer `before`, then for its outcome. */
async function changed(page, before) {
  await page.waitForFunction((b) => document.querySelector('[data-testid="position"]').textContent !== b, before);
  await settled(page);
}

const click = (page, point) => page.click(`[data-point="${point}"] .hit`);

async function removable(page) {
  const points = await page.$$eval('[data-removable="true"]', (es) => es.map((e) => e.dataset.point));
  return points.sort();
}

async function position(page) {
  return page.textContent('[data-testid="position"]');
}

/** The stones of a position text as sorted lists. */
function stones(text) {
  const list = (re) => (re.exec(text)?.[1] || "").split(",").filter(Boolean).sort();
  return { white: list(/W:(\S*)/), black: list(/B:(\S*)/), side: / ([wb])(?: |$)/.exec(text)[1] };
}

/**
 * What `moulin probe --json` prints for positions: with the practical chances
 * (moves of equal value in their order), as `/api/probe` answers, or values
 * only (`--no-chances`), as the page's WebAssembly worker answers.
 */
function cli(positions, chances = false) {
  const flags = chances ? [] : ["--no-chances"];
  const out = execFileSync(moulin, ["probe", "--json", ...flags, "--dir", tables, "-"], { input: positions.join("\n") + "\n" });
  return out.toString().trim().split("\n").map((l) => JSON.parse(l));
}

const word = (o) => (o.outcome === "draw" ? "draw" : `${o.outcome} ${o.distance}`);

// After b2-b4 closes a4-b4-c4, only e4, g4 and c3 may go: b6-d6-f6 is a mill.
const AFTER_CAPTURE = {
  white: ["a4", "b4", "c4", "d2", "e5", "g1"].sort(),
  black: ["b6", "c3", "d6", "e4", "f6"].sort(),
  side: "b",
};

for (const server of ["api", "playStatic"]) test(`seed 001's capture example, by clicks (${server})`, async () => {
  const page = await open(server, CAPTURE);
  // 6 v 6 is past the tables up to 5: the page says so and still plays.
  assert.equal(await page.textContent('[data-testid="outcome"]'), "unknown");
  assert.match(await page.textContent('[data-testid="probe-error"]'), /6v6/);
  await click(page, "b2");
  await click(page, "b4");
  assert.match(await page.textContent("#message"), /closed a mill/);
  assert.deepEqual(await removable(page), ["c3", "e4", "g4"]);
  for (const protectedStone of ["b6", "d6", "f6"]) {
    await click(page, protectedStone);
    assert.deepEqual(await removable(page), ["c3", "e4", "g4"], `a click on ${protectedStone} does nothing`);
  }
  assert.deepEqual(stones(await position(page)), stones(CAPTURE), "nothing played yet");
  const before = await position(page);
  await click(page, "g4");
  await changed(page, before);
  const after = await position(page);
  assert.deepEqual(stones(after), AFTER_CAPTURE);
  assert.deepEqual(await removable(page), []);
  // Undo and redo walk the game.
  await page.click("#undo");
  await changed(page, after);
  assert.deepEqual(stones(await position(page)), stones(CAPTURE));
  await page.click("#redo");
  await changed(page, before);
  assert.deepEqual(stones(await position(page)), AFTER_CAPTURE);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("seed 001's capture example, by keyboard", async () => {
  const page = await open("static", CAPTURE);
  await page.focus("#board-wrap");
  const cursor = () => page.$eval(".point.cursor-on", (e) => e.dataset.point);
  const keys = async (...list) => {
    for (const k of list) await page.keyboard.press(k);
  };
  await keys("ArrowLeft");
  assert.equal(await cursor(), "d2", "the cursor appears on d2");
  await keys("ArrowLeft");
  assert.equal(await cursor(), "b2");
  await keys("Enter", "ArrowUp");
  assert.equal(await cursor(), "b4");
  await keys("Enter");
  assert.deepEqual(await removable(page), ["c3", "e4", "g4"]);
  await keys("Escape");
  assert.deepEqual(await removable(page), [], "Escape cancels the move");
  assert.equal(await page.$$eval(".point.selected", (e) => e.length), 0);
  await keys("ArrowDown", "Enter", "ArrowUp", "Enter");
  assert.deepEqual(await removable(page), ["c3", "e4", "g4"]);
  await keys("ArrowUp");
  assert.equal(await cursor(), "b6");
  await keys("Enter");
  assert.deepEqual(await removable(page), ["c3", "e4", "g4"], "b6 is in a mill: Enter does nothing");
  await keys("ArrowRight", "ArrowRight", "ArrowDown", "ArrowRight");
  assert.equal(await cursor(), "g4");
  const before = await position(page);
  await keys("Enter");
  await changed(page, before);
  assert.deepEqual(stones(await position(page)), AFTER_CAPTURE);
  assert.deepEqual(page.errors, []);
  await page.close();
});

const POSITIONS = [
  "W:a1,d1,g1 B:b2,d2,f2 w",
  "W:a1,d1,g1 B:b2,d2,f2 b",
  "W:a7,d7,g1,g4 B:b2,d2,f2,c5 b",
  "W:c3,d3,e3 B:a1,d1,g1,g7 w",
  "W:a1,d1,g1,a4,a7 B:b2,d2,f2,b4,b6 w",
  "W:a1,d1,g1,a4,a7 B:b2,d2,f2,b4,b6 b",
  "W:d2,f4,d6,b4 B:d1,g4,d7,a4,c3 w",
  "W:a1,d1,g1,a4 B:a7,d2,g4,b4,c4,d7 w",
];

for (const server of ["api", "static", "playApi", "playStatic"]) {
  const api = server.endsWith("pi");
  const from = server.startsWith("play") ? ", a play set" : "";
  test(`outcomes equal moulin probe --json (${api ? "/api/probe" : "static files, WebAssembly"}${from})`, async () => {
    const expected = cli(POSITIONS, api);
    const page = await open(server, POSITIONS[0]);
    const source = await page.textContent('[data-testid="source"]');
    assert.match(source, api ? /moulin serve/ : /WebAssembly/);
    for (const [i, text] of POSITIONS.entries()) {
      const want = expected[i];
      assert.ok(!want.error, `${text}: ${want.error}`);
      // The first position comes from the URL: typing it again would race
      // with the answer already shown.
      if (i > 0) {
        await page.fill('[data-testid="position-input"]', text);
        await page.press('[data-testid="position-input"]', "Enter");
      }
      await page.waitForFunction((p) => document.querySelector('[data-testid="position"]').textContent === p, want.position);
      await settled(page);
      assert.equal(await page.textContent('[data-testid="outcome"]'), word(want), text);
      const shown = await page.$$eval("[data-move]", (es) => es.map((e) => [e.dataset.move, e.dataset.outcome]));
      assert.deepEqual(shown, want.moves.map((m) => [m.move, word(m)]), text);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

/** `moulin probe --json --counter C` on the rule tables. */
function cliAt(position, counter) {
  const out = execFileSync(moulin, ["probe", "--json", "--counter", String(counter), "--dir", ruleTables, position]);
  return JSON.parse(out.toString());
}

// A 3 v 3 position with wins, losses, cursed wins and draws among its moves.
const RULE_POSITIONS = ["W:a1,d1,b4 B:g1,g4,f6 w", "W:c5,f6,d7 B:a1,d2,a4 w", "W:a1,d1,g1,a4 B:b2,d2,f2,b4 b"];

for (const server of ["ruleApi", "ruleStatic"]) {
  test(`the no-capture counter, shown and probed (${server === "ruleApi" ? "/api/probe" : "WebAssembly"})`, async () => {
    for (const text of RULE_POSITIONS) {
      for (const c of [0, 2, LIMIT - 1]) {
        const want = cliAt(text, c);
        assert.ok(!want.error, `${text}: ${want.error}`);
        const page = await open(server, text, `&counter=${c}`);
        assert.equal(await page.textContent('[data-testid="counter"]'), String(c));
        assert.match(await page.textContent('[data-testid="rules"]'), new RegExp(`after ${LIMIT} turns without a capture`));
        assert.equal(await page.textContent('[data-testid="outcome"]'), word(want), `${text} counter ${c}`);
        const shown = await page.$$eval("[data-move]", (es) => es.map((e) => [e.dataset.move, e.dataset.outcome]));
        assert.deepEqual(shown, want.moves.map((m) => [m.move, word(m)]), `${text} counter ${c}`);
        // A slide without capture: the counter goes up by one, and the new
        // position is valued there.
        const slide = want.moves.map((m) => m.move).find((m) => m.includes("-") && !m.includes("x"));
        if (c < LIMIT - 1 && slide) {
          const [from, to] = slide.split("-");
          const before = await position(page);
          await click(page, from);
          await click(page, to);
          await changed(page, before);
          assert.equal(await page.textContent('[data-testid="counter"]'), String(c + 1));
          const next = cliAt(await position(page), c + 1);
          assert.equal(await page.textContent('[data-testid="outcome"]'), word(next), `after ${slide}`);
        }
        assert.deepEqual(page.errors, []);
        await page.close();
      }
    }
    // At the limit the game is over: a draw by the rule.
    const page = await open(server, RULE_POSITIONS[0], `&counter=${LIMIT}`);
    assert.match(await page.textContent('[data-testid="message"]'), /no-capture rule/);
    assert.equal(await page.textContent('[data-testid="outcome"]'), "draw");
    await page.close();
  });
}

test("a bad position is refused with the command line's message", async () => {
  const page = await open("static", "W:a1,a1 B:b2,d2,f2 w");
  assert.match(await page.textContent('[data-testid="position-error"]'), /listed twice/);
  assert.equal(await position(page), "W: B: w 9 9");
  await page.fill('[data-testid="position-input"]', "W:a1,z9 B: w 9 9");
  await page.press('[data-testid="position-input"]', "Enter");
  await page.waitForFunction(() => /unknown point/.test(document.querySelector('[data-testid="position-error"]').textContent));
  assert.equal(await page.isVisible('[data-testid="position-error"]'), true);
  await page.close();
});

for (const server of ["static", "playStatic"]) test(`perfect play answers the player to the end of the game (${server})`, async (t) => {
  // White to move wins in 31 turns (a position found by `moulin probe`);
  // the player takes a best move each turn, the page plays Black's best
  // defence, and the win comes two turns nearer with each pair of moves.
  const start = "W:d1,b2,b6,f6,d7 B:a1,f2,a4,a7,g7 w";
  const want = cli([start])[0];
  assert.equal(word(want), "win 31");
  const page = await open(server, start, "&mode=white", { fakeClock: true });
  for (let d = 31; d >= 1; d -= 2) {
    await page.waitForFunction(() => document.querySelector('[data-testid="position"]').textContent.endsWith(" w"));
    await settled(page);
    assert.equal(await page.textContent('[data-testid="outcome"]'), `win ${d}`);
    await page.click("[data-move].best button");
    await page.waitForFunction(() => document.querySelector('[data-testid="position"]').textContent.endsWith(" b"));
    // Valued, the reply is due in 450 ms (the pause that shows the
    // player's move): move the clock on to it.
    await settled(page);
    await page.clock.fastForward(450);
  }
  await settled(page);
  assert.equal(await page.textContent('[data-testid="outcome"]'), "loss 0");
  assert.match(await page.textContent("#message"), /^Black (has fewer than three stones|is blocked): White wins\.$/);
  assert.equal(await page.$$eval("[data-move]", (e) => e.length), 0);
  if (process.env.MOULIN_FIGURES) {
    const f = await page.$eval("#source", (e) => [e.dataset.bytes, e.dataset.requests]);
    t.diagnostic(`a game of 31 turns from ${start}: ${f[0]} bytes in ${f[1]} requests`);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("screenshot and figures", async (t) => {
  // The 31-turn win again: the first probe is cold (no table open yet).
  const page = await open("static", "W:d1,b2,b6,f6,d7 B:a1,f2,a4,a7,g7 w");
  const figures = () => page.$eval("#source", (e) => ({ ...e.dataset }));
  const cold = await figures();
  for (let i = 0; i < 4; i++) {
    const before = await position(page);
    await page.click("[data-move].best button");
    await changed(page, before);
  }
  // Back and forth: the same positions again, their blocks in the cache.
  let before = await position(page);
  await page.click("#undo");
  await changed(page, before);
  before = await position(page);
  await page.click("#redo");
  await changed(page, before);
  const warm = await figures();
  await click(page, "d6");
  const markers = await page.$$eval("[data-marker]", (es) => es.map((e) => [e.dataset.point, e.dataset.marker]));
  assert.deepEqual(markers.map(([p]) => p).sort(), ["b6", "d5", "f6"], "d6's destinations");
  if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT });
  if (process.env.MOULIN_FIGURES) {
    const wasm = statSync(join(repo, "web", "moulin_wasm.wasm")).size;
    t.diagnostic(`wasm ${wasm} bytes; opening the tables (index built) ${cold.openMs} ms in the worker`);
    t.diagnostic(`cold probe (5v5 and its moves): ${cold.bytes} bytes in ${cold.requests} requests, ${cold.ms} ms (worker ${cold.workerMs} ms)`);
    t.diagnostic(`warm probe: ${warm.ms} ms (worker ${warm.workerMs} ms)`);
  }
  assert.ok(Number(cold.requests) > 0 && Number(cold.bytes) > 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});
