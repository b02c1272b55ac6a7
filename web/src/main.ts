// The playground page: wires the editor, the worker and the views.
import "./style.css";
import type { Diagnostic } from "../../js/dist/shrew.min.js";
import { appendAll, h } from "./dom.js";
import type { Text } from "@codemirror/state";
import { SourceEditor } from "./editor.js";
import { EXAMPLES, findExample } from "./examples.js";
import { formatBytes, formatClocked } from "./format.js";
import { GraphView } from "./graph-view.js";
import { FieldNote, readInteger } from "./integer-field.js";
import { renderPlan } from "./plan-chart.js";
import type { CompileOk, GraphReport, PlanBuffer } from "./protocol.js";
import { RunPanel } from "./run-panel.js";
import { SourceLines } from "./source-lines.js";
import { own, recordOf } from "./own.js";
import { loadState, saveState } from "./state.js";
import { renderStats } from "./stats-panel.js";
import { TapeView } from "./tape-view.js";
import { WorkerClient } from "./worker-client.js";

const DEBOUNCE_MS = 300;
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const state = loadState();
const worker = new WorkerClient();
const status = $("status");
const diagList = $<HTMLUListElement>("diagnostics");
const exampleSelect = $<HTMLSelectElement>("example-select");
const graphSelect = $<HTMLSelectElement>("graph-select");
const dimsBox = $("dims");
const views = document.querySelector(".views-pane") as HTMLElement;

let current: CompileOk | undefined;
// The document the views were compiled from, its text, and its line table
// for mapping spans to lines (made once per compile, used on each cursor move).
let compiled: { doc: Text; source: string; lines: SourceLines } | undefined;
// The views select the cursor's line once it was put in the editor (not on load).
let followCursor = false;
let runMarked = false;  // the editor shows a run's failure (cleared by the next run or compile)
let compileSeq = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

/** The editor still shows the compiled source: an edit makes a new document (cheaper than comparing texts). */
function upToDate(): boolean {
  return compiled !== undefined && editor.doc === compiled.doc;
}

/** `warning`: compiled, but not all went well (a warm-up run failed): shown amber, not green. */
function setStatus(text: string, kind: "busy" | "ok" | "error", warning = false): void {
  status.textContent = text;
  status.dataset.state = kind;
  status.toggleAttribute("data-warning", warning);
}

// ---- editor ----
const initial = state.source ?? findExample(state.example)?.source ?? EXAMPLES[0].source;
const editor = new SourceEditor($("editor"), initial, {
  onChange(text) {
    state.source = text;
    state.stopped = null;  // an edit is a new try: compiled as usual, warm-up included
    saveState(state);
    syncExampleMenu();
    scheduleCompile();
  },
  onLine(line) {
    followCursor = true;
    if (!compiled || !upToDate()) return;  // an edit: its compile selects the cursor's line (renderViews)
    tape.selectLine(line, compiled.lines);
    graphView.selectLine(line, compiled.lines);
  },
});

// ---- views ----
const tape = new TapeView($("tape-view"), {
  onHover(ins) {
    if (!upToDate()) return;
    editor.highlight(ins ? ins.spans : [], true);
  },
  onSelect(ins, jump) {
    if (!upToDate()) return;
    const at = ins.spans.find((s) => s.line > 0);
    // The jump focuses the editor, and the tape's losing the focus clears the highlight: jump first.
    if (jump && at) editor.goTo(at.line, at.column);
    editor.highlight(ins.spans, true);
  },
});
const graphView = new GraphView($("graph-view"), {
  onHover(node) {
    if (!upToDate()) return;
    editor.highlight(node ? [node.span] : [], true);
  },
  onSelect(node) {
    if (!upToDate()) return;
    editor.highlight([node.span], true);
  },
});
const runPanel = new RunPanel($("run-panel"), {
  async onRun(settings) {
    // A seed or dim changed just before the click is being compiled: the run
    // waits for that compile, so it runs with the new values.
    await compileSettled();
    const g = selectedGraph();
    if (!g) return undefined;
    if (!compiled) return { type: "ran", id: 0, ok: false, message: notCompiled };
    const program = current;
    const r = await worker.run({ type: "run", graph: g.name, seed: settings.seed, runs: settings.runs, inputs: settings.inputs });
    if (current !== program) return undefined;  // recompiled meanwhile: these results are of the program before
    // A graph compiled per input types (`?` inputs): the views show this run's
    // compile, and that of each such graph its calls compiled.
    if (r.ok && current) {
      for (const shown of current.graphs) {
        const views = own(r.views, shown.name);
        if (views === undefined) continue;
        Object.assign(shown, views, { pending: undefined });
        if (selectedGraph() === shown) {
          sayDrawFailures(renderCompiledViews());
          selectCursorLine();  // the new tape drew no selection
        }
      }
    }
    // A failure at a place in the source is marked there, like a compile
    // error, until the next run or compile.
    const marked = r.ok ? undefined : r.diagnostic;
    if (current && compiled && upToDate() && (marked || runMarked)) {
      showDiagnostics(marked ? [...current.warnings, marked] : current.warnings, compiled.source);
    }
    runMarked = marked !== undefined;
    return r;
  },
  onSeed(seed) {
    if (state.seed === seed) return;
    state.seed = seed;  // typed: it applies to every program from now on
    saveState(state);
    // The one this program was compiled with (its own, typed again): nothing to compile.
    if (current?.seed === seed && compilesPending === 0 && upToDate()) return;
    state.stopped = null;  // asked for: a new compile, as after an edit
    scheduleCompile(0);  // the seed also initialises the parameters
  },
}, state.seed ?? 0n, 200);

