// Arrow keys over items drawn in two dimensions (graph nodes, memory
// buffers) for RovingFocus: the keys follow what the eye sees, not the
// order the items happen to be stored in.
import type { RovingOptions } from "./roving-focus.js";

/**
 * Moves over items drawn in two dimensions (graph nodes, memory buffers),
 * by their positions: items at the same y form a row, rows run top to
 * bottom and each row left to right. Left/Right step through that reading
 * order, Up/Down go to the nearest item (by x) in the row above or below,
 * Home and End to the first and last item.
 */
export function spatialMove(points: readonly { x: number; y: number }[]): RovingOptions["move"] {
  const order = points.map((_, i) => i).sort((a, b) => points[a].y - points[b].y || points[a].x - points[b].x);
  const rank: number[] = [];
  const rowOf: number[] = [];
  const rows: number[][] = [];
  order.forEach((i, k) => {
    rank[i] = k;
    const row = rows.at(-1);
    if (row && Math.abs(points[row[0]].y - points[i].y) < 0.5) row.push(i);
    else rows.push([i]);
    rowOf[i] = rows.length - 1;
  });
  return (from, key) => {
    switch (key) {
      case "ArrowRight": return order[Math.min(rank[from] + 1, order.length - 1)];
      case "ArrowLeft": return order[Math.max(rank[from] - 1, 0)];
      case "Home": return order[0];
      case "End": return order.at(-1);
      case "ArrowUp":
      case "ArrowDown": {
        const row = rows[rowOf[from] + (key === "ArrowDown" ? 1 : -1)];
        if (!row) return from;
        const x = points[from].x;
        return row.reduce((best, i) => (Math.abs(points[i].x - x) < Math.abs(points[best].x - x) ? i : best));
      }
      default: return undefined;
    }
  };
}
