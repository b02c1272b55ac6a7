// One input's row in the Run tab: how its tensor is made (seeded random,
// an integer range or pasted numbers), and for an input of unknown type
// (`?`) the dtype and shape it runs with. The row is built once per input
// of a graph and its type text updated in place, so a recompile that only
// changes values (a dim, the seed) keeps the fields the user is in. Its
// numbers are read strictly: a range its dtype cannot hold, or a `?` size
// that is not a whole number, is refused next to the field.
import type { DType, TensorSpec } from "../../js/dist/shrew.min.js";
import { h } from "./dom.js";
import { FieldNote, readInteger } from "./integer-field.js";
import { own } from "./own.js";
import { RUN_DTYPES, UNKNOWN_DEFAULT, type InputSource } from "./protocol.js";
import { randintProblem } from "./randint-range.js";

/** One input's fields as typed: kept per input name for a row built anew (another graph or type), read when it runs. */
export interface Draft {
  mode: "random" | "paste";
  text: string;
  lo: string;
  hi: string;
  sizes: string[];
  dtype?: string;
  shape?: string;
  omit?: boolean;
}

const NEW_DRAFT: Draft = { mode: "random", text: "", lo: "0", hi: "4", sizes: [] };

export interface InputRow {
  readonly name: string;
  readonly el: HTMLElement;
  /** Shows the input's type as this compile has it (symbolic dims with their values). */
  update(input: TensorSpec, dims: Record<string, number>): void;
  /** The input's source read strictly from its fields: undefined, with the reasons shown next to them, if one is wrong. */
  source(): InputSource | undefined;
}

/**
 * What decides a row's fields: two signatures with the same key have the
 * same fields (only the sizes in the type text differ).
 */
export function rowKey(input: TensorSpec): string {
  return JSON.stringify([input.name, input.dtype, input.shape === null ? null : input.shape.map((d) => (d === null ? null : 0)),
                         input.optional ?? false]);
}

function typeText(input: TensorSpec, dims: Record<string, number>): string {
  if (input.dtype === null && input.shape === null) return input.type;
  const shape = (input.shape ?? []).map((d) => (typeof d === "string" ? `${d}=${own(dims, d) ?? "?"}` : d ?? "?"));
  return `${input.dtype ?? "?"}[${shape.join(", ")}]`;
}