function selectedGraph(): GraphReport | undefined {
  return current?.graphs.find((g) => g.name === state.graph) ?? current?.graphs[0];
}

/**
 * Draws one view. One that throws (a program larger than it was written
 * for) shows the failure in its place rather than the previous program's
 * view, and the views after it are drawn all the same; returns the
 * failure, for the status, or undefined.
 */
function draw(name: string, root: HTMLElement, fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    const why = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    const note = h("p", { class: "error", "data-testid": "view-error" }, `The ${name} view could not be drawn: ${why}`);
    try {
      root.replaceChildren(note);
    } catch {
      root.textContent = note.textContent;
    }
    return `the ${name} view could not be drawn: ${why}`;
  }
}

/** The status after drawing: the views that failed (if any) said after `text`. */
function drawnStatus(text: string, failures: (string | undefined)[]): string {
  return [text, ...failures.filter((f) => f !== undefined)].join("; ");
}

/** The views of the graph's JIT compile: tape, memory plan and stats (a run can change them); the failures to draw. */
function renderCompiledViews(): (string | undefined)[] {
  const g = selectedGraph();
  const failures = [draw("Tape", $("tape-view"), () => tape.render(g?.tape, g?.pending, g?.compiledFor))];
  // A buffer hovered, focused or chosen marks the tape rows writing it and their source.
  const showBuffer = (b: PlanBuffer | null, scroll: boolean) => {
    tape.markSlots(b ? b.slots : []);
    if (!g?.tape || !b || !upToDate()) return editor.highlight([]);
    const spans = g.tape.instructions.filter((i) => i.opcode !== "free" && i.results.some((s) => b.slots.includes(s))).flatMap((i) => i.spans);
    editor.highlight(spans, scroll);
  };
  failures.push(draw("Memory", $("plan-chart"), () => renderPlan($("plan-chart"), g?.plan, g?.tape, {
    onHover: (b) => showBuffer(b, false),
    onSelect: (b) => showBuffer(b, true),
  }, g?.pending)));
  failures.push(draw("Stats", $("stats-panel"),
    () => renderStats($("stats-panel"), g?.name, g?.stats, current?.optStats, current, current?.heap, g?.pending, g?.compiledFor,
      g?.plan?.bound)));
  prepareLineIndexes();
  return failures;
}

/** Indexes the tape rows and graph nodes by source line while the page is idle: the first cursor move costs no more than the rest. */
function prepareLineIndexes(): void {
  const c = compiled;
  if (!c) return;
  const idle = window.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 100));  // Safari has no idle callback
  idle(() => {
    if (compiled !== c) return;
    tape.prepareLines(c.lines);
    graphView.prepareLines(c.lines);
  });
}

/** Draws every view of the selected graph; returns the failures to draw (see draw()). */
function renderViews(): (string | undefined)[] {
  const g = selectedGraph();
  const failures = [...renderCompiledViews(),
    draw("Graph", $("graph-view"), () => graphView.render(g ? { before: g.irBefore, after: g.irAfter } : undefined)),
    draw("Run", $("run-panel"), () => runPanel.render(g?.signature, current?.dims ?? {}, g?.bindError))];
  // The tape drew no selection and the graph kept the last one (of the program before a compile): both take the cursor's line.
  selectCursorLine();
  return failures;
}

