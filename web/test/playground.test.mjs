// End-to-end test of the built playground in a real browser: Debian's
// Chromium (web/test/browser.mjs: headless, never a downloaded browser).
// Every expectation comes from the `shrew` CLI on the same source: tape
// length and statistics (`stats --json`), the diagnostic position
// (`check`), output shapes and values (`run --json`).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, WEB, openPlayground, waitCompiled as waitFor } from "./page.mjs";
import { Shrew, Tensor, writeNpy } from "../../js/dist/index.js";
import { formulaInputs } from "../../js/test/helpers.mjs";

const ARTIFACTS = join(WEB, "test-artifacts");
const EXAMPLES = readdirSync(join(WEB, "examples")).filter((f) => f.endsWith(".sw")).sort();

let page, close, scratch;

function cli(args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const dimsArg = (dims) => (Object.keys(dims).length ? ["--dims", Object.entries(dims).map(([k, v]) => `${k}=${v}`).join(",")] : []);

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  scratch = mkdtempSync(join(tmpdir(), "shrew-web-test-"));
  ({ page, close } = await openPlayground({
    beforeLoad(p) {
      // Loading an example over edits asks first: answered with page.dialogAnswer, messages kept.
      p.dialogs = [];
      p.dialogAnswer = true;
      p.on("dialog", (d) => {
        p.dialogs.push(d.message());
        return p.dialogAnswer ? d.accept() : d.dismiss();
      });
    },
  }));
});

