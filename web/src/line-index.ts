// Which items cover a source line: a segment tree over line numbers. Each
// item's line range is stored at O(log lines) tree nodes; a query walks one
// root-to-leaf path, so a cursor move costs O(log lines + hits) however
// large the program (scanning every instruction per move blocked the page).

export class LineIndex<T> {
  readonly #lines: number;
  /** Tree node (1: root, 2k and 2k+1: children) → items whose range covers the node's whole range. */
  readonly #nodes: (T[] | undefined)[] = [];

  /** `ranges`: [first line, last line, item]; ranges without a position (line < 1) are left out. */
  constructor(ranges: Iterable<readonly [number, number, T]>) {
    const valid = [...ranges].filter(([first, last]) => first >= 1 && last >= first);
    let lines = 1;
    for (const [, last] of valid) lines = Math.max(lines, last);
    this.#lines = lines;
    for (const [first, last, item] of valid) this.#add(1, 1, this.#lines, first, last, item);
  }

  #add(node: number, lo: number, hi: number, first: number, last: number, item: T): void {
    if (first <= lo && hi <= last) {
      (this.#nodes[node] ??= []).push(item);
      return;
    }
    const mid = (lo + hi) >> 1;
    if (first <= mid) this.#add(2 * node, lo, mid, first, last, item);
    if (last > mid) this.#add(2 * node + 1, mid + 1, hi, first, last, item);
  }

  /** The items whose range holds `line` (an item with several ranges there comes once per range). */
  at(line: number): T[] {
    const out: T[] = [];
    if (!(line >= 1 && line <= this.#lines)) return out;
    let node = 1, lo = 1, hi = this.#lines;
    for (;;) {
      for (const item of this.#nodes[node] ?? []) out.push(item);
      if (lo === hi) return out;
      const mid = (lo + hi) >> 1;
      if (line <= mid) {
        node = 2 * node;
        hi = mid;
      } else {
        node = 2 * node + 1;
        lo = mid + 1;
      }
    }
  }
}
