// The package's entry point as one minified ES module (dist/shrew.min.js):
// the compiled TypeScript (dist/*.js) and the Emscripten glue
// (dist/wasm/shrew.mjs) in a single file. One file instead of eleven loads
// faster (Node resolves, reads and links every module of an import graph
// separately; a browser fetches each) and is what a web app ships. It stays in
// dist/, next to wasm/, so `new URL("./wasm/shrew.wasm", import.meta.url)`
// resolves as it does from dist/index.js. Run after `tsc` (npm run build:js).
import { build } from "rolldown";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const KEEP_CLASS_NAMES = { function: false, class: true };
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
for (const [file, how] of [["index.js", "tsc -p js/tsconfig.json"], ["wasm/shrew.mjs", "npm run build:wasm"]]) {
  if (!existsSync(dist + file)) {
    console.error(`bundle: js/dist/${file} is missing; build it first (${how})`);
    process.exit(1);
  }
}
await build({
  input: `${dist}index.js`,
  // The glue's Node branch require()s fs/path only to read files; Shrew always
  // hands it the wasm bytes, so those calls never run.
  external: [/^node:/, "fs", "path"],
  platform: "neutral",
  logLevel: "warn",
  output: {
    file: `${dist}shrew.min.js`, format: "esm", sourcemap: true,
    // Classes keep their names (Node prints an uncaught error as
    // `ShrewCompileError: …`, not `r [ShrewCompileError]: …`, and a logged
    // tensor as `Tensor {…}`): +0.5 KB raw, +18 bytes gzipped.
    minify: { compress: { keepNames: KEEP_CLASS_NAMES }, mangle: { keepNames: KEEP_CLASS_NAMES } },
  },
});
