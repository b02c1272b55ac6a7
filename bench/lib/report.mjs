// Markdown rendering of a results object (the same object written to latest.json).
import { resolvedOverheadNs } from "./call-overhead.mjs";

/** @param {number} us */
export function fmtTime(us) {
  if (!Number.isFinite(us)) return "—";
  if (us < 1000) return `${us < 100 ? us.toFixed(1) : us.toFixed(0)} µs`;
  const ms = us / 1000;
  return `${ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0)} ms`;
}

/** @param {number} ms */
function fmtMs(ms) {
  return Number.isFinite(ms) ? (ms < 10 ? ms.toFixed(1) : ms.toFixed(0)) + " ms" : "—";
}

/** @param {number} bytes */
export function fmtBytes(bytes) {
  if (!Number.isFinite(bytes)) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

/** @param {number} x */
function fmtSci(x) {
  if (!Number.isFinite(x)) return "—";
  return x === 0 ? "0" : x.toExponential(1);
}

/**
 * A row merged from several processes (lib/best-process.mjs) that failed in
 * some of them: how many, and the first error unless the row shows it already.
 * @param {any} r
 */
function failedNote(r) {
  if (!r.failedProcesses) return "";
  const of = r.processMedians?.length ? ` of ${r.processMedians.length}` : "";
  return ` (**failed** in ${r.failedProcesses}${of} processes${r.status === "failed" ? "" : `: ${r.failedError}`})`;
}

/** @param {string[]} head @param {string[][]} rows */
function table(head, rows) {
  const lines = [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`];
  for (const r of rows) lines.push(`| ${r.join(" | ")} |`);
  return lines.join("\n");
}

/** @param {any} results @returns {string} */
export function renderMarkdown(results) {
  const out = [];
  const m = results.meta;
  out.push(`## Shrew benchmark vs peers${m.quick ? " (--quick)" : ""}`);
  out.push("");
  out.push(
    `${m.date} · ${m.cpu} × ${m.cores} · Node ${m.node} (V8 ${m.v8}) · load avg ${m.loadAvgStart.toFixed(1)} → ${m.loadAvgEnd.toFixed(1)} · ` +
      `single-threaded, interleaved per cell · ≥ ${m.options.timed.minRuns} timed runs after warm-up` +
      (m.processes > 1 ? ` · best of ${m.processes} processes per runtime and cell` : ""),
  );
  out.push("");
  const rt = results.runtimes.map((/** @type {any} */ r) => [
    r.label,
    r.status === "ok" ? `${r.version}` : "—",
    r.status === "ok" ? r.detail : `**${r.status}**: ${r.reason}`,
    r.status === "ok" ? fmtMs(r.initMs) : "—",
  ]);
  out.push(table(["runtime", "version", "detail", "init"], rt));
  out.push("");

  const rows = [];
  for (const c of results.cells) {
    for (const r of c.results) {
      if (r.status === "skipped") continue;
      const mem = r.probe
        ? `${fmtBytes(r.probe.wasmPeakBytes)} (+${fmtBytes(r.probe.wasmPeakBytes - r.probe.wasmInitBytes)})`
        : "—";
      const model = r.memory ? fmtBytes(r.memory.bytes) : "—";
      const check = (r.status === "ok" ? (r.reference ? "ref" : r.unchecked ? "unchecked" : "ok") : `**${r.status}**${r.error ? `: ${r.error}` : ""}`) +
        failedNote(r);
      rows.push([
        c.workload,
        String(c.batch),
        r.label,
        fmtTime(r.medianUs),
        fmtTime(r.p10Us),
        fmtTime(r.p90Us),
        String(r.runs ?? "—"),
        Number.isFinite(r.ratioToBestPeer) ? `${r.ratioToBestPeer.toFixed(2)}×` : "—",
        fmtTime(r.cpuPerCallUs),
        Number.isFinite(r.cpuRatioToBestPeer) ? `${r.cpuRatioToBestPeer.toFixed(2)}×` : "—",
        Number.isFinite(r.cpuShare) ? `${Math.round(r.cpuShare * 100)} %` : "—",
        fmtMs(r.sessionMs),
        mem,
        model,
        r.reference ? "—" : fmtSci(r.maxAbsDiff),
        check,
      ]);
    }
  }
  out.push(
    table(
      ["workload", "B", "runtime", "median", "p10", "p90", "runs", "vs best peer", "cpu/call", "cpu vs best", "cpu share", "session", "wasm heap (Δ model)", "model mem", "max abs diff", "check"],
      rows,
    ),
  );
  out.push("");
  out.push(
    "median/p10/p90: wall time per call, Float32Array in → out through the public API. vs best peer: median ÷ the fastest peer's median. " +
      "cpu/call: process CPU time per timed call (mean; excludes time spent waiting for a core, includes V8's GC threads); cpu share: CPU ÷ wall " +
      "over the timed bursts (well below 100 % means the machine was busy and wall times are inflated). " +
      "session: create → first result. wasm heap: the instance's linear memory after the first result, in a fresh process " +
      "(Δ: growth since runtime init; grows in coarse steps). model mem: what the runtime reports (TF.js: tf.profile peak tensor bytes). " +
      `check: max |y − y_ort| ≤ ${results.meta.rtol} · max |y_ort| else WRONG.` +
      (results.cells.some((/** @type {any} */ c) => c.results.some((/** @type {any} */ r) => r.failedProcesses))
        ? " failed in k of N processes: the runtime threw in k of the --processes; its row is its best of the others." : ""),
  );
  out.push("");

  // Shrew's own figures: tape length, in-wasm time of Executor::Run, arena vs lower bound, native ceiling.
  const shrewRows = [];
  for (const c of results.cells) {
    const jit = c.results.find((/** @type {any} */ r) => r.runtime === "shrew-jit" && r.extra);
    const nat = c.results.find((/** @type {any} */ r) => r.runtime === "shrew-native" && r.extra);
    if (!jit && !nat) continue;
    const e = jit?.extra ?? {}, n = nat?.extra ?? {};
    // Paired wall-time bursts when the run measured them; older results: CPU per call minus the loop.
    // "—" where the method did not resolve it (lib/call-overhead.mjs), never a negative time.
    const perCall = resolvedOverheadNs(Number.isFinite(e.jsCallOverheadNs) ? e.jsCallOverheadNs
      : jit && Number.isFinite(jit.cpuPerCallUs) ? jit.cpuPerCallUs * 1000 - e.inWasmNsPerRun : NaN, e.jsCallOverheadCiNs);
    // CPU per call when both rows have it (wall times of a separate process are not comparable on a busy machine).
    const cpuBoth = jit && nat && Number.isFinite(jit.cpuPerCallUs) && Number.isFinite(nat.cpuPerCallUs);
    const ratio = cpuBoth ? jit.cpuPerCallUs / nat.cpuPerCallUs
      : jit && nat && Number.isFinite(jit.medianUs) && Number.isFinite(nat.medianUs) ? jit.medianUs / nat.medianUs : NaN;
    shrewRows.push([
      c.workload, String(c.batch), String(e.instructions ?? n.instructions ?? "—"),
      fmtTime(e.inWasmNsPerRun / 1000), Number.isFinite(e.inWasmNsPerInstr) ? `${e.inWasmNsPerInstr.toFixed(0)} ns` : "—",
      Number.isFinite(perCall) ? fmtTime(perCall / 1000) : "—",
      fmtTime(n.execNsPerRun / 1000), Number.isFinite(n.execNsPerInstr) ? `${n.execNsPerInstr.toFixed(0)} ns` : "—",
      Number.isFinite(ratio) ? `${ratio.toFixed(2)}×${cpuBoth ? " (cpu)" : " (wall)"}` : "—",
      e.arenaBytes != null ? `${fmtBytes(e.arenaBytes)} / ${fmtBytes(e.arenaLowerBound)} = ${(e.arenaBytes / Math.max(1, e.arenaLowerBound)).toFixed(3)}` : "—",
    ]);
  }
  if (shrewRows.length) {
    out.push(table(["workload", "B", "tape instr", "wasm Executor::Run", "wasm ns/instr", "JS call overhead", "native Executor::Run", "native ns/instr", "wasm ÷ native per call", "arena / lower bound"], shrewRows));
    out.push("");
    out.push("wasm Executor::Run: process CPU time per run of a loop inside wasm (`Program.benchRun`, no copies, no JS; fastest of 7 loops). " +
      "JS call overhead: what a public `run` costs on top of the tape (input into wasm memory, one call of a plain wasm export, output copy): " +
      "bursts of public calls and of the in-wasm loop, interleaved, median difference of their wall time per run; " +
      "— where that is not resolved: below zero, or its 95 % confidence interval (order statistics of the pairs) reaches zero, " +
      "as on calls of milliseconds, where a burst is one call and its own jitter exceeds the overhead " +
      "(latest.json keeps the raw median and interval: `extra.jsCallOverheadNs`, `extra.jsCallOverheadCiNs`). " +
      "native: the same loop in `build/native/bench_peer_native`. wasm ÷ native: the two rows' cpu/call (else wall medians).");
    out.push("");
  }
  // XNNPACK alone against Shrew's tape loop on the same layers: whether Shrew keeps the kernel library's own wasm ÷ native ratio.
  if (results.xnnAlone?.best?.length) {
    const xa = results.xnnAlone;
    const rows = xa.best.map((/** @type {any} */ b) => {
      const c = results.cells.find((/** @type {any} */ x) => x.workload === "mlp" && x.batch === b.batch);
      const e = c?.results.find((/** @type {any} */ r) => r.runtime === "shrew-jit" && r.extra)?.extra;
      const n = c?.results.find((/** @type {any} */ r) => r.runtime === "shrew-native" && r.extra)?.extra;
      const shrew = e && n && e.inWasmNsPerRun > 0 && n.execNsPerRun > 0 ? e.inWasmNsPerRun / n.execNsPerRun : NaN;
      return [String(b.batch),
        `${fmtTime(b.wasm.medianUs)} (${b.wasm.gflops.toFixed(1)} GFLOP/s)`, `${fmtTime(b.native.medianUs)} (${b.native.gflops.toFixed(1)} GFLOP/s)`,
        `${b.ratio.toFixed(2)}×`,
        e ? fmtTime(e.inWasmNsPerRun / 1000) : "—", n ? fmtTime(n.execNsPerRun / 1000) : "—",
        Number.isFinite(shrew) ? `${shrew.toFixed(2)}×` : "—"];
    });
    out.push(table(["B", "XNNPACK alone, wasm", "XNNPACK alone, native", "XNNPACK wasm ÷ native", "Shrew mlp, wasm Executor::Run", "Shrew mlp, native Executor::Run", "Shrew wasm ÷ native"], rows));
    out.push("");
    out.push(`XNNPACK alone: the mlp's three fully-connected layers (${xa.layers}) as bare XNNPACK operators, created once and run in a loop ` +
      "(`tools/xnn_fc_probe.cc`, built natively and for wasm from the same source and XNNPACK version): median wall time per pass over bursts, " +
      `best of ${xa.rounds} fresh processes per side taken in turns. Shrew: the tape loops of the table above (mlp adds the softmax).`);
    out.push("");
  }
  const st = results.shrewStartup?.best;
  const wp = results.shrewStartup?.withParams;
  const fb = results.shrewStartup?.fromBundle;
  if (st) {
    // The peers' start-up builds their sessions from the model's weights: Shrew's like-for-like paths.
    const pf = (/** @type {number | undefined} */ n) => n === undefined ? "—" : String(n);
    const weighted = (/** @type {any} */ w, /** @type {string} */ how, /** @type {string} */ step) => w ? [
      [`${how}: load`, fmtMs(w.loadMs), fmtMs(w.cpuLoadMs), pf(w.faultsLoad)],
      [`… ${step}`, fmtMs(w.compileMs), fmtMs(w.cpuCompileMs), pf(w.faultsCompile)],
      ...(w.warmCompileMs === undefined ? [] : [[`… the same ${step} again in the process (warm code, median of 5)`, fmtMs(w.warmCompileMs), "—", "—"]]),
      ["… first run", fmtTime(w.firstRunUs), fmtMs(w.cpuFirstRunMs), pf(w.faultsFirstRun)],
      ["… load + compile + first run", fmtMs(w.totalMs), fmtMs(w.cpuTotalMs), pf(w.faultsTotal)],
      ["… first run ÷ steady state", `${w.firstRunRatio.toFixed(1)}× (steady ${fmtTime(w.steadyUs)})`, "—", "—"],
    ] : [];
    const wpRows = [
      ...weighted(wp, "with its weights (`compile(…, { params })`, 2.7 MB blob)", "compile mlp with the weights"),
      ...weighted(fb, "from a bundle (`loadBundle`, 2.7 MB: the program and its weights)", "loadBundle"),
    ];
    out.push(table(["Shrew start-up (fresh Node process, best of runs)", "wall", "CPU", "page faults"], [
      ["load (import + Shrew.load)", fmtMs(st.loadMs), fmtMs(st.cpuLoadMs), pf(st.faultsLoad)],
      ["compile mlp (Batch 1), seeded parameters", fmtMs(st.compileMs), fmtMs(st.cpuCompileMs), pf(st.faultsCompile)],
      ...(st.warmCompileMs === undefined ? [] : [["… the same compile again in the process (warm code, median of 5)", fmtMs(st.warmCompileMs), "—", "—"]]),
      ["first run", fmtTime(st.firstRunUs), fmtMs(st.cpuFirstRunMs), pf(st.faultsFirstRun)],
      ["load + compile + first run", fmtMs(st.totalMs), fmtMs(st.cpuTotalMs), pf(st.faultsTotal)],
      ["first run ÷ steady state", `${st.firstRunRatio.toFixed(1)}× (steady ${fmtTime(st.steadyUs)})`, "—", "—"],
      ...wpRows,
      [`compile of a generated 1,000-node graph (${st.gen1000Instructions} tape instr), warm median (best) once V8 has optimised the compiler: ` +
        `the figure the < 10 ms target is judged on${st.gen1000Processes ? `, best of ${st.gen1000Processes} processes` : ""}`,
        `${fmtMs(st.gen1000WarmMs)} (${fmtMs(st.gen1000BestMs)})`, fmtMs(st.gen1000CpuMs), "—"],
      // Its first compile: truly first in a fresh process (older results lack it), and after mlp, where cold-start.mjs measures the rest.
      ...(st.gen1000FreshFirstMs === undefined ? [] : [[
        `… its first compile in a fresh process, the first compile after \`Shrew.load()\` (cold code)${st.gen1000FreshProcesses > 1 ? `, best of ${st.gen1000FreshProcesses} processes` : ""}`,
        fmtMs(st.gen1000FreshFirstMs), fmtMs(st.gen1000FreshFirstCpuMs), "—"]]),
      ["… its first compile in a process that had compiled and run mlp (Shrew's compiler code partly warm)", fmtMs(st.gen1000FirstMs), "—", "—"],
    ]));
    out.push("");
    if (st.freshPageUs !== undefined) {
      out.push(`page faults: minor faults of the phase, i.e. first touches of memory — ours (weights, their packed copies) and V8's (the code it compiles on a function's first call, its compilers' working memory). ` +
        `A fresh 4 KiB page cost ${st.freshPageUs.toFixed(1)} µs in these processes (best of the runs), so start-up figures move with the machine's page-fault cost. ` +
        `The warm row is the same call repeated once V8 has compiled our code: what Shrew's own work costs; the rest of the first is first use.`);
    }
    out.push("");
    const peers = Object.entries(results.shrewStartup.peers ?? {});
    if (peers.length) {
      const label = (/** @type {string} */ id) => results.runtimes.find((/** @type {any} */ r) => r.id === id)?.label ?? id;
      const shrewRow = (/** @type {any} */ w, /** @type {string} */ how) => [how, fmtMs(w.loadMs), fmtMs(w.compileMs), fmtTime(w.firstRunUs),
        fmtMs(w.totalMs), fmtTime(w.steadyUs), `${w.firstRunRatio.toFixed(1)}×`];
      out.push(table(["start-up side by side (fresh Node process, mlp/1, best of runs)", "load", "model ready", "first run", "load → first result", "steady run", "first run ÷ steady"], [
        ...peers.map(([id, { model, best: p }]) => [model ? `${label(id)} (${model})` : label(id),
          `${fmtMs(p.loadMs)} (import ${fmtMs(p.importMs)})`, fmtMs(p.sessionMs), fmtTime(p.firstRunUs), fmtMs(p.totalMs),
          fmtTime(p.steadyUs), `${p.firstRunRatio.toFixed(1)}×`]),
        shrewRow(st, "Shrew, compile (seeded parameters)"),
        ...(wp ? [shrewRow(wp, "Shrew, compile with the weights (`params` blob)")] : []),
        ...(fb ? [shrewRow(fb, "Shrew, `loadBundle` (program and weights)")] : []),
      ]));
      out.push("");
      out.push("load: import of the library and its initialisation (wasm loaded and instantiated; onnxruntime-web's includes one tiny-model session, which is what instantiates its wasm). " +
        "model ready: the mlp session, compile or bundle load. Each figure is its best over the processes (`bench/peer-start.mjs`, `bench/cold-start.mjs`), taken in turns; " +
        "first run ÷ steady is the quotient of the first run and steady run beside it (`lib/startup-best.mjs`).");
      out.push("");
    }
  }

  const sz = results.sizes.map((/** @type {any} */ s) => {
    const w = s.wasm.reduce((/** @type {any} */ a, /** @type {any} */ f) => ({ raw: a.raw + f.raw, gzip: a.gzip + f.gzip }), { raw: 0, gzip: 0 });
    const j = s.js.reduce((/** @type {any} */ a, /** @type {any} */ f) => ({ raw: a.raw + f.raw, gzip: a.gzip + f.gzip }), { raw: 0, gzip: 0 });
    return [s.label, fmtBytes(w.raw), fmtBytes(w.gzip), fmtBytes(j.raw), fmtBytes(j.gzip), fmtBytes(s.total.raw), fmtBytes(s.total.gzip), s.note];
  });
  out.push(table(["download", ".wasm", ".wasm gzip", "JS", "JS gzip", "total", "total gzip", "files"], sz));
  out.push("");
  return out.join("\n");
}
