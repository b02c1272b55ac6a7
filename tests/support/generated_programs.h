// Generated .sw sources for the tests that check a cost stays linear in the
// size of the program.
#pragma once

#include <string>

namespace shrew::testing {

// Graph G: `layers` dense layers of 4 units, each weight a [4, 4] parameter
// (packed by its kernel), `h_i = tanh(matmul(h_{i-1}, w_i))`, plus `+ x` per
// layer when `add_input` (so the output depends on the last layers). Graph H:
// one more weight `v`, `y = matmul(x, v)`. Input x: [1, 4]; outputs y.
inline std::string PackedWeightChain(int layers, bool add_input) {
  std::string src = "@graph G {\n  input x: Tensor<[1, 4], f32>;\n";
  for (int i = 0; i < layers; ++i) {
    src += "  param w" + std::to_string(i) + ": Tensor<[4, 4], f32> { init: \"xavier_uniform\"; };\n";
  }
  std::string prev = "x";
  for (int i = 0; i < layers; ++i) {
    src += "  node h" + std::to_string(i) + " { op: tanh(matmul(" + prev + ", w" + std::to_string(i) + "))" +
           (add_input ? " + x" : "") + "; };\n";
    prev = "h" + std::to_string(i);
  }
  src += "  output y: " + prev + ";\n}\n";
  src += "@graph H {\n  input x: Tensor<[1, 4], f32>;\n"
         "  param v: Tensor<[4, 4], f32> { init: \"xavier_uniform\"; };\n  output y: matmul(x, v);\n}\n";
  return src;
}

}  // namespace shrew::testing
