// Shrew start-up figures, in a fresh Node process (run by bench/run.mjs, or
// alone: `node bench/cold-start.mjs [--params FILE | --bundle FILE | --gen1000-first]`), printed as one JSON line:
//   params            "seeded", or "blob" with --params FILE: the workload's weights as a
//                     saveParams() blob (read before the clock starts), given to compile —
//                     what the peers' start-up includes (their sessions are built from the model's weights);
//                     or "bundle" with --bundle FILE: the program with those weights as a
//                     saveBundle() file, given to loadBundle (no source is compiled)
//   loadMs            import of the package entry as Node resolves it (js/dist/shrew.node.js) + Shrew.load() (read + compile + instantiate the .wasm)
//   compileMs         shrew.compile of the mlp workload (Batch = 1, seeded params or the blob),
//                     or shrew.loadBundle of its bundle
//   firstRunUs        its first run; setParamsMs (seeded): the six weights set by name afterwards
//   totalMs           load + compile + first run (target ≤ 50 ms)
//   steadyUs          median of 200 runs after ≥ 1 s of warm-up; firstRunRatio = firstRunUs / steadyUs
//   gen1000           compile of a generated 1,000-node graph: firstMs, its first compile here, which
//                     comes after mlp's compiles and 1 s of runs, so V8 has compiled much of Shrew's
//                     compiler code already (not a first compile in a fresh process: --gen1000-first);
//                     warm median and best (ms, wall), warm median CPU time, tape length; warm = the
//                     last 10 of 30 compiles, since the first 6-11 still run while V8 optimises the
//                     compiler (3-6x slower)
//   cpu               the same phases in process CPU time (ms): on a busy machine wall times inflate
//   faults            minor page faults of each phase: first touches of memory, ours (weights, packed
//                     copies) and V8's (code it compiles on first call, its compilers' zones)
//   warmCompileMs     the same compile (or loadBundle) again in this process, median of 5: what our own
//                     code spends once V8 has compiled it and the pages are touched; the rest of
//                     compileMs is first-use cost
//   freshPageUs       what a first touch of a 4 KiB page costs in this process (median of 3 fresh
//                     16 MiB buffers, measured last): start-up figures scale with it across machines
// With --gen1000-first the process only loads Shrew and compiles the 1,000-node graph, the first
// compile of any source in the process (V8 has compiled none of Shrew's code for it yet), and prints
//   { mode: "gen1000-first", loadMs, gen1000: { nodes, instructions, firstMs, firstCpuMs, firstFaults } }
import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { generatedGraph } from "./lib/gen-graph.mjs";
import { median } from "./lib/stats.mjs";
import mlp from "./workloads/mlp.mjs";  // (imports protobufjs: before the clock starts)

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
// `--write-params FILE` / `--write-bundle FILE`: writes the blob for --params
// or the bundle for --bundle and exits (run.mjs does this once).
const writeTo = arg("--write-params") ?? arg("--write-bundle");
if (writeTo !== undefined) {
  const { Shrew, Tensor } = await import(new URL("../js/dist/shrew.node.js", import.meta.url).href);
  const p = (await Shrew.load()).compile(mlp.sw, { filename: "mlp.sw", dims: { Batch: 1 } });
  for (const w of mlp.weights()) p.setParam(`${mlp.graph}/${w.name}`, new Tensor("f32", w.shape, w.data));
  writeFileSync(writeTo, arg("--write-bundle") !== undefined ? p.saveBundle() : p.saveParams());
  process.exit(0);
}
const paramsFile = arg("--params");
const blob = paramsFile === undefined ? undefined : new Uint8Array(readFileSync(paramsFile));
const bundleFile = arg("--bundle");
const bundle = bundleFile === undefined ? undefined : new Uint8Array(readFileSync(bundleFile));
const weighted = blob !== undefined || bundle !== undefined;
const genFirst = process.argv.includes("--gen1000-first");
const genSrc = generatedGraph(1000);

