// Training-mode dropout draws from one generator per executor (OPS.md §5):
// a call that fails draws nothing, a profile changes no later run's masks,
// and setDims does not start the masks over. Each check compares a
// program's masks with a fresh program's, run for run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, ShrewRuntimeError } from "../dist/index.js";

const shrew = await Shrew.load();
// 64 draws per mask: two masks agree by chance with probability 2^-64.
const SRC = `@graph G(x: Tensor<[B, 64], f32>, n: Tensor<[], i64>) {
  node y { op: dropout(x, p: 0.5); };
  node r { op: range(n); };
  output y; output r;
}
@graph H(x: Tensor<[B, 64], f32>) -> Tensor<[B, 64], f32> { output y: dropout(x, p: 0.5); }`;
const X = { x: { dtype: "f32", shape: [1, 64], data: new Float32Array(64).fill(1) } };
const XN = { ...X, n: { dtype: "i64", shape: [], data: new BigInt64Array([3n]) } };
const mask = (out) => Array.from(out.y.data, (v) => (v === 0 ? "0" : "1")).join("");
const compile = () => shrew.compile(SRC, { training: true, dims: { B: 1 } });
// A fresh program's first `n` masks, per executor.
const fresh = (exec, graph, feeds, n) => {
  const p = compile();
  try {
    return Array.from({ length: n }, () => mask(p[exec](graph, feeds)));
  } finally {
    p.dispose();
  }
};

test("a call whose output destination is refused draws no dropout mask (interpret, and run where outputs are shaped by values)", () => {
  for (const exec of ["run", "interpret"]) {
    const want = fresh(exec, "G", XN, 2);
    assert.notEqual(want[0], want[1]);
    const p = compile();
    try {
      assert.equal(mask(p[exec]("G", XN)), want[0]);
      assert.throws(() => p[exec]("G", XN, { outputs: { y: new Float32Array(5) } }), (e) => e instanceof ShrewRuntimeError && /destination/.test(e.message));
      assert.equal(mask(p[exec]("G", XN)), want[1], exec);
    } finally {
      p.dispose();
    }
  }
});

test("a profile, warm-up runs included, leaves the masks of later runs as they were", () => {
  const want = fresh("run", "H", X, 2);
  const p = compile();
  try {
    assert.equal(mask(p.run("H", X)), want[0]);
    const prof = p.profile("H", X, { runs: 3, warmup: 2 });
    assert.ok(prof.instructions.length > 0);
    assert.equal(mask(p.run("H", X)), want[1]);
  } finally {
    p.dispose();
  }
});

test("setDims goes on with the masks (it started them over), on both executors", () => {
  for (const exec of ["run", "interpret"]) {
    const want = fresh(exec, "H", X, 4);
    const p = compile();
    try {
      assert.deepEqual([mask(p[exec]("H", X)), mask(p[exec]("H", X))], want.slice(0, 2));
      p.setDims({ B: 1 });
      assert.deepEqual([mask(p[exec]("H", X)), mask(p[exec]("H", X))], want.slice(2), exec);
    } finally {
      p.dispose();
    }
  }
});

test("benchRun leaves the masks of later runs as they were (it moved the tape's generator only)", () => {
  const want = fresh("run", "H", X, 2);
  const wantInterp = fresh("interpret", "H", X, 1);
  const p = compile();
  try {
    assert.equal(mask(p.run("H", X)), want[0]);
    assert.ok(p.benchRun("H", 3) > 0);
    assert.equal(mask(p.run("H", X)), want[1]);
    assert.equal(mask(p.interpret("H", X)), wantInterp[0]);
  } finally {
    p.dispose();
  }
});