after(async () => {
  await close?.();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Waits until the status says compiled (optionally: for graph `graph`). */
const waitCompiled = (graph) => waitFor(page, graph, 30_000);

/** The editor's text as rendered (the examples are short enough to be drawn whole). */
async function editorText() {
  return page.$$eval(".cm-content .cm-line", (lines) => lines.map((l) => l.textContent).join("\n"));
}

async function pageDims() {
  return page.$$eval("[data-dim]", (els) => Object.fromEntries(els.map((e) => [e.dataset.dim, Number(e.value)])));
}

async function tab(name) {
  await page.click(`[data-tab="${name}"]`);
}

/** Waits until the graph view has drawn its layout (made in a worker). */
async function graphDrawn() {
  await page.waitForSelector('.graph-wrap[data-state="done"] .graph-svg', { timeout: 60_000 });
}

async function loadExample(file) {
  const id = file.replace(/\.sw$/, "");
  const source = readFileSync(join(WEB, "examples", file), "utf8");
  const info = JSON.parse(execFileSync(process.execPath, [CLI, "info", join(WEB, "examples", file), "--json"], { encoding: "utf8" }));
  await page.selectOption("#example-select", id);
  await waitCompiled(info.graphs[0].name);
  assert.equal(await editorText(), source);
  return { source, graph: info.graphs[0].name, path: join(WEB, "examples", file) };
}

test("every example: tape rows and statistics match `shrew stats --json`", async () => {
  assert.ok(EXAMPLES.length >= 3, "the playground ships at least three examples");
  for (const file of EXAMPLES) {
    const ex = await loadExample(file);
    const dims = await pageDims();
    const expected = JSON.parse(execFileSync(process.execPath, [CLI, "stats", ex.path, "--json", ...dimsArg(dims)], { encoding: "utf8" }));
    await tab("tape");
    const rows = await page.$$eval('[data-testid="tape-table"] tbody tr', (r) => r.length);
    assert.equal(rows, expected.stats.numInstructions, `${file}: tape rows`);
    assert.ok(rows > 0);
    await tab("stats");
    const shown = await page.$$eval('[data-testid="stats-table"] tr[data-field]', (r) => Object.fromEntries(r.map((x) => [x.dataset.field, Number(x.dataset.value)])));
    for (const [k, v] of Object.entries(expected.stats)) {
      if (k === "compileTimeUs") continue;  // a timing, differs per compile
      assert.equal(shown[k], v, `${file}: stats.${k}`);
    }
    assert.ok(Object.keys(shown).includes("compileTimeUs"));
    // A time no finer than the browser's clock (0.1 ms here), as in the status line.
    assert.match(await page.textContent('[data-testid="stats-table"] tr[data-field="compileTimeUs"] td.num'), /^(under 0\.1|\d+\.\d) ms$/);
    const opt = await page.$$eval('[data-testid="opt-table"] tr[data-field]', (r) => Object.fromEntries(r.map((x) => [x.dataset.field, Number(x.dataset.value)])));
    for (const [k, v] of Object.entries(expected.optimizer)) if (v !== undefined) assert.equal(opt[k], v, `${file}: optimizer.${k}`);
    // The memory chart draws one rectangle per planned buffer.
    await tab("memory");
    assert.ok(await page.$$eval(".plan-svg .buffer", (b) => b.length) > 0, `${file}: buffers drawn`);
    // The graph view lays out every optimised IR node.
    await tab("graph");
    await graphDrawn();
    assert.equal(await page.$$eval(".graph-svg .node", (n) => n.length), expected.stats.numSourceNodes, `${file}: graph nodes`);
  }
  assert.deepEqual(page.errors, []);
});

test("hovering a tape row highlights its source; a source line selects its rows", async () => {
  await loadExample("mlp-classifier.sw");
  await tab("tape");
  const fusedRow = page.locator('[data-testid="tape-table"] tbody tr.fused').first();
  await fusedRow.hover();
  // Its source is the `node h1` line (relu over the fused matmul + b1).
  const lit = await page.$$eval(".cm-line.cm-span-line", (els) => els.map((e) => e.textContent));
  assert.equal(lit.length, 1, lit.join(" | "));
  assert.match(lit[0], /node h1 .*relu\(matmul\(features, w1\) \+ b1\)/);
  assert.match(await page.$$eval(".cm-span-highlight", (els) => els.map((e) => e.textContent).join("")), /features/);
  // From the keyboard too: a focused row shows its source, Space selects it, Down moves to the next row.
  await page.mouse.move(0, 0);
  await fusedRow.focus();
  await page.keyboard.press("Space");
  const index = Number(await fusedRow.getAttribute("data-index"));
  assert.deepEqual(await page.$$eval('[data-testid="tape-table"] tbody tr.selected', (r) => r.map((x) => Number(x.dataset.index))), [index]);
  assert.match((await page.$$eval(".cm-line.cm-span-line", (els) => els.map((e) => e.textContent))).join(" | "), /node h1 /);
  await page.keyboard.press("ArrowDown");
  assert.equal(await page.evaluate(() => Number(document.activeElement.dataset.index)), index + 1);
  // The tabs follow the ARIA tabs pattern: one tab stop, arrows (wrapping), Home and End.
  await page.focus('[data-tab="tape"]');
  const activeTab = () => page.evaluate(() => ({ focused: document.activeElement.dataset.tab, selected: document.querySelector('[aria-selected="true"]').dataset.tab,
    shown: document.querySelector("[data-panel]:not([hidden])").dataset.panel, stops: document.querySelectorAll('[data-tab][tabindex="0"]').length }));
  for (const [key, tab] of [["ArrowRight", "memory"], ["End", "run"], ["ArrowRight", "tape"], ["ArrowLeft", "run"], ["Home", "tape"]]) {
    await page.keyboard.press(key);
    assert.deepEqual(await activeTab(), { focused: tab, selected: tab, shown: tab, stops: 1 }, key);
  }
  // Clicking the `node h2` line selects the instructions made from it.
  const line = (await editorText())
    .split("\n").findIndex((l) => l.includes("node h2")) + 1;
  await page.locator(".cm-content .cm-line").nth(line - 1).click();
  const selected = await page.$$eval('[data-testid="tape-table"] tbody tr.selected', (r) => r.map((x) => x.title));
  assert.ok(selected.length >= 1, "rows selected");
  assert.ok(selected.some((t) => t.includes("fused_matmul_add")), selected.join(" | "));
  // The graph view marks the IR nodes of that line too.
  await tab("graph");
  await graphDrawn();
  const nodes = await page.$$eval(".graph-svg .node.selected .node-name", (els) => els.map((e) => e.textContent));
  assert.ok(nodes.includes("h2"), nodes.join(" | "));
});

test("a typed error shows its diagnostic at the line and column `shrew check` reports", async () => {
  const ex = await loadExample("mlp-classifier.sw");
  const bad = ex.source.replace("relu(matmul(h1, w2) + b2)", "relu(matmul(h1, w9) + b2)");
  assert.notEqual(bad, ex.source);
  const file = join(scratch, "bad.sw");
  writeFileSync(file, bad);
  const check = cli(["check", file]);
  assert.equal(check.status, 1);
  const m = /bad\.sw:(\d+):(\d+): error\[(E\d+)\]/.exec(check.stderr + check.stdout);
  assert.ok(m, check.stderr);
  const [line, column, code] = [Number(m[1]), Number(m[2]), m[3]];

  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(bad);
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "error", null, { timeout: 30_000 });
  const diag = await page.$eval("#diagnostics li.diag.error", (li) => ({ line: Number(li.dataset.line), column: Number(li.dataset.column), code: li.dataset.code, text: li.textContent }));
  assert.deepEqual([diag.line, diag.column, diag.code], [line, column, code]);
  assert.match(diag.text, /w9/);
  // The inline underline sits on that line and covers the bad name.
  await page.waitForSelector(".cm-lintRange-error");
  const inline = await page.$eval(".cm-lintRange-error", (el) => {
    const lines = [...document.querySelectorAll(".cm-content .cm-line")];
    return { line: lines.indexOf(el.closest(".cm-line")) + 1, text: el.textContent };
  });
  assert.deepEqual(inline, { line, text: "w9" });
  // The listed diagnostic works from the keyboard: Enter puts the cursor on it.
  await page.focus("#diagnostics li.diag.error");
  await page.keyboard.press("Enter");
  const cursor = await page.evaluate(() => {
    const sel = window.getSelection();
    const lines = [...document.querySelectorAll(".cm-content .cm-line")];
    return { focused: document.activeElement?.classList.contains("cm-content"), line: lines.indexOf(sel.anchorNode.parentElement.closest(".cm-line")) + 1 };
  });
  assert.deepEqual(cursor, { focused: true, line });
  await page.screenshot({ path: join(ARTIFACTS, "error-1280x800.png") });

  // The edited source survives a reload.
  await page.reload();
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "error", null, { timeout: 30_000 });
  assert.equal(await editorText(), bad);

  // A program without any @graph is an error here, as for `shrew run` (the page said "compiled" and
  // showed nothing); `shrew check` reports it valid, with no graphs.
  const empty = join(scratch, "empty.sw");
  writeFileSync(empty, "// no graphs\n@config { A: 3; }\n");
  assert.equal(cli(["run", empty]).status, 1);
  assert.match(cli(["check", empty]).stdout, /ok \(no graphs\)/);
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(readFileSync(empty, "utf8"));
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "error" && /no @graph/.test(document.getElementById("status").textContent), null, { timeout: 30_000 });
  assert.match(await page.textContent("#diagnostics"), /declares no @graph/);

  // The edited source has its own menu entry, so picking its example again is a change that
  // brings the original back, after a confirm (re-picking the selected example did nothing).
  const menu = () => page.$eval("#example-select", (s) => ({ value: s.value, shown: s.selectedOptions[0].textContent }));
  assert.deepEqual(await menu(), { value: "", shown: "MLP classifier (fusion) (edited)" });
  const asked = page.dialogs.length;
  page.dialogAnswer = false;
  await page.selectOption("#example-select", "mlp-classifier");
  assert.equal(page.dialogs.length, asked + 1);
  assert.match(page.dialogs.at(-1), /MLP classifier.*edits/);
  assert.deepEqual(await menu(), { value: "", shown: "MLP classifier (fusion) (edited)" });
  assert.equal(await editorText(), readFileSync(empty, "utf8"));
  page.dialogAnswer = true;
  await page.selectOption("#example-select", "mlp-classifier");
  await waitCompiled();
  assert.equal(await editorText(), ex.source);
  assert.deepEqual(await menu(), { value: "mlp-classifier", shown: "MLP classifier (fusion)" });
});

