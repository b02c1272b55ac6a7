// Module loading and the abort guard: a wasm trap marks the instance dead.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Shrew, ShrewRuntimeError } from "../dist/index.js";
import { instantiate } from "../dist/module.js";

const wasm = readFileSync(new URL("../dist/wasm/shrew.wasm", import.meta.url));

test("load: default instance is shared; wasmBinary gives a fresh one", async () => {
  const a = await Shrew.load(), b = await Shrew.load();
  assert.equal(a.heapStats().heapBytes, b.heapStats().heapBytes);
  const c = await Shrew.load({ wasmBinary: wasm });
  assert.equal(c.simd128, true);
  assert.equal(c.aborted, false);
});

test("a WebAssembly.RuntimeError marks the module unusable; later calls throw a clear error", async () => {
  const state = await instantiate({ wasmBinary: wasm });
  assert.throws(() => state.call(() => { throw new WebAssembly.RuntimeError("unreachable"); }),
    (e) => e instanceof ShrewRuntimeError && e.code === "aborted" && /unreachable/.test(e.message));
  assert.equal(typeof state.dead, "string");
  assert.throws(() => state.call((raw) => raw.simd128()),
    (e) => e instanceof ShrewRuntimeError && e.code === "aborted" && /unusable/.test(e.message));
  // Ordinary JS errors pass through and leave the module alive.
  const fresh = await instantiate({ wasmBinary: wasm });
  assert.throws(() => fresh.call(() => { throw new TypeError("x"); }), TypeError);
  assert.equal(fresh.dead, undefined);
});
