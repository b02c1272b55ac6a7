// Program bundles through the package (Program.saveBundle, Shrew.loadBundle)
// and the CLI (`shrew build`, every command on a .swb): a loaded bundle runs
// bit for bit like the compiled program on every conformance example, keeps
// set parameters, reports bad bundles and bad options as typed errors, and
// leaves the module usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Shrew, ShrewRuntimeError, Tensor } from "../dist/index.js";
import { CASES, EXAMPLES, ROOT, formulaInputs, readExample } from "./helpers.mjs";

const shrewP = Shrew.load();

function bitEqual(a, b, what) {
  assert.equal(a.dtype, b.dtype, `${what}: dtype`);
  assert.deepEqual([...a.shape], [...b.shape], `${what}: shape`);
  const x = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const y = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  assert.ok(x.length === y.length && x.every((v, i) => v === y[i]), `${what}: bytes differ`);
}

test("every example: the loaded bundle runs bit for bit like the compiled program", async () => {
  const shrew = await shrewP;
  for (const c of CASES) {
    const compiled = shrew.compile(readExample(c.file), { filename: c.file, dims: c.dims, seed: 5 });
    const bytes = compiled.saveBundle();
    assert.ok(bytes instanceof Uint8Array);
    assert.equal(new TextDecoder().decode(bytes.subarray(0, 8)), "SHRWBND1");
    const loaded = shrew.loadBundle(bytes);
    assert.equal(loaded.fromBundle, true);
    assert.equal(compiled.fromBundle, false);
    assert.deepEqual(loaded.graphs, compiled.graphs, c.file);
    assert.deepEqual(loaded.dims, compiled.dims, c.file);
    assert.equal(loaded.seed, compiled.seed, c.file);
    assert.deepEqual(loaded.optStats, compiled.optStats, c.file);
    assert.deepEqual(loaded.metadata, compiled.metadata, c.file);
    assert.equal(loaded.paramsChecksum(), compiled.paramsChecksum(), c.file);
    assert.deepEqual(loaded.signature(c.graph), compiled.signature(c.graph), c.file);
    const feeds = formulaInputs(compiled.signature(c.graph), c.dims);
    const want = compiled.run(c.graph, feeds), got = loaded.run(c.graph, feeds);
    assert.deepEqual(Object.keys(got), Object.keys(want), c.file);
    for (const name of Object.keys(want)) bitEqual(got[name], want[name], `${c.file} ${name}`);
    // The same tape: the dumps differ only in the measured compile time.
    const strip = (s) => s.replace(/compile_us=\d+/, "");
    assert.equal(strip(loaded.dump(c.graph)), strip(compiled.dump(c.graph)), c.file);
    assert.equal(loaded.ir(c.graph).text, compiled.ir(c.graph).text, c.file);
    // Saved again, the same bytes.
    assert.deepEqual(loaded.saveBundle(), bytes, c.file);
    loaded.dispose();
    compiled.dispose();
  }
});

test("a bundle carries the parameters as set; a loaded program takes new ones", async () => {
  const shrew = await shrewP;
  const p = shrew.compile(readExample("mlp_classifier.sw"), { dims: { Batch: 2 } });
  const w2 = p.getParam("Classifier/w2");
  w2.data.fill(0.25);
  p.setParam("Classifier/w2", w2);
  const loaded = shrew.loadBundle(p.saveBundle());
  bitEqual(loaded.getParam("Classifier/w2"), w2, "w2");
  // Hand-computed: with w2 all 0.25 every logit is b2 + 0.25·Σ hidden, so
  // logits minus b2 are all equal.
  const images = new Tensor("f32", [2, 784]);
  images.data.fill(0.5);
  const { logits } = loaded.run("Classifier", { images });
  const b2 = loaded.getParam("Classifier/b2").data;
  for (let r = 0; r < 2; r++) {
    for (let j = 1; j < 10; j++) {
      assert.ok(Math.abs((logits.data[r * 10 + j] - b2[j]) - (logits.data[r * 10] - b2[0])) < 1e-4, `row ${r} col ${j}`);
    }
  }
  loaded.loadParams(p.saveParams());
  assert.equal(loaded.paramsChecksum(), p.paramsChecksum());
  loaded.dispose();
  p.dispose();
});