async function runAndCompare(file, shotName) {
  const ex = await loadExample(file);
  const dims = await pageDims();
  // No --seed: the page's seed is the program's own until one is typed (mlp-classifier's @config seed is 7).
  const expected = JSON.parse(execFileSync(process.execPath, [CLI, "run", ex.path, "--json", ...dimsArg(dims)], { encoding: "utf8" }));
  await tab("run");
  await page.fill("#run-count", "5");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"]', { timeout: 30_000 });
  for (const [name, out] of Object.entries(expected.outputs)) {
    const shown = await page.$eval(`[data-output="${name}"]`, (el) => ({
      shape: JSON.parse(el.dataset.shape), dtype: el.dataset.dtype,
      values: [...el.querySelectorAll("table.values tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.dataset.v))),
      heatmap: el.querySelector("canvas.heatmap") !== null,
    }));
    assert.deepEqual(shown.shape, out.shape, `${file}: ${name} shape`);
    assert.equal(shown.dtype, out.dtype);
    assert.equal(shown.heatmap, out.shape.length === 2);
    const cols = out.shape.at(-1) ?? 1;
    const flat = out.data.flat(Infinity);
    let compared = 0;
    shown.values.forEach((row, r) => row.forEach((v, c) => {
      const want = flat[r * cols + c];
      assert.ok(Math.abs(v - want) <= 1e-6 + 1e-5 * Math.abs(want), `${file}: ${name}[${r}, ${c}] = ${v}, CLI ${want}`);
      compared++;
    }));
    assert.equal(compared, Math.min(flat.length, 64 * 32));
  }
  const timing = await page.textContent('[data-testid="timing"]');
  assert.match(timing, /JIT tape/);
  assert.match(timing, /interpreter/);
  // Five runs of these small graphs take well under 20 steps of the worker's clock (0.1 ms here):
  // each batch runs on until it spans them, so the times are measured, not the clock's steps
  // (both executors read 200.0 µs, a speed-up of 1.0×, when five runs were all that was timed).
  const runsMade = await page.$$eval("[data-runs]", (els) => els.map((e) => Number(e.dataset.runs)));
  assert.ok(runsMade.every((n) => n > 5), `runs made: ${runsMade}`);
  assert.equal(await page.$('[data-testid="timing-coarse"]'), null);
  const speedUp = Number((await page.textContent('[data-testid="timing"] .card:nth-child(3) .card-value')).replace("×", ""));
  assert.ok(speedUp > 1, `${file}: the JIT ${speedUp}× the interpreter's speed`);
  // Where the time goes: the operations and their counts are the CLI profile's, the shares add up.
  const cliProfile = JSON.parse(execFileSync(process.execPath, [CLI, "profile", ex.path, "--json", "--runs", "2", ...dimsArg(dims)], { encoding: "utf8" }));
  const shownOps = await page.$$eval('[data-testid="profile-ops"] tbody tr', (trs) => trs.map((tr) => {
    const td = [...tr.querySelectorAll("td")];
    return { op: tr.dataset.op, count: Number(td[1].textContent), share: Number(td[3].textContent.replace("%", "")) };
  }));
  assert.deepEqual(shownOps.map((o) => `${o.op} ${o.count}`).sort(), cliProfile.ops.map((o) => `${o.op} ${o.count}`).sort(), file);
  const total = shownOps.reduce((a, o) => a + o.share, 0);
  assert.ok(Math.abs(total - 100) <= 0.05 * shownOps.length + 0.01, `${file}: shares add to ${total}%`);
  const top = await page.$$eval('[data-testid="profile-top"] tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.index)));
  assert.ok(top.length >= 1 && top.length <= 8, `${file}: ${top.length} instructions listed`);
  for (const index of top) assert.ok(cliProfile.instructions.some((i) => i.index === index), `${file}: instruction ${index}`);
  await page.screenshot({ path: join(ARTIFACTS, shotName) });
}

test("errors found at setup or at run time are marked at their place in the source", async () => {
  const typeIn = async (text) => {
    await page.click(".cm-content");
    await page.keyboard.press("Control+A");
    await page.keyboard.insertText(text);
  };
  const listed = () => page.$eval("#diagnostics li.diag.error", (li) => ({ line: Number(li.dataset.line), column: Number(li.dataset.column), text: li.textContent }));
  // A parameter over the 1 GiB tensor cap: found while the executors are built, on w's line.
  await typeIn("@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[20000, 20000], f32>;\n  output y: x;\n}\n");
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "error", null, { timeout: 30_000 });
  const setup = await listed();
  assert.deepEqual([setup.line, setup.column], [3, 3]);
  assert.match(setup.text, /parameter 'w'.*over the limit/);
  // Said once: no file name, position or E150 header in the text (the list read "3:3 resource_exhausted
  // playground.sw:3:3: error[E150]: parameter 'w' …").
  assert.doesNotMatch(setup.text, /playground\.sw|E150|3:3:/);
  await page.waitForSelector(".cm-lintRange-error");

  // A node whose declared type this run's input contradicts (x is `?`, run as f32[2, 3]): the
  // run fails, and the node's line is marked.
  await typeIn("@graph G {\n  input x: ?;\n  node y: Tensor<[3], f32> { op: relu(x); };\n  output y;\n}\n");
  await waitCompiled("G");
  assert.equal(await page.$("#diagnostics li.diag.error"), null);
  await tab("run");
  await page.fill("#run-count", "1");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="run-error"]', { timeout: 30_000 });
  assert.match(await page.textContent('[data-testid="run-error"]'), /declared type Tensor<\[3\], f32> does not match/);
  const run = await listed();
  assert.deepEqual([run.line, run.column], [3, 3]);
  const inline = await page.$eval(".cm-lintRange-error", (el) => [...document.querySelectorAll(".cm-content .cm-line")].indexOf(el.closest(".cm-line")) + 1);
  assert.equal(inline, 3);
});

test("running a model gives the CLI's output shapes and values", async () => {
  await runAndCompare("mlp-classifier.sw", "run-mlp-1280x800.png");
  await runAndCompare("self-attention.sw", "run-attention-1280x800.png");
  // A run still going when another example is picked: its outputs must not show under the new program.
  await page.fill("#run-count", "2000");
  await page.click('[data-testid="run-button"]');
  const ex = await loadExample("memory-reuse.sw");
  await page.waitForTimeout(300);  // the worker answers the run before the compile queued behind it
  assert.equal(await page.textContent('[data-testid="run-button"]'), `Run ${ex.graph}`);
  assert.deepEqual(await page.$$eval("[data-output], [data-testid='timing']", (els) => els.map((e) => e.dataset.output ?? "timing")), []);
  // A large 2-D output: its heatmap keeps square cells within 360 px (it was drawn 4 px a cell, 4096 px tall here).
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Big {\n  input x: Tensor<[1024, 512], f32>;\n  output y: x * 2.0;\n}\n");
  await waitCompiled("Big");
  await page.fill("#run-count", "1");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"]', { timeout: 30_000 });
  const box = await page.$eval('[data-output="y"] canvas.heatmap', (c) => ({ w: c.getBoundingClientRect().width, h: c.getBoundingClientRect().height }));
  assert.deepEqual(box, { w: 180, h: 360 });
  // Drawn from 3 x 3 blocks: at most 360 pixels a side (one pixel per cell froze the page for seconds at 4000 x 4000).
  assert.deepEqual(await page.$eval('[data-output="y"] canvas.heatmap', (c) => [c.width, c.height]), [171, 342]);
  const x = await page.$$eval('.inputs-used [data-input="x"] tbody tr:first-child td', (tds) => tds.map((td) => Number(td.dataset.v)));
  const y = await page.$$eval('[data-output="y"] tbody tr:first-child td', (tds) => tds.map((td) => Number(td.dataset.v)));
  assert.equal(y.length, 32);
  assert.deepEqual(y, x.map((v) => v * 2));
  // Timed runs of a slow graph stop at the time budget (200 interpreted 384 x 384 matmuls held the
  // worker for half a minute, and every edit's compile waited behind them).
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Slow {\n  input a: Tensor<[384, 384], f32>;\n  param w: Tensor<[384, 384], f32> { init: \"ones\"; };\n  output y: matmul(a, w);\n}\n");
  await waitCompiled("Slow");
  await page.fill("#run-count", "200");
  const started = Date.now();
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"]', { timeout: 120_000 });
  const took = Date.now() - started;
  const made = await page.$$eval("[data-runs]", (els) => els.map((e) => Number(e.dataset.runs)));
  assert.ok(took < 10_000, `200 timed runs took ${took} ms`);
  assert.ok(made[1] >= 1 && made[1] < 200, `interpreter runs: ${made[1]}`);
  assert.match(await page.textContent('[data-testid="timing-cut"]'), /before all 200 runs/);

  // The first interpreted run of a huge graph is not bounded by the budget (here some 30 s):
  // Stop terminates the worker and a fresh one compiles the source again.
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Huge {\n  input a: Tensor<[2048, 2048], f32>;\n  param w: Tensor<[2048, 2048], f32> { init: \"ones\"; };\n  output y: matmul(a, w);\n}\n");
  await waitCompiled("Huge");
  await page.fill("#run-count", "1");
  await page.click('[data-testid="run-button"]');
  await page.click('[data-testid="stop"]', { timeout: 10_000 });
  const stopped = Date.now();
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state !== "ok", null, { timeout: 5_000 }).catch(() => {});
  await waitCompiled("Huge");
  assert.ok(Date.now() - stopped < 10_000, `recovered in ${Date.now() - stopped} ms`);
  assert.equal(await page.isHidden('[data-testid="stop"]'), true);
  assert.equal(await page.textContent('[data-testid="run-button"]'), "Run Huge");

  // A wasm abort during a Run (a trap injected, once, into the call the module makes to copy an
  // output out of its heap, which unwinds through the wasm frames as a trap does): the worker loads
  // a new module and compiles again, so the next Run works (every later Run failed: "unusable").
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Copy {\n  input a: Tensor<[32, 64], f32>;\n  output z: concat(a, a, dim: 0);\n}\n");
  await waitCompiled("Copy");
  const shrewWorker = page.workers().filter((w) => /\/worker-[^/]*\.js/.test(w.url())).at(-1);
  await shrewWorker.evaluate(() => {
    const slice = Uint8Array.prototype.slice;
    Uint8Array.prototype.slice = function () {
      Uint8Array.prototype.slice = slice;
      throw new WebAssembly.RuntimeError("injected trap");
    };
  });
  await page.click('[data-testid="run-button"]');
  assert.match(await page.textContent('[data-testid="run-error"]'), /aborted: injected trap[^]*reloaded/);
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  const a = await page.$$eval('.inputs-used [data-input="a"] tbody tr:first-child td', (tds) => tds.map((td) => Number(td.dataset.v)));
  const z = await page.$$eval('[data-output="z"] tbody tr:nth-child(33) td', (tds) => tds.map((td) => Number(td.dataset.v)));
  assert.equal(a.length, 32);
  assert.deepEqual(z, a);
  assert.deepEqual(page.errors, []);
});

test("the compiled program downloads as a bundle that loads in Node as the same program", async () => {
  const { source, graph } = await loadExample("mlp-classifier.sw");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-bundle")]);
  assert.equal(download.suggestedFilename(), "mlp-classifier.swb");
  const file = join(scratch, "page.swb");
  await download.saveAs(file);
  assert.match(await page.textContent("#status"), /^bundle mlp-classifier\.swb: /);
  const shrew = await Shrew.load();
  const loaded = shrew.loadBundle(new Uint8Array(readFileSync(file)));
  // The dims the page shows and its seed are in the bundle; compiled here
  // with those, the same source gives the same parameters and outputs.
  assert.deepEqual({ ...loaded.dims }, await pageDims());
  assert.equal(loaded.seed, 7);  // the example's @config seed: no seed was typed on the page
  const ref = shrew.compile(source, { dims: { ...loaded.dims }, seed: loaded.seed });
  assert.equal(loaded.paramsChecksum(), ref.paramsChecksum());
  const feeds = formulaInputs(ref.signature(graph), loaded.dims);
  const want = ref.run(graph, feeds), got = loaded.run(graph, feeds);
  for (const name of Object.keys(want)) assert.deepEqual([...got[name].data], [...want[name].data], name);
  loaded.dispose();
  ref.dispose();
  // The button is off while the source does not compile.
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(`${source}\n@graph Broken { output y: nope; }\n`);
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "error", null, { timeout: 30_000 });
  assert.equal(await page.isDisabled("#download-bundle"), true);
  await loadExample("mlp-classifier.sw");
  assert.equal(await page.isDisabled("#download-bundle"), false);
  assert.deepEqual(page.errors, []);
});

test("pasted inputs run like the same values given to the CLI as .npy", async () => {
  const ex = await loadExample("mlp-classifier.sw");
  const dims = await pageDims();
  const values = Array.from({ length: dims.Batch * 4 }, (_, i) => Math.round(Math.sin(i * 1.7) * 100) / 100);
  const npy = join(scratch, "features.npy");
  writeFileSync(npy, writeNpy(new Tensor("f32", [dims.Batch, 4], Float32Array.from(values))));
  const expected = JSON.parse(execFileSync(process.execPath,
    [CLI, "run", ex.path, "--json", "--input", `features=${npy}`, ...dimsArg(dims)], { encoding: "utf8" }));
  await tab("run");
  await page.selectOption('[data-input="features"] select', "paste");
  // Nested as the input's shape, row by row.
  const nested = Array.from({ length: dims.Batch }, (_, r) => values.slice(r * 4, r * 4 + 4));
  await page.fill('[data-input="features"] textarea', JSON.stringify(nested));
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"]', { timeout: 30_000 });
  const shown = await page.$$eval('[data-output="probs"] table.values tbody tr', (rows) => rows.map((tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.dataset.v))));
  const want = expected.outputs.probs.data.flat(Infinity);
  const cols = expected.outputs.probs.shape[1];
  assert.equal(shown.length, dims.Batch);
  shown.forEach((row, r) => row.forEach((v, c) => assert.ok(Math.abs(v - want[r * cols + c]) <= 1e-6 + 1e-5 * Math.abs(want[r * cols + c]), `probs[${r}, ${c}] = ${v}, CLI ${want[r * cols + c]}`)));
  // A nested array of the right count but another shape is an error naming both shapes (it was flattened).
  await page.fill('[data-input="features"] textarea', JSON.stringify([values]));
  await page.click('[data-testid="run-button"]');
  assert.equal(await page.textContent('[data-testid="run-error"]'),
    `input 'features': expected shape [${dims.Batch}, 4], got a nested array of shape [1, ${values.length}]`);
  await page.fill('[data-input="features"] textarea', JSON.stringify([[1, 2], [3]]));
  await page.click('[data-testid="run-button"]');
  assert.match(await page.textContent('[data-testid="run-error"]'), /^input 'features': a ragged JSON array/);
  // A wrong count is a clear error, and the next run still works.
  await page.fill('[data-input="features"] textarea', "1 2 3");
  await page.click('[data-testid="run-button"]');
  const err = await page.textContent('[data-testid="run-error"]');
  assert.match(err, /features.*needs 16 values.*got 3/);
  // A trailing comma adds no value; inf and -inf are infinities (they were 0 and NaN); -0 shows as -0 (it showed 0).
  await page.fill('[data-input="features"] textarea', ["-inf", "inf", "-0", ...values.slice(3)].join(", ") + ",");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  const used = await page.$$eval('.inputs-used [data-input="features"] td', (tds) => tds.map((td) => Number(td.dataset.v)));
  assert.deepEqual(used, [-Infinity, Infinity, -0, ...values.slice(3)].map((v) => Math.fround(v)));
  assert.equal(await page.textContent('.inputs-used [data-input="features"] tbody tr:first-child td:nth-of-type(3)'), "-0");
  // Malformed text is an error that names the input.
  await page.fill('[data-input="features"] textarea', "[1, 2");
  await page.click('[data-testid="run-button"]');
  assert.match(await page.textContent('[data-testid="run-error"]'), /^input 'features': not a JSON array/);
  await page.selectOption('[data-input="features"] select', "random");
  // Pasted integers must fit the declared dtype (2.5 and 300 were truncated and wrapped);
  // an input over the size limit names itself.
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Ints {\n  input n: Tensor<[2], u8>;\n  input big: Tensor<[100000, 100000], f32>;\n  output y: n;\n  output z: relu(big);\n}\n");
  await waitCompiled("Ints");
  assert.match(await page.textContent("#run-panel .warn"), /input 'big' \(f32\[100000, 100000\]\) would be 40000000000 bytes, over the limit of 1073741824 bytes per tensor/);
  await page.selectOption('[data-input="n"] select', "paste");
  for (const [text, bad] of [["1 2.5", "element 1 is 2.5"], ["300 1", "element 0 is 300"]]) {
    await page.fill('[data-input="n"] textarea', text);
    await page.click('[data-testid="run-button"]');
    assert.match(await page.textContent('[data-testid="run-error"]'), new RegExp(`^input 'n' is u8: ${bad}, not an integer in \\[0, 255\\]`));
  }
  // An i32 is held as i64: 2e8 of them are 1.6 GB, over the limit (counted as 4 bytes, they passed and were filled).
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph I32 {\n  input w: Tensor<[200000000], i32>;\n  output y: w;\n}\n");
  await waitCompiled("I32");
  assert.match(await page.textContent("#run-panel .warn"), /input 'w' \(i32\[200000000\], held as i64\) would be 1600000000 bytes, over the limit of 1073741824 bytes per tensor/);
  // i64 values are read exactly, beyond 2^53 (they went through a JS number and were rounded or rejected).
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Wide64 {\n  input k: Tensor<[3], i64>;\n  input m: Tensor<[3], i64>;\n  output d: k - m;\n  output e: k + 0;\n}\n");
  await waitCompiled("Wide64");
  await page.selectOption('[data-input="k"] select', "paste");
  await page.selectOption('[data-input="m"] select', "paste");
  await page.fill('[data-input="k"] textarea', "[9007199254740993, -9223372036854775808, 9223372036854775807]");
  await page.fill('[data-input="m"] textarea', "9007199254740992 -9223372036854775807 9223372036854775806");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  assert.deepEqual(await page.$$eval('[data-output="d"] td', (tds) => tds.map((td) => Number(td.dataset.v))), [1, -1, 1]);
  // Shown exactly too, in the outputs and the inputs used (the table showed doubles: 9.007e+15).
  const k = ["9007199254740993", "-9223372036854775808", "9223372036854775807"];
  for (const where of ['[data-output="e"] td', '.inputs-used [data-input="k"] td']) {
    assert.deepEqual(await page.$$eval(where, (tds) => tds.map((td) => [td.textContent, td.dataset.v])), k.map((v) => [v, v]));
  }
  await page.fill('[data-input="k"] textarea', "9223372036854775808 0 0");
  await page.click('[data-testid="run-button"]');
  assert.match(await page.textContent('[data-testid="run-error"]'), /^input 'k' is i64: element 0 is 9223372036854775808, not an integer/);
  // The sizes of `?` dims are set per input (they were always 1).
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Dyn {\n  input v: Tensor<[?, 3], f32>;\n  input x: Tensor<[2, ?], f32>;\n  output z: v + 1.0;\n  output y: x * 2.0;\n}\n");
  await waitCompiled("Dyn");
  await page.fill('[data-input="v"] input[data-qdim="0"]', "5");
  await page.fill('[data-input="x"] input[data-qdim="1"]', "4");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  const tensor = (kind, name) => page.$eval(`${kind === "input" ? ".inputs-used " : ""}[data-${kind}="${name}"]`, (el) => ({ shape: JSON.parse(el.dataset.shape),
    values: [...el.querySelectorAll("td")].map((td) => Number(td.dataset.v)) }));
  const [v, x, zOut, yOut] = [await tensor("input", "v"), await tensor("input", "x"), await tensor("output", "z"), await tensor("output", "y")];
  assert.deepEqual([v.shape, x.shape, zOut.shape, yOut.shape], [[5, 3], [2, 4], [5, 3], [2, 4]]);
  assert.deepEqual(zOut.values, v.values.map((e) => Math.fround(e + 1)));
  assert.deepEqual(yOut.values, x.values.map((e) => e * 2));

  // A graph with an input of unknown type (`input x: ?`) is compiled for the tensors it runs with:
  // the program compiles and what needs no run shows at once (the page asked for its tape right
  // after a warm-up that could not type x, and the whole program failed); the tape, plan and stats
  // say they come after a run, and then show that run's compile. Its other graphs work as before.
  // One that a typed graph calls was compiled for that call when its caller was: the views show
  // that compile, and say so.
  const untyped = "@graph Untyped {\n  input x: ?;\n  output y: relu(x) * 2.0;\n}\n\n" +
    "@graph Fixed {\n  input a: Tensor<[2, 3], f32>;\n  output b: a + 1.0;\n}\n\n" +
    "@graph CallsUntyped {\n  input z: Tensor<[3, 4], f32>;\n  output w: Untyped(z);\n}\n\n" +
    "@graph Alone {\n  input q: ?;\n  output r: q * 3.0;\n}\n";
  const untypedFile = join(scratch, "untyped.sw");
  writeFileSync(untypedFile, untyped);
  const xs = [-1.5, 2, 0.25, -4, 5, 3];
  const xNpy = join(scratch, "x.npy");
  writeFileSync(xNpy, writeNpy(new Tensor("f64", [2, 3], Float64Array.from(xs))));
  const cliStats = (...args) => JSON.parse(execFileSync(process.execPath, [CLI, "stats", untypedFile, "--json", ...args], { encoding: "utf8" }));
  const afterRun = cliStats("--input", `x=${xNpy}`);
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(untyped);
  await waitCompiled("Untyped");
  const loadX = () => page.$$eval('[data-testid="tape-table"] tbody tr', (rows) => rows.filter((r) => r.classList.contains("op-load_input"))
    .map((r) => [r.querySelector("td.shape").textContent, r.querySelectorAll("td")[4].textContent]));
  await tab("tape");
  assert.deepEqual(await loadX(), [["[3, 4]", "f32"]]);
  assert.equal(await page.textContent('[data-testid="compiled-for"]'), " Compiled for a call from another graph (x: f32[3, 4]).");
  await tab("memory");
  assert.ok(await page.$$eval(".plan-svg .buffer", (b) => b.length) > 0);
  await tab("stats");
  assert.match(await page.textContent('[data-testid="stats-table"] caption'), /, compiled for a call from another graph \(x: f32\[3, 4\]\)$/);
  await page.selectOption("#graph-select", "Alone");
  const pendingText = /^The tape, memory plan and compile stats of Alone appear after its first run: input 'q' has an unknown type \(\?\)/;
  await tab("tape");
  assert.match(await page.textContent("#tape-view .pending"), pendingText);
  assert.equal(await page.$('[data-testid="tape-table"]'), null);
  await tab("memory");
  assert.match(await page.textContent("#plan-chart .pending"), pendingText);
  await tab("stats");
  assert.match(await page.textContent("#stats-panel .pending"), pendingText);
  await page.selectOption("#graph-select", "Untyped");
  const optShown = await page.$$eval('[data-testid="opt-table"] tr[data-field]', (r) => Object.fromEntries(r.map((x) => [x.dataset.field, Number(x.dataset.value)])));
  for (const [k, v] of Object.entries(afterRun.optimizer)) assert.equal(optShown[k], v, `optimizer.${k}`);
  await tab("graph");
  await graphDrawn();
  assert.equal(await page.$$eval(".graph-svg .node", (n) => n.length), afterRun.stats.numSourceNodes);
  // The Run tab asks for x's dtype and shape; a bad shape is an error naming x, and the next run works.
  await tab("run");
  assert.match(await page.textContent('[data-testid="unknown-inputs"]'), /'x' has an unknown type/);
  await page.selectOption('[data-input="x"] [data-run-dtype]', "f64");
  await page.selectOption('[data-input="x"] select[aria-label="x source"]', "paste");
  await page.fill('[data-input="x"] textarea', xs.join(" "));
  for (const bad of ["2,x", "2,-3", "2.5"]) {
    await page.fill('[data-input="x"] [data-run-shape]', bad);
    await page.click('[data-testid="run-button"]');
    assert.match(await page.textContent('[data-testid="run-error"]'), new RegExp(`^input 'x': the shape '${bad.replace(".", "\\.")}' is not a list of sizes like 2,3`));
  }
  // Over the size limit: refused before any value is made (8 GB were filled for seconds first).
  await page.fill('[data-input="x"] [data-run-shape]', "1000000000");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="run-error"]', { timeout: 30_000 });
  assert.equal(await page.textContent('[data-testid="run-error"]'),
               "input 'x' (f64[1000000000]) would be 8000000000 bytes, over the limit of 1073741824 bytes per tensor");
  await page.fill('[data-input="x"] [data-run-shape]', "2, 3");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  const untypedY = await page.$eval('[data-output="y"]', (el) => ({ shape: JSON.parse(el.dataset.shape), dtype: el.dataset.dtype,
    values: [...el.querySelectorAll("td")].map((td) => Number(td.dataset.v)) }));
  assert.deepEqual(untypedY, { shape: [2, 3], dtype: "f64", values: xs.map((e) => Math.max(0, e) * 2) });
  // Now the tape, plan and stats are those of the f64 [2, 3] compile, as `shrew stats --input x=….npy` reports.
  await tab("tape");
  assert.equal(await page.$$eval('[data-testid="tape-table"] tbody tr', (r) => r.length), afterRun.stats.numInstructions);
  assert.deepEqual(await loadX(), [["[2, 3]", "f64"]]);
  assert.equal(await page.textContent('[data-testid="compiled-for"]'), " Compiled for the inputs of the last successful run (x: f64[2, 3]).");
  await tab("stats");
  const statsShown = await page.$$eval('[data-testid="stats-table"] tr[data-field]', (r) => Object.fromEntries(r.map((x) => [x.dataset.field, Number(x.dataset.value)])));
  for (const [k, v] of Object.entries(afterRun.stats)) if (k !== "compileTimeUs") assert.equal(statsShown[k], v, `stats.${k}`);
  await tab("memory");
  assert.ok(await page.$$eval(".plan-svg .buffer", (b) => b.length) > 0);
  // Another dtype and shape compile again: the views follow the last run.
  await tab("run");
  await page.selectOption('[data-input="x"] [data-run-dtype]', "f32");
  await page.selectOption('[data-input="x"] select[aria-label="x source"]', "random");
  await page.fill('[data-input="x"] [data-run-shape]', "4");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  assert.deepEqual(JSON.parse(await page.$eval('[data-output="y"]', (el) => el.dataset.shape)), [4]);
  await tab("tape");
  assert.deepEqual(await loadX(), [["[4]", "f32"]]);
  // Back to f64 [2, 3]: compiled before, so the run reuses that compile, and the views show it
  // (they showed the latest compile, f32 [4], under "compiled for … x: f64[2, 3]").
  await tab("run");
  await page.selectOption('[data-input="x"] [data-run-dtype]', "f64");
  await page.fill('[data-input="x"] [data-run-shape]', "2,3");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  await tab("tape");
  assert.deepEqual(await loadX(), [["[2, 3]", "f64"]]);
  assert.match(await page.textContent('[data-testid="compiled-for"]'), /x: f64\[2, 3\]/);
  await tab("run");
  await page.selectOption('[data-input="x"] [data-run-dtype]', "f32");
  await page.fill('[data-input="x"] [data-run-shape]', "4");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  await tab("tape");
  assert.deepEqual(await loadX(), [["[4]", "f32"]]);
  // The program's other graphs show their tape at once, as before.
  for (const g of ["Fixed", "CallsUntyped"]) {
    await page.selectOption("#graph-select", g);
    assert.equal(await page.$$eval('[data-testid="tape-table"] tbody tr', (r) => r.length), cliStats("--graph", g).stats.numInstructions, g);
    assert.equal(await page.$("#tape-view .pending"), null);
  }
  await page.selectOption("#graph-select", "Untyped");
  assert.deepEqual(await loadX(), [["[4]", "f32"]]);
  // A run of the caller compiles Untyped for its call again: Untyped's views show that compile
  // (they kept showing the compile of its own last run, f32 [4], which the program no longer held).
  await page.selectOption("#graph-select", "CallsUntyped");
  await tab("run");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  assert.equal(await page.$('[data-testid="run-error"]'), null);
  await page.selectOption("#graph-select", "Untyped");
  await tab("tape");
  assert.deepEqual(await loadX(), [["[3, 4]", "f32"]]);
  assert.equal(await page.textContent('[data-testid="compiled-for"]'), " Compiled for a call from another graph (x: f32[3, 4]).");
  assert.deepEqual(page.errors, []);
});

