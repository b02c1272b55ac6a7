// Helpers for the reference-interpreter tests: tensor literals, one-node
// graphs evaluated with EvalNode, and assertions on Result<Tensor>.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interp/eval.h"
#include "ir/graph.h"
#include "runtime/tensor.h"

namespace shrew::interp::testing {

using runtime::Shape;
using runtime::Tensor;

inline Tensor Make(Result<Tensor> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Tensor();
}
inline Tensor F32(Shape s, std::vector<float> v) { return Make(Tensor::FromVector<float>(ir::DType::kF32, s, v)); }
inline Tensor F64(Shape s, std::vector<double> v) { return Make(Tensor::FromVector<double>(ir::DType::kF64, s, v)); }
inline Tensor I64(Shape s, std::vector<int64_t> v) { return Make(Tensor::FromVector<int64_t>(ir::DType::kI64, s, v)); }
inline Tensor U8(Shape s, std::vector<uint8_t> v) { return Make(Tensor::FromVector<uint8_t>(ir::DType::kU8, s, v)); }
inline Tensor Bool(Shape s, std::vector<bool> v) { return Make(Tensor::FromVector(ir::DType::kBool, s, v)); }

inline ir::Type TypeOf(const Tensor& t) {
  std::vector<ir::Dim> dims;
  for (int64_t d : t.shape()) dims.push_back(ir::Dim::Fixed(d));
  return ir::Type::Tensor(dims, t.dtype());
}

// One compute node `op` whose operands are inputs a0, a1, … typed like the
// given tensors; attributes set as given. The node's type stays unknown
// unless `type` is given.
struct OneNode {
  ir::Graph graph{"T"};
  ir::NodeId node = ir::kNoNode;

  OneNode(ir::OpKind op, const std::vector<const Tensor*>& operands, ir::Attrs attrs = {},
          std::optional<ir::Type> type = std::nullopt) {
    std::vector<ir::NodeId> ids;
    for (size_t i = 0; i < operands.size(); ++i) {
      ids.push_back(graph.AddInput("a" + std::to_string(i), TypeOf(*operands[i])));
    }
    node = graph.AddNode("y", op, ids);
    graph.node(node).attrs = std::move(attrs);
    if (type) graph.node(node).type = *type;
    graph.AddOutput("y", node);
  }
  ir::Node& n() { return graph.node(node); }
};

inline ir::Attrs A(std::vector<std::pair<std::string, ir::AttrValue>> kv) {
  ir::Attrs a;
  for (auto& [k, v] : kv) a.Set(k, std::move(v));
  return a;
}

// Evaluates `op` on `operands` with attributes.
inline Result<Tensor> Eval(ir::OpKind op, const std::vector<const Tensor*>& operands, ir::Attrs attrs = {},
                           const EvalContext& ctx = {}) {
  OneNode g(op, operands, std::move(attrs));
  return EvalNode(g.graph, g.n(), operands, ctx);
}
inline Result<Tensor> Eval(ir::OpKind op, std::initializer_list<const Tensor*> operands, ir::Attrs attrs = {},
                           const EvalContext& ctx = {}) {
  return Eval(op, std::vector<const Tensor*>(operands), std::move(attrs), ctx);
}

// AllClose with a readable failure.
inline ::testing::AssertionResult Close(const Result<Tensor>& r, const Tensor& expected, double rtol = 1e-6,
                                        double atol = 1e-6) {
  if (!r.ok()) return ::testing::AssertionFailure() << "error: " << r.status().ToString();
  std::string why;
  if (runtime::AllClose(r.value(), expected, rtol, atol, &why)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << why;
}

// Bitwise equality with a readable failure.
inline ::testing::AssertionResult Same(const Result<Tensor>& r, const Tensor& expected) {
  if (!r.ok()) return ::testing::AssertionFailure() << "error: " << r.status().ToString();
  std::string why;
  if (runtime::BitwiseEqual(r.value(), expected, &why)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << why << " (" << r->ToString() << " vs " << expected.ToString() << ")";
}

// Fails unless `r` is an error whose message contains `needle`.
template <typename T>
::testing::AssertionResult FailsWith(const Result<T>& r, std::string_view needle) {
  if (r.ok()) return ::testing::AssertionFailure() << "succeeded, expected an error containing '" << needle << "'";
  if (r.status().message().find(needle) == std::string::npos) {
    return ::testing::AssertionFailure() << "message '" << r.status().message() << "' lacks '" << needle << "'";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace shrew::interp::testing