test("a symbolic bundle binds its dims from each run's inputs; setDims and the unoptimised IR say why not", async () => {
  const shrew = await shrewP;
  const p = shrew.compile(readExample("mlp_classifier.sw"));
  const loaded = shrew.loadBundle(p.saveBundle(), { maxTensorBytes: 1 << 24 });
  for (const batch of [1, 4]) {
    const images = new Tensor("f32", [batch, 784]);
    bitEqual(loaded.run("Classifier", { images }).probs, p.run("Classifier", { images }).probs, `batch ${batch}`);
  }
  assert.throws(() => loaded.setDims({ Batch: 8 }), (e) => e instanceof ShrewRuntimeError &&
    e.code === "failed_precondition" && /loaded from a bundle/.test(e.message));
  assert.throws(() => loaded.ir("Classifier", { optimized: false }), /only its optimised IR/);
  // The byte cap applies to a loaded program's inputs like to a compiled one's.
  assert.throws(() => loaded.run("Classifier", { images: new Tensor("f32", [6000, 784]) }),
    (e) => e instanceof ShrewRuntimeError && e.code === "resource_exhausted");
  assert.equal(loaded.run("Classifier", { images: new Tensor("f32", [1, 784]) }).probs.shape[0], 1);
  loaded.dispose();
  p.dispose();
});

