// The generated graph of the 1,000-node compile figure (bench/cold-start.mjs).

/**
 * A chain of n nodes cycling through element-wise ops and small matmuls, each
 * reading the input so nothing folds away (graph `Gen`, input x[1,16], output y).
 * @param {number} n @returns {string} the .sw source
 */
export function generatedGraph(n) {
  const ops = ["relu(P)", "P + x", "tanh(P)", "P * x", "sigmoid(P)", "P - x", "matmul(P, w)"];
  const lines = ["@graph Gen {", "    input x: Tensor<[1, 16], f32>;", "    param w: Tensor<[16, 16], f32> { init: \"xavier_uniform\"; };"];
  let prev = "x";
  for (let i = 1; i <= n; i++) {
    lines.push(`    node n${i} { op: ${ops[i % ops.length].replace("P", prev)}; };`);
    prev = `n${i}`;
  }
  lines.push(`    output y: ${prev};`, "}");
  return lines.join("\n");
}
