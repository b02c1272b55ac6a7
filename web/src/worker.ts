// The compile/run worker: owns the wasm module and the one live Program, so
// compiling and running never block the page. Each compile disposes the
// previous program first; the wasm file is a Vite asset (`?url`), fetched
// by URL, so the built site works from any static host.
import { Shrew, ShrewCompileError, ShrewRuntimeError, type Diagnostic, type Program, type Signature, type TapeDump, type Tensor } from "../../js/dist/shrew.min.js";
import wasmUrl from "../../js/dist/wasm/shrew.wasm?url";
import { makeInputs, tensorForPage } from "./inputs.js";
import { own, record, recordOf } from "./own.js";
import { PROFILE_TOP, type CompileRequest, type CompiledViews, type GraphReport, type IrGraph, type OutputTensor, type PlanDump, type Request, type Response, type RunProfile, type RunRequest } from "./protocol.js";

let shrew: Shrew | undefined;
let program: Program | undefined;
let programDims: Record<string, number> = {};
/** Graphs whose tape, plan and stats can change with the inputs of a run: each run sends them anew. */
let perRunGraphs = new Set<string>();
// Of the other graphs, those a run may plan anew (see report), the plan last
// shown (viewsKey): a graph whose shapes depend on computed values
// (`range(n + 1)`), or on dims each run binds, changes its views with each
// run (see run).
const shownPlans = new Map<string, string>();
// Per graph compiled per input types: the inputs its shown compile loads (loadedInputs).
const shownLoads = new Map<string, string>();
/** The compile that made `program`: repeated on a fresh module after an abort. */
let lastCompile: CompileRequest | undefined;

const post = (r: Response, transfer: Transferable[] = []) => (self as unknown as Worker).postMessage(r, transfer);

