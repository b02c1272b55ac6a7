// The page's side of the worker: requests with ids, answers as promises.
// A newer compile supersedes an older one still queued (its answer is dropped).
import type { CompileFailed, CompileOk, Request, Response, RunFailed, RunOk } from "./protocol.js";

type Pending = { resolve: (r: Response) => void };
type Payload<T> = T extends unknown ? Omit<T, "id"> : never;

export class WorkerClient {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  readonly ready: Promise<void>;

  constructor() {
    this.#worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "shrew" });
    let onReady: () => void = () => {};
    let onFatal: (e: Error) => void = () => {};
    this.ready = new Promise((res, rej) => {
      onReady = res;
      onFatal = rej;
    });
    this.#worker.onmessage = (ev: MessageEvent<Response>) => {
      const r = ev.data;
      if (r.type === "ready") return onReady();
      if (r.type === "fatal") return onFatal(new Error(r.message));
      const p = this.#pending.get(r.id);
      this.#pending.delete(r.id);
      p?.resolve(r);
    };
    this.#worker.onerror = (ev) => onFatal(new Error(ev.message || "the worker failed to start"));
  }

  #send<R extends Response>(req: Payload<Request>): Promise<R> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, { resolve: resolve as (r: Response) => void });
      this.#worker.postMessage({ ...req, id });
    });
  }

  compile(source: string, dims: Record<string, number>, seed: number): Promise<CompileOk | CompileFailed> {
    return this.#send({ type: "compile", source, dims, seed });
  }

  run(req: Payload<Extract<Request, { type: "run" }>>): Promise<RunOk | RunFailed> {
    return this.#send(req);
  }
}
