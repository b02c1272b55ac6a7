// Every lowering diagnostic (E040-E065) with its code, line, column and
// message. Each case has exactly one error (LowerError checks it).
#include <gtest/gtest.h>

#include "lower/config_eval.h"
#include "lower_test_util.h"

namespace shrew::lower {
namespace {

using testing::Lowered;
using testing::LowerError;
using testing::LowerText;

// Wraps graph statements: line 1 is `@graph G {`, line 2 declares inputs
// x: [2, 3] f32 and y: f32, the statements start on line 3.
std::string G(const std::string& body) {
  return "@graph G {\n  input x: Tensor<[2, 3], f32>; input y: f32;\n" + body + "\n  output x;\n}\n";
}

// Every diagnostic as "CODE LINE:COL MESSAGE\n".
std::string AllErrors(const Lowered& l) {
  std::string out;
  for (const diag::Diagnostic& d : l.diagnostics) {
    out += std::string(d.code()) + " " + std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + " " +
           d.message + "\n";
  }
  return out;
}

TEST(LowerErrorsTest, UndefinedName) {
  EXPECT_EQ(LowerError(G("  node h { op: relu(z); };")), "E040 3:21 undefined name 'z'");
  // Statement order is declaration order: no forward references. A name
  // declared further on is said to be, not taken for a typo.
  EXPECT_EQ(LowerError(G("  node a { op: b; };\n  node b { op: x; };")),
            "E040 3:16 undefined name 'b'; it is declared later, at line 4, and a name can be used only after "
            "its declaration");
  EXPECT_EQ(LowerError(G("  node a { op: relu(out); };\n  output out: relu(x);")),
            "E040 3:21 undefined name 'out'; it is declared later, at line 4, and a name can be used only after "
            "its declaration");
  EXPECT_EQ(LowerError(G("  node a { op: relu(a); };")), "E040 3:21 undefined name 'a'; a node cannot use its own value");
  EXPECT_EQ(LowerError(G("  output later;")), "E040 3:10 undefined name 'later'");
  // An output re-exporting a value is no value itself (it was "a node cannot use its own value").
  EXPECT_EQ(LowerError(G("  node h { op: x * 2; };\n  output z: h;\n  output w: z + 1;")),
            "E040 5:13 undefined name 'z'; it is an output name, re-exporting 'h', and output names are not "
            "values: use 'h'");
  EXPECT_EQ(LowerError(G("  output z: x;\n  output w: z + 1;")),
            "E040 4:13 undefined name 'z'; it is an output name, re-exporting 'x', and output names are not "
            "values: use 'x'");
}

// After an error lowering goes on: every independent error is reported, in
// other statements and other graphs, and a name whose declaration failed
// gives no follow-up errors where it is used (before, only the program's
// first lowering error was reported).
TEST(LowerErrorsTest, ReportsEachIndependentErrorWithoutFollowUps) {
  Lowered l = LowerText(
      "@config { h: 2; }\n"
      "@graph G(a: Undefined) {\n"
      "  input x: Tensor<[2, 3], f32>;\n"
      "  node h { op: rleu(x); };\n"        // unknown op: h fails
      "  node k { op: h * a + h; };\n"      // uses h and a: quiet (h is not the config key)
      "  param w: Tensor<[3], f32> { init: \"nope\"; };\n"
      "  node m { op: w + k; };\n"          // w and k failed: quiet
      "  node n { op: relu(q); };\n"        // independent: reported
      "  output n2: exp(q) + n;\n"          // the same undefined name: once per graph
      "  output n;\n"
      "}\n"
      "@graph H { input y: f32; output exp(yy); }\n");
  EXPECT_FALSE(l.ok);
  EXPECT_EQ(AllErrors(l),
            "E042 2:13 undefined type 'Undefined'\n"
            "E041 4:16 unknown operation 'rleu'; did you mean 'relu'?\n"
            "E054 6:37 invalid init 'nope'; an init is one of zeros, ones, normal(MEAN, STD), uniform(LOW, HIGH), "
            "xavier_uniform, xavier_normal, kaiming_uniform, kaiming_normal\n"
            "E040 8:21 undefined name 'q'\n"
            "E040 12:37 undefined name 'yy'\n");
}

// Within one statement too, each operand is lowered, so independent
// mistakes in one expression are all reported (before, only the first):
// both sides of an operator, every link of a long chain, every argument of a
// call, also of an unknown operation or a graph call. Attributes are checked
// only after good operands (`cast(x, "i64")` is one mistake).
TEST(LowerErrorsTest, ReportsEachMistakeOfOneExpression) {
  std::string chain = "x";
  for (int i = 0; i < 70; ++i) chain += i == 3 ? " + u" : i == 66 ? " * v" : " + x";
  Lowered l = LowerText(
      "@graph F(p: f32, q: f32) { output p; }\n"
      "@graph G {\n"
      "  input x: Tensor<[2], f32>;\n"
      "  output a: relu(z) + frob(w, x) * z2;\n"
      "  output b: F(p: s1, q: s2);\n"
      "  output c: add(s3, exp(s4));\n"
      "  output d: " + chain + ";\n"
      "  output e: cast(x, \"i64\") + s5;\n"
      "}\n");
  EXPECT_FALSE(l.ok);
  EXPECT_EQ(AllErrors(l),
            "E040 4:18 undefined name 'z'\n"
            "E041 4:23 unknown operation 'frob'\n"
            "E040 4:28 undefined name 'w'\n"
            "E040 4:36 undefined name 'z2'\n"
            "E040 5:18 undefined name 's1'\n"
            "E040 5:25 undefined name 's2'\n"
            "E040 6:17 undefined name 's3'\n"
            "E040 6:25 undefined name 's4'\n"
            "E040 7:29 undefined name 'u'\n"
            "E040 7:281 undefined name 'v'\n"
            "E059 8:21 a string cannot be used as a tensor value; a dtype is an attribute: dtype: \"i64\"\n"
            "E040 8:30 undefined name 's5'\n");
}

TEST(LowerErrorsTest, UnknownOperation) {
  EXPECT_EQ(LowerError(G("  node h { op: frobnicate(x); };")),
            "E041 3:16 unknown operation 'frobnicate'");
  // Likely typos name the nearest op, graph or custom op; case first.
  EXPECT_EQ(LowerError(G("  node h { op: Relu(x); };")), "E041 3:16 unknown operation 'Relu'; did you mean 'relu'?");
  EXPECT_EQ(LowerError(G("  node h { op: rleu(x); };")), "E041 3:16 unknown operation 'rleu'; did you mean 'relu'?");
  EXPECT_EQ(LowerError(G("  node h { op: softmx(x); };")),
            "E041 3:16 unknown operation 'softmx'; did you mean 'softmax'?");
}

TEST(LowerErrorsTest, UndefinedNameNamesALikelyTypo) {
  EXPECT_EQ(LowerError(G("  node hidden { op: relu(x); };\n  output y: hiden;")),
            "E040 4:13 undefined name 'hiden'; did you mean 'hidden'?");
  // One or two letters: no guess ('y' is not a misspelt 'x').
  EXPECT_EQ(LowerError(G("  output y: relu(y2);")), "E040 3:18 undefined name 'y2'");
}

TEST(LowerErrorsTest, UnsupportedExpressions) {
  const char* expected = "unsupported expression in a graph";
  EXPECT_EQ(LowerError(G("  node h { op: x.relu(); };")),
            std::string("E044 3:16 ") + expected + "; there are no methods: write relu(x, ...) for x.relu(...)");
  EXPECT_EQ(LowerError(G("  node h { op: (x * 2).sum(dim: 0); };")),
            std::string("E044 3:16 ") + expected + "; there are no methods: write sum(x, ...) for x.sum(...)");
  EXPECT_EQ(LowerError(G("  node h { op: x.T; };")),
            std::string("E044 3:16 ") + expected + "; tensors have no fields: write transpose(x) for x.T");
  const std::string indexing = "; there is no indexing: split(x, chunks: N, dim: D, index: K) selects a part along an axis";
  EXPECT_EQ(LowerError(G("  node h { op: x[0]; };")), std::string("E044 3:16 ") + expected + indexing);
  EXPECT_EQ(LowerError(G("  node h { op: x[0:1]; };")), std::string("E044 3:16 ") + expected + indexing);
  // Another library's module: the operation is called by its name alone.
  const std::string bare = "; operations are called by their name alone: write relu(...)";
  EXPECT_EQ(LowerError(G("  node h { op: torch.relu(x); };")), std::string("E044 3:16 ") + expected + bare);
  EXPECT_EQ(LowerError(G("  node h { op: F.relu(x); };")), std::string("E044 3:16 ") + expected + bare);
  EXPECT_EQ(LowerError(G("  node h { op: tf.nn.relu(x); };")), std::string("E044 3:16 ") + expected + bare);
  EXPECT_EQ(LowerError(G("  node h { op: x.shape; };")),
            std::string("E044 3:16 ") + expected + "; tensors have no fields: use an operation");
  // `1.e5` is `1` `.` `e5` (a number has digits after its '.'): the number meant, not "no fields".
  EXPECT_EQ(LowerError(G("  node h { op: x * 1.e5; };")),
            std::string("E044 3:20 ") + expected + "; a number has digits after its '.': write 1.0e5 for 1.e5");
  EXPECT_EQ(LowerError(G("  node h { op: x * 2.e - 3; };")),
            std::string("E044 3:20 ") + expected + "; a number has digits after its '.': write 2.0e… for 2.e");
  EXPECT_EQ(LowerError(G("  node h { op: nn::relu(x); };")), std::string("E044 3:16 ") + expected);
  EXPECT_EQ(LowerError(G("  node h { op: nn::relu; };")), std::string("E044 3:16 ") + expected);
  const std::string list = "; a list is no operand: pass the tensors one by one, as in concat(a, b, dim: 0)";
  EXPECT_EQ(LowerError(G("  node h { op: relu([1, 2]); };")), std::string("E044 3:21 ") + expected + list);
  EXPECT_EQ(LowerError(G("  node h { op: concat([x, x], dim: 0); };")), std::string("E044 3:23 ") + expected + list);
  // An op's list attribute given positionally: named as the attribute.
  EXPECT_EQ(LowerError(G("  node h { op: reshape(x, [2, -1]); };")),
            std::string("E044 3:27 ") + expected +
                "; a list is no operand: it is the attribute 'shape', written by name, as in reshape(x, shape: [2, -1])");
  EXPECT_EQ(LowerError(G("  node h { op: permute(y, ([1, 0])); };")),
            std::string("E044 3:28 ") + expected +
                "; a list is no operand: it is the attribute 'dims', written by name, as in permute(y, dims: [1, 0])");
  EXPECT_EQ(LowerError(G("  node h { op: sum(x * 2, [0]); };")),
            std::string("E044 3:27 ") + expected +
                "; a list is no operand: it is the attribute 'dim', written by name, as in sum(x, dim: [0])");
  EXPECT_EQ(LowerError(G("  node h { op: {a: 1}; };")), std::string("E044 3:16 ") + expected);
  EXPECT_EQ(LowerError(G("  node h { op: if y { x } else { x }; };")),
            std::string("E044 3:16 ") + expected + "; for an elementwise choice write where(condition, a, b)");
  EXPECT_EQ(LowerError(G("  node h { op: x + |a| { a }; };")), std::string("E044 3:20 ") + expected);
}

TEST(LowerErrorsTest, UnsupportedOperators) {
  EXPECT_EQ(LowerError(G("  node h { op: x & y; };")),
            "E045 3:18 operator '&' is not supported on tensors");
  EXPECT_EQ(LowerError(G("  node h { op: x | y; };")),
            "E045 3:18 operator '|' is not supported on tensors");
  EXPECT_EQ(LowerError(G("  node h { op: x ^ y; };")),
            "E045 3:18 operator '^' is not supported on tensors");
  EXPECT_EQ(LowerError(G("  node h { op: x << y; };")),
            "E045 3:18 operator '<<' is not supported on tensors");
  EXPECT_EQ(LowerError(G("  node h { op: x >> y; };")),
            "E045 3:18 operator '>>' is not supported on tensors");
  EXPECT_EQ(LowerError(G("  node h { op: x ?? y; };")),
            "E045 3:18 operator '?\?' is not supported on tensors");
  EXPECT_EQ(LowerError(G("  node h { op: ~x; };")),
            "E045 3:16 operator '~' is not supported on tensors");
}

TEST(LowerErrorsTest, BadAttributes) {
  // A name says what it gave (the message did not say Bogus is no config key).
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, dim: Bogus); };")),
            "E046 3:32 attribute 'dim' of softmax must be an int, got 'Bogus', which is no config key");
  EXPECT_EQ(LowerError("@config { A: \"x\"; }\n" + G("  node h { op: softmax(x, dim: A); };")),
            "E046 4:32 attribute 'dim' of softmax must be an int, got 'A', config value \"x\"");
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, dim: 1.5); };")),
            "E046 3:32 attribute 'dim' of softmax must be an int");
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, dim: y); };")),
            "E046 3:32 attribute 'dim' of softmax must be a constant, but 'y' is a tensor of the graph");
  EXPECT_EQ(LowerError(G("  node h { op: dropout(x, p: 1.0); };")),
            "E046 3:30 attribute 'p' of dropout must be in [0, 1), got 1");
  EXPECT_EQ(LowerError(G("  node h { op: split(x, chunks: 0); };")),
            "E046 3:33 attribute 'chunks' of split must be at least 1, got 0");
  EXPECT_EQ(LowerError(G("  node h { op: layer_norm(x, eps: 0); };")),
            "E046 3:35 attribute 'eps' of layer_norm must be positive, got 0");
  EXPECT_EQ(LowerError(G("  node h { op: layer_norm(x, eps: 1e400); };")),
            "E046 3:35 attribute 'eps' of layer_norm must be a finite positive number, got inf");
  EXPECT_EQ(LowerError(G("  node h { op: multi_head_attention(x, n_heads: 0); };")),
            "E046 3:49 attribute 'n_heads' of multi_head_attention must be at least 1, got 0");
  EXPECT_EQ(LowerError(G("  node h { op: sum(x, dim: [1, -1, 1]); };")),
            "E046 3:28 attribute 'dim' of sum must not list axis 1 twice, got [1, -1, 1]");
  EXPECT_EQ(LowerError(G("  node h { op: max(x, dim: [0, 1]); };")),
            "E046 3:28 attribute 'dim' of max must be an int");
  EXPECT_EQ(LowerError(G("  node h { op: sum(x, keepdim: 1); };")),
            "E046 3:32 attribute 'keepdim' of sum must be true or false");
  EXPECT_EQ(LowerError(G("  node h { op: cast(x, dtype: \"float\"); };")),
            "E046 3:31 attribute 'dtype' of cast must be a dtype name such as \"f32\"");
  EXPECT_EQ(LowerError(G("  node h { op: permute(x, dims: [1, 0.5]); };")),
            "E046 3:33 attribute 'dims' of permute must be a list of ints");
  EXPECT_EQ(LowerError(G("  node h { op: reshape(x, shape: [-1, 3, -1]); };")),
            "E046 3:42 attribute 'shape' of reshape may contain -1 only once");
  EXPECT_EQ(LowerError(G("  node h { op: reshape(x, shape: [0, 6]); };")),
            "E046 3:35 attribute 'shape' of reshape must list sizes >= 1, -1 or dimension names, got 0");
  EXPECT_EQ(LowerError("@config { S: 1.5; }\n" + G("  node h { op: view(x, shape: [S, 6]); };")),
            "E046 4:32 attribute 'shape' of view: 'S' refers to config value 1.5, which is not a positive integer");
  EXPECT_EQ(LowerError(G("  node h { op: reshape(x, shape: 6); };")),
            "E046 3:34 attribute 'shape' of reshape must be a shape list");
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, dim: 0, dim: 1); };")),
            "E046 3:35 attribute 'dim' of softmax is given twice");
  EXPECT_EQ(LowerError(G("  node h { op: linear(x, x, x, bias: false); };")),
            "E046 3:16 attribute 'bias' of linear is false but a bias operand is given");
  EXPECT_EQ(LowerError(G("  param w: f32 { frozen: 1; };")),
            "E046 3:26 attribute 'frozen' of param 'w' must be true or false");
  EXPECT_EQ(LowerError(G("  node h { op: x; note: f(1); };")),
            "E046 3:25 attribute 'note' of node 'h' must be a constant");
  // A node attribute line naming a graph value is an error, as for an op
  // attribute (it was recorded as the string "y").
  EXPECT_EQ(LowerError(G("  node h { op: x; note: y; };")),
            "E046 3:25 attribute 'note' of node 'h' must be a constant, but 'y' is a tensor of the graph");
  EXPECT_EQ(LowerError(G("  node h { op: x; note: (x); };")),
            "E046 3:26 attribute 'note' of node 'h' must be a constant, but 'x' is a tensor of the graph");
  // The node itself, or one declared further on: not in scope yet, still no bare word.
  EXPECT_EQ(LowerError(G("  node h { op: x; note: h; };")),
            "E046 3:25 attribute 'note' of node 'h' must be a constant, but 'h' is a tensor of the graph (declared at 3:8)");
  EXPECT_EQ(LowerError(G("  node h { op: x; note: z; };\n  node z { op: relu(x); };")),
            "E046 3:25 attribute 'note' of node 'h' must be a constant, but 'z' is a tensor of the graph (declared at 4:8)");
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, dim: later); };\n  node later { op: relu(x); };")),
            "E046 3:32 attribute 'dim' of softmax must be a constant, but 'later' is a tensor of the graph (declared at 4:8)");
}

