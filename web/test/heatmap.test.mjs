// The Run tab's heatmap of a 2-D output with NaN and infinite values, in a
// real browser (Debian's Chromium, web/test/browser.mjs): the colour scale
// spans the finite values only (it read "Infinity … -Infinity" when there
// were none, and NaN cells took the lowest colour), and each kind of
// non-finite cell has a colour of its own, counted in the legend.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openPlayground, waitCompiled as waitFor } from "./page.mjs";

// viridis's ends and the colours of NaN, +Inf and -Inf (web/src/heat-scale.ts).
const LOW = [68, 1, 84], HIGH = [253, 231, 37], NAN = [160, 160, 160], POS_INF = [255, 255, 255], NEG_INF = [0, 0, 0];

let page, close;
const waitCompiled = (graph) => waitFor(page, graph, 30_000);

before(async () => {
  ({ page, close } = await openPlayground());
  await page.click('[data-tab="run"]');
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Heat {\n  input x: Tensor<[2, 3], f32>;\n  input big: Tensor<[400, 400], f32>;\n" +
    "  input e: Tensor<[?, 3], f32>;\n  output y: x;\n  output z: log(big * 0.0 - 1.0);\n  output w: e + 1.0;\n" +
    '  output v: log(reshape(cast(range(160000), dtype: "f32"), shape: [400, 400]) - 4.0);\n' +
    '  output huge: cast(x, dtype: "f64") * 1.7e308;\n  output near: cast(big * 0.0, dtype: "f64") + 1.5e308;\n}\n');
  await waitCompiled("Heat");
  await page.selectOption('[data-input="x"] select[aria-label="x source"]', "paste");
});

after(async () => {
  await close?.();
});

/** Runs with x pasted as `values`; what output `name`'s heatmap shows: legend parts and each pixel's colour. */
async function runWith(values, name) {
  await page.fill('[data-input="x"] textarea', values);
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  assert.equal(await page.$('[data-testid="run-error"]'), null);
  return heatmapOf(name);
}

function heatmapOf(name) {
  return page.$eval(`[data-output="${name}"]`, (el) => {
    const canvas = el.querySelector("canvas.heatmap");
    const scale = el.querySelector(".heatmap-wrap .scale");
    const { width, height } = canvas;
    const px = canvas.getContext("2d").getImageData(0, 0, width, height).data;
    const pixels = Array.from({ length: width * height }, (_, i) => [px[i * 4], px[i * 4 + 1], px[i * 4 + 2]]);
    return {
      width, height, pixels, text: scale.textContent,
      lo: scale.querySelector('[data-end="lo"]')?.textContent, hi: scale.querySelector('[data-end="hi"]')?.textContent,
      noFinite: scale.querySelector('[data-testid="no-finite"]')?.textContent,
      kinds: [...scale.querySelectorAll(".nonfinite")].map((k) => [k.dataset.kind, k.textContent, getComputedStyle(k.querySelector(".swatch")).backgroundColor]),
    };
  });
}

test("an output with no finite values says so in the legend; its cells show NaN, +Inf and -Inf apart", async () => {
  const shown = await runWith("nan inf -inf nan inf -inf", "y");
  assert.equal(shown.noFinite, "no finite values");
  assert.doesNotMatch(shown.text, /Infinity/);
  assert.equal(shown.lo, undefined);
  assert.deepEqual(shown.kinds, [["NaN", "NaN ×2", "rgb(160, 160, 160)"], ["+∞", "+∞ ×2", "rgb(255, 255, 255)"], ["−∞", "−∞ ×2", "rgb(0, 0, 0)"]]);
  assert.deepEqual(shown.pixels, [NAN, POS_INF, NEG_INF, NAN, POS_INF, NEG_INF]);
  // The table shows the values as they are.
  assert.deepEqual(await page.$$eval('[data-output="y"] td', (tds) => tds.map((td) => td.dataset.v)), ["NaN", "Infinity", "-Infinity", "NaN", "Infinity", "-Infinity"]);
});

test("mixed finite and non-finite values: the scale spans the finite ones; the others keep their colours", async () => {
  const shown = await runWith("1 nan 3 inf -inf 2", "y");
  assert.deepEqual([shown.lo, shown.hi, shown.noFinite], ["1", "3", undefined]);
  assert.deepEqual(shown.kinds.map(([, text]) => text), ["NaN ×1", "+∞ ×1", "−∞ ×1"]);
  assert.deepEqual(shown.pixels[0], LOW);  // 1, the least finite value
  assert.deepEqual(shown.pixels[2], HIGH);  // 3, the greatest
  assert.deepEqual([shown.pixels[1], shown.pixels[3], shown.pixels[4]], [NAN, POS_INF, NEG_INF]);
  // 2 is half way: viridis's middle stop, (33, 145, 140), give or take the 1/255 lookup.
  assert.ok(shown.pixels[5].every((c, k) => Math.abs(c - [33, 145, 140][k]) <= 2), String(shown.pixels[5]));
  // Only finite values, all equal: the middle colour, and both ends say the value.
  const flat = await runWith("5 5 5 5 5 5", "y");
  assert.deepEqual([flat.lo, flat.hi, flat.kinds], ["5", "5", []]);
  assert.ok(flat.pixels.every((p) => p.every((c, k) => Math.abs(c - [33, 145, 140][k]) <= 2)), String(flat.pixels[0]));
});

