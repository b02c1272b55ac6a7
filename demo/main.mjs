// npm start: the main job. For now it runs the foundation slice (one dense
// layer on XNNPACK inside WebAssembly) and prints it next to a plain loop.
import { Shrew } from "../js/dist/index.js";

const shrew = await Shrew.load();
const [batch, inF, outF] = [2, 4, 3];
const x = Float32Array.from({ length: batch * inF }, (_, i) => (i - 3) / 4);
const w = Float32Array.from({ length: outF * inF }, (_, i) => ((i * 7) % 5) / 5 - 0.4);
const b = Float32Array.from([0.1, -0.2, 0.3]);
const y = shrew.dense(batch, inF, outF, x, w, b);

const ref = new Float32Array(batch * outF);
for (let r = 0; r < batch; r++)
  for (let o = 0; o < outF; o++) {
    let acc = b[o];
    for (let i = 0; i < inF; i++) acc += x[r * inF + i] * w[o * inF + i];
    ref[r * outF + o] = acc;
  }

const fmt = (a) => Array.from(a, (v) => v.toFixed(4).padStart(8)).join(" ");
console.log(`Shrew wasm (SIMD128: ${shrew.simd128}) — dense ${batch}x${inF} -> ${outF} on XNNPACK`);
for (let r = 0; r < batch; r++) {
  console.log(`  y[${r}] = ${fmt(y.subarray(r * outF, (r + 1) * outF))}`);
  console.log(`  ref    = ${fmt(ref.subarray(r * outF, (r + 1) * outF))}`);
}
const maxDiff = Math.max(...y.map((v, i) => Math.abs(v - ref[i])));
console.log(`max |y - ref| = ${maxDiff.toExponential(2)}`);
