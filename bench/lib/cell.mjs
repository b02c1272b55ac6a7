// Builds a benchmark cell (workload × batch) with its deterministic data.

/**
 * @param {import("../workloads/workload.mjs").Workload} workload
 * @param {number} batch
 * @returns {import("../runners/runner.mjs").Cell}
 */
export function makeCell(workload, batch) {
  return {
    workload,
    batch,
    inputShape: workload.inputShape(batch),
    outputShape: workload.outputShape(batch),
    input: workload.input(batch),
    weights: workload.weights(),
  };
}