test("a symbolic dim keeps its value over every recompile and a reload", async () => {
  await loadExample("mlp-classifier.sw");
  assert.deepEqual(await pageDims(), { Batch: 4 });
  await page.fill('[data-dim="Batch"]', "7");
  await page.press('[data-dim="Batch"]', "Tab");  // commits the value (change event)
  await waitCompiled();
  const featuresShape = () => page.$$eval('[data-testid="tape-table"] tbody tr', (rows) =>
    rows.filter((r) => r.querySelector("td.op")?.textContent.includes("features")).map((r) => r.querySelector("td.shape").textContent));
  await tab("tape");
  // Each edit recompiles with the dims of the last compile: Batch stays bound to 7 (every other compile lost it).
  for (const key of ["Enter", "Backspace", "Enter"]) {
    assert.deepEqual(await pageDims(), { Batch: 7 });
    assert.deepEqual(await featuresShape(), ["[7, 4]"]);
    await page.click(".cm-content");
    await page.keyboard.press("Control+End");
    await page.keyboard.press(key);
    await waitCompiled();
  }
  await page.reload();
  await waitCompiled();
  assert.deepEqual(await pageDims(), { Batch: 7 });
  assert.deepEqual(await featuresShape(), ["[7, 4]"]);
});

test("hundreds of graph nodes and thousands of tape rows do not freeze the page", async () => {
  // A long sum: dagre needs seconds for it (one dummy node per rank each
  // term's edge crosses); on the page's thread every recompile froze it.
  const terms = Array.from({ length: 100 }, (_, i) => i);
  const source = ["@graph Wide {", "    input x: Tensor<[4, 8], f32>;",
    ...terms.map((i) => `    node w${i} { op: x * ${i}.5; };`),
    `    output y: ${terms.map((i) => `w${i}`).join(" + ")};`, "}", ""].join("\n");
  const file = join(scratch, "wide.sw");
  writeFileSync(file, source);
  const expected = JSON.parse(execFileSync(process.execPath, [CLI, "stats", file, "--json"], { encoding: "utf8" }));
  assert.ok(expected.stats.numSourceNodes >= 200);
  await loadExample("memory-reuse.sw");
  await tab("graph");
  await graphDrawn();
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((l) => window.longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: "longtask" });
  });
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(source);
  await waitCompiled("Wide");
  await graphDrawn();
  assert.equal(await page.$$eval(".graph-svg .node", (n) => n.length), expected.stats.numSourceNodes);
  const longest = await page.evaluate(() => Math.max(0, ...window.longTasks));
  assert.ok(longest < 1500, `the page's thread was blocked for ${Math.round(longest)} ms`);

  // A long tape draws its first 1000 rows (30000 rows froze the page for 25 s), the rest on request.
  const chain = ["@graph Chain {", "    input x: Tensor<[2], f32>;",
    ...Array.from({ length: 700 }, (_, i) => `    node n${i} { op: relu(${i ? `n${i - 1}` : "x"}); };`), "    output y: n699;", "}", ""].join("\n");
  const chainFile = join(scratch, "chain.sw");
  writeFileSync(chainFile, chain);
  const chainStats = JSON.parse(execFileSync(process.execPath, [CLI, "stats", chainFile, "--json"], { encoding: "utf8" })).stats;
  assert.ok(chainStats.numInstructions > 1000);
  await tab("tape");
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.evaluate((text) => {  // a paste, as a user would (typing 700 lines is slow)
    const data = new DataTransfer();
    data.setData("text/plain", text);
    document.querySelector(".cm-content").dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, chain);
  await waitCompiled("Chain");
  const rows = () => page.$$eval('[data-testid="tape-table"] tbody tr', (r) => r.length);
  assert.equal(await rows(), 1000);
  await page.click('[data-testid="tape-more"]');
  assert.equal(await rows(), chainStats.numInstructions);
  // dagre overflows its stack on a chain this long; the graph is drawn in plain layers instead.
  await tab("graph");
  await graphDrawn();
  assert.equal(await page.$$eval(".graph-svg .node", (n) => n.length), chainStats.numSourceNodes);
});

