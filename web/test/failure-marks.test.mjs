// How the playground shows what failed, in a real browser (web/test/browser.mjs).
// A warm-up run (one run with random inputs after each compile) that failed
// showed a green "compiled" status and marked nothing: only the Run tab said
// so. After a compile error the views, graph menu, dim fields and Run button
// of the program before stayed as if current, only dimmed (nothing said so),
// and a reload said something else. Run-time errors were listed by their
// status code names (failed_precondition) where compile errors show E040.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPlayground } from "./page.mjs";

let page, close;

before(async () => {
  ({ page, close } = await openPlayground());  // the MLP example: graph Classifier, dim Batch
});

after(async () => {
  await close?.();
});

/** Waits for the compile under way (or about to start) to end, whichever way; the status's state. */
async function settled() {
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "busy", null, { timeout: 5_000 }).catch(() => {});
  await page.waitForFunction(() => ["ok", "error"].includes(document.getElementById("status")?.dataset.state), null, { timeout: 30_000 });
  return page.$eval("#status", (s) => s.dataset.state);
}

/** Replaces the source and waits for its compile; the status's state. */
async function setSource(source) {
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(source);
  return settled();
}

/** The status: its text, and whether it is marked as a warning. */
const status = () => page.$eval("#status", (s) => ({ text: s.textContent, warning: s.hasAttribute("data-warning") }));

/** The diagnostics listed: position, code and message. */
const listed = () => page.$$eval("#diagnostics li.diag", (lis) => lis.map((li) => ({
  at: `${li.dataset.line}:${li.dataset.column}`, code: li.dataset.code, msg: li.querySelector(".msg").textContent })));

/** The lines underlined in the editor as errors. */
const underlined = () => page.$$eval(".cm-lintRange-error", (els) => {
  const lines = [...document.querySelectorAll(".cm-content .cm-line")];
  return els.map((el) => lines.indexOf(el.closest(".cm-line")) + 1);
});

async function runClick() {
  await page.click("#tab-run");
  await page.fill("#run-count", "1");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
}

test("a failed warm-up run is marked in the editor and the diagnostics, as a failed Run is, and the status says it failed", async () => {
  const asserting = "@graph G {\n  input x: Tensor<[N], f32>;\n  @assert N <= 3, \"N too big\";\n  output y: x + 1.0;\n}\n";
  assert.equal(await setSource(asserting), "ok");  // compiled (the dim N is 4): the program can be run
  const compiled = await status();
  assert.equal(compiled.warning, true);  // amber, not green
  assert.match(compiled.text, /^compiled in \d+\.\d ms, warm-up run of G failed \(line 3\)$/);
  const warmUp = await listed();
  assert.equal(warmUp.length, 1);
  assert.deepEqual([warmUp[0].at, warmUp[0].code], ["3:3", "assertion"]);
  assert.match(warmUp[0].msg, /^warm-up run with random inputs: graph 'G': assertion failed: N too big/);
  await page.waitForSelector(".cm-lintRange-error");
  assert.deepEqual(await underlined(), [3]);
  // The compile's own results still show: its tape, and nothing says they are stale.
  await page.click("#tab-tape");
  assert.ok(await page.$('[data-testid="tape-table"]'));
  assert.equal(await page.$eval("#stale-note", (n) => n.hidden), true);
  // A Run with the same inputs fails there too: its own failure replaces the warm-up's.
  await runClick();
  assert.deepEqual((await listed()).map((d) => [d.at, d.code, /^graph 'G': assertion failed/.test(d.msg)]), [["3:3", "assertion", true]]);
  // A size the assertion holds for: the warm-up passes, nothing is marked, the status gives its time.
  await page.fill('[data-dim="N"]', "3");
  await page.press('[data-dim="N"]', "Tab");
  assert.equal(await settled(), "ok");
  assert.match((await status()).text, /^compiled in \d+\.\d ms, warm-up run (under 0\.1|\d+\.\d) ms$/);
  assert.equal((await status()).warning, false);
  assert.deepEqual(await listed(), []);

  // A run-time shape error in a graph B calls (A's line 4), found by B's warm-up.
  const shapes = "@graph A {\n  input a: ?;\n  input b: ?;\n  output y: a + b;\n}\n" +
    "@graph B {\n  input x: Tensor<[2], f32>;\n  input z: Tensor<[3], f32>;\n  output r: A(x, z);\n}\n";
  assert.equal(await setSource(shapes), "ok");
  assert.match((await status()).text, /, warm-up run of B failed \(line 4\)$/);
  assert.deepEqual((await listed()).map((d) => [d.at, d.code]), [["4:3", "run error"]]);
  assert.match((await listed())[0].msg, /^warm-up run with random inputs: graph 'B': node 'r' \(call\[A\]\): .*cannot be broadcast/);
  await page.waitForSelector(".cm-lintRange-error");
  assert.deepEqual(await underlined(), [4]);
});

