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
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
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
// Each bundle's declarations are index.d.ts's: a page or a TypeScript project
// that imports a bundle by its file name (the playground does) gets the types.
for (const file of ["shrew.min", "shrew.node"]) writeFileSync(`${dist}${file}.d.ts`, 'export * from "./index.js";\n');
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
// The browser bundle reads files in Node without a `node:` import
// (src/node-files.browser.ts): web bundlers warn about every such import.
const BROWSER_FILES = {
  name: "browser-node-files",
  resolveId(source, importer) {
    return source === "./node-files.js" && importer?.startsWith(dist) ? `${dist}node-files.browser.js` : null;
  },
};
// The glue's default URL for shrew.wasm, `new URL("shrew.wasm",
// import.meta.url)`, is never fetched: Shrew hands the glue the bytes or its
// own instantiateWasm (src/module.ts). A web bundler that sees the expression
// looks for shrew.wasm next to the bundle, does not find it and warns.
const GLUE = `${dist}wasm/shrew.mjs`;
const GLUE_URL = 'new URL("shrew.wasm",import.meta.url).toString()';
const GLUE_DEFAULT_URL = {
  name: "glue-default-url",
  transform(code, id) {
    if (id !== GLUE) return null;
    const found = code.split(GLUE_URL).length - 1;
    if (found !== 1) throw new Error(`bundle: expected ${GLUE_URL} once in the glue, found it ${found} times (another Emscripten?)`);
    // Padded to the expression's length: the glue is one long line, and a
    // shorter text moved every later column of it (the map is kept as is).
    return { code: code.replace(GLUE_URL, '"shrew.wasm"'.padEnd(GLUE_URL.length)), map: null };
  },
};
for (const [file, minify, plugins] of [["shrew.min.js", MINIFY, [BROWSER_FILES]], ["shrew.node.js", false, []]]) {
  await build({
    input: `${dist}index.js`,
    // The glue's Node branch require()s fs/path only to read files; Shrew always
    // hands it the wasm bytes, so those calls never run.
    external: [/^node:/, "fs", "path"],
    platform: "neutral",
    logLevel: "warn",
    plugins: [TSC_MAPS, GLUE_DEFAULT_URL, ...plugins],
    output: { file: `${dist}${file}`, format: "esm", sourcemap: true, minify },
  });
}
