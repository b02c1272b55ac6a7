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

/**
 * A time read from a clock that steps by `stepMs`, shown no finer than the
 * clock: browsers coarsen performance.now() (to 0.1 ms in a worker of a page
 * that is not cross-origin isolated), where formatMs would show a run of
 * 30 µs as "0.00 µs" and 3 ms as "3.00 ms". So "under 0.1 ms", "3.0 ms".
 */
export function formatClocked(ms: number, stepMs: number): string {
  if (!(stepMs >= 0.01)) return ms < stepMs ? `under ${formatMs(stepMs)}` : formatMs(ms);  // a fine clock
  // The step's decimal places in ms: 1 for 0.1, 3 for 0.005 (the measured step is off by rounding).
  const digits = Math.max(0, Math.ceil(-Math.log10(stepMs) - 0.01));
  return ms < stepMs ? `under ${stepMs.toFixed(digits)} ms` : `${ms.toFixed(digits)} ms`;
}

export function formatMs(ms: number): string {
  if (ms < 0.01) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  return `${ms.toFixed(2)} ms`;
}
