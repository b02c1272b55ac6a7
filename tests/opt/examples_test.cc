// The optimiser on the example programs, through the real front end:
// the conformance statistics of fusion_showcase.sw, IR invariants after
// optimisation, the fixpoint, and — with the reference interpreter as the
// oracle — that the optimised graphs compute what the unoptimised ones do.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "api/compile.h"
#include "diag/diagnostic.h"
#include "interp/interpreter.h"
#include "ir/dump.h"
#include "ir/shapes.h"
#include "ir/validate.h"
#include "opt/pipeline.h"
#include "opt_test_util.h"
#include "runtime/param_init.h"
#include "runtime/rng.h"
#include "runtime/tensor.h"

namespace shrew::opt {
namespace {

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(SHREW_TESTDATA_DIR) + "/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CompileResult CompileExample(const std::string& name, bool optimize = true) {
  CompileOptions options;
  options.filename = name;
  options.optimize = optimize;
  CompileResult r = Compile(ReadExample(name), options);
  EXPECT_TRUE(r.ok) << name << "\n" << r.RenderDiagnostics();
  return r;
}

TEST(OptExamplesTest, FusionShowcaseStats) {
  CompileResult r = CompileExample("fusion_showcase.sw");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.stats.ToString(),
            "OptStats { dce: 1, identity: 1, const_fold: 1, cse: 1, fusion: 4 }");
  EXPECT_EQ(ir::DumpGraph(r.program.graphs[0], {.types = false}),
            "graph Fusions: 13 nodes, 2 inputs, 1 outputs, 3 params\n"
            "  %0 x = input\n"
            "  %1 target = input\n"
            "  %2 w_a = param[init=xavier_uniform]\n"
            "  %3 w_b = param[init=xavier_uniform]\n"
            "  %4 bias = param[init=zeros]\n"
            "  %5 lin_fused_matmul_add = fused_matmul_add(%0, %2, %4)\n"
            "  %6 gated_fused = fused_matmul_relu(%0, %3)\n"
            "  %7 merged_fused = fused_add_relu(%5, %6)\n"
            "  %8 margin_fused = fused_sub_relu(%7, %1)\n"
            "  %9 __anon_16 = constant[2:f32]\n"
            "  %10 scaled = mul(%8, %9)\n"
            "  %11 twin_a = tanh(%10)\n"
            "  %12 result = add(%11, %11)\n"
            "  outputs: result=%12\n");
}

// A deterministic input for `type`: every symbolic or dynamic dim is 3;
// floats in [-1, 1), integers in [0, 4) (valid embedding / class indices),
// bools alternating.
runtime::Tensor MakeInput(const ir::Type& type, runtime::Rng& rng) {
  runtime::Shape shape;
  for (const ir::Dim& d : type.dims()) shape.push_back(d.is_fixed() ? d.size() : 3);
  Result<runtime::Tensor> t = runtime::Tensor::Zeros(type.dtype(), shape);
  EXPECT_TRUE(t.ok());
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    if (ir::IsFloat(type.dtype())) {
      t->SetDouble(i, rng.NextUniform(-1.0, 1.0));
    } else if (ir::IsBool(type.dtype())) {
      t->SetDouble(i, static_cast<double>(i % 2));
    } else {
      t->SetDouble(i, static_cast<double>(static_cast<int64_t>(rng.NextUniform(0.0, 4.0))));
    }
  }
  return std::move(t).value();
}

class OptEveryExample : public ::testing::TestWithParam<const char*> {};

TEST_P(OptEveryExample, OptimisedProgramIsValidAndAFixpoint) {
  CompileResult r = CompileExample(GetParam());
  ASSERT_TRUE(r.ok);
  diag::DiagnosticBag diags;
  EXPECT_TRUE(ir::ValidateProgram(r.program, &diags));
  for (const ir::Graph& g : r.program.graphs) {
    SCOPED_TRACE(g.name());
    testing::ExpectInvariants(g);
    // Inputs and parameters survive in order (DCE roots).
    const ir::Graph* before = r.unoptimized.FindGraph(g.name());
    ASSERT_NE(before, nullptr);
    ASSERT_EQ(g.inputs().size(), before->inputs().size());
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      EXPECT_EQ(g.node(g.inputs()[i].node).name, before->node(before->inputs()[i].node).name);
    }
    EXPECT_EQ(g.params().size(), before->params().size());
    ASSERT_EQ(g.outputs().size(), before->outputs().size());
    for (size_t i = 0; i < g.outputs().size(); ++i) {
      EXPECT_EQ(g.outputs()[i].name, before->outputs()[i].name);
    }
  }
  // Re-inference after optimisation agrees (fused ops have shape rules).
  ir::Program again = r.program;
  EXPECT_TRUE(ir::InferProgramTypes(&again, &diags)) << diags.error_count();
  OptStats second = Optimize(again);
  EXPECT_EQ(second.total(), 0) << second.ToString();
}

TEST_P(OptEveryExample, OptimisedGraphsComputeTheSameValues) {
  CompileResult r = CompileExample(GetParam());
  ASSERT_TRUE(r.ok);
  runtime::Rng init_rng(7);
  ir::DimBindings no_dims;
  Result<runtime::ParamMap> params = runtime::InitProgramParams(r.unoptimized, no_dims, init_rng);
  ASSERT_TRUE(params.ok()) << params.status().ToString();
  interp::Interpreter reference(&r.unoptimized, &*params);
  interp::Interpreter optimised(&r.program, &*params);
  for (const ir::Graph& g : r.unoptimized.graphs) {
    SCOPED_TRACE(g.name());
    runtime::Rng rng(11);
    runtime::TensorMap inputs;
    for (const ir::GraphInput& in : g.inputs()) {
      const ir::Node& node = g.node(in.node);
      inputs[node.name] = MakeInput(node.type, rng);
    }
    Result<interp::RunResult> want = reference.Run(g.name(), inputs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    Result<interp::RunResult> got = optimised.Run(g.name(), inputs);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->outputs.size(), want->outputs.size());
    for (size_t i = 0; i < want->outputs.size(); ++i) {
      EXPECT_EQ(got->outputs[i].first, want->outputs[i].first);
      std::string why;
      EXPECT_TRUE(
          runtime::AllClose(got->outputs[i].second, want->outputs[i].second, 1e-5, 1e-6, &why))
          << want->outputs[i].first << ": " << why;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, OptEveryExample,
                         ::testing::Values("config_dims.sw", "fusion_showcase.sw", "graph_calls.sw",
                                           "logic_reductions.sw", "logistic_regression.sw",
                                           "mlp_classifier.sw", "patch_mixer.sw", "tiny_gpt.sw",
                                           "transformer_block.sw"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

}  // namespace
}  // namespace shrew::opt