TEST(LowerErrorsTest, UnknownAndMissingAttributes) {
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, axis: 1); };")),
            "E047 3:27 unknown attribute 'axis' for softmax; did you mean 'dim'? it takes dim");
  EXPECT_EQ(LowerError(G("  node h { op: sum(x, dims: 1); };")),
            "E047 3:23 unknown attribute 'dims' for sum; did you mean 'dim'? it takes dim, keepdim");
  EXPECT_EQ(LowerError(G("  node h { op: sum(x, keepdims: true); };")),
            "E047 3:23 unknown attribute 'keepdims' for sum; did you mean 'keepdim'? it takes dim, keepdim");
  EXPECT_EQ(LowerError(G("  node h { op: permute(x, axes: [1, 0]); };")),
            "E047 3:27 unknown attribute 'axes' for permute; did you mean 'dims'? it takes dims");
  EXPECT_EQ(LowerError(G("  node h { op: split(x, chunk: 2, dim: 1); };")),
            "E047 3:25 unknown attribute 'chunk' for split; did you mean 'chunks'? it takes chunks, dim, index");
  // Each attribute's mistake is reported; a misspelt required one is not
  // also missing.
  Lowered two = LowerText(G("  node h { op: sum(x, axis: 0, keepdims: true); };"));
  ASSERT_EQ(two.diagnostics.size(), 2u) << two.rendered;
  EXPECT_EQ(two.diagnostics[0].message, "unknown attribute 'axis' for sum; did you mean 'dim'? it takes dim, keepdim");
  EXPECT_EQ(two.diagnostics[1].message,
            "unknown attribute 'keepdims' for sum; did you mean 'keepdim'? it takes dim, keepdim");
  Lowered refused_twice = LowerText(G("  node h { op: softmax(x, dim: 1.5, dim: 0); };"));
  ASSERT_EQ(refused_twice.diagnostics.size(), 2u) << refused_twice.rendered;
  EXPECT_EQ(refused_twice.diagnostics[1].message, "attribute 'dim' of softmax is given twice");
  Lowered bad_and_unknown = LowerText(G("  node h { op: split(x, chunk: 2, dim: 1.5); };"));
  ASSERT_EQ(bad_and_unknown.diagnostics.size(), 2u) << bad_and_unknown.rendered;
  EXPECT_EQ(bad_and_unknown.diagnostics[1].message, "attribute 'dim' of split must be an int");
  // Nothing near: the list alone.
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, temperature: 2); };")),
            "E047 3:27 unknown attribute 'temperature' for softmax; it takes dim");
  EXPECT_EQ(LowerError(G("  node h { op: relu(x, inplace: true); };")),
            "E047 3:24 unknown attribute 'inplace' for relu; it takes none");
  EXPECT_EQ(LowerError(G("  node h { op: reshape(x); };")),
            "E048 3:16 missing attribute 'shape' for reshape");
  EXPECT_EQ(LowerError(G("  node h { op: permute(x); };")),
            "E048 3:16 missing attribute 'dims' for permute");
  EXPECT_EQ(LowerError(G("  node h { op: split(x, dim: 1); };")),
            "E048 3:16 missing attribute 'chunks' for split");
  EXPECT_EQ(LowerError(G("  node h { op: cast(x); };")), "E048 3:16 missing attribute 'dtype' for cast");
}