async function runtime(): Promise<Shrew> {
  if (!shrew || shrew.aborted) shrew = await Shrew.load({ wasmUrl: new URL(wasmUrl, self.location.href) });
  return shrew;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Why a compile failed, in one line: a compile error's first error in its
 * own words, with its code and line (the message's first line is the
 * rendered header, `playground.sw:3:3: error[E105]: …`, a file name the user
 * never chose); another error's first line.
 */
function firstError(e: unknown): string {
  const d = e instanceof ShrewCompileError ? e.diagnostics.find((x) => x.severity === "error") : undefined;
  return d ? `${d.message} (${d.code}, line ${d.line})` : message(e).split("\n")[0];
}

/**
 * What the diagnostics list names a run-time error by, in place of a compile
 * error's E-code: its kind, not the status code name (`failed_precondition`
 * meant nothing to a user). `when` is what failed: a "run", or the "build"
 * of the executors after the compile.
 */
function errorKind(e: ShrewRuntimeError, when: "run" | "build"): string {
  if (e.code === "resource_exhausted") return "limit";
  // A false @assert, or one its bound values leave without a value (a division by zero).
  if (e.code === "failed_precondition" && /: assertion (failed|cannot be evaluated)\b/.test(e.message)) return "assertion";
  return `${when} error`;
}

/**
 * A run-time error about a place in the source (a parameter too large, a
 * node whose shapes fail, an `@assert`) as a diagnostic the editor can mark;
 * [] for any other error. `prefix` starts its message (what was running).
 */
function spanDiagnostics(e: unknown, when: "run" | "build", prefix = ""): Diagnostic[] {
  if (!(e instanceof ShrewRuntimeError) || !e.span) return [];
  const { line, column, length, offset } = e.span;
  return [{ code: errorKind(e, when), severity: "error", message: prefix + e.message.split("\n")[0], line, column, length, offset, rendered: e.message }];
}

/**
 * Symbolic dims of the graph inputs that this compile left unbound, each
 * with the requested value (default 4). Bound ones show as numbers in the
 * signature: they are in `Program.dims`.
 */
function unboundDims(p: Program, requested: Readonly<Record<string, number>>, config: Readonly<Record<string, unknown>>): Record<string, number> {
  // Own properties only, and no prototype: a dim may be named constructor or __proto__.
  const dims = record<number>();
  for (const g of p.graphs) {
    for (const i of p.signature(g).inputs) {
      for (const d of i.shape ?? []) {
        if (typeof d === "string" && !Object.hasOwn(config, d)) dims[d] = own(requested, d) ?? 4;
      }
    }
  }
  return dims;
}

/** Inputs of unknown type (`input x: ?`): the graph is compiled for the tensors it runs with. */
function unknownInputs(sig: Signature): string[] {
  return sig.inputs.filter((i) => i.dtype === null || i.shape === null).map((i) => i.name);
}

/** The tape, plan and stats of the graph's current compile; undefined while it has none (not run yet). */
function compiledViews(p: Program, graph: string): CompiledViews | undefined {
  try {
    return { tape: p.tape(graph), stats: p.stats(graph), plan: JSON.parse(p.plan(graph)) as PlanDump };
  } catch (e) {
    if (e instanceof ShrewRuntimeError && e.code === "failed_precondition") return undefined;
    throw e;
  }
}

/** "the inputs of the last successful run (x: f32[2, 3])", what views made by a run show. */
function lastRunFor(inputs: readonly OutputTensor[]): string {
  const listed = inputs.map((i) => `${i.name}: ${i.dtype}[${i.shape.join(", ")}]`).join(", ");
  return listed === "" ? "the last successful run" : `the inputs of the last successful run (${listed})`;
}

/** What a run that plans the graph anew changes in its views: each instruction's shape, and the plan. */
function viewsKey(v: CompiledViews): string {
  return JSON.stringify([v.tape.instructions.map((i) => i.shape), v.plan]);
}

/** The inputs a tape loads, as " (x: f32[3, 4], y: i32[2])"; "" when it loads none. */
function loadedInputs(tape: TapeDump): string {
  const loaded = tape.instructions.filter((i) => i.opcode === "load_input")
    .map((i) => `${i.node.name}: ${i.dtype}[${(i.shape ?? []).join(", ")}]`);
  return loaded.length > 0 ? ` (${loaded.join(", ")})` : "";
}

/** The warm-up runs of one compile: whether they are wanted, their time so far, and what to do before each. */
interface WarmUp {
  readonly wanted: boolean;
  ms?: number;
  before(): void;
}

/** Why a warm-up run failed: the error, and the place in the source it is about (marked as a Run's failure is). */
interface WarmUpFailure {
  message: string;
  diagnostic?: Diagnostic;
}

/**
 * One warm-up run binds the symbolic dims, so the tape, plan and stats show real sizes; its
 * failure, if it failed. Not for inputs of unknown type: any dtype and shape would be a guess,
 * and the views would show a compile the user never asked for.
 */
function warmUpRun(p: Program, graph: string, seed: bigint, warmUp: WarmUp): WarmUpFailure | undefined {
  const signature = p.signature(graph);
  if (unknownInputs(signature).length > 0 || !warmUp.wanted) return undefined;
  warmUp.before();
  const t0 = performance.now();
  try {
    p.run(graph, makeInputs(signature, {}, programDims, seed));
    return undefined;
  } catch (e) {
    // Said in the message too: the user ran nothing, so the mark says what did.
    const [diagnostic] = spanDiagnostics(e, "run", "warm-up run with random inputs: ");
    return { message: message(e), ...(diagnostic && { diagnostic }) };
  } finally {
    warmUp.ms = (warmUp.ms ?? 0) + performance.now() - t0;
  }
}

/** What the page shows of one graph, after every graph's warm-up run (`failed`: its own's failure). */
function report(p: Program, graph: string, failed: WarmUpFailure | undefined, warmUp: WarmUp): GraphReport {
  const bindError = failed?.message;
  const signature = p.signature(graph);
  const unknown = unknownInputs(signature);
  // A graph of `?` inputs already compiled is one a typed graph calls: compiling or running
  // that caller compiled the callee for the call's operands. Its loaded inputs say which.
  const compiled = compiledViews(p, graph);
  const views = compiled && unknown.length > 0
    ? { ...compiled, compiledFor: `a call from another graph${loadedInputs(compiled.tape)}` } : compiled;
  // Any `?` in an input's type: a run with other sizes or dtypes compiles anew.
  if (!views || signature.inputs.some((i) => i.dtype === null || i.shape === null || i.shape.includes(null))) perRunGraphs.add(graph);
  if (compiled) shownLoads.set(graph, loadedInputs(compiled.tape));
  const irAfter = p.ir(graph, { optimized: true }).json as IrGraph;
  // Only these can be planned anew by a run: shapes computed from values
  // (range, or a call of a graph that may compute them), or dims each run
  // binds. Keying the views costs a tape and a plan (33 ms for 3,600
  // instructions), which other graphs' runs need not pay.
  if (signature.inputs.some((i) => i.shape?.some((d) => typeof d === "string")) ||
      irAfter.nodes.some((n) => n.op === "range" || n.op === "call")) {
    shownPlans.set(graph, compiled ? viewsKey(compiled) : "");
  }
  const list = (names: string[]) => names.map((n) => `'${n}'`).join(", ");
  const pending = views ? undefined : unknown.length > 0
    ? `The tape, memory plan and compile stats of ${graph} appear after its first run: ` +
      `${unknown.length > 1 ? `inputs ${list(unknown)} have` : `input ${list(unknown)} has`} an unknown type (?), ` +
      "so the graph is compiled for the dtype and shape of the tensors it runs with. Choose them in the Run tab and press Run."
    : `The tape, memory plan and compile stats of ${graph} appear after its first run: it is compiled for the tensors it runs with` +
      (bindError ? `, and the warm-up run failed: ${bindError}`
        : warmUp.wanted ? "." : ", and the warm-up run that shows them at once is off for this source: Stop ended one that ran too long (an edit turns it on again).");
  return {
    name: graph,
    signature,
    ...views,
    irBefore: p.ir(graph, { optimized: false }).json as IrGraph,
    irAfter,
    bindError,
    bindDiagnostic: failed?.diagnostic,
    pending,
  };
}

/**
 * The seed to compile with: none when the user chose none, so that the
 * program's `@config { seed: N; }` applies (OPS.md §5), as in `shrew run`
 * without --seed; passing 0 overrode it.
 */
function seedOption(req: CompileRequest): { seed?: bigint } {
  return req.seed === null ? {} : { seed: req.seed };
}

/**
 * Compiles with the dims of the previous source. When they do not fit this
 * one (compile rejects a dim it does not use), without them: the symbolic
 * dims are then found and bound by a second compile. When binding them
 * makes the program invalid though it is valid without (a graph calls one
 * with a symbolic dim at a size of its own: `A(q)` with q [2, 3] where A
 * takes [R, 3] contradicts R = 4 for the whole program), also without
 * them, and `unbindable` says why: they stay symbolic, and each run binds
 * them from its input shapes, which the dim fields size. `configured` (dims
 * only the configuration can set, see compileConfigured) go to every compile.
 */
function compileFirst(s: Shrew, req: CompileRequest, configured: Readonly<Record<string, number>>): { p: Program; unbindable?: string } {
  try {
    return { p: s.compile(req.source, { filename: "playground.sw", ...seedOption(req), dims: recordOf([...Object.entries(req.dims), ...Object.entries(configured)]) }) };
  } catch (e) {
    if (Object.keys(req.dims).length === 0) throw e;
    const unused = e instanceof ShrewRuntimeError && e.code === "invalid_argument";
    if (!unused && !(e instanceof ShrewCompileError)) throw e;
    let p: Program;
    try {
      p = s.compile(req.source, { filename: "playground.sw", ...seedOption(req), dims: configured });
    } catch (plain) {
      throw unused ? plain : e;  // invalid either way: the error of the compile asked for
    }
    return unused ? { p } : { p, unbindable: firstError(e) };
  }
}

/**
 * The dim of "unresolved symbolic dimension 'H'" (a parameter sized by a dim
 * no input binds, or the model dim of an implicit one): only the dims option
 * or @config sets it. Undefined for any other error, or for a dim
 * `configured` already sets (so that a retry cannot loop).
 */
function configOnlyDim(e: unknown, configured: Readonly<Record<string, number>>): string | undefined {
  if (!(e instanceof ShrewCompileError || e instanceof ShrewRuntimeError)) return undefined;
  const name = /unresolved symbolic dimension '([^']+)'/.exec(e.message)?.[1];
  return name !== undefined && !Object.hasOwn(configured, name) ? name : undefined;
}

