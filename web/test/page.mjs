// The built playground opened in Chromium, with the helpers the view tests
// share: wait for a compile, replace the source as a paste, read the tape.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchBrowser } from "./browser.mjs";
import { serve } from "./static-server.mjs";

export const WEB = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CLI = join(WEB, "..", "js/dist/cli/main.js");

/**
 * Serves web/dist and opens it; `page.errors` collects page errors.
 * `beforeLoad(page)` runs before the page loads (init scripts). Resolves to { page, close }.
 */
export async function openPlayground({ beforeLoad } = {}) {
  const server = await serve(join(WEB, "dist"));
  const browser = await launchBrowser({ viewport: { width: 1280, height: 800 } });
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && page.errors.push(m.text()));
  await beforeLoad?.(page);
  await page.goto(server.url);
  await waitCompiled(page);
  return { page, async close() { await browser.close(); await server.close(); } };
}

/** Waits until the status says compiled (and graph `graph` is the one shown). */
export async function waitCompiled(page, graph, timeout = 120_000) {
  await page.waitForFunction((g) => document.getElementById("status")?.dataset.state === "ok" &&
    (!g || document.getElementById("graph-select")?.value === g), graph, { timeout });
}

/** Replaces the editor's text as a paste would (typing thousands of lines is slow) and waits for its compile. */
export async function pasteSource(page, text, graph) {
  await page.click(".cm-content");
  await page.keyboard.press("Control+A");
  await page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData("text/plain", t);
    document.querySelector(".cm-content").dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
  await waitCompiled(page, graph);
}

/** The value name each tape instruction writes, by instruction index, from `shrew dump --tape` on `file`. */
export function tapeResultNames(file) {
  const text = execFileSync(process.execPath, [CLI, "dump", file, "--tape"], { encoding: "utf8" });
  const names = new Map([...text.matchAll(/^ {2}%(\d+) ([^:\s]+):/gm)].map((m) => [Number(m[1]), m[2]]));
  return new Map([...text.matchAll(/^ {2}(\d+): (?!free )\S+ %(\d+)/gm)].map((m) => [Number(m[1]), names.get(Number(m[2]))]));
}

/** Indices of the tape rows marked selected. */
export function selectedRows(page) {
  return page.$$eval('[data-testid="tape-table"] tbody tr.selected', (rows) => rows.map((r) => Number(r.dataset.index)));
}
