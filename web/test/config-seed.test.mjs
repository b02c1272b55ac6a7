// The program's own seed (`@config { seed: N; }`, OPS.md §5) in a real
// browser (web/test/browser.mjs): until a seed is typed in the Run tab, the
// playground compiles without one, as `shrew run` without --seed does. It
// passed seed 0, so such a program's parameters (and the bundle it
// downloads) were not the ones its source asks for. A page of its own: a
// seed typed by another test's page would be kept.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, openPlayground, pasteSource, waitCompiled } from "./page.mjs";

let page, close, scratch;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), "shrew-web-seed-"));
  ({ page, close } = await openPlayground());
});

after(async () => {
  await close?.();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** `shrew run --json` on `source` with these extra arguments: output `name`'s values. */
function cliValues(source, name, ...args) {
  const file = join(scratch, "prog.sw");
  writeFileSync(file, source);
  return JSON.parse(execFileSync(process.execPath, [CLI, "run", file, "--json", ...args], { encoding: "utf8" })).outputs[name].data;
}

async function runAndRead(name) {
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector(`[data-output="${name}"]`, { timeout: 60_000 });
  return page.$eval(`[data-output="${name}"]`, (el) => [...el.querySelectorAll("td")].map((td) => Number(td.dataset.v)));
}

function assertClose(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) <= 1e-6 + 1e-5 * Math.abs(expected[i]), `${what}[${i}] = ${v}, expected ${expected[i]}`));
}

const source = (config) => `${config}@graph G {\n    input x: Tensor<[2, 3], f32>;\n` +
  `    param w: Tensor<[2, 3], f32> { init: "normal(0, 1)"; };\n    output y: x + w;\n}\n`;

test("a program's @config seed makes its parameters and random inputs until a seed is typed, as in shrew run", async () => {
  const seeded = source("@config { seed: 7; }\n");
  await pasteSource(page, seeded, "G");
  await page.click("#tab-run");
  assert.equal(await page.$eval("#run-seed", (e) => e.value), "7");
  assert.match(await page.textContent('[data-testid="seed-hint"]'), /Until one is typed, the seed is the program's own/);
  const y = await runAndRead("y");
  assertClose(y, cliValues(seeded, "y"), "y (no --seed)");
  assertClose(y, cliValues(seeded, "y", "--seed", "7"), "y (--seed 7)");
  // Another program without one: its seed is 0, as the CLI's default.
  const plain = source("");
  await pasteSource(page, plain, "G");
  assert.equal(await page.$eval("#run-seed", (e) => e.value), "0");
  assertClose(await runAndRead("y"), cliValues(plain, "y"), "y of the program without a seed");
  // A seed typed applies to any program from then on, overriding @config's.
  await page.fill("#run-seed", "3");
  await page.press("#run-seed", "Tab");
  await pasteSource(page, seeded, "G");
  assert.equal(await page.$eval("#run-seed", (e) => e.value), "3");
  assertClose(await runAndRead("y"), cliValues(seeded, "y", "--seed", "3"), "y (--seed 3)");
  assert.deepEqual(page.errors, []);
});

/** Forgets the seed typed, as on a first visit (the page's saved state cleared). */
async function freshPage() {
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await waitCompiled(page);
  await page.click("#tab-run");
}

test("a @config seed past 2^53 - 1 (seed: -1 is 2^64 - 1) makes the random inputs too, exactly; the field shows it", async () => {
  await freshPage();
  await pasteSource(page, source("@config { seed: 7; }\n"), "G");
  await runAndRead("y");
  for (const [config, seed] of [["-1", "18446744073709551615"], ["9007199254740993", "9007199254740993"], ["-7", "18446744073709551609"]]) {
    const big = source(`@config { seed: ${config}; }\n`);
    await pasteSource(page, big, "G");
    assert.equal(await page.$eval("#run-seed", (e) => e.value), seed, `@config seed ${config}`);
    const y = await runAndRead("y");
    // Inputs drawn with seed 7, the program's before, differed from the CLI's.
    assertClose(y, cliValues(big, "y"), `y (@config seed ${config}, no --seed)`);
    assertClose(y, cliValues(big, "y", "--seed", seed), `y (--seed ${seed})`);
  }
  // Typed, such a seed applies to every program, and is kept over a reload.
  await page.fill("#run-seed", "18446744073709551614");
  await page.press("#run-seed", "Tab");
  const plain = source("");
  await pasteSource(page, plain, "G");
  assert.equal(await page.$eval("#run-seed", (e) => e.value), "18446744073709551614");
  assertClose(await runAndRead("y"), cliValues(plain, "y", "--seed", "18446744073709551614"), "y (typed seed 2^64 - 2)");
  await page.reload();
  await waitCompiled(page, "G");
  await page.click("#tab-run");
  assert.equal(await page.$eval("#run-seed", (e) => e.value), "18446744073709551614");
  assertClose(await runAndRead("y"), cliValues(plain, "y", "--seed", "18446744073709551614"), "y after a reload");
  // Past 2^64 - 1 is no seed: refused next to the field, and nothing runs.
  await page.fill("#run-seed", "18446744073709551616");
  await page.press("#run-seed", "Tab");
  assert.equal(await page.textContent('[data-testid="seed-error"]'), "seed: 18446744073709551616 is outside 0..18446744073709551615");
  assert.deepEqual(page.errors, []);
});

test("typing the seed the field already shows (the program's own) makes it the typed seed", async () => {
  await freshPage();
  const seeded = source("@config { seed: 7; }\n");
  await pasteSource(page, seeded, "G");
  assert.equal(await page.$eval("#run-seed", (e) => e.value), "7");
  await page.fill("#run-seed", "7");
  await page.press("#run-seed", "Tab");
  // Another program without a seed of its own now takes 7 too, not 0.
  const plain = source("");
  await pasteSource(page, plain, "G");
  assert.equal(await page.$eval("#run-seed", (e) => e.value), "7");
  assertClose(await runAndRead("y"), cliValues(plain, "y", "--seed", "7"), "y (typed seed 7)");
  assert.deepEqual(page.errors, []);
});
