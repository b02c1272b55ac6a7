// One input's row in the Run tab: how its tensor is made (seeded random,
// an integer range or pasted numbers), and for an input of unknown type
// (`?`) the dtype and shape it runs with. The row is built once per input
// of a graph and its type text updated in place, so a recompile that only
// changes values (a dim, the seed) keeps the fields the user is in.
import type { DType, TensorSpec } from "../../js/dist/index.js";
import { h } from "./dom.js";
import { RUN_DTYPES, UNKNOWN_DEFAULT, type InputSource } from "./protocol.js";

export interface InputRow {
  readonly el: HTMLElement;
  /** Shows the input's type as this compile has it (symbolic dims with their values). */
  update(input: TensorSpec, dims: Record<string, number>): void;
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
  const shape = (input.shape ?? []).map((d) => (typeof d === "string" ? `${d}=${dims[d] ?? "?"}` : d ?? "?"));
  return `${input.dtype ?? "?"}[${shape.join(", ")}]`;
}

/** Builds the row; `onSource` receives the input's source after every change (and once now). */
export function inputRow(input: TensorSpec, src: InputSource, dims: Record<string, number>,
                         onSource: (src: InputSource) => void): InputRow {
  // An input of unknown type (`input x: ?`) runs with the dtype and shape chosen here:
  // the graph is compiled for them.
  const dtypeSelect = input.dtype === null
    ? h("select", { "aria-label": `${input.name} dtype`, "data-run-dtype": "" }, ...RUN_DTYPES.map((d) => h("option", { value: d }, d)))
    : null;
  if (dtypeSelect) dtypeSelect.value = RUN_DTYPES.includes(src.dtype as DType) ? src.dtype! : UNKNOWN_DEFAULT.dtype;
  const shapeField = input.shape === null
    ? h("input", { type: "text", value: src.shape ?? UNKNOWN_DEFAULT.shape, size: 8, placeholder: "2,3 (empty: scalar)",
                   "aria-label": `${input.name} shape`, "data-run-shape": "" })
    : null;
  const dtype = () => dtypeSelect?.value ?? input.dtype ?? "";
  const isInt = () => /^(i|u)\d/.test(dtype());
  const randomOption = h("option", { value: "random" });
  const mode = h("select", { "aria-label": `${input.name} source` }, randomOption, h("option", { value: "paste" }, "paste values"));
  mode.value = src.mode;
  const paste = h("textarea", { rows: 3, placeholder: "numbers: 1 2 3 … or a JSON array [[1, 2], [3, 4]]", "aria-label": `${input.name} values` });
  if (src.mode === "paste") paste.value = src.text;
  const lo = h("input", { type: "number", value: src.mode === "random" ? src.lo ?? 0 : 0, step: 1, "aria-label": `${input.name} low` });
  const hi = h("input", { type: "number", value: src.mode === "random" ? src.hi ?? 4 : 4, step: 1, "aria-label": `${input.name} high` });
  const range = h("span", { class: "range" }, "in [", lo, ", ", hi, ")");
  // The sizes of `?` dims are the user's to choose (they were always 1): one field per `?`.
  const qdims = (input.shape ?? []).flatMap((d, i) => (d === null ? [i] : []));
  const sizeFields = qdims.map((axis, k) => h("input", { type: "number", min: 0, step: 1, value: src.sizes?.[k] ?? 1,
                                                       "aria-label": `${input.name} dim ${axis} size`, "data-qdim": axis }));
  const sizes = (): number[] | undefined => (sizeFields.length ? sizeFields.map((f) => Number(f.value)) : undefined);
  // An optional input (`input m: T?;`) may be left out of the run, as run() allows.
  const omit = input.optional ? h("input", { type: "checkbox", "aria-label": `leave ${input.name} out`, "data-omit": "" }) : null;
  if (omit) omit.checked = src.omit === true;
  const fields = h("span", { class: "input-fields" },
    dtypeSelect ? h("label", {}, "dtype ", dtypeSelect) : "", shapeField ? h("label", {}, "shape ", shapeField) : "",
    ...sizeFields.map((f) => h("label", {}, `? (dim ${f.dataset.qdim}) `, f)), mode, range);
  const sync = () => {
    const m = mode.value as "random" | "paste";
    const base: InputSource = m === "paste" ? { mode: "paste", text: paste.value } : { mode: "random", lo: Number(lo.value), hi: Number(hi.value) };
    onSource({ ...base, sizes: sizes(), ...(dtypeSelect ? { dtype: dtypeSelect.value } : {}), ...(shapeField ? { shape: shapeField.value } : {}),
               ...(omit?.checked ? { omit: true } : {}) });
    randomOption.textContent = isInt() ? "random integers" : dtype() === "bool" ? "random 0/1" : "random in [-1, 1)";
    fields.hidden = omit?.checked === true;
    paste.hidden = m !== "paste" || fields.hidden;
    range.hidden = m === "paste" || !isInt();
  };
  for (const el of [mode, paste, lo, hi, ...sizeFields, dtypeSelect, shapeField, omit]) el?.addEventListener("input", sync);
  sync();
  const type = h("code", {}, typeText(input, dims));
  const el = h("div", { class: "input-row", "data-input": input.name },
    h("div", { class: "input-head" }, h("b", {}, input.name), type,
      input.optional ? h("span", { class: "optional", title: "an optional input (T?): the graph may run without it" }, "optional") : "",
      omit ? h("label", { class: "omit" }, omit, " leave out") : "", fields), paste);
  return {
    el,
    update(next, nextDims) {
      type.textContent = typeText(next, nextDims);
    },
  };
}
