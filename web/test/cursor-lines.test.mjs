// A source line selects the tape rows and graph nodes made from it. Spans
// count UTF-8 bytes; the line a span ends on is looked up in a table made
// once per compile, so moving the cursor stays cheap on a large program
// (a TextEncoder pass per instruction blocked the page ~50-160 ms a move).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPlayground, pasteSource, selectedRows, tapeResultNames, waitCompiled } from "./page.mjs";

let pg, page, scratch;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "shrew-cursor-test-"));
  pg = await openPlayground();
  page = pg.page;
});

after(async () => {
  await pg?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function clickLine(line) {
  await page.locator(".cm-content .cm-line").nth(line - 1).click();
}

test("a line selects its rows and nodes when multi-byte text comes before and inside the span", async () => {
  // Node a's span starts after 13 multi-byte characters on line 3 and runs
  // into line 4 past 15 more: read as characters, it would reach line 5.
  const source = ["@graph U {", "    input x: Tensor<[2], f32>;",
    "    /* ünïcødé 日本語日本語日本語 */ node a { op: relu(x",
    "        /* 日本語日本語日本語日本語日本語 */ + x); };",
    "    node b { op: a * 2.0; };", "    output y: b;", "}", ""].join("\n");
  const file = join(scratch, "utf8.sw");
  writeFileSync(file, source);
  const names = tapeResultNames(file);
  await page.click('[data-tab="tape"]');
  await pasteSource(page, source, "U");
  const rowNames = async () => (await selectedRows(page)).map((i) => names.get(i));
  for (const line of [3, 4]) {
    await clickLine(line);
    assert.deepEqual(await rowNames(), ["a_fused"], `line ${line}`);
  }
  await clickLine(5);
  const five = await rowNames();
  assert.ok(five.includes("b") && !five.includes("a_fused"), five.join(", "));
  await clickLine(2);
  assert.deepEqual(await rowNames(), ["x"]);

  await page.click('[data-tab="graph"]');
  await page.waitForSelector('.graph-wrap[data-state="done"] .graph-svg', { timeout: 60_000 });
  const nodeNames = () => page.$$eval(".graph-svg .node.selected .node-name", (els) => els.map((e) => e.textContent));
  await clickLine(4);
  assert.deepEqual(await nodeNames(), ["a_fused"]);
  await clickLine(5);
  const nodes = await nodeNames();
  assert.ok(nodes.some((n) => n.startsWith("b")) && !nodes.includes("a_fused"), nodes.join(", "));
  await page.click('[data-tab="tape"]');
  assert.deepEqual(page.errors, []);
});

test("moving the cursor near the end of a 5,000-node program stays cheap", async () => {
  const N = 5000;
  const source = ["@graph Chain {", "    input x: Tensor<[2], f32>;",
    ...Array.from({ length: N }, (_, i) => `    node n${i} { op: relu(${i ? `n${i - 1}` : "x"}); };`), `    output y: n${N - 1};`, "}", ""].join("\n");
  const file = join(scratch, "chain.sw");
  writeFileSync(file, source);
  const names = tapeResultNames(file);
  await page.click('[data-tab="tape"]');
  await pasteSource(page, source, "Chain");
  await page.click('[data-testid="tape-more"]');  // every row drawn: the selection lands near the end
  // The button is gone; the focus went on to the first row it added, not back to the page.
  assert.equal(await page.evaluate(() => document.activeElement.dataset.index), "1000");
  await page.click(".cm-content");
  await page.keyboard.press("Control+End");
  await page.keyboard.press("ArrowUp");  // the editor draws the lines it scrolled to on the first move
  await page.waitForTimeout(300);
  // Each key's handling, timed from the first keydown listener to the last,
  // and the UTF-8 conversions made meanwhile.
  const moves = async () => {
    await page.evaluate(() => {
      window.moveTimes = [];
      window.utf8Calls = 0;
      if (!window.timing) {
        window.timing = true;
        addEventListener("keydown", () => (window.keyAt = performance.now()), true);
        addEventListener("keydown", () => window.moveTimes.push(performance.now() - window.keyAt));
        for (const [cls, fn] of [[TextEncoder, "encode"], [TextEncoder, "encodeInto"], [TextDecoder, "decode"]]) {
          const orig = cls.prototype[fn];
          cls.prototype[fn] = function (...args) {
            window.utf8Calls++;
            return orig.apply(this, args);
          };
        }
      }
    });
    for (let i = 0; i < 10; i++) await page.keyboard.press("ArrowUp");
    return page.evaluate(() => ({ times: window.moveTimes.sort((a, b) => a - b), utf8: window.utf8Calls }));
  };
  const withViews = await moves();
  // 11 lines up from the last (empty) line: `node n4991`, whose relu is the one row selected.
  const line = source.split("\n").length - 11;
  assert.deepEqual((await selectedRows(page)).map((i) => names.get(i)), [`n${line - 3}`]);
  assert.equal(withViews.utf8, 0, "UTF-8 conversions while moving the cursor");
  // The same moves with the views out of date (an edit not compiled yet): the editor's own cost.
  await page.keyboard.type(" ");
  const editorOnly = await moves();
  const median = (t) => t[t.length >> 1];
  assert.ok(median(withViews.times) < 3 * median(editorOnly.times) + 5,
    `a cursor move took ${median(withViews.times).toFixed(1)} ms (median), the editor alone ${median(editorOnly.times).toFixed(1)} ms`);
  assert.deepEqual(page.errors, []);
});

test("after a recompile the tape and graph select the cursor's line, moved while the edit was being compiled", async () => {
  await page.click('[data-tab="graph"]');
  await pasteSource(page, ["@graph G {", "  input x: Tensor<[4], f32>;", "  node a { op: x * 2.0; };",
    "  node b { op: tanh(a); };", "  output y: b + 1.0;", "}", ""].join("\n"), "G");
  const drawn = () => page.waitForSelector('.graph-wrap[data-state="done"] .graph-svg', { timeout: 60_000 });
  const nodes = async () => {
    await drawn();
    return page.$$eval(".graph-svg .node.selected", (els) => els.map((e) => e.getAttribute("aria-label")).sort());
  };
  const rows = () => page.$$eval('[data-testid="tape-table"] tbody tr.selected .op', (tds) => tds.map((td) => td.textContent.trim()));
  await clickLine(2);
  assert.deepEqual(await nodes(), ["input x: Tensor<[4], f32>, line 2"]);
  assert.deepEqual(await rows(), ["load_input x"]);
  // A new line 3, with the cursor on it, typed (and compiled) while line 2 was selected. Node z
  // is dead code: only the IR before optimisation has it. The graph kept line 2 and marked it in
  // the new program; the tape marked nothing.
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.type("node z { op: x - 3.0; };");
  await waitCompiled(page, "G");
  assert.deepEqual(await nodes(), []);
  assert.deepEqual(await rows(), []);
  await page.click('[data-which="before"]');
  assert.deepEqual(await nodes(), ["constant[3:f32] __anon_1: Tensor<[], f32>, line 3", "sub z: Tensor<[4], f32>, line 3"]);
  await page.click('[data-which="after"]');
  // A line put before `input x` moves it and the cursor to line 3: both views select x there.
  await clickLine(2);
  await page.keyboard.press("Home");
  await page.keyboard.press("Enter");
  await waitCompiled(page, "G");
  assert.deepEqual(await nodes(), ["input x: Tensor<[4], f32>, line 3"]);
  assert.deepEqual(await rows(), ["load_input x"]);
  await page.click('[data-tab="tape"]');
  assert.deepEqual(page.errors, []);
});

test("after a run of a graph typed per run, the new tape selects the cursor's line", async () => {
  await page.click('[data-tab="tape"]');
  await pasteSource(page, "@graph Dyn {\n  input v: Tensor<[?, 2], f32>;\n  node a { op: v * 2.0; };\n  output y: a + 1.0;\n}\n", "Dyn");
  const rows = () => page.$$eval('[data-testid="tape-table"] tbody tr.selected .op', (tds) => tds.map((td) => td.textContent.trim()));
  await clickLine(3);
  const before = await rows();
  assert.ok(before.includes("mul"), String(before));
  await page.click('[data-tab="run"]');
  await page.fill('[data-input="v"] input[data-qdim="0"]', "5");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  await page.click('[data-tab="tape"]');
  // The run compiled the graph for [5, 2]: its tape was drawn anew, with no selection.
  assert.ok((await rows()).includes("mul"), String(await rows()));
  assert.deepEqual(page.errors, []);
});
