// Whole numbers typed in the Run tab's and the dims' fields, read strictly:
// Number("") is 0, Math.floor(2.5) is 2 and a value past the limits was
// clamped, so a typo ran with a number nobody typed. Here a field either
// holds a whole number in its range or says why not, next to itself.
import { h } from "./dom.js";

export type IntegerRead = { ok: true; value: number } | { ok: false; message: string };

/**
 * `text` as a whole number in [min, max]: digits only, with a sign (no
 * 2.5, 1e3 or empty). `badInput` is a number field's validity.badInput: it
 * holds text the browser could not read as a number ("3e", "1e400"), and
 * shows it as "" (empty).
 */
export function readInteger(what: string, text: string, badInput: boolean, min: number, max: number): IntegerRead {
  const t = text.trim();
  const fail = (why: string): IntegerRead => ({ ok: false, message: `${what}: ${why}` });
  if (badInput) return fail("not a number");
  if (t === "") return fail("empty: type a whole number");
  if (!/^[-+]?\d+$/.test(t)) return fail(`'${t}' is not a whole number written in digits`);
  const v = Number(t);
  // Past 2^53 - 1 a JS number is no longer exact: 9007199254740993 would read as ...992.
  if (!Number.isSafeInteger(v)) return fail(`${t} is too large: whole numbers stop at ±(2^53 − 1) here`);
  if (v < min || v > max) return fail(`${t} is outside ${min}..${max}`);
  return { ok: true, value: v === 0 ? 0 : v };  // "-0" is 0
}

export type BigIntegerRead = { ok: true; value: bigint } | { ok: false; message: string };

/**
 * `text` as a whole number in [min, max], exactly, however large (a seed is
 * any u64): the same rules as readInteger (digits only, with a sign; no
 * 2.5, 1e3 or empty), for a text field (a number field rounds past 2^53).
 */
export function readBigInteger(what: string, text: string, min: bigint, max: bigint): BigIntegerRead {
  const t = text.trim();
  const fail = (why: string): BigIntegerRead => ({ ok: false, message: `${what}: ${why}` });
  if (t === "") return fail("empty: type a whole number");
  if (!/^[-+]?\d+$/.test(t)) return fail(`'${t}' is not a whole number written in digits`);
  const v = BigInt(t);
  if (v < min || v > max) return fail(`${t} is outside ${min}..${max}`);
  return { ok: true, value: v };
}

/** The message shown next to one or more fields, which it marks invalid while it shows. */
export class FieldNote {
  readonly el: HTMLElement;
  readonly #fields: readonly HTMLInputElement[];

  constructor(fields: readonly HTMLInputElement[], testid: string) {
    this.#fields = fields;
    this.el = h("span", { class: "field-error", role: "alert", "data-testid": testid, hidden: true });
  }

  /** Shows `message` (or clears the note when undefined); returns it. */
  show(message: string | undefined): string | undefined {
    this.el.textContent = message ?? "";
    this.el.hidden = message === undefined;
    for (const f of this.#fields) {
      if (message === undefined) f.removeAttribute("aria-invalid");
      else f.setAttribute("aria-invalid", "true");
    }
    return message;
  }

  /** The field's whole number in [min, max], or undefined with the reason shown. */
  read(what: string, min: number, max: number): number | undefined {
    const f = this.#fields[0];
    const r = readInteger(what, f.value, f.validity.badInput, min, max);
    this.show(r.ok ? undefined : r.message);
    return r.ok ? r.value : undefined;
  }

  /** The field's whole number in [min, max] as a bigint (see readBigInteger), or undefined with the reason shown. */
  readBig(what: string, min: bigint, max: bigint): bigint | undefined {
    const r = readBigInteger(what, this.#fields[0].value, min, max);
    this.show(r.ok ? undefined : r.message);
    return r.ok ? r.value : undefined;
  }
}
