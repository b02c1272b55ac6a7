// Loading the wasm module once, in Node.js or a browser, and guarding every
// call into it: a wasm abort (a CHECK failure) leaves the instance in an
// unknown state, so the module is marked dead and later calls throw.
import createShrewModule, { type RawModule } from "./wasm/shrew.mjs";
import { ShrewRuntimeError } from "./errors.js";
import { pathToFileUrl, readFileBytes } from "./node-files.js";
import { isArrayBuffer, spanOf } from "./plain.js";

/** Options of `Shrew.load` (checked: an unknown key or a value of another type is an error). */
export interface LoadOptions {
  /** The bytes of shrew.wasm; skips any file or network access. */
  wasmBinary?: ArrayBuffer | Uint8Array | undefined;
  /**
   * Where to fetch shrew.wasm from; defaults to next to this file. A URL or a
   * non-empty string. In Node a `file:` URL is read from disk (fetch takes
   * none), and so is a string without a URL scheme: a path (relative ones
   * from the working directory).
   */
  wasmUrl?: string | URL | undefined;
}

const isNode = typeof process === "object" && typeof process.versions?.node === "string";

/** One wasm instance plus its liveness. */
export class ModuleState {
  readonly raw: RawModule;
  #dead: string | undefined;

  constructor(raw: RawModule) {
    this.raw = raw;
  }

  get dead(): string | undefined {
    return this.#dead;
  }

  markDead(reason: string): void {
    this.#dead ??= reason;
  }

  /**
   * What the C++ side recorded before it aborted (running out of memory in a
   * container's allocation), or undefined: the glue's own reason is only
   * "Aborted()". Read from memory, the instance no longer being usable.
   */
  abortDetail(): string | undefined {
    try {
      const heap = this.raw.HEAPU8;
      const at = this.raw._shrew_abort_reason();
      // Its buffer is 160 bytes: a heap written over by a bug holds no NUL for megabytes.
      const reason = heap.subarray(at, at + 160);
      const end = reason.indexOf(0);
      return end > 0 ? new TextDecoder().decode(reason.subarray(0, end)) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Bytes of wasm linear memory right now (a fresh view: memory growth detaches old ones). */
  get heapBytes(): number {
    return this.raw.HEAPU8.byteLength;
  }

  /** Throws `aborted` once the module is unusable; callers check this before their arguments. */
  checkLive(): void {
    if (this.#dead !== undefined) {
      throw new ShrewRuntimeError("aborted", `the Shrew wasm module is unusable after an earlier abort (${this.#dead}); load a new one`);
    }
  }

  /** Runs fn against the module; a wasm trap marks the module unusable. */
  call<T>(fn: (raw: RawModule) => T): T {
    this.checkLive();
    try {
      return fn(this.raw);
    } catch (e) {
      throw this.#trapped(e);
    }
  }

  /**
   * `call` for the lean run's one export, without a closure per run (each
   * allocation on the hot path is a fresh nursery line, missed in cache).
   */
  runPrepared(handle: number, id: number): number {
    this.checkLive();
    try {
      return this.raw._shrew_run_prepared(handle, id);
    } catch (e) {
      throw this.#trapped(e);
    }
  }

  /** What a call throws for `e`: a wasm trap marks the module unusable. */
  #trapped(e: unknown): unknown {
    if (e instanceof WebAssembly.RuntimeError || (e instanceof Error && /^Aborted\(/.test(e.message))) {
      this.markDead(this.abortDetail() ?? e.message);
      return new ShrewRuntimeError("aborted", `the Shrew wasm module aborted: ${this.#dead}; it is unusable from now on`);
    }
    return e;
  }
}

/**
 * The glue reads `new Uint8Array(wasmBinary)`: a copy of a typed array (1.4 MB
 * of fresh pages at every load) but a view of an ArrayBuffer. A Uint8Array
 * spanning its whole buffer is therefore passed as that buffer; nothing writes
 * to it (WebAssembly.instantiate copies the bytes it compiles).
 */
function wholeBuffer(bytes: ArrayBuffer | Uint8Array): ArrayBuffer | Uint8Array {
  if (isArrayBuffer(bytes)) return bytes;
  const { buffer, start, end } = spanOf(bytes);
  return isArrayBuffer(buffer) && start === 0 && end === buffer.byteLength ? buffer : bytes;
}

/**
 * In Node, a `file:` wasmUrl or a path as a URL (Node reads it from disk);
 * undefined for any other. A path (no URL scheme, or a Windows drive) went
 * to fetch, which has no base URL in Node: "Failed to parse URL from ./shrew.wasm".
 */
async function fileUrl(url: string | URL): Promise<URL | undefined> {
  if (url instanceof URL) return url.protocol === "file:" ? url : undefined;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url) || /^[a-z]:[\\/]/i.test(url)) {
    return pathToFileUrl(url);
  }
  if (!/^file:/i.test(url)) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;  // the glue's fetch reports it
  }
}

/**
 * The wasm module's response from `url`, checked: the glue's own fetch
 * reported an unreachable server as "its exports are not those of this
 * package" (fetch's TypeError), a 404 in a page as "both async and sync
 * fetching of the wasm failed" and in a worker compiled the 404 page, and
 * in Node a server's application/octet-stream made it fall back to a
 * `require("fs")` that bundled code does not have.
 */
