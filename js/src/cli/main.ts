#!/usr/bin/env node
// The `shrew` command-line tool (PIPELINE.md §12.2): check, dump, stats,
// info, run, bench and profile a .sw file or a bundle on the wasm runtime,
// and build a .sw file into a bundle.
import { readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Shrew, ShrewCompileError, ShrewRuntimeError, writeNpy, type Program, type Outputs, type RunOptions } from "../index.js";
import { NpyError } from "../npy.js";
import { OPTIONS, USAGE, UsageError, checkCommandOptions, commandLineError, usageHint, type Values } from "./usage.js";
import { NoDefaultInput, makeInputs, parseDims, parseInputSpecs } from "./inputs.js";
import { quantile } from "./quantile.js";
import { MAX_SEED } from "../options.js";
import { MAX_PROFILE_RUNS } from "../program.js";
import { didYouMean } from "../spelling.js";
import { BLOB_LIMIT, FileError, SOURCE_LIMIT, STDIN, ensureDir, readBytes, writeFiles, type ReadLimit } from "./files.js";
import { counted, describeTensor, formatBytes, formatDuration, oneLine, printable, printableJson, tensorJson } from "./format.js";

interface Context {
  file: string;
  values: Values;
  program: Program;
  /** The graph of dump, stats, run, bench and profile; "" for check, info and build, which take the whole program. */
  graph: string;
  dims: Record<string, number>;
  /** Of parameters and random inputs: a u64, exact. */
  seed: bigint;
  compileMs: number;
  /** The result, on stdout: text escaped as errors are (names and metadata come from files). */
  out: (s: string) => void;
  /** A result as JSON text, escaped as JSON (printableJson). */
  json: (s: string) => void;
  /** Diagnostics (warnings too) and errors: stdout holds only the result. */
  err: (s: string) => void;
  /** numpy's name of the dtype of each --input file read, by input name (filled by feedsFor). */
  fileDtypes: Map<string, string>;
}

/** A count in plain digits, at least `min` (the error says which counts it takes). */
function intOption(v: string | undefined, name: string, dflt: number, min = 0): number {
  if (v === undefined) return dflt;
  // Number("") is 0, Number("1e3") 1000, Number("0x10") 16: only plain digits, as for --dims.
  if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < min) {
    throw new UsageError(`--${name} expects a ${min > 0 ? "positive" : "non-negative"} integer, got '${v}'`);
  }
  return Number(v);
}

/** --seed: any u64, in plain digits. */
function seedOption(v: string): bigint {
  if (!/^[0-9]+$/.test(v) || BigInt(v) > MAX_SEED) {
    throw new UsageError(`--seed expects a non-negative integer of at most 2^64 - 1 (${MAX_SEED}), got '${v}'`);
  }
  return BigInt(v);
}

/** The package's version, from its package.json (dist/cli/ is two levels below it). */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    if (typeof pkg.version === "string") return pkg.version;
  } catch {
    // dist/ copied without its package.json, or bundled into another file
  }
  return "(unknown version)";
}

/** A seed in --json: a number while JSON readers hold it exactly (up to 2^53 - 1), else its decimal digits as a string. */
function seedJson(seed: bigint): number | string {
  return seed <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seed) : String(seed);
}

/**
 * Metadata as JSON text: a bigint (a @config integer past 2^53 − 1) is its
 * exact decimal string, NaN and ±Infinity the strings "NaN", "Infinity",
 * "-Infinity" (JSON.stringify made them null), -0 is -0 (it made it 0), as
 * for tensors.
 */
function metadataJson(v: unknown): string {
  // A replacer cannot return -0 (it is written 0): a marker string is swapped for it after.
  const text = JSON.stringify(v, (_key: string, x: unknown) => {
    if (typeof x === "bigint") return String(x);
    if (typeof x === "number" && !Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
    return Object.is(x, -0) ? NEGATIVE_ZERO : x;
  });
  return text.replaceAll(JSON.stringify(NEGATIVE_ZERO), "-0");
}
// Lone surrogates: no string decoded from the source's UTF-8 holds one.
const NEGATIVE_ZERO = "\ud800-0\ud800";

/**
 * fn(), a bundle's or parameter blob's own format errors ("bundle: truncated
 * seed", "parameter blob: …") prefixed with the file they are in, as .npy
 * errors are.
 */
function naming<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ShrewRuntimeError && /^(?:bundle|parameter blob)\b/.test(e.message)) {
      throw new ShrewRuntimeError(e.code, `${what}: ${e.message}`, e);
    }
    throw e;
  }
}

function executorOption(v: string | undefined): "jit" | "interp" {
  const ex = v ?? "jit";
  if (ex !== "jit" && ex !== "interp") throw new UsageError(`--executor expects jit or interp, got '${ex}'${didYouMean(ex, ["jit", "interp"])}`);
  return ex;
}

function executor(ctx: Context): "jit" | "interp" {
  return executorOption(ctx.values.executor);
}

function runsOption(v: string | undefined): number {
  return intOption(v, "runs", 100, 1);
}

