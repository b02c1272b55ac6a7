// Printing tensors and tables for the `shrew` CLI.
import type { Tensor } from "../index.js";

/**
 * A float as JSON: JSON has no NaN or infinities (JSON.stringify makes them
 * all null), so they are the strings "NaN", "Infinity" and "-Infinity", as in
 * protobuf's JSON mapping; -0 is the JSON number -0 (JSON.stringify drops the sign).
 */
function jsonFloat(v: number): string {
  if (Number.isFinite(v)) return Object.is(v, -0) ? "-0" : String(v);
  return Number.isNaN(v) ? '"NaN"' : v > 0 ? '"Infinity"' : '"-Infinity"';
}

/**
 * `{"dtype":…,"shape":[…],"data":[…]}` as JSON text. 64-bit integers (i64
 * tensors) are exact decimal strings, as in protobuf's JSON mapping: a JSON
 * number beyond ±2^53 is rounded by JSON.parse (and Number() rounded them
 * here). Every value of an i64 tensor is a string, whatever its size, so a
 * reader need not guess. Floats are numbers but NaN and ±Infinity (jsonFloat).
 */
export function tensorJson(t: Tensor): string {
  const data = (t.dtype === "i64" ? Array.from(t.data as BigInt64Array, (v) => `"${v}"`)
    : Array.from(t.data as Float32Array, t.dtype === "f32" || t.dtype === "f64" ? jsonFloat : String)).join(",");
  return `{"dtype":${JSON.stringify(t.dtype)},"shape":${JSON.stringify(t.shape)},"data":[${data}]}`;
}

function fmt(v: number, dtype: string): string {
  if (dtype === "bool") return v ? "true" : "false";
  if (Object.is(v, -0)) return "-0.0";  // toFixed drops the sign
  if (dtype === "f32" || dtype === "f64") return Number.isInteger(v) && Math.abs(v) < 1e6 ? v.toFixed(1) : v.toPrecision(5);
  return String(v);
}

/** `probs: f32[8, 10] = [0.1, 0.2, …] (80 values)`. */
export function describeTensor(name: string, t: Tensor, max = 8): string {
  const n = t.size;
  // i64 values print from their BigInts: exact, where Number() would round past 2^53.
  // Only the values shown are converted: toArray() of a 1 GiB output is a 2 GiB JS array.
  const shown = (t.dtype === "i64" ? Array.from((t.data as BigInt64Array).subarray(0, max), (v) => v.toString())
    : Array.from((t.data as Float32Array).subarray(0, max), (v) => fmt(v, t.dtype))).join(", ");
  const more = n > max ? `, … (${n} values)` : "";
  return `${name}: ${t.dtype}[${t.shape.join(", ")}] = [${shown}${more}]`;
}

/** A duration given in µs, in the unit that reads best: "1.9 µs", "2.13 ms", "359 ms", "1.25 s". */
/** `1 run`, `2 runs`: a count and its noun, plural unless the count is one. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export function formatDuration(us: number): string {
  if (us < 999.95) return `${us.toFixed(1)} µs`;
  const ms = us / 1000;
  if (ms < 999.5) return `${ms.toPrecision(3)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

/** What `printable` escapes: characters a terminal acts on or that reorder text. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from files (parameter names in a blob, a bundle's contents, a .npy
 * header, the source) made safe for a terminal: control characters but tab
 * and newline, DEL, C1 controls and bidirectional overrides are escaped
 * (`\x1b`, `\u{9b}`, `\u{202e}`), so an error cannot clear the screen or
 * reorder what it shows; a line longer than `maxLine` characters (an echoed
 * 100 KB name) keeps its start and end.
 */
export function printable(text: string, maxLine = 1000): string {
  const escaped = text.replace(UNSAFE, (c) => {
    const n = c.codePointAt(0)!;
    return n < 0x80 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u{${n.toString(16)}}`;
  });
  return escaped.split("\n").map((line) => {
    if (line.length <= maxLine) return line;
    const chars = Array.from(line);  // cut between code points, not inside a surrogate pair
    if (chars.length <= maxLine) return line;
    const head = Math.floor(maxLine * 0.6), tail = Math.floor(maxLine * 0.3);
    return `${chars.slice(0, head).join("")} … [${chars.length - head - tail} characters left out] … ${chars.slice(-tail).join("")}`;
  }).join("\n");
}

/**
 * A value shown on one line of a listing (`  description: …`): newlines,
 * carriage returns and tabs inside it are written `\n`, `\r`, `\t`, so a
 * string from the source cannot start what looks like another field.
 * `printable` still escapes the rest when the line is printed.
 */
export function oneLine(text: string): string {
  return text.replace(/[\n\r\t]/g, (c) => (c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t"));
}

/**
 * JSON text with the characters `printable` escapes written as `\uXXXX`:
 * the same JSON value, but JSON.stringify leaves DEL, C1 controls and
 * bidirectional overrides raw, and `printable`'s `\x1b` is not JSON.
 */
export function printableJson(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
