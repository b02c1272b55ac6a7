// Symbolic dims in a real browser (web/test/browser.mjs). A graph that
// calls one with a symbolic dim at a size of its own: the page bound every
// dim for the whole program (R = 4), which the call contradicts (E105),
// though `shrew check` accepts the program. And dims named like
// Object.prototype's properties (constructor, toString, __proto__):
// looked up with `in` and `[]` on plain objects, they had no field and ran
// as "invalid dimension a function".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, openPlayground, waitCompiled } from "./page.mjs";

let page, close, scratch;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "shrew-web-dims-"));
  ({ page, close } = await openPlayground());
  await page.click('[data-tab="run"]');
});

after(async () => {
  await close?.();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** `shrew <args> FILE` on `source`, its stdout. */
function cli(source, ...args) {
  const file = join(scratch, "prog.sw");
  writeFileSync(file, source);
  return execFileSync(process.execPath, [CLI, args[0], file, ...args.slice(1)], { encoding: "utf8" });
}

/** Pastes `source` and waits for its compile to end, whichever way; the status. */
async function setSource(source) {
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(source);
  await page.waitForFunction(() => document.getElementById("status")?.dataset.state === "busy", null, { timeout: 5_000 }).catch(() => {});
  await page.waitForFunction(() => ["ok", "error"].includes(document.getElementById("status")?.dataset.state), null, { timeout: 30_000 });
  return page.textContent("#status");
}

async function enter(selector, text) {
  await page.fill(selector, text);
  await page.press(selector, "Tab");
}

const dimFields = () => page.$$eval("[data-dim]", (els) => els.map((e) => [e.dataset.dim, e.value]));

async function run() {
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  const error = await page.$('[data-testid="run-error"]');
  assert.equal(error, null, await error?.textContent());
}

/** A tensor the Run tab shows: an output, or (kind "input") an input used. */
function shown(kind, name) {
  return page.$eval(`${kind === "input" ? ".inputs-used " : ""}[data-${kind}="${name}"]`, (el) => ({
    shape: JSON.parse(el.dataset.shape), values: [...el.querySelectorAll("td")].map((td) => Number(td.dataset.v)) }));
}

/** The Run tab's outputs `names` equal `shrew run --json <args>` on `source`, shape and values. */
async function expectOutputsLikeCli(source, names, ...args) {
  const want = JSON.parse(cli(source, "run", "--json", ...args)).outputs;
  for (const name of names) {
    const got = await shown("output", name);
    assert.deepEqual(got.shape, want[name].shape, name);
    assert.deepEqual(got.values, want[name].data.flat(), name);
  }
}

test("a graph calling one with a symbolic dim at its own size compiles; both run, the dim's field sizes the callee's input", async () => {
  const source = "@graph A {\n  input x: Tensor<[R, 3], f32>;\n  output y: x * 2.0;\n}\n" +
    "@graph C {\n  input q: Tensor<[2, 3], f32>;\n  output w: A(q);\n}\n";
  assert.match(cli(source, "check"), /ok/);
  assert.match(await setSource(source), /^compiled in /);
  assert.deepEqual(await page.$$eval("#diagnostics li", (l) => l.map((e) => e.textContent)), []);
  assert.deepEqual(await dimFields(), [["R", "4"]]);
  // The field says why R is not bound for the whole program, as dims are otherwise.
  assert.match(await page.getAttribute('[data-dim="R"]', "title"),
    /^R is bound by each run, from the shapes of its inputs \(made at this size\): binding it for the whole program fails: .*E105/);
  // A runs at the size the field asks for.
  await enter('[data-dim="R"]', "5");
  await waitCompiled(page, "A", 30_000);
  assert.equal(await page.textContent('[data-input="x"] code'), "f32[R=5, 3]");
  await run();
  const x = await shown("input", "x"), y = await shown("output", "y");
  assert.deepEqual([x.shape, y.shape], [[5, 3], [5, 3]]);
  assert.deepEqual(y.values, x.values.map((v) => Math.fround(v * 2)));
  // C calls A on its [2, 3] input: the CLI's values (same seed, same random inputs).
  await page.selectOption("#graph-select", "C");
  assert.equal(await page.textContent('[data-testid="run-button"]'), "Run C");
  await run();
  await expectOutputsLikeCli(source, ["w"], "--graph", "C");
  assert.deepEqual(page.errors, []);
});

test("dims named constructor, toString, valueOf, hasOwnProperty and __proto__ have fields and size their inputs", async () => {
  const source = "@graph P {\n  input x: Tensor<[constructor, 3], f32>;\n  input z: Tensor<[__proto__, toString], f32>;\n" +
    "  input v: Tensor<[valueOf, hasOwnProperty], f32>;\n  output y: x * 2.0;\n  output w: z + 1.0;\n  output u: v;\n}\n";
  assert.match(await setSource(source), /^compiled in /);
  const names = ["constructor", "__proto__", "toString", "valueOf", "hasOwnProperty"];
  assert.deepEqual((await dimFields()).sort(), names.map((n) => [n, "4"]).sort());
  // A Map: in an object literal, __proto__: 3 would set the prototype.
  const sizes = new Map([["constructor", 2], ["__proto__", 3], ["toString", 1], ["valueOf", 2], ["hasOwnProperty", 5]]);
  for (const n of names) {
    await enter(`[data-dim="${n}"]`, String(sizes.get(n)));
    await waitCompiled(page, "P", 30_000);
  }
  await page.waitForFunction(() => document.querySelector('[data-dim="hasOwnProperty"]')?.value === "5");
  assert.equal(await page.textContent('[data-input="z"] code'), "f32[3, 1]");  // bound for the whole program
  await run();
  const dims = [...sizes].map(([k, v]) => `${k}=${v}`).join(",");
  await expectOutputsLikeCli(source, ["y", "w", "u"], "--dims", dims);
  // The sizes are kept over a reload (the saved dims are read back by name too).
  await page.reload();
  await waitCompiled(page, "P", 30_000);
  assert.deepEqual((await dimFields()).sort(), names.map((n) => [n, String(sizes.get(n))]).sort());
  assert.deepEqual(page.errors, []);
});

test("a dim only the configuration can set (a parameter's size, an implicit parameter's model dim) gets a field", async () => {
  // Both failed to compile ("unresolved symbolic dimension 'H'" / 'D'), with no field to size them.
  const source = "@graph G {\n  input x: Tensor<[N], f32>;\n  param w: Tensor<[H], f32> { init: \"ones\"; };\n" +
    "  output y: x + sum(w);\n}\n@graph L {\n  input v: Tensor<[1, 2, D], f32>;\n  output o: multi_head_attention(v, n_heads: 1);\n}\n";
  assert.match(cli(source, "check", "--dims", "D=4,H=4"), /ok/);
  assert.match(await setSource(source), /^compiled in /);
  assert.deepEqual((await dimFields()).sort(), [["D", "4"], ["H", "4"], ["N", "4"]]);
  assert.match(await page.getAttribute('[data-dim="H"]', "title"), /^H, bound for the whole program/);
  await page.selectOption("#graph-select", "G");
  await run();
  const y = await shown("output", "y"), x = await shown("input", "x");
  assert.deepEqual(y.values, x.values.map((v) => Math.fround(v + 4)));
  // The field sizes the parameter: sum(w) of seven ones.
  await enter('[data-dim="H"]', "7");
  await waitCompiled(page, "G", 30_000);
  await run();
  const x7 = await shown("input", "x"), y7 = await shown("output", "y");
  assert.deepEqual(y7.values, x7.values.map((v) => Math.fround(v + 7)));
  // L's implicit weights are [D, D]: the CLI, given the same dims, computes the same.
  await enter('[data-dim="D"]', "5");
  await waitCompiled(page, "G", 30_000);
  await page.selectOption("#graph-select", "L");
  await run();
  await expectOutputsLikeCli(source, ["o"], "--graph", "L", "--dims", "D=5,H=7,N=4");
  assert.deepEqual(page.errors, []);
});

test("a ? graph declared before the typed caller whose warm-up compiles it shows that compile", async () => {
  // The reports were made graph by graph, each after its own warm-up: S's before Top's warm-up
  // compiled it for Top's call, so S said "appear after its first run" (declared after Top: shown).
  const source = "@graph S {\n  input v: ?;\n  output y: v * 3.0;\n}\n" +
    "@graph Top {\n  input x: Tensor<[N, 4], f32>;\n  output o: S(x);\n}\n";
  assert.match(await setSource(source), /^compiled in /);
  await page.selectOption("#graph-select", "S");
  await page.click('[data-tab="tape"]');
  assert.equal(await page.textContent('[data-testid="compiled-for"]'), " Compiled for a call from another graph (v: f32[4, 4]).");
  assert.equal(await page.$("#tape-view .pending"), null);
  await page.click('[data-tab="run"]');
  assert.deepEqual(page.errors, []);
});
