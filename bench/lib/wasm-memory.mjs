// Tracks every WebAssembly.Memory created or exported in this process, so the
// memory probe can read the linear-memory size of each runtime's instance.
// Install before the libraries instantiate their modules.

/** @type {Set<WebAssembly.Memory>} */
const memories = new Set();
let installed = false;

/** @param {any} instance */
function collect(instance) {
  const exports = instance?.exports ?? {};
  for (const v of Object.values(exports)) if (v instanceof WebAssembly.Memory) memories.add(v);
}

export function installWasmMemoryTracker() {
  if (installed) return;
  installed = true;
  const W = /** @type {any} */ (WebAssembly);
  const OrigMemory = W.Memory;
  W.Memory = new Proxy(OrigMemory, {
    construct(target, args, newTarget) {
      const m = Reflect.construct(target, args, newTarget);
      memories.add(m);
      return m;
    },
  });
  const OrigInstance = W.Instance;
  W.Instance = new Proxy(OrigInstance, {
    construct(target, args, newTarget) {
      const inst = Reflect.construct(target, args, newTarget);
      collect(inst);
      return inst;
    },
  });
  for (const name of ["instantiate", "instantiateStreaming"]) {
    const orig = W[name];
    if (typeof orig !== "function") continue;
    W[name] = async function (/** @type {any[]} */ ...args) {
      const r = await orig.apply(this, args);
      collect(r?.instance ?? r);
      return r;
    };
  }
}

/** Sum of the current sizes (bytes) of all tracked linear memories. */
export function wasmMemoryBytes() {
  let n = 0;
  for (const m of memories) n += m.buffer.byteLength;
  return n;
}
