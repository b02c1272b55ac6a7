// A peer's start-up in a fresh Node process, the phases cold-start.mjs times
// for Shrew, on the same mlp/1 model (run by bench/run.mjs, or alone:
// `node bench/peer-start.mjs ort|tfjs`), printed as one JSON line:
//   model         how the peer's mlp is built (for the report)
//   importMs      import of the library (its JS, as the runner imports it)
//   initMs        the runner's init: the wasm backend loaded and instantiated
//                 (onnxruntime-web's includes one session of the tiny model, which
//                 is what instantiates its wasm); loadMs = import + init
//   sessionMs     the mlp session built from the model's weights (ONNX bytes or
//                 tf.Tensors, prepared before the clock starts)
//   firstRunUs    its first run; totalMs = import + init + session + first run
//   steadyUs      median of 200 runs after ≥ 1 s of warm-up; firstRunRatio = firstRunUs / steadyUs
import { performance } from "node:perf_hooks";

import { makeCell } from "./lib/cell.mjs";
import { median } from "./lib/stats.mjs";
import mlp from "./workloads/mlp.mjs";

// Per peer: its runner (imported after the clock starts) and how its model is built.
const PEERS = {
  ort: { runner: async () => (await import("./runners/ort.mjs")).ortRunner(), model: "session from the ONNX bytes" },
  tfjs: { runner: async () => (await import("./runners/tfjs.mjs")).tfjsRunner(), model: "tensors from the weights" },
};
const id = process.argv[2];
if (!(id in PEERS)) {
  process.stderr.write(`usage: node bench/peer-start.mjs ${Object.keys(PEERS).join("|")}\n`);
  process.exit(2);
}

const cell = makeCell(mlp, 1);
mlp.onnx(); // the model bytes, cached: building them is the harness's work, not the library's

const t0 = performance.now();
const peer = PEERS[/** @type {keyof typeof PEERS} */ (id)];
const runner = await peer.runner();
const t1 = performance.now();
await runner.init();
const t2 = performance.now();
const session = await /** @type {NonNullable<typeof runner.createSession>} */ (runner.createSession)(cell);
const t3 = performance.now();
await session.run(cell.input);
const t4 = performance.now();

const warmEnd = performance.now() + 1000;
while (performance.now() < warmEnd) await session.run(cell.input);
const times = [];
for (let i = 0; i < 200; i++) {
  const s = performance.now();
  await session.run(cell.input);
  times.push((performance.now() - s) * 1000);
}
const steadyUs = median(times);
await session.dispose();

console.log(JSON.stringify({
  runtime: id,
  model: peer.model,
  importMs: t1 - t0,
  initMs: t2 - t1,
  loadMs: t2 - t0,
  sessionMs: t3 - t2,
  firstRunUs: (t4 - t3) * 1000,
  totalMs: t4 - t0,
  steadyUs,
  firstRunRatio: ((t4 - t3) * 1000) / steadyUs,
}));