test("bad bundles and options are typed errors; the module stays usable", async () => {
  const shrew = await shrewP;
  const p = shrew.compile(readExample("logistic_regression.sw"), { dims: { N: 2 } });
  const bytes = p.saveBundle();
  const invalid = (fn, re) => assert.throws(fn, (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
    re.test(e.message), String(re));
  invalid(() => shrew.loadBundle(bytes.subarray(0, bytes.length - 1)), /^bundle: truncated parameters/);
  invalid(() => shrew.loadBundle(p.saveParams()), /not a Shrew bundle/);
  invalid(() => shrew.loadBundle(new Uint8Array(0)), /not a Shrew bundle/);
  invalid(() => shrew.loadBundle("SHRWBND1"), /must be a Uint8Array/);
  const v7 = bytes.slice();
  v7[8] = 7;
  invalid(() => shrew.loadBundle(v7), /unsupported version 7 \(this build reads versions 1 to 6\)/);
  invalid(() => shrew.loadBundle(bytes, { dims: { N: 3 } }), /unknown loadBundle option 'dims'; options: training, maxTensorBytes, maxStepsPerRun$/);
  invalid(() => shrew.loadBundle(bytes, { training: "yes" }), /training must be true or false/);
  // Every truncation fails cleanly.
  for (let n = 0; n < bytes.length; n += 97) invalid(() => shrew.loadBundle(bytes.subarray(0, n)), /^bundle: /);
  // The input is not changed, and after all that the bundle still loads.
  const again = shrew.loadBundle(bytes);
  assert.equal(again.paramsChecksum(), p.paramsChecksum());
  assert.equal(shrew.aborted, false);
  again.dispose();
  p.dispose();
});

// What a run-time error's span points into: a bundle carries it, so that a
// program from a bundle can show where an error is, as a compiled one can.
test("source(): the text spans point into, from the compile and from the bundle, its bytes as compiled", async (t) => {
  const shrew = await shrewP;
  // A two-byte character before the span: offsets count UTF-8 bytes.
  const text = "@graph G {\n  input ids: Tensor<[2], i64>;\n  param table: Tensor<[2, 4], f32>;\n" +
    "  /* é */ output e: embedding(ids, table);\n}\n";
  const bytes = new TextEncoder().encode(text);
  const p = shrew.compile(text, { filename: "gather.sw" });
  const loaded = shrew.loadBundle(p.saveBundle());
  const unnamed = shrew.compile(bytes);
  const unnamedLoaded = shrew.loadBundle(unnamed.saveBundle());
  t.after(() => [p, loaded, unnamed, unnamedLoaded].forEach((q) => q.dispose()));
  for (const q of [p, loaded]) {
    const s = q.source();
    assert.deepEqual(Object.keys(s), ["filename", "bytes"]);
    assert.equal(s.filename, "gather.sw");
    assert.deepEqual(s.bytes, bytes);
    s.bytes.fill(0);  // a copy: the next call is whole again
    assert.deepEqual(q.source().bytes, bytes);
    // The span of a run-time error, found in that text.
    assert.throws(() => q.run("G", { ids: new BigInt64Array([0n, 7n]) }), (e) => {
      assert.ok(e instanceof ShrewRuntimeError && e.span, String(e));
      const at = new TextDecoder().decode(q.source().bytes.subarray(e.span.offset, e.span.offset + e.span.length));
      assert.equal(at, "output e: embedding(ids, table);");
      return true;
    });
  }
  // Named as diagnostics name it.
  assert.deepEqual(unnamed.source(), { filename: "<input>", bytes });
  assert.deepEqual(unnamedLoaded.source(), { filename: "<input>", bytes });
  p.dispose();
  assert.throws(() => p.source(), (e) => e instanceof ShrewRuntimeError && e.code === "disposed");
});

const CLI = `${ROOT}js/dist/cli/main.js`;
const cli = (...args) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

test("CLI: build writes a bundle that every command takes in place of the source", async () => {
  const shrew = await shrewP;
  const dir = mkdtempSync(join(tmpdir(), "shrew-bundle-"));
  const out = join(dir, "mlp.swb");
  const b = cli("build", `${EXAMPLES}mlp_classifier.sw`, "--dims", "Batch=2", "--seed", "3", "--out", out, "--json");
  assert.equal(b.code, 0, b.err);
  const info = JSON.parse(b.out);
  assert.equal(info.bundle, out);
  assert.equal(info.bytes, readFileSync(out).length);
  assert.deepEqual(info.dims, { Batch: 2 });
  assert.equal(info.seed, 3);
  // Same outputs from the bundle as from the source with the same options.
  const fromSource = JSON.parse(cli("run", `${EXAMPLES}mlp_classifier.sw`, "--dims", "Batch=2", "--seed", "3", "--json").out);
  const r = cli("run", out, "--seed", "3", "--json");
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), fromSource);
  // --seed on a bundle draws the random inputs only, and says so (the parameters silently kept seed 3's).
  assert.equal(r.err, `note: ${out} is a bundle, whose parameters --seed does not change (they are those it was built with (seed 3)); ` +
                      "--seed 3 draws only the random inputs, if any\n");
  const other = cli("info", out, "--seed", "5");
  assert.match(other.out, /seed: 3/);
  assert.match(other.err, /^note: \S+ is a bundle, whose parameters --seed does not change \(they are those it was built with \(seed 3\)\); --seed 5 draws only the random inputs, if any\n$/);
  const blob = join(dir, "w.params");
  writeFileSync(blob, shrew.loadBundle(readFileSync(out)).saveParams());
  assert.match(cli("run", out, "--seed", "5", "--params", blob).err, /\(they are the --params file's\); --seed 5 draws only the random inputs, if any\n$/);
  assert.equal(cli("run", out, "--json").err, "");
  assert.equal(cli("check", out).code, 0);
  assert.match(cli("dump", out).out, /fused_matmul_add\+relu/);
  assert.match(cli("info", out).out, /graph Classifier/);
  // A bundle's dims are fixed; a bundle is not built again; a corrupt one is an error.
  const d = cli("run", out, "--dims", "Batch=4");
  assert.equal(d.code, 2);
  assert.match(d.err, /dims were fixed when it was built/);
  assert.equal(cli("build", out).code, 2);
  const bad = join(dir, "bad.swb");
  writeFileSync(bad, readFileSync(out).subarray(0, 200));
  const c = cli("run", bad);
  assert.equal(c.code, 1);
  assert.match(c.err, /^Error: \S+bad\.swb: bundle: /);
});
