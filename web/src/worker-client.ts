// The page's side of the worker: requests with ids, answers as promises.
// While the worker compiles, a new compile waits here, and a newer one
// replaces it unsent (answered "superseded"): the worker compiles and warms
// up each source it is sent, and one per edit made during a long warm-up
// added up to minutes.
// restart() stops a request that runs too long: the worker is terminated
// (a wasm call cannot be interrupted) and a fresh one started.
import type { BundleResponse, CompileFailed, CompileOk, CompileRequest, Request, Response, RunFailed, RunOk } from "./protocol.js";

/** A request sent: for a compile, its source and whether its warm-up runs have started. */
type Pending = { type: Request["type"]; resolve: (r: Response) => void; source?: string; warming: boolean };

/** What restart() stopped: the request the worker was working on. */
export interface Stopped {
  type: Request["type"];
  /** A compile: its source, and whether it was in its warm-up runs. */
  source?: string;
  warming: boolean;
}
type Payload<T> = T extends unknown ? Omit<T, "id"> : never;

export class WorkerClient {
  #worker!: Worker;
  readonly #pending = new Map<number, Pending>();
  /** The compile waiting for the one in the worker. */
  #held: { req: Payload<CompileRequest>; resolve: (r: CompileOk | CompileFailed) => void } | undefined;
  #next = 1;
  /** Settles when the current worker has loaded the wasm module (or failed to). */
  ready!: Promise<void>;
  /** Called when the worker becomes busy (a request is pending) or idle. */
  onBusy: (busy: boolean) => void = () => {};
  /** Called when a compile starts its warm-up runs. */
  onWarming: () => void = () => {};

  constructor() {
    this.#start();
  }

  #start(): void {
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "shrew" });
    this.#worker = worker;
    let onReady: () => void = () => {};
    let onFatal: (e: Error) => void = () => {};
    this.ready = new Promise((res, rej) => {
      onReady = res;
      onFatal = rej;
    });
    worker.onmessage = (ev: MessageEvent<Response>) => {
      const r = ev.data;
      if (r.type === "ready") return onReady();
      if (r.type === "fatal") return onFatal(new Error(r.message));
      if (r.type === "warming") {
        const p = this.#pending.get(r.id);
        if (p) p.warming = true;
        return this.onWarming();
      }
      const p = this.#pending.get(r.id);
      this.#pending.delete(r.id);
      const held = p?.type === "compile" ? this.#held : undefined;
      if (held) {
        this.#held = undefined;
        this.#send<CompileOk | CompileFailed>(held.req).then(held.resolve);
      }
      if (this.#pending.size === 0) this.onBusy(false);
      p?.resolve(r);
    };
    worker.onerror = (ev) => onFatal(new Error(ev.message || "the worker failed to start"));
  }

  /**
   * Terminates the worker, answers every pending request as stopped, and
   * starts a fresh worker. Returns the request the worker was on (it takes
   * them in order: the oldest pending), if any.
   */
  restart(): Stopped | undefined {
    this.#worker.terminate();
    const pending = [...this.#pending];
    const oldest = pending[0]?.[1];
    this.#pending.clear();
    this.#start();
    this.onBusy(false);
    const message = "stopped: the worker was restarted";
    this.#held?.resolve({ type: "compiled", id: 0, ok: false, compileMs: 0, stage: "stopped", diagnostics: [], message });
    this.#held = undefined;
    for (const [id, p] of pending) {
      p.resolve(p.type === "run" ? { type: "ran", id, ok: false, message, stopped: true }
                : p.type === "bundle" ? { type: "bundled", id, ok: false, message }
                : { type: "compiled", id, ok: false, compileMs: 0, stage: "stopped", diagnostics: [], message });
    }
    return oldest && { type: oldest.type, source: oldest.source, warming: oldest.warming };
  }

  #send<R extends Response>(req: Payload<Request>): Promise<R> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, { type: req.type, resolve: resolve as (r: Response) => void, warming: false,
                              source: req.type === "compile" ? req.source : undefined });
      if (this.#pending.size === 1) this.onBusy(true);
      this.#worker.postMessage({ ...req, id });
    });
  }

  compile(source: string, dims: Record<string, number>, seed: bigint | null, warmUp: boolean): Promise<CompileOk | CompileFailed> {
    const req = { type: "compile", source, dims, seed, warmUp } as const;
    if (![...this.#pending.values()].some((p) => p.type === "compile")) return this.#send(req);
    this.#held?.resolve({ type: "compiled", id: 0, ok: false, compileMs: 0, stage: "superseded", diagnostics: [],
                          message: "superseded by a newer compile" });
    return new Promise((resolve) => (this.#held = { req, resolve }));
  }

  run(req: Payload<Extract<Request, { type: "run" }>>): Promise<RunOk | RunFailed> {
    return this.#send(req);
  }

  /** The compiled program as a bundle. */
  bundle(): Promise<BundleResponse> {
    return this.#send({ type: "bundle" });
  }
}
