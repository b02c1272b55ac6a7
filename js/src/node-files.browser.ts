// node-files.ts for the browser bundle (dist/shrew.min.js): no `node:`
// import for a web bundler to trip over. That bundle still runs in Node when
// something loads it there (a test runner's browser-like environment, e.g.
// Jest with jsdom): Node's modules then come from process.getBuiltinModule
// (Node 20.16 on), which no bundler follows.

type Builtins = {
  "node:url": typeof import("node:url");
  "node:fs/promises": typeof import("node:fs/promises");
};

function builtin<K extends keyof Builtins>(name: K): Builtins[K] {
  const get = (globalThis.process as { getBuiltinModule?: (id: string) => unknown } | undefined)?.getBuiltinModule;
  if (typeof get !== "function") {
    throw new Error("this is the package's browser build (dist/shrew.min.js), which reads files in Node only from " +
      "Node 20.16 on; import the package under the \"node\" condition, or pass Shrew.load({ wasmBinary })");
  }
  return get.call(globalThis.process, name) as Builtins[K];
}

/** A path (relative ones from the working directory) as a file: URL. */
export async function pathToFileUrl(path: string): Promise<URL> {
  return builtin("node:url").pathToFileURL(path);
}

/** The bytes of a file. */
export async function readFileBytes(file: URL): Promise<Uint8Array> {
  return builtin("node:fs/promises").readFile(file);
}
