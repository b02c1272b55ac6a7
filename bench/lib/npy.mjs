// Minimal .npy (format 1.0, little-endian float32, C order) reader and writer,
// for exchanging tensors with the native benchmark binary.
import { readFileSync, writeFileSync } from "node:fs";

/** @param {string} file @param {Float32Array} data @param {number[]} shape */
export function writeNpyF32(file, data, shape) {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const total = 10 + header.length + 1;
  header += " ".repeat((64 - (total % 64)) % 64) + "\n";
  const head = new Uint8Array(10 + header.length);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]); // \x93NUMPY v1.0
  new DataView(head.buffer).setUint16(8, header.length, true);
  head.set(new TextEncoder().encode(header), 10);
  const body = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  writeFileSync(file, out);
}

/** @param {string} file @returns {{ data: Float32Array, shape: number[] }} */
export function readNpyF32(file) {
  const buf = readFileSync(file);
  if (buf[0] !== 0x93 || buf.toString("latin1", 1, 6) !== "NUMPY") throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString("latin1", start, start + hlen);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header)) {
    throw new Error(`${file}: expected little-endian float32 in C order, got ${header.trim()}`);
  }
  const m = /'shape':\s*\(([^)]*)\)/.exec(header);
  const shape = m ? m[1].split(",").map((s) => s.trim()).filter(Boolean).map(Number) : [];
  const bytes = buf.subarray(start + hlen);
  const data = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(data.buffer).set(bytes);
  return { data, shape };
}
