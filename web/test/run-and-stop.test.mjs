// Runs and compiles in a real browser (web/test/browser.mjs: Debian's
// Chromium, headless): runs started right after a change, optional inputs
// left out, Stop on a compile whose warm-up run is long, and edits made
// during one. Expected values come from the `shrew` CLI and the JS API on
// the same source.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, openPlayground, waitCompiled as waitFor, WEB } from "./page.mjs";


let page, close, scratch;
const waitCompiled = (graph, timeout = 30_000) => waitFor(page, graph, timeout);

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "shrew-web-run-"));
  ({ page, close } = await openPlayground());
});

after(async () => {
  await close?.();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function typeSource(text) {
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
}

/** `shrew run --json` on `source` with these extra arguments. */
function cliRun(source, ...args) {
  const file = join(scratch, "prog.sw");
  writeFileSync(file, source);
  return JSON.parse(execFileSync(process.execPath, [CLI, "run", file, "--json", ...args], { encoding: "utf8" }));
}

/** A tensor the Run tab shows: an output, or (kind "input") an input used. */
function shown(kind, name) {
  return page.$eval(`${kind === "input" ? ".inputs-used " : ""}[data-${kind}="${name}"]`, (el) => ({
    shape: JSON.parse(el.dataset.shape), values: [...el.querySelectorAll("td")].map((td) => Number(td.dataset.v)) }));
}

function assertClose(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) <= 1e-6 + 1e-5 * Math.abs(expected[i]), `${what}[${i}] = ${v}, expected ${expected[i]}`));
}

const MLP = join(WEB, "examples/mlp-classifier.sw");

test("a Run clicked right after changing the seed or a dim runs with the new value", async () => {
  await page.selectOption("#example-select", "mlp-classifier");
  await waitCompiled("Classifier");
  await page.click('[data-tab="run"]');
  await page.fill("#run-count", "1");
  const source = execFileSync("cat", [MLP], { encoding: "utf8" });
  // The seed field commits on blur, as the mouse goes down on Run; the recompile it starts ends
  // before the button is released (a click held a moment): the same button must take the click.
  await page.fill("#run-seed", "5");
  await page.hover('[data-testid="run-button"]');
  await page.mouse.down();
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state !== "ok", null, { timeout: 5_000 }).catch(() => {});
  await waitCompiled();
  await page.mouse.up();
  await page.waitForSelector('[data-testid="timing"]', { timeout: 30_000 });
  const seeded = cliRun(source, "--seed", "5", "--dims", "Batch=4").outputs.probs;
  const probs = await shown("output", "probs");
  assert.deepEqual(probs.shape, seeded.shape);
  assertClose(probs.values, seeded.data, "probs (seed 5)");
  // A quick click after a dim change: the run waits for the recompile and runs with Batch = 3
  // (its answer was dropped as belonging to the program before).
  await page.fill('[data-dim="Batch"]', "3");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"]', { timeout: 30_000 });
  const batch3 = cliRun(source, "--seed", "5", "--dims", "Batch=3").outputs.probs;
  const probs3 = await shown("output", "probs");
  assert.deepEqual(probs3.shape, [3, 3]);
  assertClose(probs3.values, batch3.data, "probs (Batch 3)");
  // The form was kept over those recompiles, its type text updated.
  assert.equal(await page.textContent('[data-input="features"] code'), "f32[3, 4]");
  assert.deepEqual(page.errors, []);
});

