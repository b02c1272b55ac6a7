// How Shrew's costs grow with the program (`npm run bench:scaling`, or
// `node bench/scaling.mjs [N]`): generated programs of N and 4N nodes,
// inputs, outputs, parameters or graphs (N = 1,000 by default), each step
// timed as the best of 5 after a warm-up at size N, in one process. The
// last column is the ratio 4N ÷ N: about 4 for a linear step (up to ~7 once
// the larger program outgrows the caches), 16 for a quadratic one.
import { performance } from "node:perf_hooks";
import { Shrew } from "../js/dist/index.js";

const N = Number(process.argv[2] ?? 1000);
const shrew = await Shrew.load();
const graph = (body) => ["@graph G {", "  input x: Tensor<[1, 16], f32>;", ...body, "}"].join("\n");

// Each generator returns the program's source for size n.
const SHAPES = {
  "chain of ops": (n) => {
    const l = [];
    let p = "x";
    for (let i = 0; i < n; i++) { l.push(`  node n${i} { op: tanh(${p}) + x; };`); p = `n${i}`; }
    return graph([...l, `  output y: ${p};`]);
  },
  "wide sum": (n) => {
    const l = [];
    for (let i = 0; i < n; i++) l.push(`  node n${i} { op: x * ${i + 1}.5; };`);
    let s = "n0";
    for (let i = 1; i < n; i++) { l.push(`  node s${i} { op: ${s} + n${i}; };`); s = `s${i}`; }
    return graph([...l, `  output y: ${s};`]);
  },
  "two identical chains": (n) => {
    const l = [];
    for (const c of ["a", "b"]) {
      let p = "x";
      for (let i = 0; i < n; i++) { l.push(`  node ${c}${i} { op: tanh(${p}); };`); p = `${c}${i}`; }
    }
    return graph([...l, `  output y: a${n - 1} + b${n - 1};`]);
  },
  "chained constant additions": (n) => {
    const l = [];
    let p = "1.0";
    for (let i = 0; i < n; i++) { l.push(`  node c${i} { op: ${p} + 1; };`); p = `c${i}`; }
    return graph([...l, `  output y: x + ${p};`]);
  },
  "outputs": (n) => graph(Array.from({ length: n }, (_, i) => `  output o${i}: x * ${i}.5;`)),
  "inputs": (n) => {
    const l = [];
    let s = "x";
    for (let i = 0; i < n; i++) l.push(`  input in${i}: Tensor<[1, 16], f32>;`);
    for (let i = 0; i < n; i++) { l.push(`  node s${i} { op: ${s} + in${i}; };`); s = `s${i}`; }
    return graph([...l, `  output y: ${s};`]);
  },
  "parameters": (n) => {
    const l = [];
    let s = "x";
    for (let i = 0; i < n; i++) l.push(`  param p${i}: Tensor<[16], f32> { init: "normal(0, 1)"; };`);
    for (let i = 0; i < n; i++) { l.push(`  node s${i} { op: ${s} + p${i}; };`); s = `s${i}`; }
    return graph([...l, `  output y: ${s};`]);
  },
  "graphs": (n) =>
    Array.from({ length: n }, (_, i) => `@graph G${i} { input v: Tensor<[1, 16], f32>; output o: tanh(v) * ${i}.5; }`).join("\n"),
};

function best(f, reps = 5) {
  let t = Infinity;
  for (let r = 0; r < reps; r++) {
    const s = performance.now();
    f();
    t = Math.min(t, performance.now() - s);
  }
  return t;
}

// Per size: compile; then, on one compiled program, a run, a run through
// the interpreter, its dump, plan and tape, a saveParams/loadParams round
// trip and setParam of each parameter in turn.
function measure(src) {
  const compileMs = best(() => shrew.compile(src).dispose());
  const p = shrew.compile(src);
  try {
    const g = p.graphs[0];
    const feeds = {};
    for (const input of p.signature(g).inputs) feeds[input.name] = new Float32Array(16).fill(0.5);
    p.run(g, feeds);  // the first run of a binding prepares it
    const runMs = best(() => p.run(g, feeds));
    const interpretMs = best(() => p.interpret(g, feeds));
    // What the playground shows of a compile: a per-slot search made the plan quadratic.
    const viewsMs = best(() => { p.dump(g); p.plan(g); p.tape(g); });
    const blob = p.saveParams();
    const loadMs = best(() => p.loadParams(blob));
    // Every parameter set by name, one call each (a user's own weight loader).
    const values = p.params().map((info) => [info.name, p.getParam(info.name)]);
    const setEachMs = best(() => { for (const [name, v] of values) p.setParam(name, v); });
    return { compileMs, runMs, interpretMs, viewsMs, loadMs, setEachMs };
  } finally {
    p.dispose();
  }
}

const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const rows = [];
for (const [name, gen] of Object.entries(SHAPES)) {
  measure(gen(N));  // warm-up: V8 tiers the compiler and the run path up
  const small = measure(gen(N));
  const large = measure(gen(4 * N));
  for (const step of ["compileMs", "runMs", "interpretMs", "viewsMs", "loadMs", "setEachMs"]) {
    if ((step === "loadMs" || step === "setEachMs") && name !== "parameters") continue;
    if ((step === "runMs" || step === "interpretMs" || step === "viewsMs") && !["inputs", "outputs", "chain of ops"].includes(name)) continue;
    rows.push([name, step.replace("Ms", ""), fmt(small[step]), fmt(large[step]), (large[step] / small[step]).toFixed(1)]);
  }
}
console.log(`| shape | step | n = ${N} (ms) | n = ${4 * N} (ms) | ratio |`);
console.log("| --- | --- | ---: | ---: | ---: |");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