TEST(LowerErrorsTest, NodesWithoutOrWithSeveralOps) {
  EXPECT_EQ(LowerError(G("  node h;")), "E049 3:8 node 'h' has no op");
  EXPECT_EQ(LowerError(G("  node h: f32;")), "E049 3:8 node 'h' has no op");
  EXPECT_EQ(LowerError(G("  node h { note: 1; };")), "E049 3:8 node 'h' has no op");
  // A misspelt `op:` line is an attribute: point at it (the error was at
  // the node's name, with no word about the line that was meant as its op).
  EXPECT_EQ(LowerError(G("  node h { opp: relu(x); };")),
            "E049 3:12 node 'h' has no op; did you mean 'op' instead of 'opp'?");
  EXPECT_EQ(LowerError(G("  node h {\n    Op: relu(x);\n  };")),
            "E049 4:5 node 'h' has no op; did you mean 'op' instead of 'Op'?");
  EXPECT_EQ(LowerError(G("  node h {\n    op: relu(x);\n    op: exp(x);\n  };")),
            "E050 5:5 node 'h' has more than one op");
}

TEST(LowerErrorsTest, DuplicateInputWithADifferentType) {
  EXPECT_EQ(LowerError("@graph G(x: f32) {\n  input x: f64;\n  output x;\n}"),
            "E051 2:9 duplicate input 'x' with a different type (Tensor<[], f32> and Tensor<[], f64>)");
  // Optional in one declaration only: whichever came first decided, silently.
  EXPECT_EQ(LowerError("@graph G(x: f32?) {\n  input x: f32;\n  output y: x;\n}"),
            "E051 2:9 duplicate input 'x' declared optional (Tensor<[], f32>?) and required (Tensor<[], f32>)");
  EXPECT_EQ(LowerError("@graph G(x: f32) {\n  input x: f32?;\n  output y: x;\n}"),
            "E051 2:9 duplicate input 'x' declared required (Tensor<[], f32>) and optional (Tensor<[], f32>?)");
}

