// A very long tape in a real browser (web/test/browser.mjs): 127,999
// instructions. The views spread arrays of that length into calls
// (Math.max(...), append(...)), which overflow V8's stack ("Maximum call
// stack size exceeded"): the compile's views stopped half drawn, the
// Memory and Stats tabs still showing the program before, with an uncaught
// error. And a view that fails to draw for any reason must not leave the
// others, or itself, looking current.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, openPlayground, pasteSource } from "./page.mjs";

let page, close, scratch;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "shrew-web-long-"));
  ({ page, close } = await openPlayground());
});

after(async () => {
  await close?.();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** `shrew stats --json` of `source`: its graph's CompileStats. */
function cliStats(source) {
  const file = join(scratch, "prog.sw");
  writeFileSync(file, source);
  return JSON.parse(execFileSync(process.execPath, [CLI, "stats", file, "--json"], { encoding: "utf8", maxBuffer: 1 << 26 })).stats;
}

const statValue = (field) => page.$eval(`[data-testid="stats-table"] tr[data-field="${field}"]`, (tr) => Number(tr.dataset.value));

test("a 127,999-instruction tape: the tape (all of it on request), memory plan and stats are drawn", async () => {
  // Past 124,600 values, the most arguments one call took in this Chromium (a spread
  // overflows its stack a little sooner inside the page's calls): the smallest such
  // program is as long to plan as to draw, some 10 s here.
  const source = "@graph R {\n  input x: Tensor<[4], f32>;\n  output y: repeat(64000) { relu(x) };\n}\n";
  const instructions = 127_999;
  await page.click('[data-tab="tape"]');
  await pasteSource(page, source, "R");
  assert.match(await page.textContent("#tape-view .lede"), new RegExp(`^${instructions} instructions \\(63998 frees, 0 fused\\)`));
  const rows = () => page.$$eval('[data-testid="tape-table"] tbody tr', (r) => r.length);
  assert.equal(await rows(), 1000);
  await page.click('[data-tab="stats"]');
  assert.equal(await statValue("numInstructions"), instructions);
  await page.click('[data-tab="memory"]');
  const buffers = await page.$$eval("#plan-chart .buffer", (b) => b.length);
  assert.ok(buffers >= 1, `${buffers} buffers drawn`);
  assert.match(await page.textContent("#plan-chart .lede"), new RegExp(`^${buffers} buffers in one arena of 128 B\\.`));
  // The x axis spans every tape step: its last tick is the tape's length without its frees.
  const steps = await page.$$eval("#plan-chart .axis-label[text-anchor=middle]", (t) => Number(t.at(-1).textContent));
  assert.equal(steps, 64_001);
  // Every row on request. Clicked while the Tape tab is hidden: laying out 128,000
  // rows on screen takes some 20 s on two cores, drawing them 2 s.
  await page.evaluate(() => document.querySelector('[data-testid="tape-more"]').click());
  assert.equal(await rows(), instructions);
  assert.equal(await page.$eval('[data-testid="tape-table"] tbody tr:last-child', (r) => Number(r.dataset.index)), instructions - 1);
  assert.deepEqual(page.errors, []);
});

test("a view that fails to draw says so in place and in the status; the other views show the new program", async () => {
  const source = "@graph Small {\n  input x: Tensor<[2, 3], f32>;\n  output y: relu(x) * 2.0;\n}\n";
  const stats = cliStats(source);
  await page.click('[data-tab="stats"]');
  // Drawing the memory plan throws (here made to: its panel refuses new content).
  await page.evaluate(() => {
    document.getElementById("plan-chart").append = () => {
      throw new RangeError("injected drawing failure");
    };
  });
  await pasteSource(page, source, "Small");
  assert.match(await page.textContent("#status"), /^compiled in .*; the Memory view could not be drawn: RangeError: injected drawing failure$/);
  // The views after it are drawn all the same.
  assert.equal(await statValue("numInstructions"), stats.numInstructions);
  await page.click('[data-tab="tape"]');
  assert.equal(await page.$$eval('[data-testid="tape-table"] tbody tr', (r) => r.length), stats.numInstructions);
  await page.click('[data-tab="run"]');
  assert.equal(await page.textContent('[data-testid="run-button"]'), "Run Small");
  // The failed one shows the failure, not the long program's plan.
  await page.click('[data-tab="memory"]');
  assert.equal(await page.$$eval("#plan-chart .buffer", (b) => b.length), 0);
  assert.equal(await page.textContent('#plan-chart [data-testid="view-error"]'),
    "The Memory view could not be drawn: RangeError: injected drawing failure");
  // Drawn again by the next compile once it can be.
  await page.evaluate(() => delete document.getElementById("plan-chart").append);
  await pasteSource(page, source.replace("2.0", "3.0"), "Small");
  assert.match(await page.textContent("#status"), /^compiled in [^;]*$/);
  assert.equal(await page.$('#plan-chart [data-testid="view-error"]'), null);
  assert.ok(await page.$$eval("#plan-chart .buffer", (b) => b.length) > 0);
  assert.deepEqual(page.errors, []);
});