/** Selects the cursor's line in the tape and graph views, when they show the source in the editor. */
function selectCursorLine(): void {
  if (!followCursor || !compiled || !upToDate()) return;
  tape.selectLine(editor.line, compiled.lines);
  graphView.selectLine(editor.line, compiled.lines);
}

/** After a redraw that is not a compile's: a view that failed is said in the status. */
function sayDrawFailures(failures: (string | undefined)[]): void {
  if (failures.some((f) => f !== undefined)) {
    setStatus(drawnStatus(status.textContent ?? "", failures), status.dataset.state as "ok", status.hasAttribute("data-warning"));
  }
}

// ---- diagnostics ----
function showDiagnostics(diags: readonly Diagnostic[], source: string, message?: string): void {
  editor.setDiagnostics(diags, source);
  diagList.replaceChildren();
  for (const d of diags) {
    const li = h("li", { class: `diag ${d.severity}`, "data-line": d.line, "data-column": d.column, "data-code": d.code, tabindex: 0 },
      h("span", { class: "pos" }, `${d.line}:${d.column}`), h("span", { class: "code" }, d.code), h("span", { class: "msg" }, d.message));
    li.addEventListener("click", () => editor.goTo(d.line, d.column));
    li.addEventListener("keydown", (ev) => {
      // Focusable, so usable from the keyboard too: Enter or Space jumps like a click.
      if (ev.key !== "Enter" && ev.key !== " ") return;
      ev.preventDefault();
      editor.goTo(d.line, d.column);
    });
    diagList.append(li);
  }
  if (message && diags.length === 0) diagList.append(h("li", { class: "diag error" }, h("span", { class: "msg" }, message)));
  diagList.hidden = diagList.childElementCount === 0;
}

// ---- compile ----
/** Set when Stop ended a run: the status of the compile after it says so first. */
let stoppedRun: string | undefined;
/** Why there is no program to run (the last compile failed or was stopped). */
let notCompiled = "nothing is compiled yet";
// Compiles scheduled or under way; a run waits until there are none.
let compilesPending = 0;
let settledWaiters: (() => void)[] = [];

function compileSettled(): Promise<void> {
  return compilesPending === 0 ? Promise.resolve() : new Promise((resolve) => settledWaiters.push(resolve));
}

function compileDone(): void {
  if (--compilesPending > 0) return;
  const waiters = settledWaiters;
  settledWaiters = [];
  for (const w of waiters) w();
}

function scheduleCompile(delay = DEBOUNCE_MS): void {
  if (timer === undefined) compilesPending++;
  clearTimeout(timer);
  setStatus("editing…", "busy");
  timer = setTimeout(() => {
    timer = undefined;
    void compile().finally(compileDone);
  }, delay);
}

async function compile(): Promise<void> {
  compilesPending++;
  try {
    await compileNow();
  } finally {
    compileDone();
  }
}

async function compileNow(): Promise<void> {
  const seq = ++compileSeq;
  const doc = editor.doc;
  const source = doc.toString();
  const warmUp = state.stopped !== "warm-up";
  compileAgain.hidden = true;
  setStatus(stoppedRun ? `${stoppedRun}; compiling…` : "compiling…", "busy");
  const r = await worker.compile(source, state.dims, state.seed, warmUp);
  if (seq !== compileSeq) return;  // a newer edit is on its way
  runMarked = false;
  if (!r.ok) {
    const errors = r.diagnostics.filter((d) => d.severity === "error").length;
    const failed = errors ? `${errors} error${errors > 1 ? "s" : ""} (${r.stage})` : r.message.split("\n")[0];
    setStatus(stoppedRun ? `${stoppedRun}; ${failed}` : failed, "error");
    stoppedRun = undefined;
    showDiagnostics(r.diagnostics, source, r.message);
    compiled = undefined;
    notCompiled = errors ? "the source does not compile: fix the errors first" : `nothing is compiled: ${r.message.split("\n")[0]}`;
    // A build that failed compiled the source: a dim or the seed may be what failed it.
    showStale(r.stage === "build" ? "the program in the editor does not build with these dims and seed (see the errors under the editor)"
      : "the source in the editor does not compile (see the errors under the editor)");
    return;
  }
  current = r;
  compiled = { doc, source, lines: new SourceLines(source) };
  showCurrent();
  // The warm-up runs are part of the wait: reported, apart from the compile; a failed one as such.
  const failed = failedWarmUps(r.graphs);
  const warm = failed ? `, ${failed}` : r.warmUpMs !== undefined ? `, warm-up run ${formatClocked(r.warmUpMs, r.clockMs)}`
    : warmUp ? "" : ", warm-up run off (stopped)";
  // After a stopped run the page says so, or the recompile's status would hide it at once.
  const compiledText = `${stoppedRun ? `${stoppedRun}; compiled again` : "compiled"} in ${formatClocked(r.compileMs, r.clockMs)}${warm}`;
  stoppedRun = undefined;
  // A failed warm-up is the program's first run: marked as a Run's failure is, until the next run or compile.
  const warmUpMarks = r.graphs.flatMap((g) => (g.bindDiagnostic ? [g.bindDiagnostic] : []));
  showDiagnostics([...r.warnings, ...warmUpMarks], source);
  runMarked = warmUpMarks.length > 0;
  if (!r.graphs.some((g) => g.name === state.graph)) state.graph = r.graphs[0]?.name ?? null;
  graphSelect.replaceChildren();
  appendAll(graphSelect, r.graphs.map((g) => h("option", { value: g.name }, g.name)));
  graphSelect.value = state.graph ?? "";
  // The program's seed, exact (a negative @config seed is taken modulo 2^64, past 2^53 - 1):
  // random inputs take it too, as in `shrew run` without --seed.
  runPanel.compiledWith(r.seed);
  state.dims = r.dims;  // the next compile binds them straight away
  renderDims(r.dims, r.runDims);
  saveState(state);
  setStatus(drawnStatus(compiledText, renderViews()), "ok", failed !== undefined);
}

