// The Run tab's typed numbers, read strictly in a real browser (Debian's
// Chromium, web/test/browser.mjs): a random-integer range that its input's
// dtype cannot hold (it was stored wrapped: u8 [250, 300) gave 44), and a
// seed, run count, `?` size or dim that is empty, fractional or out of range
// (they were read as 0, floored or clamped), are refused next to the field
// and nothing runs; fixed, the run gives the CLI's values.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, openPlayground, waitCompiled as waitFor } from "./page.mjs";


let page, close, scratch;
const waitCompiled = (graph) => waitFor(page, graph, 30_000);

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "shrew-web-inputs-"));
  // Counts the run requests the page sends its worker: a refused form must send none.
  ({ page, close } = await openPlayground({ beforeLoad: (p) => p.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    window.runRequests = 0;
    Worker.prototype.postMessage = function (msg, ...rest) {
      if (msg?.type === "run") window.runRequests++;
      return post.call(this, msg, ...rest);
    };
  }) }));
  await page.click('[data-tab="run"]');
});

after(async () => {
  await close?.();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Replaces the editor's source with `source` (graph `graph`) and waits for its compile. */
async function setSource(source, graph) {
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(source);
  await waitCompiled(graph);
}

/** Types `text` into a field and leaves it (a change event, as a user's Tab). */
async function enter(selector, text) {
  await page.fill(selector, text);
  await page.press(selector, "Tab");
}

const runRequests = () => page.evaluate(() => window.runRequests);

/** Clicks Run and expects it refused: the message shown under the button; no request reached the worker. */
async function refused() {
  const before = await runRequests();
  await page.click('[data-testid="run-button"]');
  const text = await page.textContent('[data-testid="run-blocked"]');
  assert.equal(await runRequests(), before, "a refused form sends no run");
  assert.equal(await page.$('[data-testid="timing"]'), null);
  return text;
}

async function runOk() {
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  const error = await page.$('[data-testid="run-error"]');
  assert.equal(error, null, await error?.textContent());
}

const shownValues = (name) => page.$$eval(`[data-output="${name}"] td`, (tds) => tds.map((td) => td.dataset.v));

/** `shrew run --json --seed S` on `source` with `--input` specs: output `name`'s values as the table shows them. */
function cliValues(source, seed, inputs, name) {
  const file = join(scratch, "p.sw");
  writeFileSync(file, source);
  const out = JSON.parse(execFileSync(process.execPath, [CLI, "run", file, "--json", "--seed", String(seed),
    ...inputs.flatMap((i) => ["--input", i])], { encoding: "utf8" }));
  return out.outputs[name].data.flat(Infinity).map(String);
}

const U8 = "@graph Small {\n  input n: Tensor<[2, 3], u8>;\n  input k: Tensor<[4], i8>;\n  output y: n;\n  output z: k;\n}\n";

test("a random-integer range its dtype cannot hold is refused next to the field, naming input, dtype and range", async () => {
  await setSource(U8, "Small");
  const rangeNote = (input) => page.textContent(`[data-input="${input}"] [data-testid="range-error"]`);
  const visible = (input) => page.isVisible(`[data-input="${input}"] [data-testid="range-error"]`);
  await enter('[data-input="n"] [aria-label="n low"]', "250");
  await enter('[data-input="n"] [aria-label="n high"]', "300");
  // Shown as soon as the field is left, and again when Run is clicked.
  const u8Message = "input 'n' is u8 (0..255): random integers in [250, 300) do not fit; the widest range is [0, 256) (high is excluded)";
  assert.equal(await rangeNote("n"), u8Message);
  assert.equal(await page.getAttribute('[aria-label="n high"]', "aria-invalid"), "true");
  assert.equal(await refused(), `Not run: ${u8Message}`);
  // Nothing was changed behind the user's back: the fields hold what was typed.
  assert.deepEqual(await page.$$eval('[data-input="n"] .range input', (els) => els.map((e) => e.value)), ["250", "300"]);

  // i8: 1000 passed (stored as 1000 in an Int32Array, read as -24).
  await enter('[data-input="k"] [aria-label="k high"]', "1001");
  assert.equal(await rangeNote("k"),
    "input 'k' is i8 (-128..127): random integers in [0, 1001) do not fit; the widest range is [-128, 128) (high is excluded)");
  assert.equal(await refused(), `Not run: ${u8Message}\ninput 'k' is i8 (-128..127): random integers in [0, 1001) do not fit; the widest range is [-128, 128) (high is excluded)`);
  await enter('[data-input="k"] [aria-label="k low"]', "-129");
  await enter('[data-input="k"] [aria-label="k high"]', "0");
  assert.match(await rangeNote("k"), /^input 'k' is i8 \(-128\.\.127\): random integers in \[-129, 0\) do not fit/);

  // Bounds that are not whole numbers, an empty range, an empty field.
  for (const [lo, hi, message] of [
    ["2.5", "4", "input 'k' low: '2.5' is not a whole number written in digits"],
    ["1e3", "2000", "input 'k' low: '1e3' is not a whole number written in digits"],
    ["", "4", "input 'k' low: empty: type a whole number"],
    ["5", "5", "input 'k': the range [5, 5) is empty: low must be less than high (high is excluded)"],
    ["9", "3", "input 'k': the range [9, 3) is empty: low must be less than high (high is excluded)"],
    ["0", "1e400", "input 'k' high: not a number"],  // the browser cannot read it: the field's value is ""
  ]) {
    await enter('[data-input="k"] [aria-label="k low"]', lo);
    await enter('[data-input="k"] [aria-label="k high"]', hi);
    assert.equal(await rangeNote("k"), message, `[${lo}, ${hi})`);
    assert.match(await refused(), new RegExp(`\\n${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
  }

  // Whole ranges of each fit, and the values are the CLI's for the same seed and ranges.
  await enter('[data-input="n"] [aria-label="n low"]', "250");
  await enter('[data-input="n"] [aria-label="n high"]', "256");
  await enter('[data-input="k"] [aria-label="k low"]', "-128");
  await enter('[data-input="k"] [aria-label="k high"]', "128");
  assert.equal(await visible("n"), false);
  assert.equal(await visible("k"), false);
  assert.equal(await page.getAttribute('[aria-label="n high"]', "aria-invalid"), null);
  await enter("#run-seed", "3");
  await waitCompiled("Small");
  await runOk();
  const inputs = ["n=randint:250:256", "k=randint:-128:128"];
  const y = await shownValues("y");
  assert.deepEqual(y, cliValues(U8, 3, inputs, "y"));
  assert.ok(y.every((v) => Number(v) >= 250 && Number(v) <= 255), y.join(" "));
  assert.deepEqual(await shownValues("z"), cliValues(U8, 3, inputs, "z"));
  // A pasted input needs no range: a wrong one that is hidden does not stop the run.
  await enter('[data-input="k"] [aria-label="k high"]', "1000");
  await page.selectOption('[data-input="k"] select[aria-label="k source"]', "paste");
  await page.fill('[data-input="k"] textarea', "-128 -1 0 127");
  assert.equal(await visible("k"), false);
  await runOk();
  assert.deepEqual(await shownValues("z"), ["-128", "-1", "0", "127"]);
  assert.deepEqual(page.errors, []);
});

test("i64 and u64 random bounds stop at 2^53 - 1, where a JS number is exact", async () => {
  const source = "@graph Wide {\n  input a: Tensor<[3], i64>;\n  input b: Tensor<[3], u64>;\n  output y: a;\n  output z: b;\n}\n";
  await setSource(source, "Wide");
  const note = (input) => page.textContent(`[data-input="${input}"] [data-testid="range-error"]`);
  // 9007199254740993 reads as ...992 in a JS number: refused, not rounded.
  await enter('[data-input="a"] [aria-label="a high"]', "9007199254740993");
  assert.equal(await note("a"), "input 'a' high: 9007199254740993 is too large: whole numbers stop at ±(2^53 − 1) here");
  await enter('[data-input="b"] [aria-label="b low"]', "-1");
  assert.equal(await note("b"), "input 'b' is u64 (0..9007199254740991 for random bounds, where JS numbers stay exact): " +
    "random integers in [-1, 4) do not fit; the widest range is [0, 9007199254740991) (high is excluded)");
  await refused();
  await enter('[data-input="a"] [aria-label="a low"]', "-9007199254740991");
  await enter('[data-input="a"] [aria-label="a high"]', "9007199254740991");
  await enter('[data-input="b"] [aria-label="b low"]', "9007199254740000");
  await enter('[data-input="b"] [aria-label="b high"]', "9007199254740991");
  await runOk();
  const inputs = ["a=randint:-9007199254740991:9007199254740991", "b=randint:9007199254740000:9007199254740991"];
  assert.deepEqual(await shownValues("y"), cliValues(source, await page.$eval("#run-seed", (e) => Number(e.value)), inputs, "y"));
  const z = await shownValues("z");
  assert.deepEqual(z, cliValues(source, await page.$eval("#run-seed", (e) => Number(e.value)), inputs, "z"));
  assert.ok(z.every((v) => BigInt(v) >= 9007199254740000n && BigInt(v) < 9007199254740991n), z.join(" "));
});

test("the fields stay as typed over a recompile and another graph; a left-out input's fields do not stop the run", async () => {
  const source = "@graph Keep {\n  input n: Tensor<[Batch], u8>;\n  input m: Tensor<[?], u8>?;\n  output y: n;\n}\n\n" +
    "@graph Other {\n  input q: Tensor<[2], f32>;\n  output r: q;\n}\n";
  await setSource(source, "Keep");
  const nMessage = "input 'n' is u8 (0..255): random integers in [0, 300) do not fit; the widest range is [0, 256) (high is excluded)";
  const mMessage = "input 'm' ? dim 0 size: empty: type a whole number";
  await enter('[aria-label="n low"]', "0");  // n's fields are kept by name: from an earlier test too
  await enter('[aria-label="n high"]', "300");
  await enter('[data-input="m"] input[data-qdim="0"]', "");
  // A dim changed: the program is compiled again, and the row (the same element) keeps its text and notes.
  await page.$eval('[data-input="n"]', (el) => { el.dataset.mark = "kept"; });
  await enter('[data-dim="Batch"]', "5");
  await page.waitForFunction(() => document.querySelector('[data-input="n"] code')?.textContent === "u8[5]");
  await waitCompiled("Keep");
  assert.equal(await page.$eval('[data-input="n"]', (el) => el.dataset.mark), "kept");
  assert.equal(await page.$eval('[aria-label="n high"]', (e) => e.value), "300");
  assert.equal(await page.textContent('[data-input="n"] [data-testid="range-error"]'), nMessage);
  assert.equal(await refused(), `Not run: ${nMessage}\n${mMessage}`);
  // Another graph and back: the rows are built anew from what was typed ("" stays "", not 0).
  await page.selectOption("#graph-select", "Other");
  await page.selectOption("#graph-select", "Keep");
  assert.equal(await page.$eval('[aria-label="n high"]', (e) => e.value), "300");
  assert.equal(await page.$eval('[data-input="m"] input[data-qdim="0"]', (e) => e.value), "");
  assert.equal(await refused(), `Not run: ${nMessage}\n${mMessage}`);
  // m left out: its empty size does not count (its note goes); n's range still does.
  await page.check('[data-input="m"] [data-omit]');
  assert.equal(await page.isVisible('[data-input="m"] [data-testid="size-error"]'), false);
  assert.equal(await refused(), `Not run: ${nMessage}`);
  await enter('[aria-label="n high"]', "256");
  await runOk();
  assert.deepEqual(await page.$$eval(".inputs-used [data-input]", (els) => els.map((e) => e.dataset.input)), ["n"]);
  assert.equal(await page.$eval('[data-output="y"]', (el) => el.dataset.shape), "[5]");
  // Given again, its size is read again.
  await page.uncheck('[data-input="m"] [data-omit]');
  assert.equal(await refused(), `Not run: ${mMessage}`);
  assert.deepEqual(page.errors, []);
});

test("seed, timed runs and ? sizes must be whole numbers in range: not read as 0, floored or clamped", async () => {
  const source = "@graph Dyn {\n  input v: Tensor<[?, 2], f32>;\n  output y: v * 2.0;\n}\n";
  await setSource(source, "Dyn");
  await enter("#run-seed", "5");
  await waitCompiled("Dyn");
  const seedNote = () => page.textContent('[data-testid="seed-error"]');
  for (const [text, message] of [
    ["", "seed: empty: type a whole number"],  // was read as 0
    ["2.5", "seed: '2.5' is not a whole number written in digits"],  // was floored to 2
    ["-4", "seed: -4 is outside 0..18446744073709551615"],  // was clamped to 0
    ["1e400", "seed: '1e400' is not a whole number written in digits"],  // was clamped to 2^53 - 1
    ["99999999999999999999", "seed: 99999999999999999999 is outside 0..18446744073709551615"],  // past 2^64 - 1, the largest u64
  ]) {
    await enter("#run-seed", text);
    assert.equal(await seedNote(), message, JSON.stringify(text));
    assert.equal(await refused(), `Not run: ${message}`);
    // The program was not compiled again with a seed nobody typed.
    assert.equal(await page.evaluate(() => document.getElementById("status").dataset.state), "ok");
  }
  await enter("#run-seed", "5");
  assert.equal(await page.isVisible('[data-testid="seed-error"]'), false);

  for (const [text, message] of [
    ["0", "timed runs: 0 is outside 1..10000"],
    ["20000", "timed runs: 20000 is outside 1..10000"],  // was clamped to 10000
    ["1.5", "timed runs: '1.5' is not a whole number written in digits"],
    ["", "timed runs: empty: type a whole number"],  // was read as 1
  ]) {
    await enter("#run-count", text);
    assert.equal(await page.textContent('[data-testid="runs-error"]'), message);
    assert.equal(await refused(), `Not run: ${message}`);
  }
  await enter("#run-count", "3");

  const size = '[data-input="v"] input[data-qdim="0"]';
  for (const [text, message] of [
    ["", "input 'v' ? dim 0 size: empty: type a whole number"],  // was read as 0
    ["2.5", "input 'v' ? dim 0 size: '2.5' is not a whole number written in digits"],
    ["-1", "input 'v' ? dim 0 size: -1 is outside 0..9007199254740991"],
  ]) {
    await enter(size, text);
    assert.equal(await page.textContent('[data-input="v"] [data-testid="size-error"]'), message);
    assert.equal(await refused(), `Not run: ${message}`);
  }
  await enter(size, "4");
  await page.selectOption('[data-input="v"] select[aria-label="v source"]', "paste");
  await page.fill('[data-input="v"] textarea', "1 2 3 4 5 6 7 8");
  await runOk();
  assert.deepEqual(await shownValues("y"), ["2", "4", "6", "8", "10", "12", "14", "16"]);
  assert.equal(await page.$eval('[data-output="y"]', (el) => el.dataset.shape), "[4,2]");
  // Three runs asked for; each executor made at least that many (more, to span 20 clock steps).
  assert.equal(await page.$eval('[data-testid="timing"]', (el) => el.dataset.asked), "3");
  const made = await page.$$eval('[data-testid="timing"] [data-runs]', (els) => els.map((e) => Number(e.dataset.runs)));
  assert.ok(made.length === 2 && made.every((n) => n >= 3), `runs made: ${made}`);
  assert.deepEqual(page.errors, []);
});

test("a symbolic dim that is not a size from 1 to 4096 is refused with a note; the program keeps its size", async () => {
  const source = "@graph Sym {\n  input x: Tensor<[Batch, 2], f32>;\n  output y: x + 1.0;\n}\n";
  await setSource(source, "Sym");
  await enter('[data-dim="Batch"]', "3");
  await waitCompiled("Sym");
  await page.waitForFunction(() => document.querySelector('[data-dim="Batch"]')?.value === "3");
  for (const [text, message] of [
    ["2.5", "dim Batch: '2.5' is not a whole number written in digits; Batch stays 3"],  // was floored to 2
    ["0", "dim Batch: 0 is outside 1..4096; Batch stays 3"],  // was put back without a word
    ["", "dim Batch: empty: type a whole number; Batch stays 3"],
  ]) {
    await enter('[data-dim="Batch"]', text);
    assert.equal(await page.textContent('[data-testid="dim-error"]'), message);
    assert.equal(await page.$eval('[data-dim="Batch"]', (e) => e.value), "3");
  }
  await runOk();
  assert.equal(await page.$eval('[data-output="y"]', (el) => el.dataset.shape), "[3,2]");
  await enter('[data-dim="Batch"]', "5");
  await waitCompiled("Sym");
  await page.waitForFunction(() => document.querySelector('[data-dim="Batch"]')?.value === "5");
  assert.equal(await page.$('[data-testid="dim-error"]:not([hidden])'), null);
  await runOk();
  assert.equal(await page.$eval('[data-output="y"]', (el) => el.dataset.shape), "[5,2]");
  assert.deepEqual(page.errors, []);
});

test("pasted numbers are decimals: 0x10 and 1e400 are refused, not read as 16 and Infinity", async () => {
  await setSource("@graph Paste {\n  input x: Tensor<[2], f64>;\n  output y: x;\n}\n", "Paste");
  await page.selectOption('[data-input="x"] select[aria-label="x source"]', "paste");
  const past = (t) => `input 'x': '${t}' is beyond the largest number (about 1.8e308): write inf or -inf for an infinity`;
  for (const [text, message] of [
    ["0x10 1", "input 'x': not a number: '0x10'"],
    ["1, 0b11", "input 'x': not a number: '0b11'"],
    ["1e400 1", past("1e400")],
    ["[1, -1e400]", past("-1e400")],
    // An empty value between two commas was skipped: "1,,2" ran as [1, 2].
    ["1,,2", "input 'x': element 1 is empty: there is nothing between two commas"],
    [" 1 , , 2", "input 'x': element 1 is empty: there is nothing between two commas"],
    ["1,2,,", "input 'x': element 2 is empty: there is nothing between two commas"],
  ]) {
    await page.fill('[data-input="x"] textarea', text);
    await page.click('[data-testid="run-button"]');
    assert.equal(await page.textContent('[data-testid="run-error"]'), message, text);
  }
  // What is a decimal still reads as before, infinities included when written so.
  for (const [text, want] of [["inf -1.5e300", ["Infinity", "-1.5e+300"]], [".5 1e3", ["0.5", "1000"]], ["3,\n4,", ["3", "4"]], ["[-0, 2.]", null]]) {
    await page.fill('[data-input="x"] textarea', text);
    if (want === null) {  // "2." is not JSON: the JSON reader says so
      await page.click('[data-testid="run-button"]');
      assert.match(await page.textContent('[data-testid="run-error"]'), /^input 'x': not a JSON array/);
      continue;
    }
    await runOk();
    assert.deepEqual(await shownValues("y"), want);
  }
  assert.deepEqual(page.errors, []);
});

test("pasted values an f32 input cannot hold are refused (1e39 ran as Infinity); true and false read as 1 and 0", async () => {
  await setSource("@graph Narrow {\n  input a: Tensor<[2], f32>;\n  input b: Tensor<[2], bool>;\n  output y: a;\n  output z: b;\n}\n", "Narrow");
  for (const input of ["a", "b"]) await page.selectOption(`[data-input="${input}"] select[aria-label="${input} source"]`, "paste");
  await page.fill('[data-input="b"] textarea', "true false");
  const beyond = (i, t) => `input 'a' is f32: element ${i}, ${t}, is beyond the largest value it holds (about 3.4e38, as f32): ` +
    "write inf or -inf for an infinity";
  for (const [text, message] of [["1e39 1", beyond(0, "1e39")], ["[1, -3.5e38]", beyond(1, "-3.5e38")]]) {
    await page.fill('[data-input="a"] textarea', text);
    await page.click('[data-testid="run-button"]');
    assert.equal(await page.textContent('[data-testid="run-error"]'), message, text);
  }
  // The largest f32 itself, an infinity written so, and a value rounding to it run.
  await page.fill('[data-input="a"] textarea', "3.4028235e38 -inf");
  await runOk();
  assert.deepEqual(await shownValues("y"), ["3.4028234663852886e+38", "-Infinity"]);
  assert.deepEqual(await shownValues("z"), ["1", "0"]);
  assert.deepEqual(page.errors, []);
});

test("a graph of constants only is bound with a 0-byte arena: the Stats card says so, not 'not bound yet'", async () => {
  await setSource("@graph Consts {\n  output c: 3.0;\n}\n", "Consts");
  await runOk();
  await page.click('[data-tab="stats"]');
  await page.waitForSelector('[data-card="arena"]');
  assert.equal(await page.textContent('[data-card="arena"] .card-note'), "nothing to hold");
  assert.equal(await page.textContent('[data-card="arena"] .card-value'), "0 B");
  await page.click('[data-tab="run"]');
  assert.deepEqual(page.errors, []);
});

// A graph whose shapes are computed from values is planned by each run: its
// Tape, Memory and Stats kept the warm-up's plan (n = 0: [1]) after a run
// with n = 99. And after a failed run of a `?` graph, the views (of the last
// run that succeeded) said they were of "the last run".
test("views of a graph planned per run follow its runs; a failed run's views say they are the last successful run's", async () => {
  const source = "@graph R {\n  input n: Tensor<[], i64>;\n  output y: range(n + 1) * 2;\n}\n";
  await setSource(source, "R");
  await page.selectOption('[data-input="n"] select[aria-label="n source"]', "paste");
  await page.fill('[data-input="n"] textarea', "99");
  await runOk();
  assert.equal(await page.$eval('[data-output="y"]', (el) => el.dataset.shape), "[100]");
  const { Shrew, Tensor } = await import("../../js/dist/index.js");
  const p = (await Shrew.load()).compile(source);
  p.run("R", { n: new Tensor("i64", [], [99n]) });
  const plan = JSON.parse(p.plan("R"));
  p.dispose();
  await page.click('[data-tab="stats"]');
  await page.waitForSelector('[data-card="arena"]');
  assert.ok(plan.arena_bytes > 192 && plan.arena_bytes < 1024, String(plan.arena_bytes));  // the warm-up's: 192 B
  assert.equal(await page.textContent('[data-card="arena"] .card-value'), `${plan.arena_bytes} B`);
  await page.click('[data-tab="tape"]');
  assert.equal(await page.textContent('[data-testid="compiled-for"]'), " Compiled for the inputs of the last successful run (n: i64[]).");
  assert.ok((await page.textContent('[data-testid="tape-table"]')).includes("[100]"));
  // The next size, whose arena rounds to the same bytes: the tape still follows ([100] stayed).
  await page.click('[data-tab="run"]');
  await page.fill('[data-input="n"] textarea', "100");
  await runOk();
  assert.equal(await page.$eval('[data-output="y"]', (el) => el.dataset.shape), "[101]");
  await page.click('[data-tab="tape"]');
  const tapeText = await page.textContent('[data-testid="tape-table"]');
  assert.ok(tapeText.includes("[101]") && !tapeText.includes("[100]"), tapeText);

  await setSource("@graph U {\n  input x: ?;\n  output y: x * 2;\n}\n", "U");
  await page.click('[data-tab="run"]');
  await page.selectOption('[aria-label="x source"]', "random");  // an earlier test's x was pasted
  await page.selectOption('[aria-label="x dtype"]', "u8");
  await page.fill('[aria-label="x shape"]', "2, 2");
  await runOk();
  await page.selectOption('[aria-label="x dtype"]', "bool");
  await page.fill('[aria-label="x shape"]', "3");
  await page.click('[data-testid="run-button"]');
  assert.match(await page.textContent('[data-testid="run-error"]'), /mul requires a numeric operand, got bool/);
  await page.click('[data-tab="tape"]');
  assert.equal(await page.textContent('[data-testid="compiled-for"]'), " Compiled for the inputs of the last successful run (x: u8[2, 2]).");
  await page.click('[data-tab="run"]');
  assert.deepEqual(page.errors, []);
});

// An i64 written with an exponent or a decimal point past 2^53 was refused
// as "not an integer" (1e18 is one): the text is read exactly, from its digits.
test("pasted i64 values with an exponent or a decimal point are read exactly from their digits", async () => {
  await setSource("@graph Wide {\n  input b: Tensor<[4], i64>;\n  output y: b + 1;\n}\n", "Wide");
  await page.selectOption('[data-input="b"] select[aria-label="b source"]', "paste");
  await page.fill('[data-input="b"] textarea', "1e18 -1.5E18 123456789012345678.0e1 9.2233720368547758070e18");
  await runOk();
  assert.deepEqual(await shownValues("y"), ["1000000000000000001", "-1499999999999999999", "1234567890123456781",
                                            "-9223372036854775808"]);  // i64's largest + 1 wraps
  for (const [text, shown] of [["1.5 2 3 4", "1.5"], ["1e19 2 3 4", "1e19"], ["1e-3 2 3 4", "1e-3"]]) {
    await page.fill('[data-input="b"] textarea', text);
    await page.click('[data-testid="run-button"]');
    assert.match(await page.textContent('[data-testid="run-error"]'), new RegExp(`element 0 is ${shown.replace(".", "\\.")}, not an integer`), text);
  }
  assert.deepEqual(page.errors, []);
});
