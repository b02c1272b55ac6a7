// Memory probe, run by bench/run.mjs in a fresh process per (runtime, cell):
//   node bench/probe-memory.mjs RUNTIME WORKLOAD BATCH
// Prints JSON: wasm linear memory after runtime init, after create + first
// result (linear memory never shrinks, so this is the high-water mark), and
// what the runtime itself reports (Session.memory), if anything.
import { installWasmMemoryTracker, wasmMemoryBytes } from "./lib/wasm-memory.mjs";

installWasmMemoryTracker();
const [runtime, workloadName, batchText] = process.argv.slice(2);
const { allRunners } = await import("./runners/index.mjs");
const { workloadByName } = await import("./workloads/index.mjs");
const { makeCell } = await import("./lib/cell.mjs");

const runner = allRunners().find((r) => r.id === runtime);
if (!runner || !runner.createSession) throw new Error(`no in-process runner '${runtime}'`);
await runner.init();
const baseline = wasmMemoryBytes();
const cell = makeCell(workloadByName(workloadName), Number(batchText));
const session = await runner.createSession(cell);
await session.run(cell.input);
const after = wasmMemoryBytes();
const reported = session.memory ? await session.memory() : null;
await session.dispose();
process.stdout.write(JSON.stringify({ wasmInitBytes: baseline, wasmPeakBytes: after, reported }) + "\n");
