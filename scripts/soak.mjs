#!/usr/bin/env node
// Soak test of the wasm build: compiles, runs (tape and interpreter) and
// disposes every conformance example ITERATIONS times in one module and
// asserts that memory stays flat after a warm-up:
//   * wasm linear memory (heapBytes) does not grow at all,
//   * bytes held by malloc (usedBytes) grow by at most 64 KiB,
//   * the JS heap after a full GC grows by at most 8 MiB (V8 keeps some
//     compiled code and inline caches; a leak of one object per iteration
//     would be far more over 100,000 iterations).
//
//   node --expose-gc scripts/soak.mjs                    # 100,000 iterations
//   node --expose-gc scripts/soak.mjs --iterations 300   # bounded (npm test uses this via js/test/soak.test.mjs)
//
// Prints one JSON line per checkpoint and a summary; exits 1 on growth.
import { pathToFileURL } from "node:url";
import { Shrew } from "../js/dist/index.js";
import { makeInputs, parseInputSpecs } from "../js/dist/cli/inputs.js";
import { CASES, readExample } from "../js/test/helpers.mjs";

export const LIMITS = { usedBytes: 64 * 1024, jsHeapBytes: 8 * 1024 * 1024 };

function jsHeap() {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * Runs the soak; returns {iterations, seconds, warm, end, growth, ok}.
 * `onCheckpoint` gets {iteration, heapBytes, usedBytes, jsHeapBytes}.
 */
export async function soak({ iterations = 100_000, checkpoints = 10, onCheckpoint = () => {} } = {}) {
  if (typeof globalThis.gc !== "function") throw new Error("run node with --expose-gc");
  const shrew = await Shrew.load();
  const cases = CASES.map((c) => ({ ...c, source: readExample(c.file) }));
  const one = (seed) => {
    for (const c of cases) {
      const p = shrew.compile(c.source, { filename: c.file, dims: c.dims, seed });
      try {
        const feeds = makeInputs(p.signature(c.graph), parseInputSpecs(c.inputs ?? []), c.dims, seed);
        p.run(c.graph, feeds);
        p.interpret(c.graph, feeds);
      } finally {
        p.dispose();
      }
    }
  };
  const warmup = Math.max(1, Math.min(50, Math.floor(iterations / 10)));
  for (let i = 0; i < warmup; i++) one(i);
  const sample = (iteration) => {
    const s = { iteration, ...shrew.heapStats(), jsHeapBytes: jsHeap() };
    onCheckpoint(s);
    return s;
  };
  const warm = sample(0);
  const start = process.hrtime.bigint();
  const every = Math.max(1, Math.floor(iterations / checkpoints));
  let peak = warm;
  for (let i = 1; i <= iterations; i++) {
    one(i);
    if (i % every === 0 || i === iterations) {
      const s = sample(i);
      if (s.usedBytes > peak.usedBytes) peak = s;
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const end = sample(iterations);
  const growth = {
    heapBytes: end.heapBytes - warm.heapBytes,
    usedBytes: end.usedBytes - warm.usedBytes,
    peakUsedBytes: peak.usedBytes - warm.usedBytes,
    jsHeapBytes: end.jsHeapBytes - warm.jsHeapBytes,
  };
  const ok = growth.heapBytes === 0 && growth.usedBytes <= LIMITS.usedBytes && growth.jsHeapBytes <= LIMITS.jsHeapBytes;
  return { iterations, examples: cases.length, seconds, warm, end, growth, limits: LIMITS, ok };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : def;
  };
  const result = await soak({
    iterations: arg("--iterations", 100_000),
    checkpoints: arg("--checkpoints", 20),
    onCheckpoint: (s) => console.log(JSON.stringify(s)),
  });
  console.log(JSON.stringify(result));
  process.exitCode = result.ok ? 0 : 1;
}