TEST(LowerErrorsTest, ConfigErrorsInGraphsAndSettings) {
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, dim: 1 / 0); };")), "E052 3:34 division by zero");
  EXPECT_EQ(LowerError("@graph N { input x: f32; output x; }\n@training { epochs: 10 % 0; }"),
            "E052 2:24 division by zero");
  EXPECT_EQ(LowerError(G("  node h { op: softmax(x, dim: -\"a\"); };")),
            "E053 3:32 cannot negate a non-number");
  EXPECT_EQ(LowerError(G("  node h { op: sum(x, dim: 4611686018427387904 * 2); };")),
            "E060 3:48 integer overflow in '*'");
}

TEST(LowerErrorsTest, InvalidInit) {
  const std::string list =
      "; an init is one of zeros, ones, normal(MEAN, STD), uniform(LOW, HIGH), xavier_uniform, xavier_normal, "
      "kaiming_uniform, kaiming_normal";
  EXPECT_EQ(LowerError(G("  param w: f32 { init: \"nope\"; };")), "E054 3:24 invalid init 'nope'" + list);
  EXPECT_EQ(LowerError(G("  param w: f32 { init: \"normal(0)\"; };")),
            "E054 3:24 invalid init 'normal(0)'; write normal(MEAN, STD) with two finite decimal numbers, as in "
            "normal(0, 0.02)");
  EXPECT_EQ(LowerError(G("  param w: f32 { init: \"uniform(a, b)\"; };")),
            "E054 3:24 invalid init 'uniform(a, b)'; write uniform(LOW, HIGH) with two finite decimal numbers, as in "
            "uniform(-0.1, 0.1)");
  // 1e400 is no finite double: it read as inf, and the draws were NaN.
  EXPECT_EQ(LowerError(G("  param w: f32 { init: \"uniform(1e400, 2)\"; };")),
            "E054 3:24 invalid init 'uniform(1e400, 2)'; write uniform(LOW, HIGH) with two finite decimal numbers, as in "
            "uniform(-0.1, 0.1)");
  EXPECT_EQ(LowerError(G("  param w: f32 { init: \"normal(0, 1e400)\"; };")).substr(0, 41),
            "E054 3:24 invalid init 'normal(0, 1e400)'");
  EXPECT_EQ(LowerError(G("  param w: f32 { init: 3; };")),
            "E054 3:24 invalid init '3'; an init is a string, as in init: \"zeros\"");
  // The string is shown escaped: no raw newline or bidi control in a message.
  EXPECT_EQ(LowerError(G("  param w: f32 { init: \"ze\\nros\xE2\x80\xAE\"; };")),
            "E054 3:24 invalid init 'ze\\nros\\u{202E}'" + list);
}