const x = mlp.input(1);
const feeds = { [mlp.inputName]: x };
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const faults = () => process.resourceUsage().minorPageFault;
const f0 = faults();
const c0 = cpuMs();
const t0 = performance.now();
const { Shrew, Tensor } = await import(new URL("../js/dist/shrew.node.js", import.meta.url).href);
const shrew = await Shrew.load();
const t1 = performance.now();
const c1 = cpuMs();
const f1 = faults();
if (genFirst) {
  // The truly first compile: the run's gen1000.firstMs comes after mlp has been
  // compiled and run, by when V8 has compiled Shrew's compiler code.
  const p = shrew.compile(genSrc, { filename: "gen1000.sw" });
  const firstMs = performance.now() - t1, firstCpuMs = cpuMs() - c1, firstFaults = faults() - f1;
  const instructions = p.stats("Gen").numInstructions;
  p.dispose();
  console.log(JSON.stringify({ mode: "gen1000-first", loadMs: t1 - t0, gen1000: { nodes: 1000, instructions, firstMs, firstCpuMs, firstFaults } }));
  process.exit(0);
}
const start = () => bundle ? shrew.loadBundle(bundle)
  : shrew.compile(mlp.sw, { filename: "mlp.sw", dims: { Batch: 1 }, ...(blob ? { params: blob } : {}) });
const program = start();
const t2 = performance.now();
const c2 = cpuMs();
const f2 = faults();
program.run(mlp.graph, feeds);
const t3 = performance.now();
const c3 = cpuMs();
const f3 = faults();
if (!weighted) for (const w of mlp.weights()) program.setParam(`${mlp.graph}/${w.name}`, new Tensor("f32", w.shape, w.data));
const t4 = performance.now();

const warmEnd = performance.now() + 1000;
while (performance.now() < warmEnd) program.run(mlp.graph, feeds);
const times = [];
for (let i = 0; i < 200; i++) {
  const s = performance.now();
  program.run(mlp.graph, feeds);
  times.push((performance.now() - s) * 1000);
}
const steadyUs = median(times);
program.dispose();

const warmCompiles = [];
for (let i = 0; i < 5; i++) {
  const s = performance.now();
  start().dispose();
  warmCompiles.push(performance.now() - s);
}

// The 1,000-node graph, compiled 30 times.
const compiles = [], compilesCpu = [];
let instructions = 0;
const GEN_COMPILES = 30, GEN_WARM = 10;
for (let i = 0; i < GEN_COMPILES; i++) {
  const s = performance.now(), c = cpuMs();
  const p = shrew.compile(genSrc, { filename: "gen1000.sw" });
  compiles.push(performance.now() - s);
  compilesCpu.push(cpuMs() - c);
  instructions = p.stats("Gen").numInstructions;
  p.dispose();
}

// First touches of fresh memory: 16 MiB buffers, one write per 4 KiB page.
const pageUs = [];
for (let i = 0; i < 3; i++) {
  const b = new Uint8Array(16 << 20);
  const s = performance.now();
  for (let j = 0; j < b.length; j += 4096) b[j] = 1;
  pageUs.push(((performance.now() - s) * 1000) / (b.length / 4096));
}

console.log(JSON.stringify({
  params: bundle ? "bundle" : blob ? "blob" : "seeded",
  loadMs: t1 - t0,
  compileMs: t2 - t1,
  firstRunUs: (t3 - t2) * 1000,
  setParamsMs: weighted ? null : t4 - t3,
  totalMs: t3 - t0,
  steadyUs,
  firstRunRatio: ((t3 - t2) * 1000) / steadyUs,
  cpu: { loadMs: c1 - c0, compileMs: c2 - c1, firstRunMs: c3 - c2, totalMs: c3 - c0 },
  faults: { load: f1 - f0, compile: f2 - f1, firstRun: f3 - f2, total: f3 - f0 },
  warmCompileMs: median(warmCompiles),
  freshPageUs: median(pageUs),
  gen1000: {
    nodes: 1000, instructions, firstMs: compiles[0], warmMedianMs: median(compiles.slice(-GEN_WARM)),
    warmBestMs: Math.min(...compiles.slice(-GEN_WARM)), warmMedianCpuMs: median(compilesCpu.slice(-GEN_WARM)),
  },
}));