function execute(ctx: Context, feeds: Record<string, unknown>, options: RunOptions = {}): Outputs {
  return executor(ctx) === "interp" ? ctx.program.interpret(ctx.graph, feeds as never, options)
    : ctx.program.run(ctx.graph, feeds as never, options);
}

function feedsFor(ctx: Context) {
  const specs = parseInputSpecs(ctx.values.input ?? []);
  const sig = ctx.program.signature(ctx.graph);
  // Without --graph the first graph runs, often a helper the main one calls:
  // an --input naming another graph's input says which one has it.
  if (ctx.values.graph === undefined) {
    for (const name of specs.keys()) {
      if (sig.inputs.some((i) => i.name === name)) continue;
      const owners = ctx.program.graphs.filter((g) => g !== ctx.graph && ctx.program.signature(g).inputs.some((i) => i.name === name));
      if (owners.length === 0) continue;
      throw new UsageError(`graph '${sig.name}' has no input '${name}'; its inputs are: ${sig.inputs.map((i) => i.name).join(", ") || "(none)"}. ` +
        `${owners.length === 1 ? "Graph" : "Graphs"} ${owners.map((g) => `'${g}'`).join(", ")} ${owners.length === 1 ? "has" : "have"} one: ` +
        `choose it with --graph ${owners[0]} (without --graph, the first graph runs)`);
    }
  }
  return makeInputs(sig, specs, ctx.dims, ctx.seed, ctx.fileDtypes);
}

/** `1 graph: G`, `2 graphs: A, B`, `no graphs` (a program of @model or @config only is valid). */
function graphList(graphs: readonly string[]): string {
  return graphs.length === 0 ? "no graphs" : `${graphs.length} graph${graphs.length === 1 ? "" : "s"}: ${graphs.join(", ")}`;
}

function cmdCheck(ctx: Context): number {
  ctx.out(`${oneLine(ctx.file)}: ok (${graphList(ctx.program.graphs)})`);
  return 0;
}

/** False while graph `g` has no tape: it is compiled per input signature and has not run. */
function hasCompile(p: Program, g: string): boolean {
  try {
    p.stats(g);
    return true;
  } catch (e) {
    if (e instanceof ShrewRuntimeError && e.code === "failed_precondition") return false;
    throw e;
  }
}

function cmdDump(ctx: Context): number {
  const { values: v, program: p, graph: g } = ctx;
  const modes = [v.ir, v["optimized-ir"], v.tape, v.plan].filter(Boolean).length;
  if (modes > 1) throw new UsageError("dump takes one of --ir, --optimized-ir, --tape, --plan");
  // A graph typed per run (`input x: ?`) has no tape or plan until it runs:
  // it runs once on the --input values (as stats does), and so does any graph
  // given --input (its tape and plan are then those of that binding), and one
  // that calls such a graph with inputs of sizes to bind (on random inputs,
  // like stats: it said "run it, then ask again", which dump cannot).
  const typedPerRun = p.signature(g).inputs.some((i) => i.dtype == null || i.shape == null);
  const tapeOnly = !v.ir && !v["optimized-ir"];
  if (v.input !== undefined || (tapeOnly && (typedPerRun || !hasCompile(p, g)))) execute(ctx, feedsFor(ctx));
  if (v.ir || v["optimized-ir"]) {
    const ir = p.ir(g, { optimized: !!v["optimized-ir"] });
    if (v.json) ctx.json(JSON.stringify(ir.json, null, 2));
    else ctx.out(ir.text.trimEnd());
  } else if (v.plan) {
    // JSON either way: escaped as JSON, so that it still parses.
    ctx.json(v.json ? JSON.stringify(JSON.parse(p.plan(g)), null, 2) : p.plan(g));
  } else {
    const text = p.dump(g);
    if (v.json) ctx.json(JSON.stringify({ graph: g, tape: text }));
    else ctx.out(text.trimEnd());
  }
  // Symbolic input sizes ([Batch, 784]) bind a plan only when a run gives
  // them: say why the plan is empty and the arena 0, and how to bind one.
  if (!v.ir && !v["optimized-ir"] && !(JSON.parse(p.plan(g)) as { bound: boolean }).bound) {
    const names = [...new Set(p.signature(g).inputs.flatMap((i) => (i.shape ?? []).filter((d): d is string => typeof d === "string")))];
    const dims = names.length > 0 ? ` (--dims ${names.map((n) => `${n}=SIZE`).join(",")})` : "";
    ctx.err(`note: graph '${g}' has not run, so no memory plan is bound (arena 0): give its input sizes${dims} ` +
            "or its inputs (--input) to see the plan of that binding");
  }
  return 0;
}

