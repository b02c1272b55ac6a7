// A web app that depends on the npm package, as its users build one: the
// packed package in the app's node_modules, imported by name, built with
// `vite build` and served by Vite's dev server. The build must print no
// warning (it printed three: the glue's default URL for shrew.wasm, and the
// `node:` imports of the package's file reading, which never runs in a
// browser), and both the built site and the dev server must run a program in
// Chromium with the outputs the package computes in Node (same wasm, same
// seed: bit for bit).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, createLogger, createServer } from "vite";
import { launchBrowser } from "./browser.mjs";
import { serve } from "./static-server.mjs";
import { SEED, SOURCE, X, expectedInNode } from "./package-program.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = `import { Shrew, Tensor } from "shrew-wasm";
try {
  const shrew = await Shrew.load();
  const program = shrew.compile(${JSON.stringify(SOURCE)}, { seed: ${SEED} });
  const y = program.run("Net", { x: new Tensor("f32", [2, 3], new Float32Array(${JSON.stringify(X)})) }).y;
  window.result = { shape: y.shape, data: Array.from(y.data) };
} catch (e) {
  window.result = { error: String(e) };
}
`;

let app, browser;

before(async () => {
  app = mkdtempSync(join(tmpdir(), "shrew-vite-app-"));
  const [info] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", app], { cwd: join(ROOT, "js"), encoding: "utf8" }));
  const pkg = join(app, "node_modules", "shrew-wasm");
  mkdirSync(pkg, { recursive: true });
  execFileSync("tar", ["-xzf", join(app, info.filename), "-C", pkg, "--strip-components=1"]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module", dependencies: { "shrew-wasm": "*" } }));
  writeFileSync(join(app, "index.html"), '<!doctype html><title>app</title><script type="module" src="/main.js"></script>\n');
  writeFileSync(join(app, "main.js"), MAIN);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (app) rmSync(app, { recursive: true, force: true });
});

/** Vite's options for the app, with a logger that keeps every warning and error. */
function viteConfig(said) {
  const logger = createLogger("warn", { allowClearScreen: false });
  for (const level of ["warn", "warnOnce", "error"]) logger[level] = (msg) => said.push(`${level}: ${msg}`);
  return { root: app, configFile: false, customLogger: logger, cacheDir: join(app, ".vite-cache"), clearScreen: false };
}

async function resultAt(url) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30000 });
    const result = await page.evaluate(() => window.result);
    assert.deepEqual(errors, []);
    assert.equal(result.error, undefined, result.error);
    return result;
  } finally {
    await page.close();
  }
}

test("a Vite app that imports the packed package builds without a warning and runs in Chromium", async () => {
  const said = [];
  await build({ ...viteConfig(said), logLevel: "warn", build: { outDir: join(app, "dist"), emptyOutDir: true } });
  assert.deepEqual(said.filter((s) => !/PLUGIN_TIMINGS/.test(s)), []);
  // The wasm is the app's asset, found through the package's own new URL(…, import.meta.url).
  const assets = readdirSync(join(app, "dist", "assets"));
  assert.equal(assets.filter((f) => f.endsWith(".wasm")).length, 1, String(assets));
  const server = await serve(join(app, "dist"));
  try {
    assert.deepEqual(await resultAt(`${server.url}index.html`), await expectedInNode());
  } finally {
    await server.close();
  }
});

test("the same app runs in Chromium from Vite's dev server (dependencies pre-bundled)", async () => {
  const said = [];
  const server = await createServer({ ...viteConfig(said), logLevel: "warn", server: { host: "127.0.0.1", port: 0 } });
  await server.listen();
  try {
    const url = server.resolvedUrls.local[0];
    assert.deepEqual(await resultAt(url), await expectedInNode());
    assert.deepEqual(said, []);
  } finally {
    await server.close();
  }
});