/**
 * compileFirst, with every dim that only the configuration can set bound
 * like an input's (the size asked for, else 4), also when the other dims
 * asked for are dropped, so that it gets a field as they do: the program
 * failed to compile and offered no way to size it but editing the source.
 */
function compileConfigured(s: Shrew, req: CompileRequest): { p: Program; unbindable?: string } {
  let configured = record<number>();
  for (;;) {
    try {
      return compileFirst(s, req, configured);
    } catch (e) {
      const name = configOnlyDim(e, configured);
      if (name === undefined) throw e;
      configured = recordOf([...Object.entries(configured), [name, own(req.dims, name) ?? 4] as const]);
    }
  }
}

async function compile(req: CompileRequest): Promise<void> {
  lastCompile = req;
  const s = await runtime();
  program?.dispose();
  program = undefined;
  const t0 = performance.now();
  let p: Program, dims: Record<string, number>, compileMs: number;
  let unbindable: string | undefined;  // why the symbolic dims left are bound by each run, not the compile
  try {
    const first = compileConfigured(s, req);
    p = first.p;
    unbindable = first.unbindable;
    compileMs = performance.now() - t0;
    // The requested dims the source uses are bound now; any it left symbolic
    // are bound by a second compile. (A bound dim no longer shows in the
    // signature, so it is taken from p.dims, not found again.)
    const unbound = unboundDims(p, req.dims, p.metadata.config);
    const bound = { ...p.dims };
    dims = { ...bound, ...unbound };
    if (Object.keys(unbound).length > 0 && unbindable === undefined) {
      p.dispose();  // first: two large programs need not fit in memory at once
      const t1 = performance.now();
      try {
        p = s.compile(req.source, { filename: "playground.sw", ...seedOption(req), dims });
      } catch (e) {
        // Valid unbound, invalid bound (see compileFirst): left symbolic, bound by each run.
        if (!(e instanceof ShrewCompileError)) throw e;
        unbindable = firstError(e);
        p = s.compile(req.source, { filename: "playground.sw", ...seedOption(req), dims: bound });
      }
      compileMs = performance.now() - t1;
    }
  } catch (e) {
    compileMs = performance.now() - t0;
    if (e instanceof ShrewCompileError) {
      post({ type: "compiled", id: req.id, ok: false, compileMs, stage: e.stage, diagnostics: [...e.diagnostics], message: e.message });
    } else {
      post({ type: "compiled", id: req.id, ok: false, compileMs, stage: "build", diagnostics: spanDiagnostics(e, "build"), message: message(e) });
    }
    return;
  }
  if (p.graphs.length === 0) {
    // Nothing to show or run: an error, as for `shrew run` (`shrew check` says "ok (no graphs)").
    p.dispose();
    post({ type: "compiled", id: req.id, ok: false, compileMs, stage: "build", diagnostics: [],
           message: "this program declares no @graph: there is nothing to compile or run" });
    return;
  }
  program = p;
  programDims = dims;
  perRunGraphs = new Set();
  shownLoads.clear();
  shownPlans.clear();
  // The page is told when the first warm-up starts: a Stop from then on ends a warm-up, not the compile.
  const warmUp: WarmUp = { wanted: req.warmUp, before: () => warmUp.ms === undefined && post({ type: "warming", id: req.id }) };
  // Random inputs take the parameters' seed, as `shrew run` does; exactly
  // (`seed`, a number, throws past 2^53 - 1: @config's seed -1 is 2^64 - 1).
  // Every warm-up first: a typed caller's run compiles the `?` graphs it calls, whose views
  // then show that compile whether they are declared before or after it.
  const failures = p.graphs.map((g) => warmUpRun(p, g, p.seedBigInt, warmUp));
  const graphs = p.graphs.map((g, i) => report(p, g, failures[i], warmUp));
  // The dims that stayed symbolic (see compileFirst): the Run tab's inputs are made at their sizes.
  const runDims = unbindable === undefined ? undefined
    : { names: Object.keys(unboundDims(p, dims, p.metadata.config)), reason: unbindable };
  post({ type: "compiled", id: req.id, ok: true, compileMs, warmUpMs: warmUp.ms, clockMs: CLOCK_MS, graphs, optStats: p.optStats, warnings: [...p.warnings], dims, runDims, seed: p.seedBigInt,
        model: own(p.metadata.model, "name"),
        heap: s.heapStats() });
}

