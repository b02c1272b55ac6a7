// The execution order shared by the tape and the interpreter (PIPELINE.md §7.1).
#include "ir/execution_order.h"

#include <gtest/gtest.h>

namespace shrew::ir {
namespace {

TEST(ExecutionOrder, LifoKahnRunsANodeAsSoonAsItsOperandsAreReady) {
  //   %0 a, %1 b (sources), %2 = f(%0), %3 = g(%1), %4 = h(%2, %3)
  Graph g("G");
  NodeId a = g.AddInput("a", Type::Tensor({Dim::Fixed(2)}, DType::kF32));
  NodeId b = g.AddInput("b", Type::Tensor({Dim::Fixed(2)}, DType::kF32));
  NodeId f = g.AddNode("f", OpKind::kRelu, {a});
  NodeId gg = g.AddNode("g", OpKind::kRelu, {b});
  NodeId h = g.AddNode("h", OpKind::kAdd, {f, gg});
  // Sources pushed 0, 1; pop 1 (b) -> g ready, pushed, popped next; then a, f, h.
  EXPECT_EQ(ExecutionOrder(g), (std::vector<NodeId>{b, gg, a, f, h}));
}

}  // namespace
}  // namespace shrew::ir