/** The warm-up runs that failed, for the status: "warm-up run of G failed (line 3)"; undefined when none did. */
function failedWarmUps(graphs: readonly GraphReport[]): string | undefined {
  const failed = graphs.filter((g) => g.bindError !== undefined);
  if (failed.length === 0) return undefined;
  const lines = [...new Set(failed.flatMap((g) => (g.bindDiagnostic ? [g.bindDiagnostic.line] : [])))];
  const at = lines.length === 0 ? "" : ` (line${lines.length > 1 ? "s" : ""} ${lines.join(", ")})`;
  return `warm-up run${failed.length > 1 ? "s" : ""} of ${failed.map((g) => g.name).join(", ")} failed${at}`;
}

// ---- stale views ----
// While the source has no program (it does not compile, or its compile was
// stopped), the views keep the last one that compiled, dimmed and labelled
// as such in words (for screen readers too); nothing of it can be picked,
// sized, run or downloaded as if it were the source's. A reload has no last
// program: the label then says there is nothing to show, for the same reason.
const staleNote = $("stale-note");

function showStale(why: string): void {
  views.classList.add("stale");
  staleNote.textContent = current ? `Showing the last program that compiled: ${why}.` : `Nothing compiled: ${why}.`;
  staleNote.hidden = false;
  setViewsCurrent(false, staleNote.textContent);
}

function showCurrent(): void {
  views.classList.remove("stale");
  staleNote.hidden = true;
  setViewsCurrent(true);
}

/**
 * Enables the controls that act on the program shown, or disables them with
 * `why` as their title. The dim fields stay: they size the next compile, and
 * a dim may be what failed it (a parameter it sizes over the limit, a shape
 * too large to count), which only the field can take back.
 */
function setViewsCurrent(isCurrent: boolean, why = ""): void {
  for (const c of [graphSelect, downloadBundle]) c.disabled = !isCurrent;
  graphSelect.title = why;
  runPanel.setRunnable(isCurrent ? undefined : why);
  for (const p of document.querySelectorAll("[role=tabpanel]")) {
    if (isCurrent) p.removeAttribute("aria-describedby");
    else p.setAttribute("aria-describedby", "stale-note");
  }
}

/**
 * One field per symbolic dim. The fields stay while the names do (a
 * recompile after a change must not take the focus from the next field).
 */
