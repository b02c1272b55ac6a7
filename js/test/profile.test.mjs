// program.profile(): kernel times per tape instruction, joined with the tape.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, ShrewRuntimeError, Tensor } from "../dist/index.js";
import { readExample } from "./helpers.mjs";

const shrew = await Shrew.load();
const MLP = readExample("mlp_classifier.sw");

test("profile: one entry per kernel instruction of the bound tape, shares summing to 1", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 64 } });
  try {
    const images = new Float32Array(64 * 784).map((_, i) => Math.sin(i));
    const want = p.run("Classifier", { images });
    const prof = p.profile("Classifier", { images }, { runs: 8, warmup: 2 });
    const tape = p.tape("Classifier");
    const kernels = tape.instructions.filter((i) => i.kernel !== null);
    assert.equal(prof.graph, "Classifier");
    assert.equal(prof.runs, 8);
    assert.deepEqual(prof.instructions.map((i) => i.index), kernels.map((i) => i.index));
    assert.deepEqual(prof.instructions.map((i) => i.op), kernels.map((i) => i.op));
    assert.deepEqual(prof.instructions.map((i) => i.kernel), kernels.map((i) => i.kernel));
    assert.deepEqual(prof.instructions[0].shape, kernels[0].shape);
    let sum = 0;
    for (const i of prof.instructions) {
      assert.ok(i.ns >= 0 && Number.isFinite(i.ns), `${i.op}: ${i.ns}`);
      sum += i.ns;
    }
    assert.ok(Math.abs(sum - prof.kernelsNs) <= 1e-6 * sum, `${sum} vs ${prof.kernelsNs}`);
    assert.ok(Math.abs(prof.instructions.reduce((a, i) => a + i.share, 0) - 1) < 1e-9);
    // Per op: counts and times add up to the instructions', the dearest first.
    assert.equal(prof.ops.reduce((a, o) => a + o.count, 0), prof.instructions.length);
    for (const o of prof.ops) {
      const mine = prof.instructions.filter((i) => i.op === o.op);
      assert.equal(o.count, mine.length, o.op);
      assert.ok(Math.abs(o.ns - mine.reduce((a, i) => a + i.ns, 0)) <= 1e-6 * o.ns, o.op);
    }
    for (let k = 1; k < prof.ops.length; k++) assert.ok(prof.ops[k - 1].ns >= prof.ops[k].ns);
    // The first layer's product (784 -> 128: 78x the second's FLOPs) is the dearest instruction.
    const dearest = prof.instructions.reduce((a, b) => (b.ns > a.ns ? b : a));
    assert.equal(dearest, prof.instructions.find((i) => /matmul/.test(i.op)));
    assert.deepEqual(dearest.shape, [64, 128]);
    assert.ok(prof.runNs > 0 && prof.clockNs >= 0);
    // Profiling leaves the program's results as they were.
    const after = p.run("Classifier", { images });
    assert.deepEqual(after.probs.data, want.probs.data);
  } finally {
    p.dispose();
  }
});

test("profile: errors name the option, the graph or the input, and the program stays usable", () => {
  const p = shrew.compile("@graph G { input x: Tensor<[N], f32>; output y: x * 2.0; }");
  try {
    const x = new Tensor("f32", [3], new Float32Array([1, 2, 3]));
    for (const runs of [0, 1.5, 10001, "5"]) {
      assert.throws(() => p.profile("G", { x }, { runs }), (e) => e instanceof ShrewRuntimeError && /^runs must be an integer from 1 to 10000/.test(e.message), String(runs));
    }
    assert.throws(() => p.profile("G", { x }, { warmup: -1 }), /warmup must be an integer from 0/);
    assert.throws(() => p.profile("G", { x }, { run: 5 }), /unknown profile option 'run'.*did you mean 'runs'/);
    assert.throws(() => p.profile("H", { x }), (e) => e.code === "not_found" && /no graph named 'H'/.test(e.message));
    assert.throws(() => p.profile("G", {}), (e) => e.code === "invalid_argument" && /input 'x'/.test(e.message));
    assert.throws(() => p.profile("G", { x: new Tensor("f64", [3], new Float64Array(3)) }), /input 'x'/);
    const prof = p.profile("G", { x }, { runs: 3 });
    assert.equal(prof.instructions.length, 1);
    assert.equal(prof.instructions[0].op, "mul");
    assert.deepEqual([...p.run("G", { x }).y.data], [2, 4, 6]);
    // Profiling binds the shapes given: a second length profiles that binding.
    const long = p.profile("G", { x: new Tensor("f32", [1000], new Float32Array(1000)) }, { runs: 2 });
    assert.deepEqual(long.instructions[0].shape, [1000]);
  } finally {
    p.dispose();
  }
  assert.throws(() => p.profile("G", {}), /disposed/);
});
