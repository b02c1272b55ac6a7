// The views from the keyboard alone: each is one Tab stop (a roving
// tabindex), arrows move within it, Space or Enter selects, and the
// selection shows in the view and in the source.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPlayground, selectedRows, waitCompiled } from "./page.mjs";

let pg, page;

before(async () => {
  pg = await openPlayground();
  page = pg.page;
  await page.selectOption("#example-select", "mlp-classifier");
  await waitCompiled(page, "Classifier");
});

after(async () => {
  await pg?.close();
});

/** What has the focus: a tape row's index, a node's or a buffer's id, or "editor". */
const focused = () => page.evaluate(() => {
  const el = document.activeElement;
  if (el?.closest(".cm-content")) return { editor: true };
  return { row: el?.dataset?.index === undefined ? undefined : Number(el.dataset.index), node: el?.dataset?.node, buffer: el?.dataset?.buffer,
           role: el?.getAttribute("role"), label: el?.getAttribute("aria-label"), focusVisible: el?.matches(":focus-visible") };
});
const litLines = () => page.$$eval(".cm-line.cm-span-line", (els) => els.map((e) => e.textContent));

test("the tape is one Tab stop: arrows, Home and End move, Space selects, Enter jumps to the source", async () => {
  await page.click('[data-tab="tape"]');
  const rows = await page.$$eval('[data-testid="tape-table"] tbody tr', (r) => r.length);
  assert.ok(rows > 5);
  assert.equal(await page.getAttribute('[data-testid="tape-table"]', "role"), "grid");
  assert.equal(await page.$$eval('[data-testid="tape-table"] [tabindex="0"]', (r) => r.length), 1);
  // Tab from the tab list enters the tape at its first row; the next Tab leaves it.
  await page.focus('[data-tab="tape"]');
  await page.keyboard.press("Tab");
  assert.equal((await focused()).row, 0);
  await page.keyboard.press("Tab");
  assert.equal((await focused()).row, undefined);
  await page.keyboard.press("Shift+Tab");
  assert.equal((await focused()).row, 0);
  for (const [key, row] of [["ArrowUp", 0], ["ArrowDown", 1], ["End", rows - 1], ["ArrowDown", rows - 1], ["Home", 0]]) {
    await page.keyboard.press(key);
    assert.equal((await focused()).row, row, key);
  }
  // Down to the fused row of `node h1`: focus shows its source, Space selects it and keeps the focus.
  const fused = Number(await page.getAttribute('[data-testid="tape-table"] tbody tr.fused', "data-index"));
  for (let i = 0; i < fused; i++) await page.keyboard.press("ArrowDown");
  assert.equal((await focused()).row, fused);
  assert.match((await litLines()).join(" | "), /node h1 /);
  await page.keyboard.press("Space");
  assert.deepEqual(await selectedRows(page), [fused]);
  assert.equal(await page.getAttribute(`[data-testid="tape-table"] tr[data-index="${fused}"]`, "aria-selected"), "true");
  assert.equal((await focused()).row, fused);
  // Enter puts the cursor on that line, in the editor; the row stays selected and its source lit.
  await page.keyboard.press("Enter");
  assert.deepEqual(await focused(), { editor: true });
  assert.match(await page.textContent(".cm-activeLine"), /node h1 /);
  assert.deepEqual(await selectedRows(page), [fused]);
  assert.match((await litLines()).join(" | "), /node h1 /);
  // A line chosen in the editor moves the tape's Tab stop to its first row.
  await page.keyboard.press("ArrowDown");  // onto `node h2`
  const h2Rows = await selectedRows(page);
  assert.ok(h2Rows.length >= 1 && !h2Rows.includes(fused), h2Rows.join(", "));
  await page.focus('[data-tab="tape"]');
  await page.keyboard.press("Tab");
  assert.equal((await focused()).row, h2Rows[0]);
  assert.deepEqual(page.errors, []);
});