function renderDims(dims: Record<string, number>, runDims?: CompileOk["runDims"]): void {
  // A dim left symbolic (see CompileOk.runDims) sizes the inputs made for a run; its field says so.
  const title = (name: string) => runDims?.names.includes(name)
    ? `${name} is bound by each run, from the shapes of its inputs (made at this size): binding it for the whole program fails: ${runDims.reason}`
    : `${name}, bound for the whole program`;
  const fields = [...dimsBox.querySelectorAll<HTMLInputElement>("input[data-dim]")];
  if (fields.length === Object.keys(dims).length && fields.every((f) => Object.hasOwn(dims, f.dataset.dim!))) {
    for (const f of fields) {
      if (document.activeElement !== f) f.value = String(own(dims, f.dataset.dim!));
      f.title = title(f.dataset.dim!);
    }
    return;
  }
  dimsBox.replaceChildren();
  for (const [name, value] of Object.entries(dims)) {
    const input = h("input", { type: "number", min: 1, max: 4096, step: 1, value, "aria-label": `dim ${name}`, "data-dim": name, title: title(name) });
    const note = new FieldNote([], "dim-error");  // the field is put back, so it is not marked invalid
    input.addEventListener("change", () => {
      const r = readInteger(`dim ${name}`, input.value, input.validity.badInput, 1, 4096);
      if (!r.ok) {
        // The size asked for last stays (compiled, or being compiled): the field shows it again, the note says why.
        const stays = own(state.dims, name) ?? value;
        note.show(`${r.message}; ${name} stays ${stays}`);
        input.value = String(stays);
        return;
      }
      note.show(undefined);
      // From state.dims, not this compile's: another dim changed since must stay.
      state.dims = recordOf([...Object.entries(state.dims), [name, r.value] as const]);
      state.stopped = null;  // asked for (maybe a smaller size, after a stopped warm-up): compiled as after an edit
      saveState(state);
      scheduleCompile(0);
    });
    dimsBox.append(h("label", { class: "field dim" }, name, input), note.el);
  }
}

// ---- header controls ----
// An edited source shows as its own "(edited)" entry: picking the example it
// came from is then a change, which brings the original back (a select fires
// nothing when its current option is picked again, so edits could not be undone).
const editedOption = h("option", { value: "", "data-edited": "" });

/** True when the editor holds something other than the selected example's source. */
function edited(): boolean {
  return editor.text !== findExample(state.example)?.source;
}

function syncExampleMenu(): void {
  if (edited()) {
    editedOption.textContent = `${findExample(state.example)?.title ?? "Your program"} (edited)`;
    if (!editedOption.isConnected) exampleSelect.prepend(editedOption);
    exampleSelect.value = "";
  } else {
    editedOption.remove();
    exampleSelect.value = state.example;
  }
}

exampleSelect.append(...EXAMPLES.map((e) => h("option", { value: e.id }, e.title)));
if (!findExample(state.example)) state.example = EXAMPLES[0].id;
syncExampleMenu();
exampleSelect.addEventListener("change", () => {
  const ex = findExample(exampleSelect.value);
  if (!ex) return;
  if (edited() && !confirm(`Load the example "${ex.title}"? Your edits to the source are lost.`)) {
    syncExampleMenu();
    return;
  }
  state.example = ex.id;
  state.graph = null;
  state.dims = {};
  editor.setText(ex.source);  // onChange saves and recompiles
  syncExampleMenu();
  scheduleCompile(0);
});
graphSelect.addEventListener("change", () => {
  state.graph = graphSelect.value;
  saveState(state);
  sayDrawFailures(renderViews());
});

// ---- tabs ----
function showTab(tab: string): void {
  if (!document.querySelector(`[data-tab="${tab}"]`)) tab = "tape";
  state.tab = tab;
  saveState(state);
  for (const b of document.querySelectorAll<HTMLButtonElement>("[data-tab]")) {
    b.setAttribute("aria-selected", String(b.dataset.tab === tab));
    b.tabIndex = b.dataset.tab === tab ? 0 : -1;  // one tab stop for the list: arrows move within it
  }
  for (const p of document.querySelectorAll<HTMLElement>("[data-panel]")) p.hidden = p.dataset.panel !== tab;
  sayDrawFailures([draw("Graph", $("graph-view"), () => graphView.setVisible(tab === "graph"))]);
}
for (const b of document.querySelectorAll<HTMLButtonElement>("[data-tab]")) b.addEventListener("click", () => showTab(b.dataset.tab!));
// The ARIA tabs pattern: Left/Right (wrapping), Home and End select and focus a tab.
$("tablist").addEventListener("keydown", (ev) => {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>("[data-tab]")];
  const at = tabs.findIndex((b) => b.dataset.tab === state.tab);
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  const next = tabs[(to + tabs.length) % tabs.length];
  showTab(next.dataset.tab!);
  next.focus();
});
showTab(state.tab);

// ---- bundle ----
// The program as compiled now (dims, seed and parameters included), as a
// file that Shrew.loadBundle and the CLI run without compiling.

