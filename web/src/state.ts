// What survives a reload: the source, the selected example, graph, tab,
// symbolic dims and seed, and whether Stop ended this source's compile
// (localStorage; a broken or missing entry falls back to the defaults).
import { record } from "./own.js";
export interface SavedState {
  source: string | null;
  example: string;
  graph: string | null;
  tab: string;
  dims: Record<string, number>;
  /**
   * The seed chosen in the Run tab; null until one is: the program's own
   * (`@config { seed: N; }`, else 0) applies, as for `shrew run` without --seed.
   */
  seed: bigint | null;
  /**
   * Stop ended the compile of this source ("compile") or its warm-up run
   * ("warm-up"): it is compiled without a warm-up, or not at all until
   * asked, so a reload does not hang as before. An edit clears it.
   */
  stopped: "compile" | "warm-up" | null;
}

const KEY = "shrew-playground/v1";

export const DEFAULT_STATE: SavedState = { source: null, example: "mlp-classifier", graph: null, tab: "tape", dims: {}, seed: null, stopped: null };

export function loadState(): SavedState {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return { ...DEFAULT_STATE };
    const v = JSON.parse(raw) as Partial<SavedState>;  // checked field by field (the seed is saved as digits)
    const dims = record<number>();  // a dim may be named __proto__: no prototype to set
    for (const [k, n] of Object.entries(v.dims ?? {})) if (Number.isSafeInteger(n) && n >= 0) dims[k] = n;
    return {
      source: typeof v.source === "string" ? v.source : null,
      example: typeof v.example === "string" ? v.example : DEFAULT_STATE.example,
      graph: typeof v.graph === "string" ? v.graph : null,
      tab: typeof v.tab === "string" ? v.tab : DEFAULT_STATE.tab,
      dims,
      seed: savedSeed(v.seed),
      stopped: v.stopped === "compile" || v.stopped === "warm-up" ? v.stopped : null,
    };
  } catch {
    return { ...DEFAULT_STATE };
  }
}

/** A seed as saved: decimal digits (JSON has no bigint), or a number as saved before; null for anything else. */
function savedSeed(v: unknown): bigint | null {
  if (typeof v === "string" && /^\d+$/.test(v) && BigInt(v) < 2n ** 64n) return BigInt(v);
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return null;
}

export function saveState(s: SavedState): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...s, seed: s.seed === null ? null : String(s.seed) }));
  } catch {
    // Storage full or disabled: the playground works without it.
  }
}
