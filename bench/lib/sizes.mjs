// Download size of each runtime: the .wasm it loads and the JS a browser app
// ships for it (minified bundles where the package has them), raw and gzip -9.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const pkgDir = (/** @type {string} */ spec) => path.dirname(fileURLToPath(import.meta.resolve(spec)));
const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * @typedef {{ file: string, raw: number, gzip: number }} FileSize
 * @typedef {{ id: string, label: string, note: string, wasm: FileSize[], js: FileSize[],
 *             total: { raw: number, gzip: number } }} DownloadSize
 */

/** @param {string} file @returns {FileSize} */
function sizeOf(file) {
  const bytes = readFileSync(file);
  return { file: path.relative(REPO, file), raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

/** @returns {DownloadSize[]} */
export function downloadSizes() {
  const ort = pkgDir("onnxruntime-web"); // …/onnxruntime-web/dist
  const tfWasm = pkgDir("@tensorflow/tfjs-backend-wasm"); // …/dist
  const tfCore = pkgDir("@tensorflow/tfjs-core");
  /** @type {{ id: string, label: string, note: string, wasm: string[], js: string[] }[]} */
  const sets = [
    {
      id: "ort",
      label: "onnxruntime-web wasm",
      note: "import 'onnxruntime-web/wasm' (bundle incl. Emscripten glue) + SIMD wasm",
      wasm: [path.join(ort, "ort-wasm-simd-threaded.wasm")],
      js: [path.join(ort, "ort.wasm.bundle.min.mjs")],
    },
    {
      id: "tfjs",
      label: "TF.js wasm",
      note: "tf-core.min.js + tf-backend-wasm.min.js + SIMD wasm",
      wasm: [path.join(tfWasm, "tfjs-backend-wasm-simd.wasm")],
      js: [path.join(tfCore, "tf-core.min.js"), path.join(tfWasm, "tf-backend-wasm.min.js")],
    },
  ];
  const shrewDist = path.join(REPO, "js", "dist");
  if (existsSync(path.join(shrewDist, "wasm", "shrew.wasm")) && existsSync(path.join(shrewDist, "shrew.min.js"))) {
    sets.push({
      id: "shrew",
      label: "Shrew wasm (current build)",
      note: "js/dist/shrew.min.js (the browser entry: wrapper + Emscripten glue, one minified file) + shrew.wasm",
      wasm: [path.join(shrewDist, "wasm", "shrew.wasm")],
      js: [path.join(shrewDist, "shrew.min.js")],
    });
  }
  return sets.map((s) => {
    const wasm = s.wasm.map(sizeOf);
    const js = s.js.map(sizeOf);
    const all = [...wasm, ...js];
    const total = { raw: all.reduce((a, f) => a + f.raw, 0), gzip: all.reduce((a, f) => a + f.gzip, 0) };
    return { id: s.id, label: s.label, note: s.note, wasm, js, total };
  });
}
