// jit/transpose_fold.h: a transpose of the last two axes read only by a
// product's b is folded into it (no instruction of its own, the product
// reads the source as [.., N, K]); every other transpose runs as it is. The
// values are the interpreter's for every plan the dense kernels take (row
// dots, XNNPACK's transposed-b and [N, K]-weight operators, the reference
// matmul for f64 and integers), across bindings and parameter changes.
#include "jit/transpose_fold.h"

#include <gtest/gtest.h>

#include <string>

#include "jit/dump.h"
#include "jit/jit_test_util.h"

namespace shrew::jit {
namespace {

using testing::MakeProgram;
using testing::RandomTensor;

// Instructions of graph G's tape that compute a transpose or permute of
// their own, and whether a product instruction reads one folded.
struct TapeShape {
  int transposes = 0;
  int folded = 0;
};

TapeShape ShapeOf(const CompiledGraph& cg) {
  TapeShape t;
  for (const Instr& in : cg.tape.instrs) {
    if (in.opcode != Opcode::kCompute) continue;
    const ir::OpKind op = cg.graph.node(in.node).op;
    if (op == ir::OpKind::kTranspose || op == ir::OpKind::kPermute) ++t.transposes;
    const ir::NodeId product = in.fused_node != ir::kNoNode ? in.fused_node : in.node;
    if (cg.transposed_b[static_cast<size_t>(product)] != ir::kNoNode) ++t.folded;
  }
  return t;
}

struct Case {
  const char* what;
  std::string body;  // graph G's statements after its inputs
  bool folds;
};

// x [M, 6] (or batched), w as declared; M takes 1, 3, 8 and 64 so that row
// dots, XNNPACK and the reference products all run.
void CheckCases(const std::string& dtype, const std::string& w_decl, const std::vector<Case>& cases,
                const std::string& x_decl = "[M, 6]") {
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.what) + " " + dtype);
    const std::string src = "@graph G {\n  input x: Tensor<" + x_decl + ", " + dtype + ">;\n  input w: Tensor<" + w_decl +
                            ", " + dtype + ">;\n" + c.body + "\n}\n";
    std::unique_ptr<shrew::Program> p = MakeProgram(src);
    ASSERT_NE(p, nullptr);
    const CompiledGraph* cg = p->compiled("G");
    ASSERT_NE(cg, nullptr);
    const TapeShape shape = ShapeOf(*cg);
    EXPECT_EQ(shape.folded, c.folds ? 1 : 0) << DumpCompiledGraph(*cg, nullptr);
    EXPECT_EQ(shape.transposes, c.folds ? 0 : 1) << DumpCompiledGraph(*cg, nullptr);
    for (int64_t m : {1, 3, 8, 64}) {
      SCOPED_TRACE("M = " + std::to_string(m));
      const ir::Node& xn = cg->graph.node(cg->graph.inputs()[0].node);
      const ir::Node& wn = cg->graph.node(cg->graph.inputs()[1].node);
      auto shape_of = [m](const ir::Node& n) {
        runtime::Shape s;
        for (const ir::Dim& d : n.type.dims()) s.push_back(d.is_fixed() ? d.size() : m);
        return s;
      };
      runtime::TensorMap in;
      in.emplace("x", RandomTensor(xn.type.dtype(), shape_of(xn), static_cast<uint32_t>(m)));
      in.emplace("w", RandomTensor(wn.type.dtype(), shape_of(wn), static_cast<uint32_t>(m + 100)));
      testing::RunBoth(*p, "G", in, /*slack=*/4);
    }
  }
}

