// The runner (adapter) interface every runtime implements. The harness
// (bench/run.mjs) only talks to runtimes through it.
//
//   const info = await runner.init();            // once per process; may throw → runtime skipped
//   const session = await runner.createSession(cell);   // once per (workload, batch) cell
//   const y = await session.run(x);              // per timed call: Float32Array in → Float32Array out
//   session.dispose();
//
// In-process runners are timed call by call, interleaved with the other
// runtimes. An out-of-process runner (Shrew native) implements `measure()`
// instead and reports its own timings.

/**
 * One benchmark cell: a workload at one batch size, with everything a runtime
 * needs to build it. `weights` use the .sw param names and shapes.
 * @typedef {Object} Cell
 * @property {import("../workloads/workload.mjs").Workload} workload
 * @property {number} batch
 * @property {number[]} inputShape
 * @property {number[]} outputShape
 * @property {Float32Array} input        the deterministic input for this cell
 * @property {import("../workloads/workload.mjs").NamedTensor[]} weights
 */

/**
 * @typedef {Object} MemoryInfo
 * @property {number} bytes
 * @property {string} kind   what was measured, e.g. "tensor peak (tf.profile)", "arena (memory plan)"
 */

/**
 * @typedef {Object} Session
 * @property {(x: Float32Array) => Promise<Float32Array> | Float32Array} run
 *   One inference through the library's public API as a user would call it:
 *   wraps `x` (shape cell.inputShape), runs, and returns the output's data
 *   (shape cell.outputShape). Must not keep per-call garbage alive.
 * @property {() => (MemoryInfo | null) | Promise<MemoryInfo | null>} [memory]
 *   Model memory if the library can report it (called after the first result).
 * @property {() => (object | null) | Promise<object | null>} [extra]
 *   Facts of this runtime for the report's row (`row.extra` in latest.json;
 *   Shrew's JIT: tape length, in-wasm ns per run), called after the timed runs.
 * @property {() => void | Promise<void>} dispose
 */

/**
 * Result of an out-of-process measurement (see shrew-native.mjs).
 * @typedef {Object} ExternalMeasurement
 * @property {number[]} timesUs        per-call latencies of the timed runs
 * @property {number} warmupCalls
 * @property {number} warmupMs
 * @property {number} sessionMs        create → first result
 * @property {Float32Array} output     the output for cell.input
 * @property {MemoryInfo | null} [memory]
 */

/**
 * @typedef {Object} RunnerInfo
 * @property {string} version          library version
 * @property {string} detail           e.g. which .wasm was loaded, thread count
 * @property {number} initMs           time to load/instantiate the runtime
 */

/**
 * @typedef {Object} Runner
 * @property {string} id                "ort" | "tfjs" | "shrew-jit" | "shrew-interp" | "shrew-native"
 * @property {string} label             column label in the report
 * @property {boolean} peer             true for the libraries Shrew is compared against
 * @property {number} [minRunsIfSlow]    a reference row may stop at this many timed runs when a call takes > 100 ms
 * @property {() => Promise<RunnerInfo>} init
 *   Loads the runtime. Throw `new SkipRunner(reason)` when it cannot run here
 *   (not built yet, API missing); the report then lists it as skipped.
 * @property {(cell: Cell) => Promise<Session>} [createSession]   in-process runners
 * @property {(cell: Cell, opts: MeasureOptions) => Promise<ExternalMeasurement>} [measure]
 *   out-of-process runners
 */

/**
 * @typedef {Object} MeasureOptions
 * @property {number} warmupMinMs
 * @property {number} warmupMaxMs
 * @property {number} minRuns
 * @property {number} minTimeMs
 * @property {number} maxTimeMs      stop timing after this even with fewer than minRuns
 */

/** Thrown by `Runner.init()` when a runtime is not available; not an error. */
export class SkipRunner extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(reason);
    this.name = "SkipRunner";
  }
}