/** The longest the warm-up and timed runs of one Run take, both executors together. */
const TIMING_BUDGET_MS = 3000;

/**
 * The step of performance.now() in this worker: browsers coarsen it (to
 * 0.1 ms without cross-origin isolation, 5 µs with it). Times are shown no
 * finer than it, and a timed batch under 20 steps is rough. The smallest of
 * ten steps, watched for at most 50 ms: a step that the thread was paused
 * across is longer, and a worker starting on a busy machine is paused often.
 */
function clockStep(): number {
  let step = Infinity, seen = 0, last = performance.now();
  const end = last + 50;
  while (seen < 10) {
    const t = performance.now();
    if (t !== last) {
      step = Math.min(step, t - last);
      last = t;
      seen++;
    }
    if (t > end) break;
  }
  return Number.isFinite(step) ? step : 5;
}
const CLOCK_MS = clockStep();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Times at least n calls, and more until the batch spans 20 steps of the
 * clock: five runs of a 3 µs graph read as 0 or 0.1 ms on a 0.1 ms clock,
 * and the JIT and the interpreter came out alike. Stops after the call that
 * passes the deadline. [milliseconds, calls made]
 */
function batch(fn: () => void, n: number, deadline: number): [number, number] {
  const t = performance.now();
  const long = 20 * CLOCK_MS;
  let calls = 0, now = t;
  while (calls < n || now - t < long) {
    fn();
    calls++;
    now = performance.now();
    if (now > deadline) break;
  }
  return [now - t, calls];
}