/** Builds the row; `onDraft` receives its fields as typed after every change (and once now). */
export function inputRow(input: TensorSpec, draft: Draft = NEW_DRAFT, dims: Record<string, number>,
                         onDraft: (draft: Draft) => void): InputRow {
  // An input of unknown type (`input x: ?`) runs with the dtype and shape chosen here:
  // the graph is compiled for them.
  const dtypeSelect = input.dtype === null
    ? h("select", { "aria-label": `${input.name} dtype`, "data-run-dtype": "" }, ...RUN_DTYPES.map((d) => h("option", { value: d }, d)))
    : null;
  if (dtypeSelect) dtypeSelect.value = RUN_DTYPES.includes(draft.dtype as DType) ? draft.dtype! : UNKNOWN_DEFAULT.dtype;
  const shapeField = input.shape === null
    ? h("input", { type: "text", value: draft.shape ?? UNKNOWN_DEFAULT.shape, size: 8, placeholder: "2,3 (empty: scalar)",
                   "aria-label": `${input.name} shape`, "data-run-shape": "" })
    : null;
  const dtype = () => dtypeSelect?.value ?? input.dtype ?? "";
  const isInt = () => /^(i|u)\d/.test(dtype());
  const randomOption = h("option", { value: "random" });
  const mode = h("select", { "aria-label": `${input.name} source` }, randomOption, h("option", { value: "paste" }, "paste values"));
  mode.value = draft.mode;
  const paste = h("textarea", { rows: 3, placeholder: "numbers: 1 2 3 … or a JSON array [[1, 2], [3, 4]]", "aria-label": `${input.name} values` });
  paste.value = draft.text;
  const lo = h("input", { type: "number", value: draft.lo, step: 1, "aria-label": `${input.name} low` });
  const hi = h("input", { type: "number", value: draft.hi, step: 1, "aria-label": `${input.name} high` });
  const rangeNote = new FieldNote([lo, hi], "range-error");
  const range = h("span", { class: "range" }, "in [", lo, ", ", hi, ")");
  // The sizes of `?` dims are the user's to choose (they were always 1): one field per `?`.
  const qdims = (input.shape ?? []).flatMap((d, i) => (d === null ? [i] : []));
  const sizeFields = qdims.map((axis, k) => h("input", { type: "number", min: 0, step: 1, value: draft.sizes[k] ?? "1",
                                                       "aria-label": `${input.name} dim ${axis} size`, "data-qdim": axis }));
  const sizeNotes = sizeFields.map((f) => new FieldNote([f], "size-error"));
  // An optional input (`input m: T?;`) may be left out of the run, as run() allows.
  const omit = input.optional ? h("input", { type: "checkbox", "aria-label": `leave ${input.name} out`, "data-omit": "" }) : null;
  if (omit) omit.checked = draft.omit === true;
  const fields = h("span", { class: "input-fields" },
    dtypeSelect ? h("label", {}, "dtype ", dtypeSelect) : "", shapeField ? h("label", {}, "shape ", shapeField) : "",
    ...sizeFields.flatMap((f, k) => [h("label", {}, `? (dim ${f.dataset.qdim}) `, f), sizeNotes[k].el]), mode, range, rangeNote.el);
  const sync = () => {
    onDraft({ mode: mode.value as Draft["mode"], text: paste.value, lo: lo.value, hi: hi.value, sizes: sizeFields.map((f) => f.value),
              ...(dtypeSelect ? { dtype: dtypeSelect.value } : {}), ...(shapeField ? { shape: shapeField.value } : {}),
              ...(omit?.checked ? { omit: true } : {}) });
    randomOption.textContent = isInt() ? "random integers" : dtype() === "bool" ? "random 0/1" : "random in [-1, 1)";
    fields.hidden = omit?.checked === true;
    paste.hidden = mode.value !== "paste" || fields.hidden;
    range.hidden = mode.value === "paste" || !isInt();
  };
  // The range counts only while it shows (random integers): hidden, its note goes.
  const readRange = (): { lo: number; hi: number } | null | undefined => {
    if (range.hidden) {
      rangeNote.show(undefined);
      return null;
    }
    const what = (end: string) => `input '${input.name}' ${end}`;
    const l = readInteger(what("low"), lo.value, lo.validity.badInput, -Infinity, Infinity);
    const u = readInteger(what("high"), hi.value, hi.validity.badInput, -Infinity, Infinity);
    const problem = rangeNote.show(!l.ok ? l.message : !u.ok ? u.message : randintProblem(input.name, dtype(), l.value, u.value));
    return l.ok && u.ok && problem === undefined ? { lo: l.value, hi: u.value } : undefined;
  };
  const source = (): InputSource | undefined => {
    // Left out, its fields are hidden and do not count.
    if (omit?.checked) {
      for (const note of [rangeNote, ...sizeNotes]) note.show(undefined);
      return { mode: "random", omit: true };
    }
    const sizes = sizeFields.map((_, k) => sizeNotes[k].read(`input '${input.name}' ? dim ${qdims[k]} size`, 0, Number.MAX_SAFE_INTEGER));
    const r = readRange();
    if (r === undefined || sizes.includes(undefined)) return undefined;
    const base: InputSource = mode.value === "paste" ? { mode: "paste", text: paste.value } : { mode: "random", ...r };
    return { ...base, ...(sizes.length ? { sizes: sizes as number[] } : {}),
             ...(dtypeSelect ? { dtype: dtypeSelect.value } : {}), ...(shapeField ? { shape: shapeField.value } : {}) };
  };
  for (const el of [mode, paste, lo, hi, ...sizeFields, dtypeSelect, shapeField, omit]) el?.addEventListener("input", sync);
  // Read strictly when a field is left or it runs, not per keystroke: half-typed text ("-") is no error yet.
  for (const el of [mode, lo, hi, ...sizeFields, dtypeSelect, omit]) el?.addEventListener("change", () => void source());
  sync();
  const type = h("code", {}, typeText(input, dims));
  const el = h("div", { class: "input-row", "data-input": input.name },
    h("div", { class: "input-head" }, h("b", {}, input.name), type,
      input.optional ? h("span", { class: "optional", title: "an optional input (T?): the graph may run without it" }, "optional") : "",
      omit ? h("label", { class: "omit" }, omit, " leave out") : "", fields), paste);
  return {
    name: input.name,
    el,
    update(next, nextDims) {
      type.textContent = typeText(next, nextDims);
    },
    source,
  };
}
