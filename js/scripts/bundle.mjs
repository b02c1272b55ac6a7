// The package's entry point as one ES module per platform: the compiled
// TypeScript (dist/*.js) and the Emscripten glue (dist/wasm/shrew.mjs) in a
// single file. One file instead of eleven loads faster (Node resolves, reads
// and links every module of an import graph separately; a browser fetches
// each) and is what a web app ships.
//   dist/shrew.min.js   minified: what browsers and bundlers get (package.json
//                       "exports" "import", and "main").
//   dist/shrew.node.js  the same bundle, not minified: what Node gets (the
//                       "node" condition). Node prints the source line of an
//                       uncaught error's throw site, which in the minified file
//                       is a 50 KB line; here it is one statement, and stack
//                       traces name the wrapper's own functions. Nothing is
//                       downloaded in Node; the import costs about 0.4 ms more.
// Both stay in dist/, next to wasm/, so `new URL("./wasm/shrew.wasm",
// import.meta.url)` resolves as it does from dist/index.js. Run after `tsc`
// (npm run build:js).
import { build } from "rolldown";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const KEEP_CLASS_NAMES = { function: false, class: true };
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
for (const [file, how] of [["index.js", "tsc -p js/tsconfig.json"], ["wasm/shrew.mjs", "npm run build:wasm"]]) {
  if (!existsSync(dist + file)) {
    console.error(`bundle: js/dist/${file} is missing; build it first (${how})`);
    process.exit(1);
  }
}
// The declarations (dist/*.d.ts, from tsc) import types from ./wasm/shrew.mjs,
// whose own declarations tsc does not copy: without them a consumer's tsc
// failed (TS7016, under noImplicitAny) or took those types as any.
copyFileSync(fileURLToPath(new URL("../src/wasm/shrew.d.mts", import.meta.url)), `${dist}wasm/shrew.d.mts`);
// The package ships its license and, for the code compiled into shrew.wasm
// (XNNPACK, pthreadpool, FXdiv, Emscripten's runtime), their notices.
for (const file of ["LICENSE", "THIRD_PARTY_NOTICES.md"]) {
  copyFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), dist + file);
}
// Classes keep their names in the minified file too (Node prints an uncaught
// error as `ShrewCompileError: …`, not `r [ShrewCompileError]: …`, and a
// logged tensor as `Tensor {…}`): +0.5 KB raw, +18 bytes gzipped.
const MINIFY = { compress: { keepNames: KEEP_CLASS_NAMES }, mangle: { keepNames: KEEP_CLASS_NAMES } };
// tsc's maps go along (each .js read with its .js.map, which holds the
// TypeScript text: tsconfig's inlineSources), so the bundles' maps lead to
// js/src/*.ts, not to the intermediate dist/*.js, and carry that text: the
// package ships no src/.
const TSC_MAPS = {
  name: "tsc-source-maps",
  load(id) {
    if (!id.startsWith(dist) || !id.endsWith(".js") || !existsSync(`${id}.map`)) return null;
    const code = readFileSync(id, "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
    return { code, map: JSON.parse(readFileSync(`${id}.map`, "utf8")) };
  },
};
for (const [file, minify] of [["shrew.min.js", MINIFY], ["shrew.node.js", false]]) {
  await build({
    input: `${dist}index.js`,
    // The glue's Node branch require()s fs/path only to read files; Shrew always
    // hands it the wasm bytes, so those calls never run.
    external: [/^node:/, "fs", "path"],
    platform: "neutral",
    logLevel: "warn",
    plugins: [TSC_MAPS],
    output: { file: `${dist}${file}`, format: "esm", sourcemap: true, minify },
  });
}