// Other libraries' names (PyTorch's randn, Keras's glorot_uniform, …) and
// typos name the init to write; a bare word is the string it spells.
TEST(LowerErrorsTest, InvalidInitSuggestsTheInitMeant) {
  const std::pair<const char*, const char*> cases[] = {
      {"\"randn\"", "'randn'; did you mean \"normal(0, 1)\"?"},
      {"randn", "'randn'; did you mean \"normal(0, 1)\"?"},
      {"\"gaussian\"", "'gaussian'; did you mean \"normal(0, 1)\"?"},
      {"\"rand\"", "'rand'; did you mean \"uniform(0, 1)\"?"},
      {"\"glorot_uniform\"", "'glorot_uniform'; did you mean \"xavier_uniform\"?"},
      {"\"xavier\"", "'xavier'; did you mean \"xavier_uniform\"?"},
      {"\"he_normal\"", "'he_normal'; did you mean \"kaiming_normal\"?"},
      {"\"zero\"", "'zero'; did you mean \"zeros\"?"},
      {"\"Zeros\"", "'Zeros'; did you mean \"zeros\"?"},
      {"\"xavier_unifrom\"", "'xavier_unifrom'; did you mean \"xavier_uniform\"?"},
      {"\"kaiming_norm\"", "'kaiming_norm'; did you mean \"kaiming_normal\"?"},
  };
  for (const auto& [init, message] : cases) {
    EXPECT_EQ(LowerError(G(std::string("  param w: f32 { init: ") + init + "; };")),
              std::string("E054 3:24 invalid init ") + message);
  }
}