TEST(TransposeFold, ALastTwoAxesTransposeReadOnlyAsBIsFolded) {
  const std::vector<Case> cases = {
      {"transpose(w)", "  output y: matmul(x, transpose(w));", true},
      {"axes given the other way", "  output y: matmul(x, transpose(w, dim0: -1, dim1: -2));", true},
      {"axes from the front", "  output y: matmul(x, transpose(w, dim0: 1, dim1: 0));", true},
      {"permute", "  output y: matmul(x, permute(w, dims: [1, 0]));", true},
      {"+ c (fused_matmul_add)", "  output y: matmul(x, transpose(w)) + 0.5;", true},
      {"relu(+ c): the activation fused too", "  output y: relu(matmul(x, transpose(w)) + 0.5);", true},
      {"gelu", "  output y: gelu(matmul(x, transpose(w)));", true},
      {"read twice", "  node t { op: transpose(w); };\n  output y: matmul(x, t);\n  output u: t * t;", false},
      {"an output too", "  node t { op: transpose(w); };\n  output y: matmul(x, t);\n  output u: t;", false},
  };
  for (const char* dtype : {"f32", "f64", "i64"}) {
    std::vector<Case> typed;
    for (const Case& c : cases) {
      // gelu and the literal 0.5 need a float; integers take the plain product.
      const bool float_only = c.body.find("gelu") != std::string::npos || c.body.find("0.5") != std::string::npos;
      if (std::string(dtype) == "i64" && float_only) continue;
      typed.push_back(c);
    }
    CheckCases(dtype, "[5, 6]", typed);
    CheckCases(dtype, "[M, 5]", {{"as a, not b", "  output y: matmul(transpose(w), x);", false}});
  }
}

TEST(TransposeFold, BatchedKeysAsInAttention) {
  // q·kᵀ per head: k [H, S, D] read as [H, D, S]; and a b shared by the batch.
  CheckCases("f32", "[4, 9, 6]",
             {{"transpose", "  output y: matmul(x, transpose(w));", true},
              {"permute", "  output y: matmul(x, permute(w, dims: [0, 2, 1]));", true}},
             "[4, M, 6]");
  CheckCases("f32", "[4, 4, 6]",
             {{"batch axes swapped", "  output y: matmul(x, transpose(w, dim0: 0, dim1: 1));", false}}, "[4, M, 4]");
  CheckCases("f64", "[4, 9, 6]", {{"transpose", "  output y: matmul(x, transpose(w));", true}}, "[4, M, 6]");
  CheckCases("f32", "[9, 6]", {{"2-D b under a batched a", "  output y: matmul(x, transpose(w));", true}},
             "[2, M, 6]");
  CheckCases("f32", "[2, 1, 9, 6]", {{"b broadcast over a batch", "  output y: matmul(x, transpose(w));", true}},
             "[2, 3, M, 6]");
}

TEST(TransposeFold, ADumpNamesTheFoldedTranspose) {
  std::unique_ptr<shrew::Program> p = MakeProgram(R"SW(
@graph G {
    input x: Tensor<[2, 6], f32>;
    input w: Tensor<[5, 6], f32>;
    output y: relu(matmul(x, transpose(w)) + 1.0);
}
)SW");
  ASSERT_NE(p, nullptr);
  const CompiledGraph* cg = p->compiled("G");
  ASSERT_NE(cg, nullptr);
  const std::string dump = DumpCompiledGraph(*cg, nullptr);
  EXPECT_NE(dump.find("transpose[dim0=-2, dim1=-1]+fused_matmul_add+relu"), std::string::npos) << dump;
  EXPECT_NE(dump.find("fused away"), std::string::npos) << dump;
  EXPECT_EQ(cg->stats.num_fused, 1) << dump;  // one instruction for the transpose, the product, + c and relu
  const std::string json = DumpTapeJson(*cg, nullptr);
  EXPECT_NE(json.find("\"op\": \"transpose+fused_matmul_add+relu\""), std::string::npos) << json;
}

