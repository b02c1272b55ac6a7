// The tape, the graph and the memory plan from the keyboard alone: each is
// one Tab stop (a roving tabindex), arrows move within it, Space or Enter
// selects, and the selection shows in the view and in the source.
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

test("graph nodes: one Tab stop, arrows follow the layout, Enter or Space selects a node", async () => {
  await page.click('[data-tab="graph"]');
  await page.waitForSelector('.graph-wrap[data-state="done"] .graph-svg', { timeout: 60_000 });
  const count = await page.$$eval(".graph-svg .node", (n) => n.length);
  assert.equal(await page.$$eval('.graph-svg [role="listbox"] > [role="option"]', (n) => n.length), count);
  const stops = await page.$$eval('.graph-svg [tabindex="0"]', (n) => n.map((e) => e.outerHTML.slice(0, 100)));
  assert.equal(stops.length, 1, stops.join("\n"));
  // The cursor on `node h1` selects its node; Tab from the last toolbar button lands on it.
  const h1Line = (await page.$$eval(".cm-content .cm-line", (ls) => ls.map((l) => l.textContent))).findIndex((t) => t.includes("node h1"));
  await page.locator(".cm-content .cm-line").nth(h1Line).click();
  const h1 = await page.$$eval(".graph-svg .node.selected", (els) => els.map((e) => e.dataset.node));
  assert.ok(h1.length >= 1);  // the fused matmul + b1 and its relu
  await page.focus(".toolbar .zoom button:last-child");
  await page.keyboard.press("Tab");
  const entered = await focused();
  assert.equal(entered.role, "option");
  assert.ok(h1.includes(entered.node), `${entered.node} in ${h1}`);
  assert.ok(entered.focusVisible);
  assert.equal(await page.$eval(".graph-svg .node:focus rect", (r) => getComputedStyle(r).strokeWidth), "3.5px");
  // Home: the topmost node.
  await page.keyboard.press("Home");
  const first = await focused();
  const y = (id) => page.$eval(`.graph-svg .node[data-node="${id}"] rect`, (r) => Number(r.getAttribute("y")));
  const ys = await page.$$eval(".graph-svg .node rect", (r) => r.map((x) => Number(x.getAttribute("y"))));
  assert.equal(await y(first.node), Math.min(...ys));
  // Right steps through every node once, in reading order; Down goes to a lower row.
  const seen = new Set([first.node]);
  for (let i = 1; i < count; i++) {
    await page.keyboard.press("ArrowRight");
    seen.add((await focused()).node);
  }
  assert.equal(seen.size, count);
  await page.keyboard.press("ArrowRight");  // the last stays
  assert.equal(seen.size, count);
  await page.keyboard.press("Home");
  assert.equal((await focused()).node, first.node);
  await page.keyboard.press("ArrowDown");
  assert.ok(await y((await focused()).node) > await y(first.node));
  // To `h2` by Right; its name is read out, its source lit while focused, Enter selects it.
  await page.keyboard.press("Home");
  let at;
  for (let i = 0; i < count; i++) {
    at = await focused();
    if (/ h2\b/.test(at.label)) break;
    await page.keyboard.press("ArrowRight");
  }
  assert.match(at.label, /h2.*line \d+/);
  assert.match((await litLines()).join(" | "), /node h2 /);
  await page.keyboard.press("Enter");
  const selected = () => page.$$eval('.graph-svg .node.selected[aria-selected="true"]', (els) => els.map((e) => e.dataset.node));
  assert.deepEqual(await selected(), [at.node]);
  await page.keyboard.press("ArrowRight");
  const next = (await focused()).node;
  await page.keyboard.press("Space");
  assert.deepEqual(await selected(), [next]);
  assert.equal((await focused()).node, next);
  // Leaving the graph clears the highlight, like the mouse leaving a node.
  await page.keyboard.press("Tab");
  assert.equal((await focused()).node, undefined);
  assert.deepEqual(await litLines(), []);
  assert.deepEqual(page.errors, []);
});

test("memory buffers: one Tab stop, arrows move, Space selects a buffer and marks its tape rows and source", async () => {
  await page.click('[data-tab="memory"]');
  const count = await page.$$eval(".plan-svg .buffer", (b) => b.length);
  assert.ok(count >= 2);
  assert.equal(await page.$$eval('.plan-svg [role="listbox"] > [role="option"]', (n) => n.length), count);
  assert.equal(await page.$$eval('.plan-svg [tabindex="0"]', (n) => n.length), 1);
  await page.focus('[data-tab="memory"]');
  await page.keyboard.press("Tab");
  const first = await focused();
  assert.ok(first.buffer !== undefined && first.focusVisible, JSON.stringify(first));
  assert.match(first.label, /^buffer \d+ \((value|input|workspace)\): .*alive at steps/);
  const seen = new Set([first.buffer]);
  for (let i = 1; i < count; i++) {
    await page.keyboard.press("ArrowRight");
    seen.add((await focused()).buffer);
  }
  assert.equal(seen.size, count);
  // A value buffer: Space selects it, the rows writing it are marked in the tape and their source lit.
  await page.keyboard.press("Home");
  for (let i = 0; i < count && !/\(value\)/.test((await focused()).label); i++) await page.keyboard.press("ArrowRight");
  const buffer = (await focused()).buffer;
  await page.keyboard.press("Space");
  assert.deepEqual(await page.$$eval('.plan-svg .buffer.selected[aria-selected="true"]', (b) => b.map((x) => x.dataset.buffer)), [buffer]);
  assert.ok(await page.$$eval('[data-testid="tape-table"] tbody tr.linked', (r) => r.length) >= 1);
  assert.ok((await litLines()).length >= 1);
  await page.keyboard.press("Tab");
  assert.equal((await focused()).buffer, undefined);
  assert.deepEqual(page.errors, []);
});

// Tab indents in the editor: a keyboard user tabbing through the page was
// kept there, each Tab indenting the source (and recompiling it), with
// nothing saying that Esc, then Tab, moves on.
test("the editor is named and says how to leave it from the keyboard: Esc, then Tab", async () => {
  const source = () => page.evaluate(() => document.querySelector(".cm-content").textContent);
  const before = await source();
  assert.equal(await page.getAttribute(".cm-content", "aria-label"), "Source (.sw)");
  const hint = await page.getAttribute(".cm-content", "aria-describedby");
  assert.match(await page.textContent(`#${hint}`), /Esc, then Tab/);
  await page.focus('[data-tab="tape"]');
  assert.equal(await page.isVisible(`#${hint}`), false);  // shown only while the editor has the focus
  await page.click(".cm-content");
  assert.equal(await page.isVisible(`#${hint}`), true);
  await page.keyboard.press("Escape");
  await page.keyboard.press("Tab");
  assert.equal((await focused()).editor, undefined);
  assert.equal(await source(), before);
  assert.deepEqual(page.errors, []);
});
