// The heatmap of a 2-D tensor: a canvas of at most 360 px a side, its
// colour scale and a count of the NaN and infinite cells.
import { h } from "./dom.js";
import { formatValue } from "./format.js";
import { NAN_RGB, NEG_INF_RGB, POS_INF_RGB, heatScale, nonFiniteRgb, scalePosition, viridis, type HeatScale, type Rgb } from "./heat-scale.js";

// The heatmap is at most this many pixels a side (its display size): a
// larger tensor is drawn from the mean of each block of cells (or the NaN or
// infinity in it, see blockMeans). One pixel per cell took the page two
// seconds for a 4000 x 4000 output.
const HEATMAP_PX = 360;
// The least a side is drawn: a 1 x 4096 output's cells are 360 / 4096 px,
// and its one row was 0.09 px tall, nothing to see.
const MIN_SIDE_PX = 12;

/**
 * Means of step x step blocks. A block with any non-finite cell takes the sum
 * of those cells, which keeps their kind (+Inf or -Inf when all are, else
 * NaN): one NaN among 144 finite cells would vanish into a mean, and finding
 * where a large output went NaN is what a heatmap is for.
 */
function blockMeans(data: Float64Array, rows: number, cols: number, step: number): Float64Array {
  const pr = Math.ceil(rows / step), pc = Math.ceil(cols / step);
  const sum = new Float64Array(pr * pc), count = new Uint32Array(pr * pc), rest = new Float64Array(pr * pc);
  // The sums of finite values near the largest double overflow (a block of
  // 1.5e308 was drawn as +Inf): a scaled copy of each sum stands in then.
  const scaled = new Float64Array(pr * pc);
  for (let r = 0; r < rows; r++) {
    const base = Math.floor(r / step) * pc;
    for (let c = 0; c < cols; c++) {
      const v = data[r * cols + c], at = base + Math.floor(c / step);
      if (Number.isFinite(v)) {
        sum[at] += v;
        scaled[at] += v * SCALE_DOWN;
        count[at]++;
      } else rest[at] += v;
    }
  }
  for (let i = 0; i < sum.length; i++) {
    sum[i] = !Number.isFinite(rest[i]) ? rest[i]
      : Number.isFinite(sum[i]) ? sum[i] / count[i]
      : Math.min(Number.MAX_VALUE, Math.max(-Number.MAX_VALUE, (scaled[i] / count[i]) / SCALE_DOWN));
  }
  return sum;
}
const SCALE_DOWN = 2 ** -64;

export function heatmap(data: Float64Array, rows: number, cols: number): HTMLElement {
  const step = Math.max(1, Math.ceil(Math.max(rows, cols) / HEATMAP_PX));
  const cells = step === 1 ? data : blockMeans(data, rows, cols, step);
  const pr = Math.ceil(rows / step), pc = Math.ceil(cols / step);
  const canvas = h("canvas", { width: pc, height: pr, class: "heatmap", "aria-label": "heatmap" });
  const ctx = canvas.getContext("2d");
  const scale = heatScale(data);
  if (ctx) {
    // One colour per 1/255 of the range (a lookup: millions of cells take milliseconds).
    const lut = Array.from({ length: 256 }, (_, k) => viridis(k / 255));
    const img = ctx.createImageData(pc, pr);
    const px = img.data;
    for (let i = 0; i < pr * pc; i++) {
      const v = cells[i];
      const [r, g, b] = Number.isFinite(v) ? lut[Math.round(scalePosition(v, scale) * 255)] : nonFiniteRgb(v);
      px[i * 4] = r;
      px[i * 4 + 1] = g;
      px[i * 4 + 2] = b;
      px[i * 4 + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  }
  // Cells stay square: small matrices scale up (4-28 px a cell), large ones
  // shrink so the longer side is 360 px (it was 4 px a cell at least: a
  // 2048 x 2048 output drew 8192 px tall). A thin side is stretched to 12 px
  // at least: its cells are then taller (or wider) than wide.
  const longest = Math.max(rows, cols);
  const px = longest <= 90 ? Math.min(28, Math.floor(HEATMAP_PX / longest)) : HEATMAP_PX / longest;
  canvas.style.width = `${Math.max(cols * px, MIN_SIDE_PX)}px`;
  canvas.style.height = `${Math.max(rows * px, MIN_SIDE_PX)}px`;
  return h("div", { class: "heatmap-wrap" }, canvas, legend(scale));
}

/** The scale's ends (or "no finite values"), then a swatch and count for each kind of non-finite cell present. */
function legend(s: HeatScale): HTMLElement {
  const range = Number.isNaN(s.lo)
    ? [h("span", { "data-testid": "no-finite" }, "no finite values")]
    : [h("span", { "data-end": "lo" }, formatValue(s.lo)), h("span", { class: "gradient" }), h("span", { "data-end": "hi" }, formatValue(s.hi))];
  const kinds: [string, number, Rgb][] = [["NaN", s.nan, NAN_RGB], ["+∞", s.posInf, POS_INF_RGB], ["−∞", s.negInf, NEG_INF_RGB]];
  const swatches = kinds.filter(([, n]) => n > 0).map(([name, n, rgb]) =>
    h("span", { class: "nonfinite", "data-kind": name }, h("span", { class: "swatch", style: `background: rgb(${rgb.join(", ")})` }), `${name} ×${n}`));
  return h("div", { class: "scale" }, ...range, ...swatches);
}