TEST(LowerErrorsTest, GraphCallArguments) {
  const std::string callee = "@graph F(a: f32, b: f32, c: f32?, d: f32?) { output o: a + b; }\n";
  EXPECT_EQ(LowerError(callee + G("  node h { op: F(y, q: y); };")),
            "E057 4:21 graph 'F' has no input named 'q'");
  const std::string named = "@graph F(images: f32, labels: f32?) { output o: images; }\n";
  EXPECT_EQ(LowerError(named + G("  node h { op: F(image: y); };")),
            "E057 4:18 graph 'F' has no input named 'image'; did you mean 'images'?");
  EXPECT_EQ(LowerError(callee + G("  node h { op: F(y, y, a: y); };")),
            "E057 4:24 input 'a' of graph 'F' is bound twice");
  EXPECT_EQ(LowerError(callee + G("  node h { op: F(y, y, y, y, y); };")),
            "E057 4:30 too many arguments for graph 'F' (it has 4 inputs)");
  EXPECT_EQ(LowerError(callee + G("  node h { op: F(y); };")),
            "E057 4:16 missing input 'b' in call to graph 'F'");
  // Trailing optional inputs may be left out: operand k binds input k.
  testing::Lowered ok = testing::LowerText(callee + G("  node h { op: F(b: y, a: y, c: x); };"));
  ASSERT_TRUE(ok.ok) << ok.rendered;
  const ir::Node& h = ok.program.graphs[1].node(ok.program.graphs[1].FindNode("h"));
  EXPECT_EQ(h.operands, (std::vector<ir::NodeId>{1, 1, 0}));
  EXPECT_EQ(h.attrs.Find("inputs"), nullptr);
  EXPECT_EQ(ir::CallInputIndices(h), (std::vector<int>{0, 1, 2}));
  // So may one before a bound input (OPS.md §3.16; it was an error): the
  // operands are the bound inputs, and "inputs" says which.
  testing::Lowered mid = testing::LowerText(callee + G("  node h { op: F(y, x, d: y); };"));
  ASSERT_TRUE(mid.ok) << mid.rendered;
  const ir::Node& m = mid.program.graphs[1].node(mid.program.graphs[1].FindNode("h"));
  EXPECT_EQ(m.operands, (std::vector<ir::NodeId>{1, 0, 1}));
  EXPECT_EQ(ir::CallInputIndices(m), (std::vector<int>{0, 1, 3}));
  EXPECT_TRUE(ir::AcceptsCallBinding(mid.program.graphs[0], ir::CallInputIndices(m)));
}

