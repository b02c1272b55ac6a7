// Reading shrew.wasm from disk in Node: the package's Node entry
// (dist/shrew.node.js, the "node" condition) and the unbundled dist/index.js.
// The browser bundle (dist/shrew.min.js) is built with node-files.browser.ts
// in this module's place (js/scripts/bundle.mjs): a bundler for the web warns
// about every `node:` import it sees, even in a branch that never runs there.

/** A path (relative ones from the working directory) as a file: URL. */
export async function pathToFileUrl(path: string): Promise<URL> {
  const { pathToFileURL } = await import("node:url");
  return pathToFileURL(path);
}

/** The bytes of a file. */
export async function readFileBytes(file: URL): Promise<Uint8Array> {
  const fs = await import("node:fs/promises");
  return fs.readFile(file);
}
