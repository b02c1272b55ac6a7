// The source editor (CodeMirror 6): .sw highlighting, compile diagnostics
// shown inline (underline + hover message + gutter marker), and the span
// highlight used when a tape row, graph node or buffer is hovered.
import { EditorState, StateEffect, StateField, type Extension, type Text } from "@codemirror/state";
import {
  Decoration, EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers,
  type DecorationSet,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput } from "@codemirror/language";
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import type { Diagnostic } from "../../js/dist/shrew.min.js";
import { swHighlight, swLanguage } from "./sw-language.js";

/** A source span as the compiler reports it: 1-based line, 1-based byte column, byte length. */
export interface Span {
  line: number;
  column: number;
  length: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Characters in the first `bytes` UTF-8 bytes of `s`. */
function charsOfBytes(s: string, bytes: number): number {
  const b = encoder.encode(s);
  if (bytes >= b.length) return s.length + (bytes - b.length);
  return decoder.decode(b.subarray(0, Math.max(0, bytes))).length;
}

/** Document range of a span (clamped to the document); null for "no position". */
export function spanRange(doc: Text, span: Span): { from: number; to: number } | null {
  if (!span.line || span.line > doc.lines) return null;
  const line = doc.line(span.line);
  const from = Math.min(line.from + charsOfBytes(line.text, span.column - 1), line.to);
  // The length may run over following lines: count its bytes from `from`.
  const rest = doc.sliceString(from, Math.min(doc.length, from + span.length * 4 + 1));
  const to = Math.min(doc.length, from + charsOfBytes(rest, span.length));
  return { from, to: Math.max(to, from) };
}

const setHighlight = StateEffect.define<{ from: number; to: number }[]>();
const highlightMark = Decoration.mark({ class: "cm-span-highlight" });
const highlightLine = Decoration.line({ class: "cm-span-line" });

const highlightField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setHighlight)) continue;
      const ranges = [];
      for (const r of e.value) {
        if (r.to > r.from) ranges.push(highlightMark.range(r.from, r.to));
        const doc = tr.state.doc;
        for (let l = doc.lineAt(r.from).number; l <= doc.lineAt(r.to).number; l++) {
          ranges.push(highlightLine.range(doc.line(l).from));
        }
      }
      deco = Decoration.set(ranges, true);
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

export interface EditorCallbacks {
  onChange(text: string): void;
  /** The cursor moved to this 1-based line (click or keys). */
  onLine(line: number): void;
}

export class SourceEditor {
  readonly view: EditorView;
  #lastLine = 0;

  constructor(parent: HTMLElement, doc: string, cb: EditorCallbacks) {
    const extensions: Extension[] = [
      lineNumbers(), highlightActiveLineGutter(), history(), drawSelection(), indentOnInput(), bracketMatching(),
      closeBrackets(), highlightActiveLine(), highlightSelectionMatches(), lintGutter(),
      keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, indentWithTab]),
      swLanguage, swHighlight, highlightField, EditorState.tabSize.of(4), EditorView.lineWrapping,
      // Tab indents (indentWithTab), so it does not move the focus on: a
      // keyboard user tabbing through the page indented the source, over and
      // over, with nothing saying how to leave. The hint (index.html) says so,
      // and the text box has a name.
      EditorView.contentAttributes.of({ "aria-label": "Source (.sw)", "aria-describedby": "editor-keys" }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) cb.onChange(u.state.doc.toString());
        if (u.selectionSet || u.docChanged) {
          const line = u.state.doc.lineAt(u.state.selection.main.head).number;
          if (line !== this.#lastLine && u.view.hasFocus) {
            this.#lastLine = line;
            cb.onLine(line);
          }
        }
      }),
      EditorView.domEventHandlers({
        mousedown: (ev, view) => {
          // A click on the current line re-selects its instructions too.
          const pos = view.posAtCoords({ x: ev.clientX, y: ev.clientY });
          if (pos !== null) {
            const line = view.state.doc.lineAt(pos).number;
            this.#lastLine = line;
            queueMicrotask(() => cb.onLine(line));
          }
          return false;
        },
      }),
    ];
    this.view = new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  /** The document now: an immutable value, a new one after each edit (cheaper to compare than its text). */
  get doc(): Text {
    return this.view.state.doc;
  }

  /** The cursor's 1-based line. */
  get line(): number {
    const state = this.view.state;
    return state.doc.lineAt(state.selection.main.head).number;
  }

  /** Replaces the whole document (an example was picked). */
  setText(text: string): void {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
  }

  /** Shows compile diagnostics inline; `source` is the text they belong to (ignored if the doc moved on). */
  setDiagnostics(diags: readonly Diagnostic[], source: string): void {
    const doc = this.view.state.doc;
    const current = doc.toString() === source;
    const out: CmDiagnostic[] = [];
    for (const d of current ? diags : []) {
      const r = spanRange(doc, d) ?? { from: 0, to: 0 };
      const line = doc.lineAt(r.from);
      // A zero-length span still gets one visible character.
      const to = r.to > r.from ? r.to : Math.min(line.to, r.from + 1);
      out.push({ from: r.from, to, severity: d.severity === "note" ? "info" : d.severity,
                 message: `${d.code}: ${d.message}`, source: `line ${d.line}:${d.column}` });
    }
    this.view.dispatch(setDiagnostics(this.view.state, out));
  }

  /** Highlights source spans (an instruction's, a node's); [] clears. */
  highlight(spans: readonly Span[], scroll = false): void {
    const doc = this.view.state.doc;
    const ranges = spans.map((s) => spanRange(doc, s)).filter((r): r is { from: number; to: number } => r !== null);
    const effects: StateEffect<unknown>[] = [setHighlight.of(ranges)];
    if (scroll && ranges.length) effects.push(EditorView.scrollIntoView(ranges[0].from, { y: "nearest" }));
    this.view.dispatch({ effects });
  }

  /** Moves the cursor to a line (diagnostic list click). */
  goTo(line: number, column = 1): void {
    const doc = this.view.state.doc;
    const r = spanRange(doc, { line, column, length: 0 });
    if (!r) return;
    this.view.dispatch({ selection: { anchor: r.from }, scrollIntoView: true });
    this.view.focus();
  }
}