/** How long each executor runs untimed before its timed batches: at least, at most. */
const WARM_UP_MIN_MS = 100, WARM_UP_MAX_MS = 500;

/**
 * Calls fn until its time per call stops improving: batches of 20 clock
 * steps, for 100 ms and then until three running are no faster than 0.95×
 * the best before them (the engine optimises in the background, and a
 * busy machine delays it), for at most 500 ms and not past the deadline.
 */
function warm(fn: () => void, deadline: number): void {
  const start = performance.now();
  const end = Math.min(start + WARM_UP_MAX_MS, deadline);
  let best = Infinity, flat = 0;
  while ((flat < 3 || performance.now() < start + WARM_UP_MIN_MS) && performance.now() < end) {
    const [ms, calls] = batch(fn, 1, end);
    if (ms / calls < 0.95 * best) {
      best = ms / calls;
      flat = 0;
    } else {
      flat++;
    }
  }
}

/**
 * Per-kernel times of the graph, in what the timing left of its budget
 * (a timed run and an untimed one each): enough runs for the clock's steps
 * to average out (a kernel's mean over runs; 1,000 steps of the clock in
 * all), at least 10, at most 10,000; undefined when fewer than 10 fit.
 */
function profileRun(p: Program, graph: string, feeds: Record<string, Tensor>, jitMs: number, deadline: number): RunProfile | undefined {
  const left = deadline - performance.now();
  const perRun = Math.max(jitMs, 1e-3);
  const fit = Math.floor(left / (2.5 * perRun));
  const runs = Math.min(10000, fit, Math.max(10, Math.ceil((1000 * CLOCK_MS) / perRun)));
  // No timing round ran (the warm-ups took the budget: jitMs is NaN), or too little is left.
  if (!Number.isFinite(runs) || runs < 10) return undefined;
  let prof: import("../../js/dist/shrew.min.js").Profile;
  try {
    prof = p.profile(graph, feeds, { runs, warmup: 0 });
  } catch {
    return undefined;  // e.g. a long tape allows fewer runs (2^22 kernel times): the Run tab shows the rest
  }
  const ms = (ns: number) => ns / 1e6;
  const top = [...prof.instructions].sort((a, b) => b.ns - a.ns || a.index - b.index).slice(0, PROFILE_TOP);
  return {
    runs, kernelsMs: ms(prof.kernelsNs),
    ops: prof.ops.map((o) => ({ op: o.op, count: o.count, ms: ms(o.ns), share: o.share })),
    top: top.map((i) => ({ index: i.index, op: i.op, node: i.node, shape: i.shape === null ? "" : `${i.dtype}[${i.shape.join(", ")}]`,
                           ms: ms(i.ns), share: i.share, line: i.span.line })),
  };
}