test("optional inputs are marked and can be left out: the run is the JS API's without them", async () => {
  const { Shrew, Tensor } = await import("../../js/dist/index.js");
  const unread = "@graph G {\n  input x: Tensor<[2, 3], f32>;\n  input m: Tensor<[2, 3], f32>?;\n  input z: Tensor<[3], f32>;\n  output y: x * 2.0 + z;\n}\n\n" +
    "@graph U {\n  input extra: ? ?;\n  input z: Tensor<[2], f32>;\n  output y: z * 2.0;\n}\n";
  await typeSource(unread);
  await waitCompiled("G");
  await page.click('[data-tab="run"]');
  await page.fill("#run-seed", "3");
  await page.press("#run-seed", "Tab");
  await waitCompiled("G");
  await page.fill("#run-count", "1");
  // Only m is marked optional and has a "leave out" box.
  assert.deepEqual(await page.$$eval("[data-input]", (rows) => rows.map((r) => [r.dataset.input, r.querySelector(".optional") !== null,
    r.querySelector("[data-omit]") !== null])), [["x", false, false], ["m", true, true], ["z", false, false]]);
  assert.match(await page.textContent('[data-testid="optional-inputs"]'), /'m' is an optional input/);
  // Left out, nothing is drawn for m: x and z are `shrew run --seed 3`'s (which leaves m out), and so is y.
  await page.check('[data-input="m"] [data-omit]');
  assert.equal(await page.isHidden('[data-input="m"] select'), true);
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  const cli = cliRun(unread, "--seed", "3").outputs.y;
  const y = await shown("output", "y");
  assert.deepEqual(y.shape, [2, 3]);
  assertClose(y.values, cli.data, "y with m left out");
  assert.deepEqual(await page.$$eval(".inputs-used [data-input]", (els) => els.map((e) => e.dataset.input)), ["x", "z"]);
  // Given again, m is drawn between x and z: z changes, and y = 2x + z from the inputs shown.
  await page.uncheck('[data-input="m"] [data-omit]');
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"]', { timeout: 30_000 });
  assert.deepEqual(await page.$$eval(".inputs-used [data-input]", (els) => els.map((e) => e.dataset.input)), ["x", "m", "z"]);
  const [x, z, y2] = [await shown("input", "x"), await shown("input", "z"), await shown("output", "y")];
  assertClose(y2.values, x.values.map((v, i) => Math.fround(Math.fround(v * 2) + z.values[i % 3])), "y with m given");
  assert.notDeepEqual(y2.values, y.values);
  // An optional input of unknown type (`? ?`) left out: no dtype or shape is asked for it.
  await page.selectOption("#graph-select", "U");
  await page.check('[data-input="extra"] [data-omit]');
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  assertClose((await shown("output", "y")).values, cliRun(unread, "--seed", "3", "--graph", "U").outputs.y.data, "U: y");

  // A graph that reads m: left out, the run fails as run() does (naming m), and the page stays usable.
  const read = "@graph R {\n  input x: Tensor<[2, 3], f32>;\n  input m: Tensor<[2, 3], f32>?;\n  output y: x + m;\n}\n";
  const shrew = await Shrew.load();
  const program = shrew.compile(read, { seed: 3 });
  const apiError = (() => {
    try {
      program.run("R", { x: new Tensor("f32", [2, 3]) });
    } catch (e) {
      return e.message;
    }
  })();
  program.dispose();
  assert.match(apiError, /optional input 'm' of graph 'R' was not supplied but node 'y' \(add\) reads it/);
  await typeSource(read);
  await waitCompiled("R");
  await page.check('[data-input="m"] [data-omit]');
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="run-error"]', { timeout: 30_000 });
  assert.equal(await page.textContent('[data-testid="run-error"]'), apiError);
  await page.uncheck('[data-input="m"] [data-omit]');
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"]', { timeout: 30_000 });
  const [rx, rm, ry] = [await shown("input", "x"), await shown("input", "m"), await shown("output", "y")];
  assertClose(ry.values, rx.values.map((v, i) => Math.fround(v + rm.values[i])), "R: y = x + m");
  assert.deepEqual(page.errors, []);
});

