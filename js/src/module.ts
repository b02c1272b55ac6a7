// Loading the wasm module once, in Node.js or a browser.
import createShrewModule, { type RawModule } from "./wasm/shrew.mjs";

export interface LoadOptions {
  /** The bytes of shrew.wasm; skips any file or network access. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to fetch shrew.wasm from (browser); defaults to next to this file. */
  wasmUrl?: string | URL;
}

const isNode = typeof process === "object" && typeof process.versions?.node === "string";

export async function instantiate(opts: LoadOptions = {}): Promise<RawModule> {
  let wasmBinary = opts.wasmBinary;
  if (!wasmBinary && !opts.wasmUrl && isNode) {
    // The glue would fetch() a file path in Node: read the bytes ourselves.
    const fs = await import("node:fs/promises");
    wasmBinary = await fs.readFile(new URL("./wasm/shrew.wasm", import.meta.url));
  }
  const url = opts.wasmUrl ? String(opts.wasmUrl) : undefined;
  return createShrewModule({
    wasmBinary,
    locateFile: url ? () => url : undefined,
  });
}
