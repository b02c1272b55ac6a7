// The audit of diagnostic_kinds.def: every code has a program that makes
// Compile() report it, at the expected line and column. A code added to the
// .def without a row here fails DiagnosticCodes.EveryCodeHasACase.
//
// In each source, "⟦" marks where the diagnostic must point; it is removed
// before compiling.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "api/compile.h"
#include "diag/diagnostic.h"

namespace shrew {
namespace {

constexpr std::string_view kMark = "⟦";

struct Case {
  const char* code;
  std::string source;  // with one kMark
  size_t max_source_bytes = CompileOptions().max_source_bytes;
  ir::DimBindings dims = {};
  ir::DType default_float = ir::DType::kF32;
};

std::string Nested(int depth) {
  return "@config {\n  A: " + std::string(static_cast<size_t>(depth), '(') + "1" +
         std::string(static_cast<size_t>(depth), ')') + ";\n}\n";
}

std::vector<Case> Cases() {
  std::vector<Case> c = {
      // lexer
      {"E001", "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x ⟦` x;\n}\n"},
      {"E002", "@model {\n  name: ⟦\"never closed;\n}\n"},
      {"E003", "@graph G {\n  input x: Tensor<[2], f32>;\n  output x;\n}\n⟦/* never closed\n"},
      {"E004", "@config {\n  A: ⟦1e;\n}\n"},
      {"E005", "@graph G { input x: Tensor<[2], f32>; output x; }\n⟦@nonsense { }\n"},
      // E008: the limit (42 bytes here) ends right before the mark.
      {"E008", "@graph G {\n  input x: Tensor<[2], f32>;\n  ⟦output x;\n}\n", 42},
      // parser
      {"E020", "@graph G {\n  input x: Tensor<[2], f32> ⟦output x;\n}\n"},
      // E021: built below (the marker sits at the first parenthesis too deep)
      // lowering and @config
      {"E040", "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: relu(⟦z);\n}\n"},
      {"E041", "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: ⟦frobnicate(x);\n}\n"},
      {"E042", "@graph G {\n  input x: ⟦Foo;\n  output x;\n}\n"},
      {"E043", "@graph G {\n  input x: ⟦(f32, f32);\n  output x;\n}\n"},
      {"E044", "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: ⟦layers::dense(x);\n}\n"},
      {"E045", "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: ⟦~x;\n}\n"},
      {"E046", "@graph G {\n  input x: Tensor<[2, 3], f32>;\n  output y: softmax(x, dim: ⟦\"last\");\n}\n"},
      {"E047", "@graph G {\n  input x: Tensor<[2, 3], f32>;\n  output y: softmax(x, ⟦colour: 1);\n}\n"},
      {"E048", "@graph G {\n  input x: Tensor<[2, 3], f32>;\n  output y: ⟦reshape(x);\n}\n"},
      {"E049", "@graph G {\n  input x: Tensor<[2], f32>;\n  node ⟦h { hint: no_grad; };\n  output x;\n}\n"},
      {"E050", "@graph G {\n  input x: Tensor<[2], f32>;\n  node h { op: relu(x); ⟦op: exp(x); };\n  output h;\n}\n"},
      {"E051",
       "@graph G(x: Tensor<[2], f32>) {\n  input ⟦x: Tensor<[3], f32>;\n  output x;\n}\n"},
      {"E052", "@config {\n  A: 0;\n  B: 4 ⟦/ A;\n}\n"},
      {"E053", "@config {\n  A: \"text\";\n  B: ⟦-A;\n}\n"},
      {"E054",
       "@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[2], f32> { init: ⟦\"magic\"; };\n"
       "  output y: x * w;\n}\n"},
      {"E055", "@graph G {\n  input x: Tensor<[2, ⟦0], f32>;\n  output x;\n}\n"},
      {"E056", "@config {\n  Width: 2.5;\n}\n@graph G {\n  input x: Tensor<[⟦Width], f32>;\n  output x;\n}\n"},
      {"E057",
       "@graph Main {\n  input x: Tensor<[2], f32>;\n  output y: Helper(⟦c: x);\n}\n"
       "@graph Helper(a: Tensor<[2], f32>) { output y: a; }\n"},
      {"E058",
       "@graph G {\n  input x: Tensor<[2], f32>;\n  node h { op: repeat(⟦-1) { relu(x) }; };\n  output h;\n}\n"},
      {"E059", "@config {\n  Name: \"n\";\n}\n@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x * ⟦Name;\n}\n"},
      {"E060", "@config {\n  A: 9223372036854775807;\n  B: A ⟦+ 1;\n}\n"},
      {"E061",
       "@graph G {\n  input x: Tensor<[2, 5, D], f32>;\n  ⟦node h { op: multi_head_attention(x, n_heads: 1); };\n"
       "  output h;\n}\n"},
      {"E063",
       "@graph G {\n  input x: Tensor<[2], f32>;\n  node h: Tensor<[2], f32> { op: relu(x); output: ⟦Tensor<[3], f32>; };\n"
       "  output h;\n}\n"},
      {"E064", "@graph G {\n  input x: ⟦Tensor<[4294967296, 4294967296], f32>;\n  output x;\n}\n"},
      // E065: built below
      // validation
      {"E080", "⟦@graph G {\n  input x: Tensor<[2], f32>;\n}\n"},
      {"E081", "@graph G {\n  input x: Tensor<[2], f32>;\n  node h { op: relu(x); };\n  ⟦node h { op: exp(x); };\n"
               "  output h;\n}\n"},
      {"E084", "@graph G {\n  input x: Tensor<[2], f32>;\n  ⟦param w: Tensor<[?, 2], f32>;\n  output y: x * w;\n}\n"},
      {"E085", "@graph G {\n  input x: Tensor<[2], f32>;\n  ⟦output y: softmax(x, x);\n}\n"},
      {"E087", "@inference {\n  model: ⟦Missing;\n}\n@graph G {\n  input x: Tensor<[2], f32>;\n  output x;\n}\n"},
      {"E088", "@graph G {\n  input x: Tensor<[2], f32>;\n  output x;\n}\n⟦@graph G {\n  input y: Tensor<[2], f32>;\n"
               "  output y;\n}\n"},
      {"E089", "@graph Ping {\n  input x: Tensor<[2], f32>;\n  output y: Pong(x);\n}\n"
               "@graph Pong {\n  input x: Tensor<[2], f32>;\n  ⟦output y: Ping(x);\n}\n"},
      {"E090", "@graph G {\n  input x: Tensor<[2], f32>;\n  output z: x;\n  ⟦output z: relu(x);\n}\n"},
      // types and shapes
      {"E100", "@graph G {\n  input a: Tensor<[2], f32>;\n  input i: Tensor<[2], i64>;\n  ⟦node s { op: a + i; };\n"
               "  output s;\n}\n"},
      {"E101", "@graph G {\n  input x: Tensor<[2, 3], f32>;\n  ⟦node s { op: softmax(x, dim: 2); };\n  output s;\n}\n"},
      {"E102", "@graph G {\n  input a: Tensor<[2, 3], f32>;\n  input b: Tensor<[4], f32>;\n  ⟦node s { op: a + b; };\n"
               "  output s;\n}\n"},
      {"E103", "@graph G {\n  input a: Tensor<[2, 3], f32>;\n  input b: Tensor<[4, 5], f32>;\n"
               "  ⟦node m { op: matmul(a, b); };\n  output m;\n}\n"},
      {"E104", "@graph G {\n  input a: Tensor<[2, 3], f32>;\n  ⟦node r { op: reshape(a, shape: [7]); };\n  output r;\n}\n"},
      {"E105", "@graph G {\n  input a: Tensor<[2, 3], f32>;\n  ⟦node r: Tensor<[3, 2], f32> { op: relu(a); };\n"
               "  output r;\n}\n"},
      {"E106", "@graph G {\n  input b: Tensor<[2], bool>;\n  ⟦node e { op: exp(b); };\n  output e;\n}\n"},
      {"E107", "@graph G {\n  input s: f32;\n  ⟦node p { op: matmul(s, s); };\n"
               "  output p;\n}\n"},
      {"E108", "@graph G {\n  input a: Tensor<[2, 3], f32>;\n  ⟦node p { op: permute(a, dims: [0, 0]); };\n"
               "  output p;\n}\n"},
      {"E109", "@graph G {\n  input a: Tensor<[2, 3], f32>;\n  ⟦node s { op: split(a, chunks: 4, dim: 1, index: 3); };\n"
               "  output s;\n}\n"},
      {"E110", "@graph G {\n  input a: Tensor<[2, 3], f32>;\n  ⟦node r { op: repeat(2) { sum(a, dim: 1) }; };\n"
               "  output r;\n}\n"},
      {"E111", "@graph G {\n  input x: Tensor<[2, 5, 6], f32>;\n"
               "  ⟦node h { op: multi_head_attention(x, n_heads: 4); };\n  output h;\n}\n"},
      {"E112", "@graph G {\n  input a: Tensor<[2, 3], f32>;\n  input b: Tensor<[2, 4], f32>;\n"
               "  ⟦node w { op: concat(a, b, dim: 0); };\n  output w;\n}\n"},
      {"E113", "@graph G {\n  input a: Tensor<[4294967296], f32>;\n  input b: Tensor<[4294967296, 1], f32>;\n"
               "  ⟦node s { op: a + b; };\n  output s;\n}\n"},
      // materialisation and limits
      {"E140", "@graph G {\n  input x: Tensor<[2], f32>;\n  ⟦node h { op: repeat(1000000) { relu(x) }; };\n"
               "  output h;\n}\n"},
      {"E142", "@graph G {\n  input x: Tensor<[2, 5, ?], f32>;\n"
               "  ⟦node h { op: multi_head_attention(x, n_heads: 1); };\n  output h;\n}\n"},
      // An option, said at the start of the source (as E056 for CompileOptions::dims).
      {"E143", "⟦@graph G {\n  output c: 2.5 * 3.0;\n}\n", CompileOptions().max_source_bytes, {}, ir::DType::kI32},
      // warnings
      {"W001", "⟦@import \"layers.sw\" as layers;\n@graph G {\n  input x: Tensor<[2], f32>;\n  output x;\n}\n"},
      {"W002", "@graph G {\n  input ids: Tensor<[3], i64>;\n  param table: Tensor<[10, 4], f32>;\n"
               "  ⟦node e { op: embedding(table, ids); };\n  output e;\n}\n"},
      {"W003", "@config {\n  A: 2 * ⟦B;\n  B: 3;\n}\n"},
      {"W004", "@config {\n  seed: ⟦3.5;\n}\n"},
      {"W005", "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x * ⟦1e50;\n}\n"},
      {"W006", "@graph G {\n  input x: Tensor<[Batch], f32>;\n  ⟦@assert Btach % 2 == 0;\n  output x;\n}\n"},
  };
  // E021: 300 parentheses; the parser stops at the 201st (nesting limit 200).
  {
    std::string s = Nested(300);
    s.insert(s.find('(') + 200, kMark);
    c.push_back({"E021", s});
  }
  // E091: F0 … F65, each F(i) calling F(i-1): F65 starts 65 nested calls,
  // one more than the 64 the executors allow; reported at F65's call.
  {
    std::string s = "@graph F0 {\n  input x: Tensor<[2], f32>;\n  output y: x;\n}\n";
    for (int i = 1; i <= 65; ++i) {
      s += "@graph F" + std::to_string(i) + " {\n  input x: Tensor<[2], f32>;\n  " + (i == 65 ? "⟦" : "") +
           "output y: F" + std::to_string(i - 1) + "(x);\n}\n";
    }
    c.push_back({"E091", s});
  }
  // E141: 250 unexpected characters, more than the default cap of 200
  // errors; the "too many errors" diagnostic sits where the 201st would be.
  {
    std::string s = "@graph G { input x: Tensor<[2], f32>; output x; }\n";
    for (int i = 0; i < 250; ++i) s += std::string(i == 200 ? "⟦" : "") + "` ";
    c.push_back({"E141", s + "\n"});
  }
  return c;
}

// Codes that cannot be provoked through Compile(): they guard IR or trees
// built by other means, and are asserted on such by tests/ir/validate_test.cc
// (E082, E083, E086) and tests/lower/config_eval_test.cc (E065: the parser
// never builds a tree that tall).
const std::set<std::string> kHandBuiltIrOnly = {"E065", "E082", "E083", "E086"};
// Reported by Program::Create (building the executors), not Compile():
// asserted by tests/api/program_hostile_inputs_test.cc (ProgramSetupErrors).
const std::set<std::string> kProgramCreateOnly = {"E150"};

std::vector<std::string> AllCodes() {
  std::vector<std::string> codes;
#define SHREW_DIAG(name, code, severity) codes.push_back(code);
#include "diag/diagnostic_kinds.def"
#undef SHREW_DIAG
  return codes;
}

TEST(DiagnosticCodes, EveryCodeHasACase) {
  std::set<std::string> covered = kHandBuiltIrOnly;
  covered.insert(kProgramCreateOnly.begin(), kProgramCreateOnly.end());
  for (const Case& c : Cases()) covered.insert(c.code);
  for (const std::string& code : AllCodes()) {
    EXPECT_TRUE(covered.count(code)) << code << " has no case in this file";
  }
}

class DiagnosticCodeTest : public ::testing::TestWithParam<Case> {};

TEST_P(DiagnosticCodeTest, ReportedAtTheMark) {
  const Case& c = GetParam();
  const size_t mark = c.source.find(kMark);
  ASSERT_NE(mark, std::string::npos) << c.code << ": no mark";
  std::string source = c.source;
  source.erase(mark, kMark.size());
  uint32_t line = 1, column = 1;
  for (size_t i = 0; i < mark; ++i) {
    if (source[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  CompileOptions options;
  options.filename = "case.sw";
  options.max_source_bytes = c.max_source_bytes;
  options.dims = c.dims;
  options.default_float = c.default_float;
  CompileResult r = Compile(source, options);
  const bool warning = c.code[0] == 'W';
  EXPECT_EQ(r.ok, warning) << r.RenderDiagnostics();
  bool found = false;
  for (const diag::Diagnostic& d : r.diagnostics) {
    if (std::string(d.code()) != c.code) continue;
    found = true;
    EXPECT_EQ(d.severity, warning ? diag::Severity::Warning : diag::Severity::Error);
    EXPECT_EQ(d.span.line, line) << c.code << ": " << d.message;
    EXPECT_EQ(d.span.column, column) << c.code << ": " << d.message;
    EXPECT_FALSE(d.message.empty());
    break;
  }
  EXPECT_TRUE(found) << "no " << c.code << " in:\n" << r.RenderDiagnostics();
}

INSTANTIATE_TEST_SUITE_P(All, DiagnosticCodeTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.code); });

}  // namespace
}  // namespace shrew
