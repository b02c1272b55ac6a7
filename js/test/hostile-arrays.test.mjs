// Typed arrays whose class lies or runs code: a subclass (or own property)
// overriding length, byteLength, buffer, byteOffset or set() ran in the
// middle of a run, between preparing inputs in wasm memory and copying the
// outputs out. Lying sizes overflowed an input slot (the module aborted);
// a getter that disposed the program, ran it again or grew memory made the
// run read freed or overwritten memory with no error; an overridden set()
// was handed a view of all of wasm memory. The run path now reads caller
// arrays only through the built-in getters and set (js/src/plain.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, ShrewRuntimeError, Tensor, writeNpy } from "../dist/index.js";

const shrew = await Shrew.load();
const SRC = "@graph G {\n  input x: Tensor<[4], f32>;\n  param w: Tensor<[4], f32> { init: \"ones\"; };\n  output y: x * w;\n  output z: x + 1.0;\n}\n";
const W = new Float32Array([1.25, 2.5, 3.75, 5.125]);
const X = () => new Float32Array([1, 2, 3, 4]);
const Y = [1.25, 5, 11.25, 20.5];
const Z = [2, 3, 4, 5];

function program() {
  const p = shrew.compile(SRC);
  p.setParam("G/w", new Tensor("f32", [4], W.slice()));
  // Prepared: the next runs with these types take the lean path.
  assert.deepEqual([...p.run("G", { x: X() }).y.data], Y);
  return p;
}

function stillRight(p) {
  const o = p.run("G", { x: X() });
  assert.deepEqual([...o.y.data], Y);
  assert.deepEqual([...o.z.data], Z);
  assert.deepEqual([...p.interpret("G", { x: X() }).y.data], Y);
  assert.deepEqual([...p.getParam("G/w").data], [...W]);
}

test("an input whose class lies about its length is an error naming its real size, before any copy", () => {
  class Liar extends Float32Array {
    get length() { return 4; }
    get byteLength() { return 16; }
  }
  const p = program();
  try {
    for (const [x, n] of [[Liar.from([1, 2]), 2], [new Liar(4096).fill(1e6), 4096]]) {
      for (const exec of ["run", "interpret"]) {
        assert.throws(() => p[exec]("G", { x }), (e) => {
          assert.ok(e instanceof ShrewRuntimeError, String(e));
          assert.equal(e.code, "invalid_argument");
          assert.deepEqual([e.input, e.expected, e.actual], ["x", "[4]", `[${n}]`]);
          return true;
        });
      }
      // The same lie inside a Tensor, or written as .npy: the real elements are counted.
      assert.throws(() => new Tensor("f32", [4], x), (e) => e instanceof RangeError && e.message === `shape [4] needs 4 elements, data has ${n}`);
      assert.throws(() => writeNpy({ dtype: "f32", shape: [4], data: x }),
        (e) => e instanceof RangeError && e.message === `writeNpy: shape [4] needs 4 elements, data has ${n}`);
    }
    stillRight(p);
  } finally {
    p.dispose();
  }
});

test("an input's getters and a destination's are never called: code in them cannot dispose, rerun or grow memory mid-run", () => {
  let calls = 0;
  const hooks = {
    dispose: (p) => p.dispose(),
    setDims: (p) => p.setDims({}),
    rerun: (p) => p.run("G", { x: new Float32Array(4).fill(9) }),
    grow: () => shrew.compile("@graph B { input x: Tensor<[1], f32>; param w: Tensor<[40000000], f32> { init: \"zeros\"; }; output y: x + sum(w); }").dispose(),
  };
  for (const [what, hook] of Object.entries(hooks)) {
    const p = program();
    let armed = () => {};
    const trap = { get() { calls++; armed(); return undefined; } };
    class HookedIn extends Float32Array {}
    class HookedOut extends Float32Array {}
    for (const key of ["length", "byteLength", "byteOffset", "buffer"]) {
      Object.defineProperty(HookedIn.prototype, key, trap);
      Object.defineProperty(HookedOut.prototype, key, trap);
    }
    try {
      armed = () => hook(p);
      const into = new HookedOut(4);
      const o = p.run("G", { x: HookedIn.from([1, 2, 3, 4]) }, { outputs: { z: into } });
      assert.deepEqual([...o.y.data], Y, what);
      assert.deepEqual([...o.z.data], Z, what);
      assert.equal(o.z.data, into, what);
      armed = () => {};
      stillRight(p);
    } finally {
      p.dispose();
    }
  }
  assert.equal(calls, 0);
});

test("a destination's own set() never receives a view of wasm memory; a lying destination writes nothing", () => {
  const p = program();
  try {
    let handed;
    class Dest extends Float32Array {
      set(src, offset) { handed = src; return super.set(src, offset); }
    }
    const y = new Dest(4);
    assert.deepEqual([...p.run("G", { x: X() }, { outputs: { y } }).y.data], Y);
    assert.equal(handed, undefined);
    // A destination claiming the right size over 2 elements: refused before the run, the other destination untouched.
    class Short extends Float32Array {
      get length() { return 4; }
      get byteLength() { return 16; }
    }
    const other = new Float32Array(4).fill(-1);
    assert.throws(() => p.run("G", { x: X() }, { outputs: { y: other, z: new Short(2) } }),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && e.output === "z" && e.actual === "a Short of 2 elements");
    assert.deepEqual([...other], [-1, -1, -1, -1]);
    stillRight(p);
  } finally {
    p.dispose();
  }
});

test("compile takes its source bytes before reading the options: a getter that detaches them changes nothing", () => {
  const bytes = new TextEncoder().encode("@graph H { input x: Tensor<[2], f32>; output y: x * 2.0; }");
  const p = shrew.compile(bytes, { get seed() { structuredClone(bytes.buffer, { transfer: [bytes.buffer] }); return 1; } });
  try {
    assert.equal(bytes.byteLength, 0);
    assert.deepEqual(p.graphs, ["H"]);
    assert.deepEqual([...p.run("H", { x: new Float32Array([1, 2]) }).y.data], [2, 4]);
  } finally {
    p.dispose();
  }
});

test("a Tensor keeps the shape it checked: an Array subclass's iterator cannot swap it", () => {
  class Shape extends Array {
    *[Symbol.iterator]() { yield -1; yield "x"; }
  }
  const s = new Shape(1);
  s[0] = 4;
  const t = new Tensor("f32", s, new Float32Array(4));
  assert.deepEqual(t.shape, [4]);
  assert.equal(Object.getPrototypeOf(t.shape), Array.prototype);
});
