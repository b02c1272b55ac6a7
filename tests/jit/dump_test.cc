// The tape as JSON (jit::DumpTapeJson): one object per instruction with its
// slots, shape, arena placement, fusion and the source spans it came from.
#include "jit/dump.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit/jit_test_util.h"

namespace shrew::jit {
namespace {

using testing::MakeProgram;

// Line 1 is empty: `@graph` is line 2, `node h1` line 8, `node a1` line 9.
constexpr const char* kMlp = R"SW(
@graph Forward {
    input x: Tensor<[2, 4], f32>;
    param w1: Tensor<[4, 8], f32> { init: "normal(0, 0.1)"; };
    param b1: Tensor<[8], f32>    { init: "zeros"; };
    param w2: Tensor<[8, 3], f32> { init: "normal(0, 0.1)"; };
    param b2: Tensor<[3], f32>    { init: "zeros"; };
    node h1     { op: matmul(x, w1) + b1; };
    node a1     { op: relu(h1); };
    node logits { op: matmul(a1, w2) + b2; };
    output probs: softmax(logits);
}
)SW";

// The JSON text of each instruction object, in order.
std::vector<std::string> Instructions(const std::string& json) {
  std::vector<std::string> out;
  const std::string key = "{\"index\": ";
  size_t at = json.find(key);
  while (at != std::string::npos) {
    size_t next = json.find(key, at + 1);
    out.push_back(json.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next;
  }
  return out;
}

bool Has(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

TEST(DumpTapeJson, OneObjectPerInstructionWithSlotsShapesAndSpans) {
  shrew::ProgramOptions o;
  o.jit_fusion = false;  // the §7.7 reference tape
  std::unique_ptr<shrew::Program> p = MakeProgram(kMlp, o);
  ASSERT_NE(p, nullptr);
  Result<std::string> json = p->TapeJson("Forward");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json->rfind("{\"graph\": \"Forward\", \"bound\": true, \"num_slots\": 9, \"outputs\": "
                        "[{\"name\": \"probs\", \"slot\": 8}], \"instructions\": [",
                        0),
            0u)
      << *json;
  const std::vector<std::string> instrs = Instructions(*json);
  ASSERT_EQ(instrs.size(), 11u) << *json;  // 9 nodes + 2 frees, as in the text dump
  const jit::CompiledGraph* cg = p->compiled("Forward");
  ASSERT_NE(cg, nullptr);
  for (size_t i = 0; i < instrs.size(); ++i) {
    EXPECT_EQ(instrs[i].rfind("{\"index\": " + std::to_string(i) + ", ", 0), 0u) << instrs[i];
    EXPECT_TRUE(Has(instrs[i], "\"text\": \"" + DumpInstr(*cg, cg->tape.instrs[i]) + "\"")) << instrs[i];
  }
  // 5: fused_matmul_add %5 <- %4, %3, %2 — f32[2, 8] (64 bytes), from the `node h1` statement on line 8.
  const std::string& fma = instrs[5];
  EXPECT_TRUE(Has(fma, "\"opcode\": \"compute\", \"op\": \"fused_matmul_add\"")) << fma;
  EXPECT_TRUE(Has(fma, "\"operands\": [4, 3, 2], \"results\": [5], \"shape\": [2, 8], \"dtype\": \"f32\"")) << fma;
  EXPECT_TRUE(Has(fma, "\"size\": 64")) << fma;
  EXPECT_TRUE(Has(fma, "\"fused\": true, \"fused_nodes\": []")) << fma;
  EXPECT_TRUE(Has(fma, "\"spans\": [{\"line\": 8, \"column\": 5, \"length\": 40, ")) << fma;
  // 4: the input x, f32[2, 4] = 32 bytes, its span on line 3.
  EXPECT_TRUE(Has(instrs[4], "\"opcode\": \"load_input\", \"op\": \"load_input\"")) << instrs[4];
  EXPECT_TRUE(Has(instrs[4], "\"results\": [4], \"shape\": [2, 4], \"dtype\": \"f32\"")) << instrs[4];
  EXPECT_TRUE(Has(instrs[4], "\"size\": 32")) << instrs[4];
  EXPECT_TRUE(Has(instrs[4], "\"fused\": false")) << instrs[4];
  EXPECT_TRUE(Has(instrs[4], "\"spans\": [{\"line\": 3, ")) << instrs[4];
  // 6: relu, not fused without JIT fusion, on line 9.
  EXPECT_TRUE(Has(instrs[6], "\"op\": \"relu\"")) << instrs[6];
  EXPECT_TRUE(Has(instrs[6], "\"fused\": false")) << instrs[6];
  EXPECT_TRUE(Has(instrs[6], "\"spans\": [{\"line\": 9, ")) << instrs[6];
  int frees = 0;
  for (const std::string& in : instrs) frees += Has(in, "\"opcode\": \"free\", \"op\": \"free\"");
  EXPECT_EQ(frees, 2);
}

TEST(DumpTapeJson, JitFusedInstructionNamesItsProducerAndBothSpans) {
  std::unique_ptr<shrew::Program> p = MakeProgram(kMlp);
  ASSERT_NE(p, nullptr);
  Result<std::string> json = p->TapeJson("Forward");
  ASSERT_TRUE(json.ok());
  const std::vector<std::string> instrs = Instructions(*json);
  const std::string* fused = nullptr;
  for (const std::string& in : instrs) {
    if (Has(in, "\"op\": \"fused_matmul_add+relu\"")) fused = &in;
  }
  ASSERT_NE(fused, nullptr) << *json;
  EXPECT_TRUE(Has(*fused, "\"fused\": true, \"fused_nodes\": [{\"id\": ")) << *fused;
  EXPECT_TRUE(Has(*fused, "\"op\": \"fused_matmul_add\", \"span\": {\"line\": 8, ")) << *fused;
  EXPECT_TRUE(Has(*fused, "\"spans\": [{\"line\": 9, ")) << *fused;
  EXPECT_TRUE(Has(*fused, "}, {\"line\": 8, \"column\": 5, \"length\": 40, ")) << *fused;
}

TEST(DumpTapeJson, SymbolicGraphBeforeABindingHasTypesAndNoOffsets) {
  std::unique_ptr<shrew::Program> p = MakeProgram(R"SW(
@graph G {
    input x: Tensor<[N, 4], f32>;
    output y: relu(x);
}
)SW");
  ASSERT_NE(p, nullptr);
  Result<std::string> json = p->TapeJson("G");
  ASSERT_TRUE(json.ok());
  EXPECT_TRUE(Has(*json, "\"bound\": false")) << *json;
  const std::vector<std::string> instrs = Instructions(*json);
  ASSERT_EQ(instrs.size(), 2u) << *json;
  EXPECT_TRUE(Has(instrs[1], "\"shape\": [\"N\", 4], \"dtype\": \"f32\", \"offset\": null, \"size\": null")) << instrs[1];
  runtime::TensorMap in;
  in.emplace("x", testing::F32({3, 4}, std::vector<float>(12, 1.0f)));
  ASSERT_TRUE(p->Run("G", in).ok());
  json = p->TapeJson("G");
  EXPECT_TRUE(Has(Instructions(*json)[1], "\"shape\": [3, 4], \"dtype\": \"f32\", \"offset\": ")) << *json;
  EXPECT_EQ(p->TapeJson("Nope").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace shrew::jit
