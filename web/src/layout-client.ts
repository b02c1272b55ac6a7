// The page's side of the layout worker. Only the newest layout matters: a
// request made while an older one is still running ends that worker (dagre
// cannot be interrupted) and answers the older request with null. A layout
// that fails (the worker died, e.g. out of memory) rejects.
export interface LayoutRequest {
  id: number;
  nodes: { id: string; width: number; height: number }[];
  edges: [string, string][];
}

export interface LayoutResult {
  id: number;
  width: number;
  height: number;
  nodes: Record<string, { x: number; y: number; width: number; height: number }>;
  /** One polyline per edge (dagre merges parallel edges). */
  edges: { x: number; y: number }[][];
}

export class LayoutClient {
  #worker: Worker | undefined;
  #pending: { id: number; resolve: (r: LayoutResult | null) => void; reject: (e: Error) => void } | undefined;
  #next = 1;

  layout(nodes: LayoutRequest["nodes"], edges: LayoutRequest["edges"]): Promise<LayoutResult | null> {
    if (this.#pending) {
      this.#worker?.terminate();
      this.#worker = undefined;
      this.#pending.resolve(null);
      this.#pending = undefined;
    }
    const worker = (this.#worker ??= this.#start());
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending = { id, resolve, reject };
      worker.postMessage({ id, nodes, edges } satisfies LayoutRequest);
    });
  }

  #start(): Worker {
    const w = new Worker(new URL("./layout-worker.ts", import.meta.url), { type: "module", name: "shrew-layout" });
    w.onmessage = (ev: MessageEvent<LayoutResult>) => {
      if (this.#pending?.id !== ev.data.id) return;
      const p = this.#pending;
      this.#pending = undefined;
      p.resolve(ev.data);
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      w.terminate();
      if (this.#worker === w) this.#worker = undefined;  // the next request starts a new one
      this.#pending?.reject(new Error(ev.message || "the layout worker failed"));
      this.#pending = undefined;
    };
    return w;
  }
}
