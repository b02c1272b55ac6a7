#include "opt/identity_elim.h"

#include <gtest/gtest.h>

#include "diag/diagnostic.h"
#include "ir/shapes.h"
#include "opt_test_util.h"

namespace shrew::opt {
namespace {

using ir::OpKind;
using testing::ExpectInvariants;
using testing::F32;
using testing::Render;

TEST(IdentityElimTest, SpecExample) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId pass = g.AddNode("pass", OpKind::kIdentity, {x});
  ir::NodeId y = g.AddNode("y", OpKind::kRelu, {pass});
  g.AddOutput("y", y);
  g.AddOutput("alias", pass);

  EXPECT_EQ(RunIdentityElim(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 y = relu(%0)\n"
            "outputs: y=%1, alias=%0\n");
  ExpectInvariants(g);
}

TEST(IdentityElimTest, ChainsResolveToTheFinalSourceInOnePass) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId a = g.AddNode("a", OpKind::kExp, {x});
  ir::NodeId b = g.AddNode("b", OpKind::kIdentity, {a});
  ir::NodeId c = g.AddNode("c", OpKind::kIdentity, {b});
  ir::NodeId d = g.AddNode("d", OpKind::kIdentity, {c});
  ir::NodeId y = g.AddNode("y", OpKind::kAdd, {d, b});
  g.AddOutput("y", y);
  g.AddOutput("last", d);

  EXPECT_EQ(RunIdentityElim(g), 3);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 a = exp(%0)\n"
            "%2 y = add(%1, %1)\n"
            "outputs: y=%2, last=%1\n");
  ExpectInvariants(g);
  EXPECT_EQ(RunIdentityElim(g), 0);
}

ir::Type Tensor(std::vector<ir::Dim> dims, ir::DType dtype = ir::DType::kF32) {
  return ir::Type::Tensor(std::move(dims), dtype);
}

void Infer(ir::Graph& g) {
  diag::DiagnosticBag diags;
  ASSERT_TRUE(ir::InferGraphTypes(&g, nullptr, &diags)) << (diags.all().empty() ? "" : diags.all()[0].message);
}

// `input x: ?; node y: Tensor<[2], f32> { op: x; };`: y's declaration is
// checked when a run specialises the graph (T6), on y. Bypassed, y's output
// was x itself and an i64[3] input came out as `y: i64[3]` with no error.
TEST(IdentityElimTest, IdentityWhoseDeclaredTypeStatesMoreIsKept) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", ir::Type::Unknown());
  ir::NodeId y = g.AddNode("y", OpKind::kIdentity, {x});
  g.node(y).declared_type = Tensor({ir::Dim::Fixed(2)});
  ir::NodeId z = g.AddNode("z", OpKind::kIdentity, {y});  // no declaration: bypassed
  g.AddOutput("y", y);
  g.AddOutput("z", z);
  Infer(g);

  EXPECT_EQ(RunIdentityElim(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 y = identity(%0)\n"
            "outputs: y=%1, z=%1\n");
  ASSERT_EQ(g.num_nodes(), 2);
  ASSERT_TRUE(g.node(1).declared_type.has_value());
  EXPECT_EQ(g.node(1).declared_type->ToString(), "Tensor<[2], f32>");
  ExpectInvariants(g);
}

// `input x: Tensor<[?, 4], f32>; node y: Tensor<[B, 4], f32> { op: x; };`:
// the name B is y's alone (`info` showed `output y: Tensor<[?, 4], f32>`).
// A declaration that repeats what x has says nothing more and goes.
TEST(IdentityElimTest, DeclaredDimensionNamesSurviveAndRepeatedTypesDoNot) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", Tensor({ir::Dim::Dynamic(), ir::Dim::Fixed(4)}));
  ir::NodeId y = g.AddNode("y", OpKind::kIdentity, {x});
  g.node(y).declared_type = Tensor({ir::Dim::Symbolic("B"), ir::Dim::Fixed(4)});
  ir::NodeId same = g.AddNode("same", OpKind::kIdentity, {x});
  g.node(same).declared_type = Tensor({ir::Dim::Dynamic(), ir::Dim::Fixed(4)});
  g.AddOutput("y", y);
  g.AddOutput("same", same);
  Infer(g);

  EXPECT_EQ(RunIdentityElim(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 y = identity(%0)\n"
            "outputs: y=%1, same=%0\n");
  ASSERT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.node(1).type.ToString(), "Tensor<[B, 4], f32>");
  ExpectInvariants(g);
}

TEST(IdentityElimTest, InputsAndParamsAreNeverBypassed) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId w = g.AddParam("w", F32({2}));
  g.AddOutput("x", x);
  g.AddOutput("w", w);
  EXPECT_EQ(RunIdentityElim(g), 0);
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.params().size(), 1u);
}

TEST(IdentityElimTest, IdentityOfParamRedirectsToParam) {
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId w = g.AddParam("w", F32({2}));
  ir::NodeId wi = g.AddNode("wi", OpKind::kIdentity, {w});
  g.AddOutput("out", g.AddNode("out", OpKind::kMul, {x, wi}));
  EXPECT_EQ(RunIdentityElim(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 w = param\n"
            "%2 out = mul(%0, %1)\n"
            "outputs: out=%2\n");
  ExpectInvariants(g);
}

TEST(IdentityElimTest, DeadIdentityIsRemovedSoTheDriverConverges) {
  // With DCE switched off a dead identity must still go once bypassed,
  // otherwise every round would count it again.
  ir::Graph g("G");
  ir::NodeId x = g.AddInput("x", F32({2}));
  ir::NodeId dead = g.AddNode("dead", OpKind::kIdentity, {x});
  g.AddNode("user", OpKind::kExp, {dead});  // dead too, stays
  g.AddOutput("y", g.AddNode("y", OpKind::kRelu, {x}));
  EXPECT_EQ(RunIdentityElim(g), 1);
  EXPECT_EQ(Render(g),
            "%0 x = input\n"
            "%1 user = exp(%0)\n"
            "%2 y = relu(%0)\n"
            "outputs: y=%2\n");
  EXPECT_EQ(RunIdentityElim(g), 0);
  ExpectInvariants(g);
}

}  // namespace
}  // namespace shrew::opt
