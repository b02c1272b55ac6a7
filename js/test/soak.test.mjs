// A bounded run of scripts/soak.mjs (the long one is 100,000 iterations):
// compile + run + interpret + dispose of every example keeps the wasm heap
// and the JS heap flat.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ROOT } from "./helpers.mjs";

test("bounded soak: 200 compile/run/interpret/dispose rounds of every example keep memory flat", async () => {
  setFlagsFromString("--expose-gc");
  globalThis.gc ??= runInNewContext("gc");
  const { soak } = await import(`${ROOT}scripts/soak.mjs`);
  const r = await soak({ iterations: 200, checkpoints: 4 });
  assert.equal(r.growth.heapBytes, 0, "wasm linear memory grew");
  assert.ok(r.ok, JSON.stringify(r.growth));
});