test("a large all-NaN output (drawn from blocks of cells) and an empty one do not break the Run tab", async () => {
  const big = await heatmapOf("z");
  // 400 x 400 is drawn 2 x 2 cells a pixel: every block is NaN.
  assert.deepEqual([big.width, big.height, big.noFinite], [200, 200, "no finite values"]);
  assert.deepEqual(big.kinds.map(([, text]) => text), ["NaN ×160000"]);
  assert.ok(big.pixels.every((p) => p.join() === NAN.join()));
  // One NaN or infinity in a block shows, not the mean of its finite cells: v's first
  // row is log(-4 .. -1) = NaN, log(0) = -Inf, then finite, as is every later row.
  const few = await heatmapOf("v");
  assert.deepEqual([few.width, few.height, few.lo], [200, 200, "0"]);
  assert.deepEqual(few.kinds.map(([, text]) => text), ["NaN ×4", "−∞ ×1"]);
  assert.deepEqual(few.pixels.slice(0, 3), [NAN, NAN, NEG_INF]);
  const nonFinite = few.pixels.filter((p) => [NAN, NEG_INF].some((k) => p.join() === k.join()));
  assert.equal(nonFinite.length, 3, "every other block is finite");
  assert.deepEqual(few.pixels[200 * 200 - 1], HIGH);  // the last block holds the greatest value
  // An empty 2-D output: its table and no heatmap.
  await page.fill('[data-input="e"] input[data-qdim="0"]', "0");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  assert.equal(await page.$eval('[data-output="w"]', (el) => el.dataset.shape), "[0,3]");
  assert.equal(await page.$('[data-output="w"] canvas.heatmap'), null);
  assert.deepEqual(page.errors, []);
});

test("f64 values past the largest double's half: a span from -1.7e308 to 1.7e308 colours its cells; blocks of 1.5e308 are finite", async () => {
  // (v - lo) / (hi - lo) was Infinity / Infinity: a colour of no index threw, and no output was shown.
  const shown = await runWith("-1 0 1 -1 0 1", "huge");
  assert.deepEqual([shown.lo, shown.hi, shown.kinds], ["-1.700e+308", "1.700e+308", []]);
  assert.deepEqual([shown.pixels[0], shown.pixels[2]], [LOW, HIGH]);
  assert.ok(shown.pixels[1].every((c, k) => Math.abs(c - [33, 145, 140][k]) <= 2), String(shown.pixels[1]));
  // The sum of a 2 x 2 block of 1.5e308 overflowed, and the block was drawn as +Inf (white).
  const near = await heatmapOf("near");
  assert.deepEqual([near.width, near.height, near.kinds], [200, 200, []]);
  assert.ok(near.pixels.every((p) => p.every((c, k) => Math.abs(c - [33, 145, 140][k]) <= 2)), String(near.pixels[0]));
  assert.deepEqual(page.errors, []);
});

test("a 1 x N or N x 1 output's heatmap stays visible: its thin side is at least 12 px, its long side blocked as before", async () => {
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText("@graph Thin {\n  input a: Tensor<[1, 4096], f32>;\n  input b: Tensor<[4096, 1], f32>;\n" +
    "  input c: Tensor<[3, 60], f32>;\n  output row: a;\n  output col: b;\n  output small: c;\n}\n");
  await waitCompiled("Thin");
  await page.click('[data-testid="run-button"]');
  await page.waitForSelector('[data-testid="timing"], [data-testid="run-error"]', { timeout: 30_000 });
  const drawn = (name) => page.$eval(`[data-output="${name}"] canvas.heatmap`, (c) => {
    const r = c.getBoundingClientRect();
    return { cells: [c.width, c.height], px: [Math.round(r.width * 100) / 100, Math.round(r.height * 100) / 100] };
  });
  // 4096 cells are drawn 12 to a pixel (342 pixels) over 360 px, as before; the one cell across is 12 px, not 0.09.
  assert.deepEqual(await drawn("row"), { cells: [342, 1], px: [360, 12] });
  assert.deepEqual(await drawn("col"), { cells: [1, 342], px: [12, 360] });
  // Small outputs keep square cells of 6 px (360 / 60); their 3 rows are 18 px.
  assert.deepEqual(await drawn("small"), { cells: [60, 3], px: [360, 18] });
  assert.deepEqual(page.errors, []);
});