TEST(LowerErrorsTest, CallBindingFitsTheCallee) {
  const std::string callee = "@graph F(a: f32, b: f32?, c: f32) { output o: a + c; }\n";
  testing::Lowered p = testing::LowerText(callee);
  ASSERT_TRUE(p.ok) << p.rendered;
  const ir::Graph& f = p.program.graphs[0];
  EXPECT_TRUE(ir::AcceptsCallBinding(f, std::vector<int>{0, 2}));
  EXPECT_TRUE(ir::AcceptsCallBinding(f, std::vector<int>{0, 1, 2}));
  EXPECT_FALSE(ir::AcceptsCallBinding(f, std::vector<int>{0}));        // c is not optional
  EXPECT_FALSE(ir::AcceptsCallBinding(f, std::vector<int>{0, 1}));     // nor here
  EXPECT_FALSE(ir::AcceptsCallBinding(f, std::vector<int>{2, 0}));     // not ascending
  EXPECT_FALSE(ir::AcceptsCallBinding(f, std::vector<int>{0, 2, 2}));  // twice
  EXPECT_FALSE(ir::AcceptsCallBinding(f, std::vector<int>{0, 2, 3}));  // no input 3
  EXPECT_FALSE(ir::AcceptsCallBinding(f, std::vector<int>{-1, 2}));    // malformed attribute
}