/** What a program calls itself: its @model name, else its first graph. */
function programName(model: string | undefined, graphs: readonly string[]): string | undefined {
  return model ?? graphs[0];
}

/** `name` as a file name: runs of anything but letters, digits, ".", "_" and "-" become one "-". */
function fileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "") || "program";
}

/**
 * The bundle's file name, without .swb: the example's id as loaded, with
 * "-edited" while the edited source is still that program (its @model
 * name, else its first graph, is the example's); any other program is
 * named after itself (a program pasted over the first example was
 * "mlp-classifier-edited").
 */
function bundleName(r: CompileOk): string {
  const ex = findExample(state.example);
  if (ex && !edited()) return ex.id;
  const name = programName(r.model, r.graphs.map((g) => g.name));
  if (ex && name !== undefined && name === exampleName(ex.source)) return `${ex.id}-edited`;
  return fileName(name ?? "program");
}

/** The name an example's source gives itself (see programName), read from its text: the examples are ours and plain. */
function exampleName(source: string): string | undefined {
  const model = /@model\s*\{[^}]*?\bname\s*:\s*"([^"]*)"/.exec(source)?.[1];
  return programName(model, [.../@graph\s+([A-Za-z_]\w*)/.exec(source)?.slice(1) ?? []]);
}
const downloadBundle = $<HTMLButtonElement>("download-bundle");
downloadBundle.addEventListener("click", async () => {
  await compileSettled();  // the program as the page will show it, not one an edit is replacing
  if (!compiled) return setStatus(`no bundle: ${notCompiled}`, "error");
  const r = await worker.bundle();
  if (!r.ok) {
    setStatus(`no bundle: ${r.message.split("\n")[0]}`, "error");
    return;
  }
  const name = `${bundleName(current!)}.swb`;
  const url = URL.createObjectURL(new Blob([r.bytes as Uint8Array<ArrayBuffer>], { type: "application/octet-stream" }));
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  setStatus(`bundle ${name}: ${formatBytes(r.bytes.byteLength)}`, "ok");
});

// ---- stop ----
// A wasm call cannot be interrupted, and the first runs of a huge graph are
// not bounded by the timing budget: Stop terminates the worker and starts a
// fresh one. A stopped run's source is compiled again at once. A stopped
// compile is not (it would run as long again, and so would a reload): the
// source is compiled without its warm-up run if that was what Stop ended,
// else not until an edit or "Compile again". Stop shows only when a request
// has taken a while (every compile would make it flicker).
const stop = $<HTMLButtonElement>("stop");
const compileAgain = $<HTMLButtonElement>("compile-again");
let stopTimer: ReturnType<typeof setTimeout> | undefined;
worker.onBusy = (busy) => {
  clearTimeout(stopTimer);
  if (busy) stopTimer = setTimeout(() => (stop.hidden = false), 500);
  else stop.hidden = true;
};
worker.onWarming = () => {
  if (status.dataset.state === "busy") setStatus("warm-up run…", "busy");
};
stop.addEventListener("click", () => {
  const stopped = worker.restart();
  if (stopped?.type === "compile" && stopped.source === editor.text) {
    state.stopped = stopped.warming ? "warm-up" : "compile";
    saveState(state);
  }
  // The recompile's status would replace the word that the run was stopped at once: it says it too.
  stoppedRun = stopped?.type === "run" ? "run stopped (the worker was restarted)" : undefined;
  start();
});
compileAgain.addEventListener("click", () => {
  state.stopped = null;
  saveState(state);
  scheduleCompile(0);
});

/** The compile of this source was stopped: nothing compiled, and nothing started by itself. */
function showCompileStopped(): void {
  compileSeq++;  // an answer still on its way is not for this state
  const message = "The compile of this source was stopped. It is not started again by itself (it would take as long again): " +
    "edit the source, or press Compile again.";
  setStatus("compile stopped", "error");
  showDiagnostics([], editor.text, message);
  compiled = undefined;
  notCompiled = "the compile was stopped: edit the source or press Compile again";
  showStale("the compile of the source in the editor was stopped (see under the editor)");
  compileAgain.hidden = false;
}

function start(): void {
  setStatus(stoppedRun ? `${stoppedRun}; loading the wasm runtime…` : "loading the wasm runtime…", "busy");
  worker.ready.then(() => (state.stopped === "compile" ? showCompileStopped() : compile()),
                    (e: Error) => setStatus(`could not start: ${e.message}`, "error"));
}

sayDrawFailures(renderViews());
diagList.hidden = true;
start();
