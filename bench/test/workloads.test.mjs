// Smoke test of the benchmark workloads: each one's ONNX model (onnxruntime-web)
// and TF.js implementation agree on a small batch, outputs have the right
// shape, and the .sw program declares every weight with its name and shape.
//   node --test bench/test/
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { makeCell } from "../lib/cell.mjs";
import { compareOutputs, RTOL } from "../lib/compare.mjs";
import { numel, uniform } from "../lib/rng.mjs";
import { decodeModel } from "../onnx/builder.mjs";
import { ortRunner } from "../runners/ort.mjs";
import { tfjsRunner } from "../runners/tfjs.mjs";
import { WORKLOADS } from "../workloads/index.mjs";

/** Small batch per workload: >1 where the workload is batched, to exercise the batch dim. */
const SMALL_BATCH = { tiny: 1, mlp: 2, block: 2 };

/**
 * Resolves the integer @config values of a .sw text — only the forms the
 * workloads use: integer literals and + - * / ( ) over earlier integer keys.
 * Anything else (floats, `**`) is skipped.
 * @param {string} sw
 */
function configInts(sw) {
  /** @type {Record<string, number>} */
  const cfg = {};
  const block = /@config\s*\{([^}]*)\}/.exec(sw.replace(/\/\/[^\n]*/g, ""));
  if (!block) return cfg;
  for (const m of block[1].matchAll(/(\w+)\s*:\s*([^;]+);/g)) {
    const tokens = m[2].match(/\d+\.\d*|\d+(?:[eE][-+]?\d+)?|[A-Za-z_]\w*|\*\*|[-+*/()]|\S/g) ?? [];
    const ok = tokens.every((t) => /^\d+$/.test(t) || t in cfg || /^[-+*/()]$/.test(t));
    if (!ok) continue;
    const expr = tokens.map((t) => (t in cfg ? String(cfg[t]) : t)).join(" ");
    const v = Math.trunc(Function(`"use strict"; return (${expr});`)());
    if (Number.isInteger(v)) cfg[m[1]] = v;
  }
  return cfg;
}

const ort = ortRunner();
const tfjs = tfjsRunner();

before(async () => {
  await ort.init();
  await tfjs.init();
});

for (const w of WORKLOADS) {
  describe(w.name, () => {
    test(".sw declares every weight by name with its shape", () => {
      const cfg = configInts(w.sw);
      assert.match(w.sw, new RegExp(`@graph ${w.graph}\\b`));
      assert.match(w.sw, new RegExp(`input ${w.inputName}\\s*:`));
      assert.match(w.sw, new RegExp(`output ${w.outputName}\\b`));
      const declared = new Map(
        [...w.sw.matchAll(/param\s+(\w+)\s*:\s*Tensor<\[([^\]]*)\]\s*,\s*f32>/g)].map((m) => [
          m[1],
          m[2].split(",").map((d) => d.trim()).map((d) => (/^\d+$/.test(d) ? Number(d) : cfg[d])),
        ]),
      );
      assert.deepEqual([...declared.keys()].sort(), w.weights().map((t) => t.name).sort());
      for (const t of w.weights()) {
        assert.deepEqual(declared.get(t.name), t.shape, `param ${t.name}`);
        assert.equal(t.data.length, numel(t.shape));
      }
    });

    test("weights and inputs are deterministic", () => {
      const t = w.weights()[0];
      const again = uniform(`${w.name}/${t.name}`, t.data.length, 0, 1);
      const first = uniform(`${w.name}/${t.name}`, t.data.length, 0, 1);
      assert.deepEqual(again, first);
      assert.deepEqual(w.input(1), w.input(1));
      assert.ok(w.weights().every((x) => x.data.every(Number.isFinite)));
    });

    test("ONNX model carries the weights as initializers", () => {
      const m = decodeModel(w.onnx());
      assert.equal(m.graph.input[0].name, w.inputName);
      assert.equal(m.graph.output[0].name, w.outputName);
      const inits = new Set(m.graph.initializer.map((/** @type {any} */ i) => i.name));
      for (const t of w.weights()) assert.ok(inits.has(t.name), `initializer ${t.name}`);
    });

    test("onnxruntime-web and TF.js agree; output shape is right", async () => {
      const batch = SMALL_BATCH[/** @type {keyof typeof SMALL_BATCH} */ (w.name)] ?? 1;
      const cell = makeCell(w, batch);
      const a = await /** @type {any} */ (ort).createSession(cell);
      const b = await /** @type {any} */ (tfjs).createSession(cell);
      try {
        /** @type {Float32Array} */ const ya = await a.run(cell.input);
        /** @type {Float32Array} */ const yb = await b.run(cell.input);
        assert.equal(ya.length, numel(w.outputShape(batch)));
        assert.equal(yb.length, numel(w.outputShape(batch)));
        assert.ok(ya.every(Number.isFinite), "ORT output finite");
        const c = compareOutputs(yb, ya);
        assert.ok(c.ok, `max abs diff ${c.maxAbsDiff}, rel ${c.relErr} > ${RTOL}`);
        // The output is not trivially constant (a wiring mistake would often make it so).
        assert.ok(Math.max(...ya) - Math.min(...ya) > 1e-3);
        if (w.outputName === "probs") {
          for (let r = 0; r < batch; r++) {
            const row = ya.subarray(r * 10, r * 10 + 10).reduce((s, v) => s + v, 0);
            assert.ok(Math.abs(row - 1) < 1e-5, `softmax row ${r} sums to ${row}`);
          }
        }
      } finally {
        await a.dispose();
        await b.dispose();
      }
    });
  });
}