function run(req: RunRequest): void {
  const p = program;
  if (!p) throw new Error("the source does not compile: fix the errors first");
  const sig = p.signature(req.graph);
  const feeds = makeInputs(sig, req.inputs, programDims, req.seed);
  const runs = Math.max(1, Math.min(10000, Math.floor(req.runs)));
  const jitOut = p.run(req.graph, feeds);
  const interpOut = p.interpret(req.graph, feeds);
  // Browsers coarsen performance.now() (CLOCK_MS), so runs are timed in
  // batches that span 20 steps of it (more runs than asked for a fast graph):
  // up to 5 rounds, each a JIT batch then an interpreter batch (interleaved,
  // so a busy machine slows both alike); the time per run is the median over rounds.
  // Timing stops at a deadline too: a slow graph (a 512 x 512 matmul takes
  // the interpreter 0.5 s) would otherwise hold the worker for minutes,
  // and every edit's compile waits behind it.
  const deadline = performance.now() + TIMING_BUDGET_MS;
  // Untimed first: the engine runs new code unoptimised at first (JS and
  // wasm alike), and a small graph's timed batches ended before it was
  // optimised (the MLP example's tape read 21 µs a run, steady it is 2-4 µs).
  warm(() => p.run(req.graph, feeds), deadline);
  warm(() => p.interpret(req.graph, feeds), deadline);
  const rounds = Math.min(5, runs);
  const jitTimes: number[] = [], interpTimes: number[] = [];
  let shortestBatchMs = Infinity, jitRuns = 0, interpRuns = 0;
  for (let r = 0; r < rounds && performance.now() < deadline; r++) {
    const n = Math.floor(runs / rounds) + (r < runs % rounds ? 1 : 0);
    const [jitBatchMs, jitN] = batch(() => p.run(req.graph, feeds), n, deadline);
    shortestBatchMs = Math.min(shortestBatchMs, jitBatchMs);
    jitTimes.push(jitBatchMs / jitN);
    jitRuns += jitN;
    const [interpBatchMs, interpN] = batch(() => p.interpret(req.graph, feeds), n, deadline);
    interpTimes.push(interpBatchMs / interpN);
    interpRuns += interpN;
  }
  const jitMs = median(jitTimes), interpMs = median(interpTimes);
  const list = (o: Record<string, import("../../js/dist/shrew.min.js").Tensor>): OutputTensor[] =>
    Object.entries(o).map(([name, t]) => tensorForPage(name, t));
  // The page shows the JIT's outputs; the interpreter's are only compared here.
  const jit = list(jitOut), interp = list(interpOut);
  let maxAbsDiff = 0;
  for (const o of jit) {
    const r = interp.find((x) => x.name === o.name);
    if (!r) continue;
    for (let i = 0; i < o.data.length; i++) {
      const d = Math.abs(o.data[i] - r.data[i]);
      if (d > maxAbsDiff || Number.isNaN(d)) maxAbsDiff = Number.isNaN(d) ? maxAbsDiff : d;
    }
  }
  const profile = profileRun(p, req.graph, feeds, jitMs, deadline);
  const inputs = sig.inputs.filter((i) => feeds[i.name]).map((i) => tensorForPage(i.name, feeds[i.name]));  // left-out ones not
  // A graph compiled per input types now holds this run's compile: the page
  // shows it; and so does each such graph this run's calls compiled anew
  // (its Tape tab still showed the compile of its own last run).
  const views = record<CompiledViews>();
  for (const g of perRunGraphs) {
    const compiled = compiledViews(p, g);
    if (!compiled) continue;
    if (g === req.graph) {
      views[g] = { ...compiled, compiledFor: lastRunFor(inputs) };
    } else if (loadedInputs(compiled.tape) !== shownLoads.get(g)) {
      views[g] = { ...compiled, compiledFor: `a call from another graph${loadedInputs(compiled.tape)}` };
    }
    shownLoads.set(g, loadedInputs(compiled.tape));
  }
  // A typed graph planned per run (shapes computed from values, or dims its
  // runs bind): its views showed the warm-up's plan (or none, when the
  // warm-up failed), not this run's. Sent when its shapes or plan changed.
  if (!perRunGraphs.has(req.graph) && shownPlans.has(req.graph)) {
    const compiled = compiledViews(p, req.graph);
    const key = compiled ? viewsKey(compiled) : "";
    if (compiled && key !== shownPlans.get(req.graph)) {
      views[req.graph] = { ...compiled, compiledFor: lastRunFor(inputs) };
    }
    shownPlans.set(req.graph, key);
  }
  post({ type: "ran", id: req.id, ok: true, inputs, jit, jitMs, interpMs, runs, jitRuns, interpRuns, maxAbsDiff,
        coarse: shortestBatchMs < 20 * CLOCK_MS, clockMs: CLOCK_MS, views, ...(profile && { profile }) },
       [...jit, ...inputs].flatMap((o) => (o.exact ? [o.data.buffer, o.exact.buffer] : [o.data.buffer])));
}