function cmdStats(ctx: Context): number {
  // Run once on the tape when inputs can be made, so the arena of this
  // binding is known; bad input files are errors as in `run`.
  let feeds;
  /** Why the graph did not run, if it did not. */
  let notRun: string | undefined;
  let runError: ShrewRuntimeError | undefined;
  try {
    feeds = feedsFor(ctx);
  } catch (e) {
    if (!(e instanceof NoDefaultInput)) throw e;
    notRun = e.message;
  }
  try {
    if (feeds) execute(ctx, feeds);
  } catch (e) {
    // A failed run leaves the stats of no binding (arena fields 0 for symbolic
    // graphs), but an input given with --input that run rejects is an error.
    if (!(e instanceof ShrewRuntimeError)) throw e;
    if (e.input !== undefined && parseInputSpecs(ctx.values.input ?? []).has(e.input)) throw e;
    notRun = `its run failed: ${e.message.split("\n")[0]}`;
    runError = e;
  }
  // A graph typed per run (`input x: ?`) whose run failed has no compile to
  // report: the run's error is the answer ("run it, then ask again" was not).
  let plan: string;
  try {
    plan = ctx.program.plan(ctx.graph);
  } catch (e) {
    if (runError && e instanceof ShrewRuntimeError && e.code === "failed_precondition") throw runError;
    throw e;
  }
  // Said on stderr (stdout keeps the stats alone): the zeros are not the plan's.
  if (notRun !== undefined && !(JSON.parse(plan) as { bound: boolean }).bound) {
    ctx.err(`note: graph '${ctx.graph}' did not run, so no memory plan is bound and the arena fields are 0: ${notRun}`);
  }
  const s = ctx.program.stats(ctx.graph);
  const opt = ctx.program.optStats;
  if (ctx.values.json) {
    ctx.json(JSON.stringify({ graph: ctx.graph, stats: s, optimizer: { ...opt, text: undefined } }));
    return 0;
  }
  ctx.out(`graph ${ctx.graph}`);
  for (const [k, val] of Object.entries(s)) ctx.out(`  ${k.padEnd(18)} ${val}`);
  // The optimiser's counts are the program's (summed over its graphs,
  // PIPELINE.md §6.1): under the graph's heading they read as its own.
  ctx.out(`optimiser, whole program: ${opt.text}`);
  return 0;
}

/** The graphs each graph calls, directly or through others, in the order first called (one IR read per graph). */
function calledGraphs(p: Program): Map<string, string[]> {
  const direct = new Map<string, string[]>();
  for (const g of p.graphs) {
    const nodes = (p.ir(g).json as { nodes: { op: string; callee?: string }[] }).nodes;
    direct.set(g, nodes.flatMap((n) => (n.op === "call" && n.callee !== undefined ? [n.callee] : [])));
  }
  const all = new Map<string, string[]>();
  for (const g of p.graphs) {
    const seen = new Set<string>([g]);
    const order: string[] = [];
    const stack = [...(direct.get(g) ?? [])].reverse();
    while (stack.length > 0) {
      const c = stack.pop()!;
      if (seen.has(c)) continue;
      seen.add(c);
      order.push(c);
      stack.push(...[...(direct.get(c) ?? [])].reverse());
    }
    all.set(g, order);
  }
  return all;
}

function cmdInfo(ctx: Context): number {
  const p = ctx.program;
  const params = p.params();
  // Parameters by the graph they belong to (a name is GRAPH/PARAM).
  const byGraph = new Map<string, { count: number; elements: number; bytes: number }>();
  for (const q of params) {
    const g = q.name.slice(0, q.name.indexOf("/"));
    const t = byGraph.get(g) ?? { count: 0, elements: 0, bytes: 0 };
    byGraph.set(g, { count: t.count + 1, elements: t.elements + q.size, bytes: t.bytes + q.bytes });
  }
  const sum = (graphs: readonly string[]) => graphs.reduce((a, g) => {
    const t = byGraph.get(g);
    return t ? { count: a.count + t.count, elements: a.elements + t.elements, bytes: a.bytes + t.bytes } : a;
  }, { count: 0, elements: 0, bytes: 0 });
  const called = calledGraphs(p);
  const info = {
    file: ctx.file,
    seed: seedJson(p.seedBigInt),
    metadata: p.metadata,
    graphs: p.graphs.map((g) => {
      const s = p.signature(g);
      const own = sum([g]);
      // A graph's parameters are its own; those of the graphs it calls (which
      // its runs use too) are counted apart: Model of graph_calls.sw showed
      // 96 values where a run of it uses 368.
      const calls = called.get(g) ?? [];
      const all = sum([g, ...calls]);
      return { name: g, inputs: s.inputs, outputs: s.outputs, params: own.count, paramElements: own.elements, paramBytes: own.bytes,
               calls, paramsWithCalls: all.count, paramElementsWithCalls: all.elements, paramBytesWithCalls: all.bytes };
    }),
    paramCount: params.reduce((a, q) => a + q.size, 0),
    paramBytes: params.reduce((a, q) => a + q.bytes, 0),
  };
  if (ctx.values.json) {
    ctx.json(metadataJson(info));
    return 0;
  }
  const model = p.metadata.model;
  ctx.out(`${oneLine(ctx.file)}${model.name ? `: ${oneLine(model.name)}${model.version ? ` v${oneLine(model.version)}` : ""}` : ""}`);
  for (const [k, val] of Object.entries(model)) if (k !== "name" && k !== "version") ctx.out(`  ${k}: ${oneLine(String(val))}`);
  ctx.out(`  seed: ${info.seed}`);
  // Shown as JSON, escaped as JSON: ctx.out's escaping finds nothing left, and the JSON stays valid.
  const json = (v: unknown) => printableJson(metadataJson(v));
  if (Object.keys(p.metadata.config).length) ctx.out(`  config: ${json(p.metadata.config)}`);
  if (p.metadata.training) ctx.out(`  training: ${json(p.metadata.training)}`);
  if (p.metadata.inference) ctx.out(`  inference: ${json(p.metadata.inference)}`);
  for (const g of info.graphs) {
    ctx.out(`graph ${g.name}`);
    // An optional input (`input m: T?;`) may be left out of a run.
    for (const i of g.inputs) ctx.out(`  input  ${i.name}: ${i.type}${i.optional ? " (optional)" : ""}`);
    for (const o of g.outputs) ctx.out(`  output ${o.name}: ${o.type}`);
    ctx.out(`  params: ${counted(g.params, "tensor")}, ${counted(g.paramElements, "value")}, ${formatBytes(g.paramBytes)}`);
    if (g.calls.length > 0) {
      ctx.out(`  calls: ${g.calls.join(", ")}; with their params: ${counted(g.paramsWithCalls, "tensor")}, ${counted(g.paramElementsWithCalls, "value")}, ` +
              formatBytes(g.paramBytesWithCalls));
    }
  }
  if (info.graphs.length === 0) ctx.out("no graphs");
  ctx.out(`parameters: ${counted(info.paramCount, "value")}, ${formatBytes(info.paramBytes)}`);
  return 0;
}