async function fetchWasm(url: string, code: "invalid_argument" | "internal"): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: "same-origin" });
  } catch (e) {
    throw new ShrewRuntimeError(code, `cannot fetch the Shrew wasm module from ${url}: ${(e as Error)?.message ?? String(e)} ` +
      "(a network error, or a cross-origin URL served without CORS headers)");
  }
  if (!response.ok) {
    throw new ShrewRuntimeError(code, `cannot fetch the Shrew wasm module from ${url}: HTTP ${response.status}` +
      (response.statusText ? ` ${response.statusText}` : ""));
  }
  return response;
}

/** Compiles while downloading when the server says application/wasm (what streaming requires), else from the bytes. */
async function instantiateFrom(response: Response, imports: WebAssembly.Imports): Promise<WebAssembly.WebAssemblyInstantiatedSource> {
  const type = response.headers.get("content-type") ?? "";
  if (typeof WebAssembly.instantiateStreaming === "function" && /^application\/wasm\b/i.test(type)) {
    return WebAssembly.instantiateStreaming(response, imports);
  }
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
}

export async function instantiate(opts: LoadOptions = {}): Promise<ModuleState> {
  // The options are Shrew.load's, checked there.
  let wasmBinary = opts.wasmBinary;
  // Resolved against this file, not against the glue: in the single-file
  // bundle (dist/shrew.min.js) the glue's own import.meta.url is the bundle's.
  const defaultUrl = new URL("./wasm/shrew.wasm", import.meta.url);
  if (isNode && !wasmBinary) {
    // Node's fetch() takes no file: URLs (the glue's error was only "fetch
    // failed"): the default and a file: wasmUrl are read here.
    let file: URL | undefined;
    try {
      // The default is read from disk when this module was (a file: URL);
      // imported over http(s) (Deno, Node's network imports) it is fetched.
      file = opts.wasmUrl === undefined ? (defaultUrl.protocol === "file:" ? defaultUrl : undefined) : await fileUrl(opts.wasmUrl);
      if (file !== undefined) wasmBinary = await readFileBytes(file);
    } catch (e) {
      // The default is found next to this module: a bundler that copied the
      // package's code into another file (esbuild, rolldown for Node) leaves
      // shrew.wasm behind, and the error said only ENOENT.
      const missing = opts.wasmUrl === undefined && (e as NodeJS.ErrnoException)?.code === "ENOENT"
        ? "; it is looked for next to the module that loads it (the package's dist/wasm/shrew.wasm): if this package " +
          "was bundled into another file, copy shrew.wasm to that path, or pass Shrew.load({ wasmBinary }) or { wasmUrl }"
        : "";
      throw new ShrewRuntimeError(opts.wasmUrl === undefined ? "internal" : "invalid_argument",
        `cannot read the Shrew wasm module from ${String(file ?? opts.wasmUrl)}: ${(e as Error)?.message ?? String(e)}${missing}`);
    }
  }
  if (wasmBinary) wasmBinary = wholeBuffer(wasmBinary);
  const url = wasmBinary ? undefined : String(opts.wasmUrl ?? defaultUrl);
  const code = opts.wasmBinary || opts.wasmUrl ? "invalid_argument" : "internal";
  const response = url === undefined ? undefined : await fetchWasm(url, code);
  // The glue never settles its promise when instantiateWasm's work fails: this one does.
  let instantiateFailed: (e: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => { instantiateFailed = reject; });
  let state: ModuleState | undefined;
  let abortReason: string | undefined;
  // The glue prints why instantiation failed; that reason goes into the error instead.
  let loading = true;
  const printErr = (s: string) => (loading ? undefined : console.warn(s));
  let raw: RawModule;
  try {
    raw = await Promise.race([createShrewModule({
      wasmBinary,
      instantiateWasm: response === undefined ? undefined : (imports, receive) => {
        instantiateFrom(response, imports as WebAssembly.Imports).then((r) => receive(r.instance, r.module)).catch(instantiateFailed);
        return {};
      },
      printErr,
      onAbort: (what: unknown) => {
        abortReason = state?.abortDetail() ?? (String(what) || "Aborted()");
        state?.markDead(abortReason);
      },
    }), failed]);
  } catch (e) {
    const from = opts.wasmBinary ? "wasmBinary" : String(opts.wasmUrl ?? defaultUrl);
    const reason = abortReason ?? (e as Error)?.message ?? String(e);
    // A valid module with other exports fails in the glue's own code, which
    // reads them: "Cannot read properties of undefined (reading 'buffer')".
    // That TypeError's text names the glue's internals: the message ends before it.
    const foreign = abortReason === undefined && e instanceof TypeError;
    const why = foreign ? "its exports are not those of this package's shrew.wasm (another module, or another build)" : reason;
    throw new ShrewRuntimeError(code, `cannot instantiate the Shrew wasm module from ${from}: ${why}`);
  } finally {
    loading = false;
  }
  state = new ModuleState(raw);
  if (abortReason !== undefined) state.markDead(abortReason);
  return state;
}

let defaultModule: Promise<ModuleState> | undefined;

function newDefault(): Promise<ModuleState> {
  const p: Promise<ModuleState> = instantiate().catch((e) => {
    if (defaultModule === p) defaultModule = undefined;
    throw e;
  });
  return (defaultModule = p);
}

/** The default module (no options), instantiated once and shared; once it aborted, re-created once and shared. */
export async function instantiateDefault(): Promise<ModuleState> {
  const current = defaultModule ?? newDefault();
  const m = await current;
  if (m.dead === undefined) return m;
  // Concurrent callers that saw the same dead instance share one replacement.
  return defaultModule === current ? newDefault() : instantiateDefault();
}