/** The current program as a bundle; its bytes are transferred, not copied. */
function bundle(id: number): void {
  if (!program) {
    post({ type: "bundled", id, ok: false, message: "nothing is compiled" });
    return;
  }
  const bytes = program.saveBundle();
  post({ type: "bundled", id, ok: true, bytes }, [bytes.buffer]);
}

self.onmessage = async (ev: MessageEvent<Request>) => {
  const req = ev.data;
  try {
    if (req.type === "compile") await compile(req);
    else if (req.type === "bundle") bundle(req.id);
    else run(req);
  } catch (e) {
    if (req.type === "compile") {
      post({ type: "compiled", id: req.id, ok: false, compileMs: 0, stage: "runtime", diagnostics: [], message: message(e) });
    } else if (req.type === "bundle") {
      post({ type: "bundled", id: req.id, ok: false, message: message(e) });
    } else if (shrew?.aborted && lastCompile) {
      // A wasm abort leaves the module and the program unusable (every later
      // Run failed until an edit): load a new module and compile the same
      // source again, so the next Run works. Its answer has an id nobody waits for.
      const reason = message(e);
      program = undefined;
      await compile(lastCompile).catch(() => {});  // a module that does not load: the next compile says so
      post({ type: "ran", id: req.id, ok: false,
             message: `${reason}\nThe runtime was reloaded and the program compiled again: Run works again.` });
    } else {
      const [diagnostic] = spanDiagnostics(e, "run");
      post({ type: "ran", id: req.id, ok: false, message: message(e), ...(diagnostic && { diagnostic }) });
    }
  }
};

runtime().then(() => post({ type: "ready" }), (e) => post({ type: "fatal", message: message(e) }));
