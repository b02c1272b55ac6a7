// The npm package in a browser without a bundler: a plain
// <script type="module"> imports the package entry from a static server,
// Shrew.load() finds shrew.wasm through import.meta.url, and a program
// compiles and runs. Both files a page can import are checked: the entry
// js/dist/shrew.min.js (one minified bundle) and the unbundled
// js/dist/index.js. The page runs under a strict Content-Security-Policy —
// scripts from the origin only, no eval or new Function, only
// 'wasm-unsafe-eval' to compile the module — as many production sites do.
// Outputs are checked against the same program run by the package in Node
// (same wasm, same seed and inputs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchBrowser } from "./browser.mjs";
import { serve } from "./static-server.mjs";
import { SEED, SOURCE, X, expectedInNode } from "./package-program.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

let server, browser, context;

before(async () => {
  server = await serve(ROOT);
  browser = await launchBrowser();
  context = browser.context;
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const CSP = "default-src 'self'; script-src 'self' 'nonce-shrewtest' 'wasm-unsafe-eval'";

for (const entry of ["shrew.min.js", "index.js"]) test(`a plain <script type=module> loads js/dist/${entry} under a strict CSP and runs a program`, async () => {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const violations = [];
  page.on("console", (m) => { if (/Content.Security.Policy|unsafe-eval/i.test(m.text())) violations.push(m.text()); });
  // The page itself is served from the repo root so /js/dist resolves.
  await page.route("**/plain-module.html", (route) =>
    route.fulfill({
      contentType: "text/html",
      headers: { "Content-Security-Policy": CSP },
      body: `<!doctype html><script type="module" nonce="shrewtest">
        import { Shrew, Tensor } from "/js/dist/${entry}";
        try {
          const shrew = await Shrew.load();
          const program = shrew.compile(${JSON.stringify(SOURCE)}, { seed: ${SEED} });
          const out = program.run("Net", { x: new Tensor("f32", [2, 3], new Float32Array(${JSON.stringify(X)})) });
          window.result = { shape: out.y.shape, data: Array.from(out.y.data) };
          program.dispose();
        } catch (e) { window.result = { error: String(e) }; }
      </script>`,
    }));
  await page.goto(`${server.url}plain-module.html`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  assert.equal(result.error, undefined, result.error);

  const expected = await expectedInNode();
  assert.deepEqual(result.shape, [2, 4]);
  assert.deepEqual(result.data, expected.data);  // same wasm, same seed: bit for bit
  for (let r = 0; r < 2; ++r) {
    const row = result.data.slice(4 * r, 4 * r + 4);
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6);  // softmax rows
  }
});

// js/README.md advises a page to start downloading the wasm while the JS
// loads: <link rel="preload" as="fetch" crossorigin>. The glue's streaming
// fetch must take that response rather than download the file again (a
// preload whose mode or credentials differ from the fetch is not reused).
test("a page that preloads shrew.wasm as the README says downloads it once", async () => {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.route("**/preload.html", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html>
        <link rel="modulepreload" href="/js/dist/shrew.min.js">
        <link rel="preload" href="/js/dist/wasm/shrew.wasm" as="fetch" crossorigin>
        <script type="module">
        import { Shrew } from "/js/dist/shrew.min.js";
        const shrew = await Shrew.load();
        const program = shrew.compile(${JSON.stringify(SOURCE)}, { seed: ${SEED} });
        const y = program.run("Net", { x: new Float32Array(${JSON.stringify(X)}) }).y;
        window.result = {
          sum: y.data.reduce((a, b) => a + b, 0),
          wasm: performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/shrew.wasm")).map((e) => e.initiatorType),
        };
      </script>`,
    }));
  await page.goto(`${server.url}preload.html`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30000 });
  const result = await page.evaluate(() => window.result);
  await page.close();
  assert.deepEqual(errors, []);
  assert.ok(Math.abs(result.sum - 2) < 1e-6, `two softmax rows sum to 2, got ${result.sum}`);
  assert.deepEqual(result.wasm, ["link"]);  // one download, the preload's
});
