// Printing tensors and tables for the `shrew` CLI.
import type { Tensor } from "../index.js";

/** Plain numbers for JSON (i64 via Number; NaN/Infinity become null in JSON.stringify). */
export function tensorValues(t: Tensor): number[] {
  return t.toArray();
}

function fmt(v: number, dtype: string): string {
  if (dtype === "bool") return v ? "true" : "false";
  if (dtype === "f32" || dtype === "f64") return Number.isInteger(v) && Math.abs(v) < 1e6 ? v.toFixed(1) : v.toPrecision(5);
  return String(v);
}

/** `probs: f32[8, 10] = [0.1, 0.2, …] (80 values)`. */
export function describeTensor(name: string, t: Tensor, max = 8): string {
  const vals = t.toArray();
  const shown = vals.slice(0, max).map((v) => fmt(v, t.dtype)).join(", ");
  const more = vals.length > max ? `, … (${vals.length} values)` : "";
  return `${name}: ${t.dtype}[${t.shape.join(", ")}] = [${shown}${more}]`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}
