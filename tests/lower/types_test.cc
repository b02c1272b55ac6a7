// Written types -> IR types: tensor types, scalars, `?`, dims from @config,
// aliases (order, config visibility) and every type error with its position.
#include "lower/types.h"

#include <gtest/gtest.h>

#include "lower_test_util.h"

namespace shrew::lower {
namespace {

using testing::LowerError;
using testing::LowerText;

// The type of input `x` of the first graph.
std::string InputType(const std::string& program) {
  testing::Lowered l = LowerText(program);
  EXPECT_TRUE(l.ok) << l.rendered;
  if (!l.ok) return "";
  const ir::Graph& g = l.program.graphs[0];
  return g.node(g.FindNode("x")).type.ToString();
}

TEST(LowerTypesTest, TensorScalarAndDynamic) {
  EXPECT_EQ(InputType("@graph G { input x: Tensor<[2, Batch, ?, _], f64>; output x; }"),
            "Tensor<[2, Batch, ?, ?], f64>");
  EXPECT_EQ(InputType("@graph G { input x: Tensor<[], i32>; output x; }"), "Tensor<[], i32>");
  EXPECT_EQ(InputType("@graph G { input x: bool; output x; }"), "Tensor<[], bool>");
  EXPECT_EQ(InputType("@graph G { input x: ?; output x; }"), "?");
  EXPECT_EQ(InputType("@graph G { input x: Tensor<[1], bf16>; output x; }"), "Tensor<[1], bf16>");
}

TEST(LowerTypesTest, DimensionsFromConfig) {
  EXPECT_EQ(InputType("@config { Features: 6; Hidden: 2 * 8; }\n"
                      "@graph G { input x: Tensor<[N, Features, Hidden], f32>; output x; }"),
            "Tensor<[N, 6, 16], f32>");
}

TEST(LowerTypesTest, AliasesSeeEveryConfigAndEarlierAliases) {
  // The alias is written before the @config that defines its dimension.
  const char* text =
      "@types { type Row = Tensor<[Batch, W], f32>; type Same = Row; }\n"
      "@config { W: 3; }\n"
      "@graph G { input x: Same; output x; }\n";
  EXPECT_EQ(InputType(text), "Tensor<[Batch, 3], f32>");
  testing::Lowered l = LowerText(text);
  ASSERT_EQ(l.program.type_aliases.size(), 2u);
  EXPECT_EQ(l.program.type_aliases[0].first, "Row");
  EXPECT_EQ(l.program.type_aliases[1].second.ToString(), "Tensor<[Batch, 3], f32>");
}

TEST(LowerTypesTest, Errors) {
  EXPECT_EQ(LowerError("@graph G {\n  input x: Missing;\n  output x;\n}"),
            "E042 2:12 undefined type 'Missing'");
  // Another library's name of a dtype says which word to write.
  EXPECT_EQ(LowerError("@graph G {\n  input x: float32;\n  output x;\n}"),
            "E042 2:12 undefined type 'float32'; write f32");
  EXPECT_EQ(LowerError("@graph G {\n  input x: Long;\n  output x;\n}"), "E042 2:12 undefined type 'Long'; write i64");
  // A typo of an alias or a dtype is told the one meant.
  EXPECT_EQ(LowerError("@types { type Images = Tensor<[B, 784], f32>; }\n@graph G { input x: Image; output x; }"),
            "E042 2:21 undefined type 'Image'; did you mean 'Images'?");
  EXPECT_EQ(LowerError("@graph G {\n  input x: f23;\n  output x;\n}"), "E042 2:12 undefined type 'f23'; write f32");
  // An alias may only use aliases defined before it.
  // It says where the later one is (it said "undefined type 'B'" of a B two words on).
  EXPECT_EQ(LowerError("@types { type A = B; type B = f32; }\n@graph G { input x: A; output x; }"),
            "E042 1:19 undefined type 'B'; it is defined later, on line 1: an alias may use only those defined before it");
  EXPECT_EQ(LowerError("@types { type A = Tensor<[2], f32>; }\n@types {\n  type C = D;\n}\n@types { type D = A; }\n"
                       "@graph G { input x: C; output x; }"),
            "E042 3:12 undefined type 'D'; it is defined later, on line 5: an alias may use only those defined before it");
  // Itself is not "defined later".
  EXPECT_EQ(LowerError("@types { type A = A; }\n@graph G { input x: A; output x; }"),
            "E042 1:19 undefined type 'A'; an alias cannot be defined by itself");
  // What was written, and what can be (it said only "unsupported type").
  const std::string can = "; write Tensor<[dims], dtype>, a dtype (f32) for a scalar, or ? (typed by each run)";
  EXPECT_EQ(LowerError("@graph G { input x: (f32, f32); output x; }"),
            "E043 1:21 unsupported type: a tuple type is no value's type" + can);
  EXPECT_EQ(LowerError("@graph G { input x: [f32]; output x; }"),
            "E043 1:21 unsupported type: a list type is no value's type" + can);
  EXPECT_EQ(LowerError("@graph G { input x: 5; output x; }"), "E043 1:21 unsupported type: a number is no value's type" + can);
  // An alias to a tuple is reported where it is used.
  EXPECT_EQ(LowerError("@types { type P = (f32, f32); }\n@graph G {\n  input x: P;\n  output x; }"),
            "E043 3:12 unsupported type: 'P' names a type that is no value's type" + can);
  EXPECT_EQ(LowerError("@graph G { input x: Tensor<[2, 0], f32>; output x; }"),
            "E055 1:32 dimension size 0 is not allowed (sizes start at 1)");
  // The message shows the value (it did not, so `H: M * 2;` with no key M
  // looked like a mystery; it is the text "M * 2", LANGUAGE.md §5.1).
  EXPECT_EQ(LowerError("@config { H: 0; }\n@graph G { input x: Tensor<[H], f32>; output x; }"),
            "E056 2:29 dimension 'H' refers to config value 0, which is not a positive integer");
  // A whole float is shown as a float ("config value 2" contradicted the reason).
  EXPECT_EQ(LowerError("@config { H: 2.0; }\n@graph G { input x: Tensor<[H], f32>; output x; }"),
            "E056 2:29 dimension 'H' refers to config value 2.0 (a float), which is not a positive integer");
  EXPECT_EQ(LowerError("@config { H: 4e2; }\n@graph G { input x: Tensor<[H], f32>; output x; }"),
            "E056 2:29 dimension 'H' refers to config value 400.0 (a float), which is not a positive integer");
  EXPECT_EQ(LowerError("@config { H: 2.5; }\n@graph G { input x: Tensor<[H], f32>; output x; }"),
            "E056 2:29 dimension 'H' refers to config value 2.5, which is not a positive integer");
  EXPECT_EQ(LowerError("@config { H: \"big\"; }\n@types { type T = Tensor<[H], f32>; }"),
            "E056 2:27 dimension 'H' refers to config value 'big', which is not a positive integer");
  EXPECT_EQ(LowerError("@config { H: M * 2; }\n@types { type T = Tensor<[H], f32>; }"),
            "E056 2:27 dimension 'H' refers to config value 'M * 2', which is not a positive integer");
  EXPECT_EQ(LowerError("@graph G { input x: Tensor<[4294967296, 4294967296], f32>; output x; }"),
            "E064 1:21 type Tensor<[4294967296, 4294967296], f32> has more than 2^63 - 1 "
            "elements");
}

TEST(LowerTypesTest, DtypeNames) {
  EXPECT_EQ(ToIrDType(ast::Dtype::F32), ir::DType::kF32);
  EXPECT_EQ(ToIrDType(ast::Dtype::Bf16), ir::DType::kBF16);
  EXPECT_EQ(ToIrDType(ast::Dtype::U64), ir::DType::kU64);
  EXPECT_EQ(ToIrDType(ast::Dtype::Complex128), ir::DType::kComplex128);
}

}  // namespace
}  // namespace shrew::lower
