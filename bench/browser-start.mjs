// Shrew start-up in a browser: Debian's Chromium (headless, playwright-core)
// loads a page that imports the package entry (js/dist/shrew.min.js), loads
// the module, compiles the mlp workload (Batch = 1, seeded parameters) and
// runs it once — the figures bench/cold-start.mjs takes in Node — then times
// steady runs. Each visit is a fresh browser process on one kept profile, so
// visit 1 starts with empty caches and later visits find the HTTP cache and
// whatever code V8 cached for the module (Chromium caches a streamed wasm
// module's optimised code once enough of it has been tiered up).
//
//   node bench/browser-start.mjs [--visits N] [--linger MS] [--preload]
//
// --preload: the page's <head> asks for the bundle (modulepreload) and the
// .wasm (preload as fetch) before its script runs, so the wasm downloads while
// the JS is fetched and evaluated; "since navigation" shows what that saves.
//
// Prints one JSON line per visit and a summary table. Needs `npm run build:js`
// (and Chromium at /usr/bin/chromium or $SHREW_CHROMIUM).
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchBrowser } from "../web/test/browser.mjs";
import { serve } from "../web/test/static-server.mjs";
import mlp from "./workloads/mlp.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const visits = arg("--visits", 4);
// How long a visit stays open after its runs: Chromium writes the module's
// code cache some time after the last tier-up.
const lingerMs = arg("--linger", 3000);
const preload = process.argv.includes("--preload");

// The page measures in the same phases as bench/cold-start.mjs.
const page = `<!doctype html><meta charset="utf-8"><title>Shrew start-up</title>
${preload ? `<link rel="modulepreload" href="./dist/shrew.min.js">
<link rel="preload" href="./dist/wasm/shrew.wasm" as="fetch" crossorigin>` : ""}
<script type="module">
const SRC = ${JSON.stringify(mlp.sw)};
const GRAPH = ${JSON.stringify(mlp.graph)};
const feeds = { ${JSON.stringify(mlp.inputName)}: new Float32Array(${JSON.stringify(Array.from(mlp.input(1)))}) };
const t0 = performance.now();
const { Shrew } = await import("./dist/shrew.min.js");
const tImport = performance.now();
const shrew = await Shrew.load();
const t1 = performance.now();
const program = shrew.compile(SRC, { filename: "mlp.sw", dims: { Batch: 1 } });
const t2 = performance.now();
const first = program.run(GRAPH, feeds);
const t3 = performance.now();
const warmEnd = performance.now() + 1000;
while (performance.now() < warmEnd) program.run(GRAPH, feeds);
// Bursts of 20 calls: a page's clock is coarse (5 µs cross-origin isolated).
const times = [];
for (let i = 0; i < 25; i++) {
  const s = performance.now();
  for (let j = 0; j < 20; j++) program.run(GRAPH, feeds);
  times.push((performance.now() - s) * 1000 / 20);
}
times.sort((a, b) => a - b);
const steadyUs = times[12];
window.__result = {
  loadMs: t1 - t0, importMs: tImport - t0, compileMs: t2 - t1, firstRunUs: (t3 - t2) * 1000, totalMs: t3 - t0,
  // The same end point from the navigation's start (performance's time
  // origin): includes fetching and parsing the page before its script runs.
  sinceNavigationMs: t3,
  steadyUs, firstRunRatio: (t3 - t2) * 1000 / steadyUs,
  // When each file arrived (ms after the clock started): the browser's share.
  fetches: performance.getEntriesByType("resource").map((e) => ({
    file: e.name.split("/").pop(), requestStart: e.requestStart - t0, responseEnd: e.responseEnd - t0,
  })),
  outputs: Object.keys(first), simd128: shrew.simd128, isolated: crossOriginIsolated,
};
</script>`;

const root = mkdtempSync(join(tmpdir(), "shrew-browser-start-"));
const profileDir = mkdtempSync(join(tmpdir(), "shrew-browser-start-profile-"));
writeFileSync(join(root, "index.html"), page);
writeFileSync(join(root, "blank.html"), "<!doctype html><title>blank</title>");
symlinkSync(fileURLToPath(new URL("../js/dist", import.meta.url)), join(root, "dist"));
// Cacheable responses, as a site would serve them: a repeat visit may reuse them.
// Cross-origin isolated (COOP + COEP) for the finer clock.
const server = await serve(root, {
  "cache-control": "public, max-age=3600",
  "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp",
});
const rows = [];
try {
  for (let v = 1; v <= visits; v++) {
    const browser = await launchBrowser({}, { profileDir });
    try {
      const tab = browser.context.pages()[0] ?? await browser.context.newPage();
      const failed = new Promise((_, reject) => tab.on("pageerror", (e) => reject(new Error(`visit ${v}: ${e.message}`))));
      failed.catch(() => {});  // an error after the result is not this visit's
      // A blank page of the same site first: the browser's own start-up
      // (network service, disk cache) is not the page's.
      await tab.goto(server.url + "blank.html");
      await tab.goto(server.url);
      await Promise.race([tab.waitForFunction(() => window.__result !== undefined, undefined, { timeout: 60_000 }), failed]);
      const r = await tab.evaluate(() => window.__result);
      const version = browser.context.browser()?.version() ?? "chromium";
      rows.push({ visit: v, browser: version, preload, ...r });
      console.log(JSON.stringify(rows.at(-1)));
      await tab.waitForTimeout(lingerMs);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(profileDir, { recursive: true, force: true });
}

const f = (n, d = 1) => n.toFixed(d);
console.log(`\n| visit | load (of it: import) | compile mlp | first run | load + compile + first run | since navigation | steady | first ÷ steady |`);
console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |`);
for (const r of rows) {
  console.log(`| ${r.visit} | ${f(r.loadMs)} ms (${f(r.importMs)} ms) | ${f(r.compileMs)} ms | ${f(r.firstRunUs / 1000, 2)} ms | ` +
    `${f(r.totalMs)} ms | ${f(r.sinceNavigationMs)} ms | ${f(r.steadyUs)} µs | ${f(r.firstRunRatio)}× |`);
}
