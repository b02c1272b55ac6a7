// The package as another project consumes it: its declarations type-check
// in a TypeScript project of its own, with its own settings.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./helpers.mjs";

const TSC = `${ROOT}node_modules/typescript/bin/tsc`;

/** tsc's output on a scratch project that imports the package by name (exit status 0: ""). */
function typeCheck(compilerOptions, source) {
  const dir = mkdtempSync(join(tmpdir(), "shrew-consumer-"));
  try {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(`${ROOT}js`, join(dir, "node_modules", "shrew-wasm"), "dir");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { noEmit: true, strict: true, ...compilerOptions }, files: ["main.ts"] }));
    writeFileSync(join(dir, "main.ts"), source);
    try {
      execFileSync(process.execPath, [TSC, "-p", dir], { encoding: "utf8" });
      return "";
    } catch (e) {
      return `${e.stdout}${e.stderr}` || String(e);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CONSUMER = `import { Shrew, Tensor, ShrewCompileError, ShrewRuntimeError, type Outputs, type DType } from "shrew-wasm";
const shrew: Shrew = await Shrew.load();
const program = shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x * 2.0; }");
const outputs: Outputs = program.run("G", { x: new Float32Array([1, 2]) });
const y: Tensor = outputs.y;
const dtype: DType = y.dtype;
const simd: boolean = shrew.simd128;
{
  using scoped = shrew.compile("@graph H { input x: Tensor<[2], f32>; output y: x; }");
  scoped.run("H", { x: new Float32Array(2) });
}
try {
  program.run("G", {});
} catch (e) {
  if (e instanceof ShrewRuntimeError) console.log(e.code, e.input, e.span?.offset);
}
try {
  shrew.compile("@graph G {");
} catch (e) {
  // offset: what an editor maps a diagnostic to (it was there at run time, not in the type).
  if (e instanceof ShrewCompileError) for (const d of e.diagnostics) console.log(d.line, d.column, d.length, d.offset);
}
export { dtype, simd };
`;

// The declarations import types from ./wasm/shrew.mjs, whose shrew.d.mts was
// not in dist (TS7016 under strict, types taken as any with skipLibCheck),
// and Program's [Symbol.dispose] needed the consumer to add esnext.disposable
// to its lib ("Cannot find global type 'Disposable'", skipLibCheck or not).
for (const [what, options] of [
  ["NodeNext, ES2022 (the package's own target)", { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", types: [] }],
  ["bundler resolution, ES2022 + DOM", { target: "ES2022", lib: ["ES2022", "DOM"], module: "ESNext", moduleResolution: "bundler", types: [] }],
  ["skipLibCheck", { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", types: [], skipLibCheck: true }],
  // A Node project without lib.dom: the glue's declarations named WebAssembly.Imports (TS2503).
  ["Node without DOM: lib ES2022, @types/node", { target: "ES2022", lib: ["ES2022"], module: "NodeNext", moduleResolution: "NodeNext",
    types: ["node"], typeRoots: [`${ROOT}node_modules/@types`] }],
]) {
  test(`package: a TypeScript consumer type-checks (${what})`, () => {
    assert.equal(typeCheck(options, CONSUMER), "");
  });
}

// What a strict consumer writes, following js/README.md: each line failed to
// type-check before (bool values, options given as undefined, a Blob of a
// bundle, outputs narrowed by dtype), or type-checked where the run throws.
const STRICT = { target: "ES2022", lib: ["ES2022", "DOM"], module: "NodeNext", moduleResolution: "NodeNext", types: [],
  exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };

test("package: a consumer under exactOptionalPropertyTypes and noUncheckedIndexedAccess type-checks what the README documents", () => {
  const source = `import { Shrew, Tensor, DTYPES, readNpy, writeNpy } from "shrew-wasm";
const shrew = await Shrew.load({ wasmUrl: undefined });
const program = shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x * 2.0; }", { seed: undefined, dims: undefined });
const flags = new Tensor("bool", [2], [true, false]);
const mixed = new Tensor("i64", [2], [1n, 2]);
const out = program.run("G", { x: new Float32Array([1, 2]) }, { outputs: undefined });
const y = out.y;
if (y !== undefined && y.dtype === "f32") {
  const f: Float32Array = y.data;
  console.log(f[0]);
}
const blob = new Blob([program.saveBundle(), program.saveParams(), writeNpy(new Tensor("f32", [1], [1]))]);
// A parameter and a .npy read narrow by dtype as outputs do.
const w = program.getParam("G/w"), read = readNpy(writeNpy(w));
if (w.dtype === "f32" && read.dtype === "f32") {
  const a: Float32Array = w.data, b: Float32Array = read.data;
  console.log(a[0], b[0]);
}
const text = program.source()?.bytes;
const loaded = shrew.loadBundle(program.saveBundle(), { training: undefined });
console.log(program.ir("G", { optimized: undefined }).text, flags.size, mixed.size, blob.size, text, loaded.graphs, DTYPES.length);
`;
  assert.equal(typeCheck(STRICT, source), "");
});

test("package: what fails at run time fails to type-check too (another dtype's typed array, writing frozen metadata)", () => {
  const wrongArray = typeCheck(STRICT, `import { Tensor } from "shrew-wasm";\nexport const t = new Tensor("f32", [2], new Float64Array(2));\n`);
  assert.match(wrongArray, /error TS2769|error TS2345|error TS2322/, wrongArray);
  const frozen = typeCheck(STRICT, `import { Shrew } from "shrew-wasm";
const program = (await Shrew.load()).compile("@model { name: \\"m\\"; }\\n@graph G { input x: Tensor<[2], f32>; output x; }");
program.metadata.model["name"] = "x";
program.optStats.rounds = 0;
program.optStats.text = "";
`);
  assert.match(frozen, /main\.ts\(3,\d+\): error TS2542/, frozen);
  assert.match(frozen, /main\.ts\(4,\d+\): error TS2540/, frozen);
  assert.match(frozen, /main\.ts\(5,\d+\): error TS2540/, frozen);  // text was writable in its type
});

// A bundler that copies the package's code into the consumer's own file
// (rolldown or esbuild for Node) leaves dist/wasm/shrew.wasm behind: the
// default load then fails, and said only ENOENT.
test("package: bundled into another file, Shrew.load without options says where shrew.wasm was looked for and what to do", async () => {
  const { build } = await import("rolldown");
  const dir = mkdtempSync(join(tmpdir(), "shrew-bundled-"));
  try {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(`${ROOT}js`, join(dir, "node_modules", "shrew-wasm"), "dir");
    writeFileSync(join(dir, "main.mjs"), `import { Shrew } from "shrew-wasm";
try { await Shrew.load(); console.log("loaded"); } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }
`);
    await build({ input: join(dir, "main.mjs"), cwd: dir, platform: "node", logLevel: "silent",
                  output: { file: join(dir, "out", "app.mjs"), format: "esm" } });
    const r = JSON.parse(execFileSync(process.execPath, [join(dir, "out", "app.mjs")], { encoding: "utf8" }));
    assert.equal(r.name, "ShrewRuntimeError");
    assert.match(r.message, /^cannot read the Shrew wasm module from file:\/\/.*\/out\/wasm\/shrew\.wasm: ENOENT/);
    assert.match(r.message, /bundled into another file, copy shrew\.wasm to that path, or pass Shrew\.load\(\{ wasmBinary \}\) or \{ wasmUrl \}$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("package: a diagnostic's offset, in its type, is the byte offset of its span in the source", async () => {
  const { Shrew, ShrewCompileError } = await import("../dist/index.js");
  const shrew = await Shrew.load();
  // After a two-byte character: bytes, not UTF-16 units.
  const source = "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: relu(/* é */ zz);\n}\n";
  try {
    shrew.compile(source);
    assert.fail("compiled");
  } catch (e) {
    assert.ok(e instanceof ShrewCompileError);
    const d = e.diagnostics[0];
    const bytes = new TextEncoder().encode(source);
    assert.match(d.message, /undefined name 'zz'/);
    assert.equal(new TextDecoder().decode(bytes.subarray(d.offset, d.offset + d.length)), "zz");
  }
});

// What npm publishes: the license and the notices of the code in shrew.wasm
// ship with the code (package.json says Apache-2.0; XNNPACK's BSD license
// asks for its notice with binaries).
test("package: npm pack ships the license and the third-party notices next to shrew.wasm", () => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: new URL("../", import.meta.url), encoding: "utf8" });
  const files = JSON.parse(out)[0].files.map((f) => f.path);
  for (const f of ["dist/LICENSE", "dist/THIRD_PARTY_NOTICES.md", "dist/wasm/shrew.wasm"]) assert.ok(files.includes(f), `${f} in ${files}`);
  const notices = readFileSync(new URL("../dist/THIRD_PARTY_NOTICES.md", import.meta.url), "utf8");
  for (const name of ["XNNPACK", "pthreadpool", "FXdiv", "Emscripten"]) assert.match(notices, new RegExp(`## ${name}`));
});

/**
 * The package as npm publishes it: `npm pack`, unpacked into node_modules
 * of a scratch project (made once). `files`: the paths npm packed.
 */
let packed;
after(() => packed && rmSync(packed.dir, { recursive: true, force: true }));
function packedPackage() {
  if (packed !== undefined) return packed;
  const dir = mkdtempSync(join(tmpdir(), "shrew-packed-"));
  const [info] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: `${ROOT}js`, encoding: "utf8" }));
  const pkg = join(dir, "node_modules", "shrew-wasm");
  mkdirSync(pkg, { recursive: true });
  execFileSync("tar", ["-xzf", join(dir, info.filename), "-C", pkg, "--strip-components=1"]);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  packed = { dir, pkg, files: info.files.map((f) => f.path) };
  return packed;
}

// Tools read a dependency's package.json through its name (its version, its
// engines): with "exports" and no "./package.json" entry, Node refused it
// (ERR_PACKAGE_PATH_NOT_EXPORTED).
test("package: shrew-wasm/package.json resolves, requires and imports in a consumer of the packed package", () => {
  const { dir, pkg } = packedPackage();
  writeFileSync(join(dir, "read.mjs"), `import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const path = require.resolve("shrew-wasm/package.json");
const { default: imported } = await import("shrew-wasm/package.json", { with: { type: "json" } });
console.log(JSON.stringify({ path, name: require("shrew-wasm/package.json").name, version: imported.version }));
`);
  const r = JSON.parse(execFileSync(process.execPath, [join(dir, "read.mjs")], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  const own = JSON.parse(readFileSync(`${ROOT}js/package.json`, "utf8"));
  assert.equal(r.path, join(realpathSync(pkg), "package.json"));
  assert.deepEqual([r.name, r.version], [own.name, own.version]);
});

// tsc's maps named ../src/*.ts, which the package does not ship: a debugger
// or a stack-trace tool found no source behind them. The bundles' maps led to
// the intermediate dist/*.js.
test("package: every source map npm packs holds the text of every source it names; the bundles' lead to the TypeScript", () => {
  const { pkg, files } = packedPackage();
  const maps = files.filter((f) => f.endsWith(".map"));
  for (const f of ["dist/shrew.min.js.map", "dist/shrew.node.js.map", "dist/index.js.map", "dist/cli/main.js.map"]) {
    assert.ok(maps.includes(f), `${f} in ${maps}`);
  }
  for (const f of maps) {
    const map = JSON.parse(readFileSync(join(pkg, f), "utf8"));
    assert.ok(map.sources.length > 0, f);
    assert.equal(map.sourcesContent?.length, map.sources.length, `${f}: sourcesContent`);
    map.sources.forEach((source, i) => assert.equal(typeof map.sourcesContent[i], "string", `${f}: no text for ${source}`));
  }
  // The text is the TypeScript source itself.
  const index = JSON.parse(readFileSync(join(pkg, "dist/index.js.map"), "utf8"));
  assert.deepEqual(index.sources, ["../src/index.ts"]);
  assert.equal(index.sourcesContent[0], readFileSync(`${ROOT}js/src/index.ts`, "utf8"));
  for (const bundle of ["shrew.min.js", "shrew.node.js"]) {
    const map = JSON.parse(readFileSync(join(pkg, `dist/${bundle}.map`), "utf8"));
    assert.ok(!map.sources.some((s) => /^[^/]*\.js$/.test(s)), `${bundle}: ${map.sources}`);
    for (const file of ["program.ts", "tensor.ts", "index.ts"]) {
      const i = map.sources.indexOf(`../src/${file}`);
      assert.ok(i >= 0, `${bundle}: ${file} in ${map.sources}`);
      assert.equal(map.sourcesContent[i], readFileSync(`${ROOT}js/src/${file}`, "utf8"), `${bundle}: ${file}`);
    }
  }
});

// Browsers without Symbol.dispose (Safari): the class method keyed by it was
// a method named "undefined". The browser bundle, evaluated in a fresh realm
// that lacks the symbol (Node's own main realm has it), defines no such name.
test("where the engine has no Symbol.dispose, Program has no method named 'undefined'", () => {
  const script = `
    import vm from "node:vm";
    import { readFileSync } from "node:fs";
    const ctx = vm.createContext({ TextEncoder, TextDecoder, URL, WebAssembly, FinalizationRegistry });
    const m = new vm.SourceTextModule(readFileSync(${JSON.stringify(`${ROOT}js/dist/shrew.min.js`)}, "utf8"), { context: ctx });
    await m.link(() => { throw new Error("the bundle imports nothing"); });
    await m.evaluate();
    const proto = m.namespace.Program.prototype;
    console.log(JSON.stringify({ realm: vm.runInContext("typeof Symbol.dispose", ctx), undefinedKey: Object.hasOwn(proto, "undefined"),
                                 symbols: Object.getOwnPropertySymbols(proto).length, dispose: typeof proto.dispose }));`;
  const r = spawnSync(process.execPath, ["--experimental-vm-modules", "--no-warnings", "--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  // (A Node whose fresh realms have the symbol natively defines the method there.)
  assert.deepEqual(got, { realm: got.realm, undefinedKey: false, symbols: got.realm === "symbol" ? 1 : 0, dispose: "function" });
});