test("after a compile error the views of the last program that compiled are labelled so, and cannot be run or changed", async () => {
  const good = "@graph Mine {\n  input x: Tensor<[K], f32>;\n  output y: x + 1.0;\n}\n";
  assert.equal(await setSource(good), "ok");
  const controls = () => page.evaluate(() => ({
    note: document.getElementById("stale-note").hidden ? null : document.getElementById("stale-note").textContent,
    graph: document.getElementById("graph-select").disabled,
    dims: [...document.querySelectorAll("#dims input")].map((i) => i.disabled),
    run: document.querySelector('[data-testid="run-button"]')?.disabled ?? "none",
    bundle: document.getElementById("download-bundle").disabled,
    // Screen readers get the note with each view.
    described: [...document.querySelectorAll("[role=tabpanel]")].map((p) => p.getAttribute("aria-describedby")),
  }));
  const current = { note: null, graph: false, dims: [false], run: false, bundle: false, described: [null, null, null, null, null] };
  assert.deepEqual(await controls(), current);

  const broken = "@graph Mine {\n  input x: Tensor<[K], f32>;\n  output y: x + zz;\n}\n";
  assert.equal(await setSource(broken), "error");
  const why = "the source in the editor does not compile (see the errors under the editor).";
  // The dim fields stay editable: they size the next compile (see below).
  assert.deepEqual(await controls(), { note: `Showing the last program that compiled: ${why}`, graph: true, dims: [false], run: true,
    bundle: true, described: Array(5).fill("stale-note") });
  assert.equal(await page.$eval("#stale-note", (n) => n.checkVisibility()), true);
  // The last program's views are still there to look at.
  assert.equal(await page.textContent('[data-testid="run-button"]'), "Run Mine");

  // A reload of the same source has no last program: it says so, for the same reason.
  await page.reload();
  assert.equal(await settled(), "error");
  assert.deepEqual(await controls(), { note: `Nothing compiled: ${why}`, graph: true, dims: [], run: "none", bundle: true,
    described: Array(5).fill("stale-note") });
  assert.deepEqual((await listed()).map((d) => [d.at, d.code]), [["3:17", "E040"]]);

  // Fixed, the program is current again.
  assert.equal(await setSource(good), "ok");
  assert.deepEqual(await controls(), current);

  // A build that fails for a dim (a parameter it sizes over the limit): the field is the way back.
  const sized = "@graph Mine {\n  input x: Tensor<[K], f32>;\n  param w: Tensor<[K, K, K, K, K], f32>;\n  output y: x + 1.0;\n}\n";
  assert.equal(await setSource(sized), "ok");
  await page.fill('[data-dim="K"]', "4000");
  await page.press('[data-dim="K"]', "Tab");
  assert.equal(await settled(), "error");
  assert.deepEqual((await listed()).map((d) => [d.at, d.code]), [["3:3", "limit"]]);
  const built = await controls();
  assert.deepEqual([built.graph, built.dims, built.run, built.bundle], [true, [false], true, true]);
  // Its source compiled: the note does not say it does not.
  assert.equal(built.note, "Showing the last program that compiled: the program in the editor does not build with these dims " +
    "and seed (see the errors under the editor).");
  await page.fill('[data-dim="K"]', "4");
  await page.press('[data-dim="K"]', "Tab");
  assert.equal(await settled(), "ok");
  assert.deepEqual(await controls(), current);
});

test("run-time errors are listed by their kind, compile errors by their E-code", async () => {
  // A compile error keeps its code.
  assert.equal(await setSource("@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x + zz;\n}\n"), "error");
  assert.deepEqual((await listed()).map((d) => [d.at, d.code]), [["3:17", "E040"]]);
  // A parameter over the tensor size limit, found while the executors are built.
  assert.equal(await setSource("@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[20000, 20000], f32>;\n  output y: x;\n}\n"), "error");
  assert.deepEqual((await listed()).map((d) => [d.at, d.code]), [["3:3", "limit"]]);
  // A node whose declared type the run's input contradicts (x is `?`, run as f32[2, 3]).
  assert.equal(await setSource("@graph G {\n  input x: ?;\n  node y: Tensor<[3], f32> { op: relu(x); };\n  output y;\n}\n"), "ok");
  await runClick();
  assert.deepEqual((await listed()).map((d) => [d.at, d.code]), [["3:3", "run error"]]);
  // (A failed @assert is listed as "assertion": see the warm-up test.) So is one its values leave without a value.
  assert.equal(await setSource("@graph G {\n  input x: Tensor<[N], f32>;\n  @assert 16 / (N - N) > 1, \"guard\";\n  output y: x;\n}\n"), "ok");
  assert.deepEqual((await listed()).map((d) => [d.at, d.code]), [["3:3", "assertion"]]);
  assert.match((await listed())[0].msg, /assertion cannot be evaluated: guard .*division by zero/);
});
