// The Memory tab's offset axis and lede on small arenas: an empty arena had
// the labels 0 B, 0 B, 1 B, 1 B, 1 B (ticks at a quarter byte, rounded), and
// one buffer was "1 buffers".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPlayground, pasteSource } from "./page.mjs";

let pg, page;

before(async () => {
  pg = await openPlayground();
  page = pg.page;
  await page.click('[data-tab="memory"]');
});

after(async () => {
  await pg?.close();
});

const graph = (...body) => ["@graph G {", ...body.map((l) => `  ${l}`), "}", ""].join("\n");

/** The chart's lede, its offset axis labels (top to bottom) and its listbox's name. */
async function chart() {
  return {
    lede: (await page.textContent("#plan-chart .lede")).split(". ")[0],
    axis: await page.$$eval('#plan-chart .axis-label[text-anchor="end"]', (t) => t.map((x) => x.textContent)),
    list: await page.getAttribute('#plan-chart [role="listbox"]', "aria-label"),
  };
}

test("an empty arena has one tick at 0 B; small arenas have no repeated labels; one buffer is singular", async () => {
  await pasteSource(page, graph("output y: 3.0;"), "G");
  assert.deepEqual(await chart(), { lede: "0 buffers in one arena of 0 B", axis: ["0 B"], list: "0 arena buffers" });
  await pasteSource(page, graph("input x: Tensor<[4], f32>;", "output y: x;"), "G");
  assert.deepEqual(await chart(), { lede: "1 buffer in one arena of 64 B", axis: ["0 B", "16 B", "32 B", "48 B", "64 B"],
                                    list: "1 arena buffer" });
  await pasteSource(page, graph("input x: Tensor<[4], f32>;", "node a { op: x * 2.0; };", "node b { op: a + x; };", "output y: b * a;"), "G");
  assert.deepEqual(await chart(), { lede: "3 buffers in one arena of 192 B", axis: ["0 B", "48 B", "96 B", "144 B", "192 B"],
                                    list: "3 arena buffers" });
  assert.deepEqual(page.errors, []);
});
