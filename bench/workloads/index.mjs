// All workloads, in report order.
import tiny from "./tiny.mjs";
import mlp from "./mlp.mjs";
import block from "./block.mjs";

/** @type {import("./workload.mjs").Workload[]} */
export const WORKLOADS = [tiny, mlp, block];

/** @param {string} name */
export function workloadByName(name) {
  const w = WORKLOADS.find((x) => x.name === name);
  if (!w) throw new Error(`unknown workload '${name}' (known: ${WORKLOADS.map((x) => x.name).join(", ")})`);
  return w;
}
