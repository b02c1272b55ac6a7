// Number and size formatting shared by the views.
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "–";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 2 : 1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

export function formatShape(shape: readonly (number | string)[] | null): string {
  return shape === null ? "?" : `[${shape.join(", ")}]`;
}

/** A value for a table cell: 4 significant digits, integers as they are. */
export function formatValue(v: number): string {
  if (Object.is(v, -0)) return "-0";  // String(-0) is "0"
  if (Number.isInteger(v) && Math.abs(v) < 1e9) return String(v);
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(3);
  return v.toPrecision(4);
}

/** A number exactly as JS round-trips it, keeping the sign of -0. */
export function exactText(v: number): string {
  return Object.is(v, -0) ? "-0" : String(v);
}

export function formatMs(ms: number): string {
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  return `${ms.toFixed(2)} ms`;
}