/** Whether two paths name one file (a symlink or hard link to it too). */
function sameFile(a: string, b: string): boolean {
  // A path that cannot be stat'ed (ENOTDIR, ELOOP) names no existing file; writing it reports why.
  const stat = (p: string) => {
    try {
      return statSync(p, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  };
  const sa = stat(a), sb = stat(b);
  return resolve(a) === resolve(b) || (!!sa && !!sb && sa.dev === sb.dev && sa.ino === sb.ino);
}

/** Where build writes: --out, else next to the source (model.sw -> model.swb). */
function buildTarget(file: string, out: string | undefined): string {
  return out ?? `${file.replace(/\.sw$/, "")}.swb`;
}

function cmdBuild(ctx: Context): number {
  const target = buildTarget(ctx.file, ctx.values.out);
  const what = ctx.values.out === undefined ? "" : " (--out)";
  if (ctx.file !== STDIN && sameFile(target, ctx.file)) throw new UsageError(`--out ${target} is the source file: build would overwrite it`);
  const bytes = ctx.program.saveBundle();
  // As run's --out DIR: missing parents are created (ENOENT here; run made them).
  if (ctx.values.out !== undefined) ensureDir(dirname(target));
  writeFiles([[target, bytes]], what);
  const params = ctx.program.params();
  const info = { file: ctx.file, bundle: target, bytes: bytes.byteLength, graphs: ctx.program.graphs,
                 dims: ctx.program.dims, seed: seedJson(ctx.program.seedBigInt), paramBytes: params.reduce((a, q) => a + q.bytes, 0) };
  if (ctx.values.json) {
    ctx.json(JSON.stringify(info));
    return 0;
  }
  ctx.out(`wrote ${oneLine(target)}: ${formatBytes(info.bytes)} (${graphList(info.graphs)}; parameters ${formatBytes(info.paramBytes)})`);
  return 0;
}

function cmdRun(ctx: Context): number {
  const outputs = execute(ctx, feedsFor(ctx));
  if (ctx.values.out) {
    // Names of a .sw are identifiers, but a bundle's may hold '/' (`../x`
    // would be written outside DIR) or be empty (a hidden `.npy`). Checked
    // before any file is written.
    for (const name of Object.keys(outputs)) {
      if (/[/\\]/.test(name)) {
        throw new FileError(`cannot write output '${name}' into ${ctx.values.out} (--out): its name is not a file name (it has '/' or '\\')`);
      }
      if (name === "") throw new FileError(`cannot write an output with an empty name into ${ctx.values.out} (--out)`);
    }
    const dir = ctx.values.out;
    // Nothing the user passed in is overwritten: an --input file, the --params file or the source.
    const given: [string, string][] = [...parseInputSpecs(ctx.values.input ?? [])]
      .flatMap(([name, spec]) => (spec.kind === "npy" && spec.path !== STDIN ? [[spec.path, `the --input file of '${name}'`]] : []));
    if (ctx.values.params !== undefined && ctx.values.params !== STDIN) given.push([ctx.values.params, "the --params file"]);
    if (ctx.file !== STDIN) given.push([ctx.file, "the source file"]);
    for (const name of Object.keys(outputs)) {
      const target = join(dir, `${name}.npy`);
      const clash = given.find(([path]) => sameFile(target, path));
      if (clash) throw new UsageError(`--out ${dir} would overwrite ${clash[1]}, ${clash[0]}, with output '${name}' (${target})`);
    }
    ensureDir(dir);
    writeFiles(Object.entries(outputs).map(([name, t]) => [join(dir, `${name}.npy`), writeNpy(t)] as const), " (--out)");
  }
  if (ctx.values.json) {
    // Written as text: JSON.stringify would make NaN and ±Infinity null and -0 0 (tensorJson).
    let text;
    try {
      const o = Object.entries(outputs).map(([name, t]) => `${JSON.stringify(name)}:${tensorJson(t)}`);
      text = `{"graph":${JSON.stringify(ctx.graph)},"outputs":{${o.join(",")}}}`;
    } catch (e) {
      // JS strings hold at most 2^29 - 24 characters: some 30 million values.
      if (!(e instanceof RangeError)) throw e;
      throw new ShrewRuntimeError("resource_exhausted", `the outputs are too large to print as JSON (${e.message}); write them with --out DIR`);
    }
    ctx.json(text);
    return 0;
  }
  ctx.out(`graph ${ctx.graph} (${ctx.values.executor ?? "jit"})`);
  for (const [name, t] of Object.entries(outputs)) ctx.out(`  ${describeTensor(name, t)}`);
  if (ctx.values.out) ctx.out(`wrote ${Object.keys(outputs).length} .npy file(s) to ${oneLine(ctx.values.out)}`);
  return 0;
}

function cmdBench(ctx: Context): number {
  const runs = runsOption(ctx.values.runs);
  const feeds = feedsFor(ctx);
  // Timed runs write into the warm-up's output arrays, as a steady-state
  // caller would (the `outputs` run option): fresh arrays would time the
  // operating system's page faults (1.5 ms per 512 KB output on a VM that
  // charges 12 µs a page) instead of the program.
  const options = { outputs: { ...execute(ctx, feeds) } };
  for (let i = 0; i < 2; i++) execute(ctx, feeds, options);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    execute(ctx, feeds, options);
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  // The tape alone, looped inside wasm on the same inputs (no JS, no
  // copies): what a run costs on top of it is the JS call. The median of up
  // to 10 loops' means, as the calls' median: one mean over every run took
  // the machine's spikes in and could exceed the calls' median.
  // The interpreter has no tape: no tape time, JIT compile or arena (a graph
  // typed per run has none until the tape runs it).
  const jit = executor(ctx) === "jit";
  const loops = Math.min(runs, 10);
  const tapeUs = jit ? quantile(Array.from({ length: loops }, () => ctx.program.benchRun(ctx.graph, Math.ceil(runs / loops)) / 1000)
    .sort((a, b) => a - b), 0.5) : null;
  const s = jit ? ctx.program.stats(ctx.graph) : null;
  const r = {
    graph: ctx.graph, executor: ctx.values.executor ?? "jit", runs,
    medianUs: quantile(times, 0.5), p10Us: quantile(times, 0.1), p90Us: quantile(times, 0.9), tapeUs,
    compileMs: ctx.compileMs, jitCompileUs: s?.compileTimeUs ?? null, arenaBytes: s?.arenaBytes ?? null,
  };
  if (ctx.values.json) {
    ctx.json(JSON.stringify(r));
    return 0;
  }
  ctx.out(`graph ${r.graph} (${r.executor}), ${counted(runs, "run")}`);
  // Each figure in the unit that reads best (the JSON keeps µs and ms).
  ctx.out(`  median ${formatDuration(r.medianUs)}   p10 ${formatDuration(r.p10Us)}   p90 ${formatDuration(r.p90Us)}`);
  if (r.tapeUs !== null) ctx.out(`  tape inside wasm ${formatDuration(r.tapeUs)} per run (median of ${counted(loops, "loop")} of ${Math.ceil(runs / loops)}; the rest is the JS call)`);
  ctx.out(`  compile ${formatDuration(r.compileMs * 1000)}` +
          (s === null ? "" : ` (JIT ${formatDuration(s.compileTimeUs)}), arena ${formatBytes(s.arenaBytes)}`));
  return 0;
}

/** The dearest instructions `profile` lists (--json has them all). */
const PROFILE_LISTED = 20;

function cmdProfile(ctx: Context): number {
  const runs = runsOption(ctx.values.runs);
  if (runs > MAX_PROFILE_RUNS) throw new UsageError(`--runs for profile is at most ${MAX_PROFILE_RUNS}, got ${runs}`);
  const prof = ctx.program.profile(ctx.graph, feedsFor(ctx) as never, { runs });
  if (ctx.values.json) {
    ctx.json(JSON.stringify(prof));
    return 0;
  }
  const percent = (share: number) => `${(100 * share).toFixed(1)}%`.padStart(6);
  const time = (ns: number) => formatDuration(ns / 1000).padStart(9);
  ctx.out(`graph ${prof.graph}, ${counted(runs, "timed run")}: a run ${formatDuration(prof.runNs / 1000)} untimed, ` +
          `its kernels ${formatDuration(prof.kernelsNs / 1000)} timed (a clock read, ${Math.round(prof.clockNs)} ns, taken off each)`);
  ctx.out("by operation:");
  const opWidth = Math.max(2, ...prof.ops.map((o) => o.op.length));
  for (const o of prof.ops) ctx.out(`  ${o.op.padEnd(opWidth)} ${String(o.count).padStart(4)}x ${time(o.ns)} ${percent(o.share)}`);
  const dearest = [...prof.instructions].sort((a, b) => b.ns - a.ns || a.index - b.index);
  const listed = dearest.slice(0, PROFILE_LISTED);
  ctx.out(`by instruction (the tape's index; dearest first${dearest.length > listed.length ? `, ${listed.length} of ${dearest.length}` : ""}):`);
  for (const i of listed) {
    const where = i.span.line > 0 ? `  line ${i.span.line}` : "";
    const shape = i.shape === null ? "" : `${i.dtype}[${i.shape.join(", ")}]`;
    ctx.out(`  ${String(i.index).padStart(4)}  ${time(i.ns)} ${percent(i.share)}  ${i.op} ${i.node} ${shape}  ${i.kernel ?? ""}${where}`);
  }
  const rest = dearest.slice(listed.length);
  if (rest.length > 0) {
    const ns = rest.reduce((a, i) => a + i.ns, 0);
    ctx.out(`  … ${rest.length} more: ${formatDuration(ns / 1000)} (${percent(ns / (prof.kernelsNs || 1)).trim()})`);
  }
  return 0;
}

const COMMANDS: Record<string, (ctx: Context) => number> = {
  check: cmdCheck, dump: cmdDump, stats: cmdStats, info: cmdInfo, run: cmdRun, bench: cmdBench, profile: cmdProfile,
  build: cmdBuild,
};

/** The graph a command works on: --graph, else the first; "" for the commands that take the whole program. */
function graphFor(command: string, file: string, program: Program, given: string | undefined): string {
  if (given !== undefined) {
    if (!program.graphs.includes(given)) {
      throw new ShrewRuntimeError("not_found",
        `no graph named '${given}'${didYouMean(given, program.graphs) || ";"} graphs: ${program.graphs.join(", ") || "(none)"}`);
    }
    return given;
  }
  if (!["dump", "stats", "run", "bench", "profile"].includes(command)) return "";
  if (program.graphs.length === 0) throw new ShrewRuntimeError("not_found", `${file} has no graphs: ${command} needs one`);
  return program.graphs[0];
}

/** The numpy dtype a .npy file gives each declared dtype with (readNpy widens float16, int8/16 and uint16/32/64 exactly). */
const NUMPY_DTYPE: Record<string, string> = {
  f32: "float32", f16: "float16", bf16: "float32", f64: "float64", i8: "int8", i16: "int16", i32: "int32", i64: "int64",
  u8: "uint8", u16: "uint16", u32: "uint32", u64: "uint64", bool: "bool_",
};

/**
 * A run that refused the dtype of an input read from a .npy file: which
 * file, and the numpy dtype to save it as. numpy arrays are float64 unless
 * asked otherwise, so `--input x=a.npy` for an f32 input is a common miss.
 */
function npyDtypeHint(e: ShrewRuntimeError, inputs: readonly string[], fileDtypes: Map<string, string>): string | undefined {
  if (e.input === undefined || e.expected === undefined || e.actual === undefined || !/ expected dtype /.test(e.message)) return undefined;
  const spec = parseInputSpecs(inputs).get(e.input);
  const numpy = Object.hasOwn(NUMPY_DTYPE, e.expected) ? NUMPY_DTYPE[e.expected] : undefined;
  if (spec?.kind !== "npy" || numpy === undefined) return undefined;
  // What the file holds: an int8 file is read as i32, and "whose values are i32" misled.
  const holds = fileDtypes.get(e.input);
  // (numpy names bool "bool", its scalar type "bool_".)
  const same = holds === undefined || NUMPY_DTYPE[e.actual]?.replace(/_$/, "") === holds;
  const values = same ? e.actual : `${holds} (read as ${e.actual})`;
  return `  (${e.input} is read from ${spec.path}, whose values are ${values}: save the array as ${numpy}, ` +
         `e.g. numpy.save(path, array.astype(numpy.${numpy})))`;
}

/** A bundle (Program.saveBundle, `shrew build`) starts with these 8 bytes, a parameter blob (saveParams) with PARAMS_MAGIC. */
const BUNDLE_MAGIC = "SHRWBND1", PARAMS_MAGIC = "SHRWPRM1";
function startsWith(bytes: Uint8Array, magic: string): boolean {
  if (bytes.byteLength < magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (bytes[i] !== magic.charCodeAt(i)) return false;
  return true;
}
const isBundle = (bytes: Uint8Array) => startsWith(bytes, BUNDLE_MAGIC);
/** Read no further than the head of a --params file without the magic: /dev/zero was read to 1 GiB. */
const NOT_PARAMS: ReadLimit = { bytes: 0, why: `not a Shrew parameter blob (it does not start with ${PARAMS_MAGIC})` };
/** The other file of the pair in the other place: said so, not compiled as source (a page of E001s) or read whole. */
const PARAMS_AS_FILE: ReadLimit = {
  bytes: 0, why: "a parameter blob (saveParams), not a .sw source or bundle: give it with --params, after the FILE it belongs to",
};
const BUNDLE_AS_PARAMS: ReadLimit = {
  bytes: 0, why: "a bundle, not a parameter blob: give it as FILE (it carries its parameters)",
};

export async function main(argv: string[], out = (s: string) => console.log(s),
                           printErr = (s: string) => console.error(s)): Promise<number> {
  // Errors echo names and text from files: escaped and capped for the terminal.
  const err = (s: string) => printErr(printable(s));
  // A malformed command line: the error, the usage line of its command and
  // where the rest is (help and --help print the whole text).
  const usageError = (message: string, command: string | undefined) => {
    err(`Error: ${message}\n${usageHint(command)}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    const { message, command, malformed } = commandLineError(argv, (e as Error).message);
    if (!malformed) {
      err(`Error: ${message}`);
      return 2;
    }
    return usageError(message, command);
  }
  const { values, positionals, tokens } = parsed;
  // `version` as a command too, as `help` is (PIPELINE.md §12.1).
  if (positionals[0] === "version" && positionals.length > 1) return usageError("version takes no FILE", undefined);
  if (values.version || positionals[0] === "version") {
    out(`shrew ${packageVersion()}`);
    return 0;
  }
  if (positionals[0] === "help" && positionals.length > 1) {
    // `help run` is the whole text, as `run --help` is; a topic that is no command was printed it too.
    const topic = positionals[1];
    const topics = [...Object.keys(COMMANDS), "help", "version"];
    if (positionals.length > 2 || !topics.includes(topic)) {
      return usageError(`help takes a command name (${topics.join(", ")}), got '${positionals.slice(1).join(" ")}'` +
        didYouMean(topic, topics), undefined);
    }
  }
  if (values.help || positionals[0] === "help") {
    out(USAGE);
    return 0;
  }
  if (positionals.length === 0) return usageError("no command given", undefined);
  const [command, file, ...rest] = positionals;
  const run = COMMANDS[command];
  if (!run) return usageError(`unknown command '${command}'${didYouMean(command, [...Object.keys(COMMANDS), "help", "version"])}`, undefined);
  if (!file || rest.length > 0) return usageError(`${command} takes exactly one FILE (.sw source or .swb bundle)`, command);
  /** Where the spans of run-time errors point: FILE's text, or the source a bundle carries. */
  let spansIn: { file: string; bytes: Uint8Array } | undefined;
  let shrew: Shrew | undefined;  // renders their excerpt, as the compiler renders a diagnostic's
  const fileDtypes = new Map<string, string>();
  try {
    checkCommandOptions(command, tokens);
    // The whole command line is checked before any file is read or anything
    // compiled: a usage error is exit status 2 at once, whatever the files hold.
    let dims = parseDims(values.dims ?? []);
    // No --seed: none is passed, so the program's @config seed (else 0) applies
    // (OPS.md §5); passing 0 here overrode it.
    const givenSeed = values.seed === undefined ? undefined : seedOption(values.seed);
    executorOption(values.executor);
    runsOption(values.runs);
    const outKind = command === "build" ? "file" : "directory";
    if (values.out === "") throw new UsageError(`--out expects a ${outKind}, got ''`);
    if (values.out === STDIN) throw new UsageError(`--out expects a ${outKind}; standard output (-) is not one`);
    if (values.params === "") throw new UsageError("--params expects a file, got ''");
    // The default path too: `build m.sw --params m.swb` replaced the only copy of the parameters.
    if (command === "build" && values.params !== undefined && values.params !== STDIN &&
        sameFile(buildTarget(file, values.out), values.params)) {
      throw new UsageError(values.out === undefined
        ? `${buildTarget(file, undefined)} (the bundle's default path, next to the source) is the --params file: build would overwrite it; give --out`
        : `--out ${values.out} is the --params file: build would overwrite it`);
    }
    // Standard input ends once read: a second '-' would read nothing.
    const stdinUsers = [file === STDIN ? "FILE" : "", values.params === STDIN ? "--params" : "",
      ...[...parseInputSpecs(values.input ?? [])].map(([name, spec]) => (spec.kind === "npy" && spec.path === STDIN ? `--input ${name}` : ""))]
      .filter(Boolean);
    if (stdinUsers.length > 1) throw new UsageError(`standard input (-) can be read once, but ${stdinUsers.join(" and ")} name it`);
    if (file === STDIN && command === "build" && values.out === undefined) {
      throw new UsageError("build - (a source on standard input) needs --out FILE.swb");
    }
    // Bytes as they are: decoding would shift columns after an invalid byte.
    const source = readBytes(file, undefined,
      (head) => (isBundle(head) ? BLOB_LIMIT : startsWith(head, PARAMS_MAGIC) ? PARAMS_AS_FILE : SOURCE_LIMIT));
    const bundled = isBundle(source);
    if (!bundled) spansIn = { file, bytes: source };
    if (bundled && command === "build") throw new UsageError(`${file} is a bundle already; build takes a .sw source`);
    if (bundled && command === "dump" && values.ir) {
      throw new UsageError(`${file} is a bundle, which holds the optimised IR only: dump it with --optimized-ir`);
    }
    if (bundled && Object.keys(dims).length > 0) {
      throw new UsageError(`${file} is a bundle, whose dims were fixed when it was built; --dims applies to a .sw source`);
    }
    const params = values.params === undefined ? undefined
      : readBytes(values.params, "--params",
        (head) => (startsWith(head, PARAMS_MAGIC) ? BLOB_LIMIT : isBundle(head) ? BUNDLE_AS_PARAMS : NOT_PARAMS));
    const loaded = await Shrew.load();
    shrew = loaded;
    const t0 = performance.now();
    let program: Program;
    const paramsName = `${values.params} (--params)`;
    if (bundled) {
      program = naming(file, () => loaded.loadBundle(source));
      try {
        if (params) naming(paramsName, () => program.loadParams(params));
      } catch (e) {
        program.dispose();
        throw e;
      }
      dims = { ...program.dims };
      // Its parameters were drawn (or loaded) when it was built: --seed draws
      // the random inputs only, which it said nothing of.
      if (givenSeed !== undefined) {
        const whose = params ? "the --params file's" : `those it was built with (seed ${program.seedBigInt})`;
        err(`note: ${file} is a bundle, whose parameters --seed does not change (they are ${whose}); ` +
            `--seed ${givenSeed} draws only the random inputs, if any`);
      }
    } else {
      program = naming(paramsName, () => loaded.compile(source, { filename: file, dims, ...(givenSeed !== undefined ? { seed: givenSeed } : {}),
                                                               ...(params ? { params } : {}) }));
    }
    const compileMs = performance.now() - t0;
    // Every command that compiles says what the compiler warns about (a
    // config key used before its definition, an ignored @import), not check
    // alone: `run` of such a source printed nothing. stdout keeps the result.
    for (const w of program.warnings) err(w.rendered.trimEnd());
    try {
      const graph = graphFor(command, file, program, values.graph);
      // Generated inputs take the same seed as the parameters: --seed, else the
      // program's effective one (@config, or the bundle's).
      const seed = givenSeed ?? program.seedBigInt;
      return run({ file, values, program, graph, dims, seed, compileMs, out: (s) => out(printable(s, Infinity)),
                   json: (s) => out(printableJson(s)), err, fileDtypes });
    } catch (e) {
      // A bundle carries its source (src/api/bundle.h): a failure at a place
      // in it is shown there, as for a .sw file, under the name it was built from.
      if (bundled && e instanceof ShrewRuntimeError && e.span) {
        const s = program.source();
        if (s !== undefined) spansIn = { file: s.filename || "<input>", bytes: s.bytes };
      }
      throw e;
    } finally {
      program.dispose();
    }
  } catch (e) {
    if (e instanceof ShrewCompileError) {
      for (const d of e.diagnostics) err(d.rendered.trimEnd());
      const n = e.diagnostics.filter((d) => d.severity === "error").length;
      err(`${file}: ${n} error${n === 1 ? "" : "s"}`);
      return 1;
    }
    if (e instanceof UsageError) {
      err(`Error: ${e.message}`);
      return 2;
    }
    if (e instanceof ShrewRuntimeError || e instanceof NpyError || e instanceof FileError) {
      err(`Error: ${e.message}`);
      // A failure at a place in the source shows it, unless the message
      // shows it already (a setup error).
      const span = e instanceof ShrewRuntimeError && !e.message.includes("\n") ? e.span : undefined;
      const excerpt = span && spansIn && shrew ? shrew.excerpt(spansIn.bytes, span) : undefined;
      if (excerpt !== undefined) err(`  --> ${spansIn!.file}:${span!.line}:${span!.column}\n${excerpt.trimEnd()}`);
      if (e instanceof ShrewRuntimeError) {
        const hint = npyDtypeHint(e, values.input ?? [], fileDtypes);
        if (hint) err(hint);
      }
      return 1;
    }
    if (e instanceof RangeError) {
      // A limit of JS itself (a shape of more than 2^53 - 1 elements, a string
      // or array too long, an allocation that failed): one line, as a run error.
      err(`Error: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

function isMainModule(): boolean {
  if (process.argv[1] === undefined) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
/**
 * `main` on the command line, stdout watched: console.log drops write errors,
 * so output lost to a full disk (ENOSPC) or an I/O error exited 0. EPIPE (the
 * reader stopped early, as `| head -1` does) is not a failure.
 */
async function mainWithStdout(argv: string[]): Promise<number> {
  let failed: NodeJS.ErrnoException | undefined;
  process.stdout.on("error", (e) => { failed ??= e; });
  // Writes finish in order: once the last one's callback ran, all are done (or failed).
  let written = Promise.resolve();
  const code = await main(argv, (s) => {
    if (!failed) written = new Promise((done) => process.stdout.write(`${s}\n`, () => done()));
  });
  await written;
  if (failed === undefined || failed.code === "EPIPE") return code;
  console.error(`Error: cannot write to stdout: ${failed.message}`);
  return 1;
}

const isMain = isMainModule();
if (isMain) process.exitCode = await mainWithStdout(process.argv.slice(2));