test("each recompile frees the previous program (wasm heap stays flat)", async () => {
  await loadExample("self-attention.sw");
  await tab("stats");
  const used = [];
  for (let i = 0; i < 6; i++) {
    await page.click(".cm-content");
    await page.keyboard.press("Control+End");
    await page.keyboard.press(i % 2 === 0 ? "Enter" : "Backspace");
    await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "ok", null, { timeout: 30_000 });
    used.push(await page.$eval('[data-card="wasm heap"]', (el) => Number(el.dataset.value)));
  }
  // Without the dispose every compile would keep its parameters, packed
  // weights and arena (about 20 KiB here); allow only allocator noise.
  const growth = used.at(-1) - used[1];
  assert.ok(Math.abs(growth) < 4096, `heap in use after each recompile: ${used.join(", ")}`);
});

test("screenshots at desktop and phone widths", async () => {
  await loadExample("mlp-classifier.sw");
  await tab("memory");
  await page.screenshot({ path: join(ARTIFACTS, "memory-1280x800.png") });
  await tab("graph");
  await page.screenshot({ path: join(ARTIFACTS, "graph-1280x800.png") });
  await tab("stats");
  await page.screenshot({ path: join(ARTIFACTS, "stats-1280x800.png") });
  await tab("tape");
  await page.screenshot({ path: join(ARTIFACTS, "tape-1280x800.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  // Nothing wider than the phone screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page overflows by ${overflow}px at 390 px`);
  await page.screenshot({ path: join(ARTIFACTS, "tape-390x844.png"), fullPage: true });
  await tab("memory");
  await page.screenshot({ path: join(ARTIFACTS, "memory-390x844.png"), fullPage: true });
  // A diagnostic with a long name wraps in the list instead of running off its side.
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(`@graph G { input x: Tensor<[2], f32>; output y: x + ${"a_long_name_".repeat(6)}; }\n`);
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "error", null, { timeout: 30_000 });
  const list = await page.$eval("#diagnostics", (ul) => ({ scroll: ul.scrollWidth, client: ul.clientWidth }));
  assert.ok(list.scroll <= list.client, `the diagnostics list is ${list.scroll} px wide in ${list.client} px`);
  await page.screenshot({ path: join(ARTIFACTS, "error-390x844.png") });
  await page.setViewportSize({ width: 1280, height: 800 });
});