TEST(LowerErrorsTest, BadRepeat) {
  EXPECT_EQ(LowerError(G("  node h { op: repeat(-1) { relu(x) }; };")),
            "E058 3:23 repeat count must be a constant integer >= 0");
  EXPECT_EQ(LowerError(G("  node h { op: repeat(1.5) { relu(x) }; };")),
            "E058 3:23 repeat count must be a constant integer >= 0");
  EXPECT_EQ(LowerError(G("  node h { op: repeat(y) { relu(x) }; };")),
            "E058 3:23 repeat count must be a constant integer >= 0");
  EXPECT_EQ(LowerError(G("  node h { op: repeat(2) { relu(exp(x)) }; };")),
            "E058 3:28 repeat body must be one operation whose operands are names, literals or "
            "config keys");
  EXPECT_EQ(LowerError(G("  node h { op: repeat(2) { x }; };")),
            "E058 3:28 repeat body must be one operation whose operands are names, literals or "
            "config keys");
  EXPECT_EQ(LowerError(G("  node h { op: repeat(2) { repeat(2) { relu(x) } }; };")),
            "E058 3:28 repeat body must be one operation whose operands are names, literals or "
            "config keys");
  EXPECT_EQ(LowerError(G("  node h { op: repeat(2) { range() }; };")),
            "E058 3:28 repeat body needs the carried value as its first operand");
}

TEST(LowerErrorsTest, NotATensor) {
  EXPECT_EQ(LowerError(G("  node h { op: x + \"s\"; };")),
            "E059 3:20 a string cannot be used as a tensor value");
  EXPECT_EQ(LowerError(G("  node h { op: cast(x, \"i64\"); };")),
            "E059 3:24 a string cannot be used as a tensor value; a dtype is an attribute: dtype: \"i64\"");
  EXPECT_EQ(LowerError(G("  node h { op: relu(null); };")),
            "E059 3:21 null cannot be used as a tensor value");
  EXPECT_EQ(LowerError("@config { act: gelu; }\n" + G("  node h { op: x * act; };")),
            "E059 4:20 config value 'act' cannot be used as a tensor");
  EXPECT_EQ(LowerError("@config { l: [1, 2]; }\n" + G("  output l;")),
            "E059 4:10 config value 'l' cannot be used as a tensor");
}

TEST(LowerErrorsTest, ConflictingNodeTypes) {
  EXPECT_EQ(LowerError(G("  node h: f32 {\n    op: y;\n    output: f64;\n  };")),
            "E063 5:13 node 'h' declares two different types: Tensor<[], f32> and Tensor<[], f64>");
}

TEST(LowerErrorsTest, TooLarge) {
  EXPECT_EQ(LowerError(G("  node h { op: reshape(x, shape: [4294967296, 4294967296]); };")),
            "E064 3:34 attribute 'shape' of reshape has more than 2^63 - 1 elements");
}

TEST(LowerErrorsTest, ExpressionTooDeepIsRejectedNotWalked) {
  // The parser already bounds heights (kMaxExprHeight); lowering checks again
  // so that a tree built any other way cannot exhaust the stack.
  ast::Expr tall;
  tall.node = ast::IntLiteral{1, "1"};
  tall.height = kMaxEvalHeight + 1;
  diag::DiagnosticBag diags;
  diag::SourceFile source("t.sw", "1");
  ConfigMap config;
  ConfigEvalContext ctx{&config, &source, {}, nullptr};
  EXPECT_FALSE(EvalConfigExpr(tall, ctx, diags).has_value());
  ASSERT_EQ(diags.all().size(), 1u);
  EXPECT_EQ(diags.all()[0].kind, diag::Kind::ExpressionTooDeep);
}

}  // namespace
}  // namespace shrew::lower