test("Stop ends a long warm-up run or compile for good: no recompile into the same hang, nor after a reload", async () => {
  const status = () => page.textContent("#status");
  // 24 chained 2048 x 2048 matmuls: the warm-up run after the compile takes half a minute or more.
  const layers = Array.from({ length: 24 }, (_, i) => `  node h${i + 1} { op: matmul(h${i}, w); };`);
  const long = "@graph Long {\n  input h0: Tensor<[2048, 2048], f32>;\n  param w: Tensor<[2048, 2048], f32> { init: \"ones\"; };\n" +
    `${layers.join("\n")}\n  output y: h24;\n}\n`;
  await typeSource(long);
  await page.waitForSelector('[data-testid="stop"]', { state: "visible", timeout: 10_000 });
  await page.waitForTimeout(1_500);  // the compile itself takes some 200 ms
  const warming = await status();
  await page.click('[data-testid="stop"]');
  const stopped = Date.now();
  // The source is compiled again without its warm-up (it ran the warm-up again, as long).
  await waitCompiled("Long", 10_000);
  assert.ok(Date.now() - stopped < 10_000, `recovered in ${Date.now() - stopped} ms`);
  assert.match(await status(), /^compiled in \d+\.\d ms, warm-up run off \(stopped\)$/);
  assert.equal(await page.isHidden('[data-testid="stop"]'), true);
  assert.equal(warming, "warm-up run…");  // the status said what took so long
  // A reload compiles it without the warm-up too (it hung as before).
  await page.reload();
  await waitCompiled("Long", 10_000);
  assert.match(await status(), /warm-up run off \(stopped\)$/);
  await page.click('[data-tab="run"]');
  assert.equal(await page.textContent('[data-testid="run-button"]'), "Run Long");
  // A run stopped: the source is compiled again at once, and the page keeps saying
  // the run was stopped (the recompile cleared the message at once).
  await page.fill("#run-count", "1");
  await page.click('[data-testid="run-button"]');
  await page.click('[data-testid="stop"]', { timeout: 10_000 });
  await waitCompiled("Long", 10_000);
  assert.match(await status(), /^run stopped \(the worker was restarted\); compiled again in \d+\.\d ms, warm-up run off \(stopped\)$/);
  assert.equal(await page.textContent('[data-testid="run-error"]'), "stopped: the worker was restarted");

  // An edit turns the warm-up on again; the status gives its time apart from the compile's.
  await typeSource("@graph Small {\n  input x: Tensor<[N, 3], f32>;\n  output y: x * 2.0;\n}\n");
  await waitCompiled("Small");
  // Times no finer than the worker's clock, which headless Chromium steps by 0.1 ms (not
  // cross-origin isolated): a run shorter than a step is "under 0.1 ms", not "0.00 µs".
  assert.match(await status(), /^compiled in \d+\.\d ms, warm-up run (under 0\.1|\d+\.\d) ms$/);

  // A compile that is long before any warm-up (made so here: the worker's clock, read as the
  // compile starts, stalls for a minute once) is not started again by itself, nor by a reload.
  const shrewWorker = page.workers().filter((w) => /\/worker-[^/]*\.js/.test(w.url())).at(-1);
  await shrewWorker.evaluate(() => {
    const now = performance.now.bind(performance);
    performance.now = () => {
      performance.now = now;
      const until = now() + 60_000;
      while (now() < until);
      return now();
    };
  });
  const slow = "@graph Slow {\n  input x: Tensor<[2], f32>;\n  output y: x + 1.0;\n}\n";
  await typeSource(slow);
  await page.click('[data-testid="stop"]', { timeout: 10_000 });
  await page.waitForSelector('[data-testid="compile-again"]', { state: "visible", timeout: 10_000 });
  await page.waitForTimeout(1_000);
  assert.equal(await status(), "compile stopped");
  assert.match(await page.textContent("#diagnostics"), /compile of this source was stopped/);
  // The views keep the program before, labelled so; its Run button is off (it ran that program as if current).
  const stale = /^Showing the last program that compiled: the compile of the source in the editor was stopped/;
  assert.match(await page.textContent('[data-testid="stale-note"]'), stale);
  assert.equal(await page.isDisabled('[data-testid="run-button"]'), true);
  await page.reload();
  await page.waitForSelector('[data-testid="compile-again"]', { state: "visible", timeout: 10_000 });
  assert.equal(await status(), "compile stopped");
  assert.match(await page.textContent('[data-testid="stale-note"]'), /^Nothing compiled: the compile of the source in the editor was stopped/);
  await page.click('[data-testid="compile-again"]');
  await waitCompiled("Slow");
  assert.equal(await page.isHidden('[data-testid="compile-again"]'), true);
  assert.deepEqual(page.errors, []);
});

test("edits made during a long warm-up run wait: only the last source is compiled after it", async () => {
  await typeSource("@graph Small {\n  input x: Tensor<[2], f32>;\n  output y: x + 1.0;\n}\n");
  await waitCompiled("Small");
  // The worker notes the source of each compile it is sent.
  const shrewWorker = page.workers().filter((w) => /\/worker-[^/]*\.js/.test(w.url())).at(-1);
  await shrewWorker.evaluate(() => {
    const handle = self.onmessage;
    self.sent = [];
    self.onmessage = (ev) => {
      if (ev.data.type === "compile") self.sent.push(ev.data.source);
      return handle.call(self, ev);
    };
  });
  // 4 chained 2048 x 2048 matmuls: a warm-up run of seconds.
  const layers = Array.from({ length: 4 }, (_, i) => `  node h${i + 1} { op: matmul(h${i}, w); };`);
  const long = "@graph Long {\n  input h0: Tensor<[2048, 2048], f32>;\n  param w: Tensor<[2048, 2048], f32> { init: \"ones\"; };\n" +
    `${layers.join("\n")}\n  output y: h4;\n}\n`;
  await typeSource(long);
  await page.waitForFunction(() => document.getElementById("status")?.textContent === "warm-up run…", null, { timeout: 30_000 });
  // Two edits, each compiled after the 300 ms pause: the first is superseded before the worker is free.
  const edited = `// edited\n${long}`, last = "@graph Last {\n  input x: Tensor<[2], f32>;\n  output y: x * 3.0;\n}\n";
  await typeSource(edited);
  await page.waitForTimeout(600);
  await typeSource(last);
  await waitCompiled("Last", 120_000);
  assert.deepEqual(await shrewWorker.evaluate(() => self.sent), [long, last]);
  assert.deepEqual(page.errors, []);
});
