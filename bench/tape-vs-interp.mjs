// Tape (JIT) vs reference interpreter inside WebAssembly, through the public
// package API: µs per run (median over interleaved rounds) and the tape's
// overhead per instruction on the dispatch-bound workload.
//   node bench/tape-vs-interp.mjs [--runs N]
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { Shrew, Tensor } from "../js/dist/index.js";
import { workloadByName } from "./workloads/index.mjs";
import { median } from "./lib/stats.mjs";

const { values } = parseArgs({ options: { runs: { type: "string", default: "200" } } });
const runs = Number(values.runs);
const shrew = await Shrew.load();

const cells = [["tiny", 1], ["mlp", 1], ["mlp", 64]];
console.log("| cell | tape µs | interpreter µs | speedup | instructions | ns/instruction (tape) | arena / lower bound / naive |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const [name, batch] of cells) {
  const w = workloadByName(name);
  const program = shrew.compile(w.sw, { filename: `${name}.sw`, dims: { Batch: batch }, seed: 1 });
  const graph = program.graphs[0];
  const sig = program.signature(graph);
  const shape = sig.inputs[0].shape.map((d) => (typeof d === "number" ? d : batch));
  const size = shape.reduce((a, b) => a * b, 1);
  const x = new Tensor("f32", shape, Float32Array.from({ length: size }, (_, i) => Math.sin(i)));
  const feeds = { [sig.inputs[0].name]: x };
  for (let i = 0; i < 50; i++) { program.run(graph, feeds); program.interpret(graph, feeds); }
  const tape = [], interp = [];
  const interpRuns = batch >= 64 ? Math.max(5, runs / 20) : runs;
  for (let i = 0; i < runs; i++) {
    let t = performance.now(); program.run(graph, feeds); tape.push(performance.now() - t);
    if (i < interpRuns) { t = performance.now(); program.interpret(graph, feeds); interp.push(performance.now() - t); }
  }
  const s = program.stats(graph);
  const tapeUs = median(tape) * 1000, interpUs = median(interp) * 1000;
  console.log(`| ${name}/${batch} | ${tapeUs.toFixed(1)} | ${interpUs.toFixed(1)} | ${(interpUs / tapeUs).toFixed(1)}× | ${s.num_instructions ?? s.numInstructions} | ${((tapeUs * 1000) / (s.num_instructions ?? s.numInstructions)).toFixed(0)} | ${s.arena_bytes ?? s.arenaBytes} / ${s.arena_lower_bound ?? s.arenaLowerBound} / ${s.arena_naive ?? s.arenaNaive} |`);
  program.dispose();
}
