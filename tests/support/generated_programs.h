// Generated .sw sources for the tests of large programs: costs that must
// stay linear in the program's size, and the bounds on recursion.
#pragma once

#include <cstdint>
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

// An expression `leaf link link …` whose tree is exactly `height` tall (for
// the walks that recurse): parenthesised every 63 operators, so the parser
// keeps it as nested BinaryExprs (a longer run would be one flat ChainExpr).
inline std::string TallExpression(const std::string& leaf, const std::string& link, uint32_t height) {
  std::string e = leaf;
  uint32_t h = 1;
  while (h + 64 <= height) {
    e = "(" + e;
    for (int i = 0; i < 63; ++i) e += link;
    e += ")";
    h += 64;
  }
  for (; h < height; ++h) e += link;
  return e;
}

}  // namespace shrew::testing