TEST(TransposeFold, AConstantWeightStoredOutInIsPackedAndRepackedOnSetParam) {
  // W [out, in] as a parameter: XNNPACK packs it as linear's weight; a new
  // value re-creates the kernel with the fold, for f32 and f64.
  for (const char* dtype : {"f32", "f64"}) {
    SCOPED_TRACE(dtype);
    const std::string t = dtype;
    std::unique_ptr<shrew::Program> p = MakeProgram(R"SW(
@graph G {
    input x: Tensor<[N, 16], )SW" + t + R"SW(>;
    param w: Tensor<[12, 16], )SW" + t + R"SW(> { init: "normal(0, 1)"; };
    param b: Tensor<[12], )SW" + t + R"SW(> { init: "normal(0, 1)"; };
    output y: relu(matmul(x, transpose(w)) + b);
}
)SW");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(ShapeOf(*p->compiled("G")).folded, 1);
    const ir::DType d = t == "f32" ? ir::DType::kF32 : ir::DType::kF64;
    for (int64_t n : {1, 2, 7, 40}) {
      runtime::TensorMap in;
      in.emplace("x", RandomTensor(d, {n, 16}, static_cast<uint32_t>(n)));
      testing::RunBoth(*p, "G", in);
      ASSERT_TRUE(p->SetParam("G/w", RandomTensor(d, {12, 16}, static_cast<uint32_t>(n + 7))).ok());
      testing::RunBoth(*p, "G", in);
    }
    // A weight of the wrong shape is refused as before, and the program keeps its old one.
    EXPECT_FALSE(p->SetParam("G/w", RandomTensor(d, {16, 12}, 1)).ok());
    runtime::TensorMap in;
    in.emplace("x", RandomTensor(d, {3, 16}, 2));
    testing::RunBoth(*p, "G", in);
  }
}

TEST(TransposeFold, SwapsLastTwoAxesReadsTheAttributes) {
  auto node = [](ir::OpKind op, int rank, ir::Attrs attrs) {
    ir::Node n;
    n.op = op;
    n.operands = {0};
    n.attrs = std::move(attrs);
    n.type = ir::Type::Tensor(std::vector<ir::Dim>(static_cast<size_t>(rank), ir::Dim::Fixed(2)), ir::DType::kF32);
    return n;
  };
  auto dims = [](int64_t a, int64_t b) {
    ir::Attrs at;
    at.Set("dim0", ir::AttrValue::Int(a));
    at.Set("dim1", ir::AttrValue::Int(b));
    return at;
  };
  auto perm = [](std::vector<int64_t> p) {
    ir::Attrs at;
    at.Set("dims", ir::AttrValue::IntList(std::move(p)));
    return at;
  };
  EXPECT_TRUE(SwapsLastTwoAxes(node(ir::OpKind::kTranspose, 2, {})));  // defaults -2, -1
  EXPECT_TRUE(SwapsLastTwoAxes(node(ir::OpKind::kTranspose, 3, dims(2, 1))));
  EXPECT_TRUE(SwapsLastTwoAxes(node(ir::OpKind::kTranspose, 4, dims(-1, 2))));
  EXPECT_FALSE(SwapsLastTwoAxes(node(ir::OpKind::kTranspose, 3, dims(0, 2))));
  EXPECT_FALSE(SwapsLastTwoAxes(node(ir::OpKind::kTranspose, 3, dims(1, 1))));
  EXPECT_FALSE(SwapsLastTwoAxes(node(ir::OpKind::kTranspose, 2, dims(5, 1))));
  EXPECT_FALSE(SwapsLastTwoAxes(node(ir::OpKind::kTranspose, 1, {})));
  EXPECT_TRUE(SwapsLastTwoAxes(node(ir::OpKind::kPermute, 3, perm({0, 2, 1}))));
  EXPECT_TRUE(SwapsLastTwoAxes(node(ir::OpKind::kPermute, 3, perm({-3, -1, -2}))));
  EXPECT_FALSE(SwapsLastTwoAxes(node(ir::OpKind::kPermute, 3, perm({1, 0, 2}))));
  EXPECT_FALSE(SwapsLastTwoAxes(node(ir::OpKind::kPermute, 3, perm({0, 2}))));
  EXPECT_FALSE(SwapsLastTwoAxes(node(ir::OpKind::kReshape, 2, {})));
}

}  // namespace
}  // namespace shrew::jit
