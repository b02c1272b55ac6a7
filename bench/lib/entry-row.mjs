// One in-process runtime's row of a cell once the interleaved rounds are over:
// its figures or its own failure, then its session disposed.
import { errText } from "./err-text.mjs";
import { summarize } from "./stats.mjs";

/** @param {any} row @param {string} error @param {(s: string) => void} log */
function fail(row, error, log) {
  Object.assign(row, { status: "failed", error });
  log(`  ${row.label}: FAILED: ${error}`);
}

/**
 * Fills `row` from its timed entry and disposes the session. A session that
 * threw during the rounds (`en.error`, lib/measure.mjs) fails its own row with
 * its own error, and its partial timings are not reported (they would read as a
 * result). A dispose that throws fails this row only: it must not end the run
 * or cost the cell's other runtimes their rows.
 * @param {import("./measure.mjs").Entry} en
 * @param {any} row    the runtime's row of the cell (status "ok" so far)
 * @param {(s: string) => void} log
 * @returns {Promise<Float32Array | undefined>} the last timed output (for the checks), none if the row failed
 */
export async function settleEntry(en, row, log) {
  if (en.error !== undefined) {
    fail(row, errText(en.error), log);
  } else {
    if (en.timesUs?.length) {
      Object.assign(row, summarize(en.timesUs));
      row.cpuPerCallUs = (en.burstCpuUs ?? NaN) / en.timesUs.length; // mean process CPU time per timed call
      row.cpuShare = (en.burstCpuUs ?? 0) / (en.burstWallUs || 1); // < 1: the process waited for a core
    }
    row.warmupCalls = en.warmupCalls;
    row.warmupMs = en.warmupMs;
    try {
      row.memory = en.session.memory ? await en.session.memory() : null;
    } catch {
      row.memory = null;
    }
    try {
      // Runtime-specific facts (Shrew: tape length, in-wasm ns per Executor::Run).
      if (en.session.extra) row.extra = await en.session.extra();
    } catch (e) {
      log(`  ${row.label}: extra facts failed: ${errText(e)}`);
    }
  }
  try {
    await en.session.dispose();
  } catch (e) {
    // A row that already failed keeps its first error; the dispose's is only logged.
    if (row.status === "ok") fail(row, `dispose: ${errText(e)}`, log);
    else log(`  ${row.label}: dispose failed too: ${errText(e)}`);
  }
  return row.status === "ok" ? en.lastOutput : undefined;
}
