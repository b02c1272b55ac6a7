// The examples menu: models written for the playground (web/examples).
import mlp from "../examples/mlp-classifier.sw?raw";
import tour from "../examples/optimizer-tour.sw?raw";
import attention from "../examples/self-attention.sw?raw";
import chain from "../examples/memory-reuse.sw?raw";

export interface Example {
  id: string;
  title: string;
  source: string;
}

export const EXAMPLES: readonly Example[] = [
  { id: "mlp-classifier", title: "MLP classifier (fusion)", source: mlp },
  { id: "optimizer-tour", title: "Optimiser tour (every pass)", source: tour },
  { id: "self-attention", title: "Self-attention (heatmap)", source: attention },
  { id: "memory-reuse", title: "Element-wise chain (memory reuse)", source: chain },
];

export function findExample(id: string): Example | undefined {
  return EXAMPLES.find((e) => e.id === id);
}
