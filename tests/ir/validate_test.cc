#include "ir/validate.h"

#include <gtest/gtest.h>

#include "ir_test_util.h"

namespace shrew::ir {
namespace {

using testing::GraphFixture;
using testing::SpanFor;
using testing::T;

std::string Dump(const diag::DiagnosticBag& bag) {
  std::string out;
  for (const auto& d : bag.all()) out += std::string(d.code()) + " " + d.message + "\n";
  return out;
}

// The single diagnostic of `bag`; fails the test when there is not exactly one.
diag::Diagnostic Only(const diag::DiagnosticBag& bag) {
  EXPECT_EQ(bag.all().size(), 1u) << Dump(bag);
  if (bag.all().empty()) return {diag::Kind::NoOutput, diag::Severity::Note, {}, "<none>"};
  return bag.all().front();
}

void ExpectSpan(const diag::Diagnostic& d, diag::Span want) {
  EXPECT_EQ(d.span.line, want.line);
  EXPECT_EQ(d.span.column, want.column);
  EXPECT_EQ(d.span.offset, want.offset);
}

// A valid little graph: x -> relu -> output.
struct Valid : GraphFixture {
  NodeId x, r;
  Valid() {
    x = In("x", "[2, 3] f32");
    r = Op(OpKind::kRelu, {x}, "r");
    Out(r);
  }
};

TEST(ValidateTest, ValidGraphHasNoDiagnostics) {
  Valid f;
  EXPECT_TRUE(ValidateGraph(f.g, nullptr, &f.diags));
  EXPECT_TRUE(f.diags.all().empty());
}

TEST(ValidateTest, V1NoOutput) {
  GraphFixture f;
  f.g.set_span(SpanFor(42));
  f.Op(OpKind::kRelu, {f.In("x", "[2] f32")});
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E080");
  EXPECT_EQ(d.message, "[G] graph declares no output");
  ExpectSpan(d, SpanFor(42));
}

TEST(ValidateTest, V2DuplicateNameReportedOnceAtSecondOccurrence) {
  Valid f;
  NodeId dup = f.Op(OpKind::kSigmoid, {f.x}, "r");
  f.Op(OpKind::kTanh, {f.x}, "r");  // third occurrence: not reported again
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E081");
  // The message says where the first 'r' is.
  const diag::Span first = f.g.node(f.r).span;
  ASSERT_TRUE(first.valid());
  EXPECT_EQ(d.message, "[G::r] name 'r' is declared twice; the first is at " + std::to_string(first.line) + ":" +
                           std::to_string(first.column));
  ExpectSpan(d, f.g.node(dup).span);
}

TEST(ValidateTest, V2InputAndNodeWithSameName) {
  Valid f;
  f.Op(OpKind::kTanh, {f.x}, "x");
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  const diag::Span first = f.g.node(f.x).span;
  EXPECT_EQ(Only(f.diags).message, "[G::x] name 'x' is declared twice; the first is at " +
                                       std::to_string(first.line) + ":" + std::to_string(first.column));
}

TEST(ValidateTest, V3BadOperandAndV7Skipped) {
  Valid f;
  NodeId bad = f.Op(OpKind::kAdd, {f.r, 17}, "bad");
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);  // no cycle report on top
  EXPECT_STREQ(d.code(), "E082");
  EXPECT_EQ(d.message, "[G::bad] operand n17 of node n2 does not name a node");
  ExpectSpan(d, f.g.node(bad).span);
}

// Too many operands, the extra ones no node ids (a bundle's IR may hold
// any): V3's error and V6's count, without reading past the node list (the
// V6 hint looked at the extra operands' nodes; found by bundle_fuzzer).
TEST(ValidateTest, V6ExtraOperandsThatNameNoNode) {
  for (NodeId extra : {NodeId{17}, NodeId{-3}}) {
    Valid f;
    f.Op(OpKind::kTranspose, {f.x, extra}, "t");
    EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
    EXPECT_NE(Dump(f.diags).find("does not name a node"), std::string::npos) << Dump(f.diags);
    EXPECT_NE(Dump(f.diags).find("[G::t] transpose expects 1 operand, got 2\n"), std::string::npos) << Dump(f.diags);
  }
}

TEST(ValidateTest, V3NegativeOperand) {
  Valid f;
  f.g.node(f.r).operands[0] = -5;
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  EXPECT_EQ(Only(f.diags).message, "[G::r] operand n-5 of node n1 does not name a node");
}

TEST(ValidateTest, V4InputIdOutOfRange) {
  Valid f;
  f.g.set_span(SpanFor(9));
  f.g.mutable_inputs().push_back(GraphInput{12, false});
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E083");
  EXPECT_EQ(d.message, "[G] input id n12 is out of range");
  ExpectSpan(d, SpanFor(9));
}

TEST(ValidateTest, V4OutputIdOutOfRange) {
  Valid f;
  f.g.AddOutput("ghost", 7, SpanFor(30));
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E083");
  EXPECT_EQ(d.message, "[G] output id n7 is out of range");
  ExpectSpan(d, SpanFor(30));
}

TEST(ValidateTest, V5ParameterWithoutNode) {
  Valid f;
  f.g.set_span(SpanFor(5));
  f.g.mutable_params().push_back(Param{40, "w", T("[2] f32"), {}, false, false});
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E084");
  EXPECT_EQ(d.message, "[G] parameter 'w' has no node");
  ExpectSpan(d, SpanFor(5));
}

TEST(ValidateTest, V5ParameterWithDynamicDim) {
  Valid f;
  NodeId w = f.Param("w", "[?, 4] f32");
  f.Param("ok", "[Batch, 4] f32");  // symbolic is fine (bound at run time)
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E084");
  EXPECT_EQ(d.message, "[G::w] parameter 'w' needs a tensor type without dynamic dimensions");
  ExpectSpan(d, f.g.node(w).span);
}

TEST(ValidateTest, V5ParameterWithUnknownType) {
  Valid f;
  f.g.AddParam("w", Type::Unknown());
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  EXPECT_STREQ(Only(f.diags).code(), "E084");
}

TEST(ValidateTest, V6OperandCounts) {
  struct Case {
    OpKind op;
    int count;
    const char* message;
  };
  const Case kCases[] = {
      {OpKind::kRelu, 2, "relu expects 1 operand, got 2"},
      {OpKind::kAdd, 1, "add expects 2 operands, got 1"},
      {OpKind::kConstant, 1, "constant expects 0 operands, got 1"},
      {OpKind::kIdentity, 0, "identity expects 1 operand, got 0"},
      {OpKind::kIdentity, 2, "identity expects 1 operand, got 2"},
      {OpKind::kLinear, 1, "linear expects 2 to 3 operands, got 1"},
      {OpKind::kBatchNorm, 2, "batch_norm expects 1 or 3 operands, got 2"},
      {OpKind::kMultiHeadAttention, 6, "multi_head_attention expects 1 or 5 operands, got 6"},
      {OpKind::kTransformerBlock, 2, "transformer_block expects 1 or 13 operands, got 2"},
      {OpKind::kConcat, 0, "concat expects at least 1 operand, got 0"},
      {OpKind::kRange, 3, "range expects 0 to 2 operands, got 3"},
      {OpKind::kWhere, 2, "where expects 3 operands, got 2"},
      {OpKind::kEmbedding, 1, "embedding expects 2 operands, got 1"},
  };
  for (const Case& c : kCases) {
    Valid f;
    NodeId id = f.Op(c.op, std::vector<NodeId>(static_cast<size_t>(c.count), f.x), "n");
    EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
    auto d = Only(f.diags);
    EXPECT_STREQ(d.code(), "E085");
    EXPECT_EQ(d.message, std::string("[G::n] ") + c.message);
    ExpectSpan(d, f.g.node(id).span);
  }
}

// `transpose(x, 0, 1)`, `sum(x, 1)`: numbers past the operands are meant as
// attributes; the message names the ones the operation takes (as source
// spells them: a reduction's dims is dim). Other extra operands get none.
TEST(ValidateTest, V6ExtraNumbersAreAttributesByName) {
  auto message = [](OpKind op, int tensors, int numbers) {
    Valid f;
    std::vector<NodeId> operands(static_cast<size_t>(tensors), f.x);
    for (int i = 0; i < numbers; ++i) operands.push_back(f.g.AddConstant("", AttrValue::Int(i), SpanFor(1)));
    f.Op(op, operands, "n");
    EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
    return Only(f.diags).message;
  };
  EXPECT_EQ(message(OpKind::kTranspose, 1, 2),
            "[G::n] transpose expects 1 operand, got 3; attributes are written by name: it takes dim0, dim1");
  EXPECT_EQ(message(OpKind::kSum, 1, 1),
            "[G::n] sum expects 1 operand, got 2; attributes are written by name: it takes dim, keepdim");
  EXPECT_EQ(message(OpKind::kSoftmax, 1, 1),
            "[G::n] softmax expects 1 operand, got 2; attributes are written by name: it takes dim");
  // An op without attributes, or a tensor among the extras: the count alone.
  EXPECT_EQ(message(OpKind::kRelu, 1, 1), "[G::n] relu expects 1 operand, got 2");
  EXPECT_EQ(message(OpKind::kTranspose, 2, 1), "[G::n] transpose expects 1 operand, got 3");
  // min/max of two tensors, meant elementwise: where() is how.
  EXPECT_EQ(message(OpKind::kMin, 2, 0),
            "[G::n] min expects 1 operand, got 2; it reduces one tensor: for the elementwise minimum write "
            "where(a < b, a, b)");
  EXPECT_EQ(message(OpKind::kMax, 2, 0),
            "[G::n] max expects 1 operand, got 2; it reduces one tensor: for the elementwise maximum write "
            "where(a > b, a, b)");
  EXPECT_EQ(message(OpKind::kMax, 3, 0), "[G::n] max expects 1 operand, got 3");
}

TEST(ValidateTest, V6SourceNodeWithOperands) {
  Valid f;
  f.g.node(f.x).operands = {f.r};
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  // The operand also makes a cycle x <-> r.
  ASSERT_GE(f.diags.all().size(), 1u);
  EXPECT_EQ(f.diags.all()[0].message, "[G::x] identity expects 0 operands, got 1");
}

struct CalleeInput {
  const char* name;
  const char* type;
  bool optional;
};

// A program holding one callee graph: `inputs`, and one output `op(operands)`.
Program WithCallee(const char* name, std::initializer_list<CalleeInput> inputs, OpKind op,
                   std::vector<NodeId> operands) {
  Program p;
  GraphFixture callee;
  callee.g.set_name(name);
  for (const CalleeInput& in : inputs) callee.In(in.name, in.type, in.optional);
  callee.Out(callee.Op(op, std::move(operands), "out"));
  p.graphs.push_back(callee.g);
  return p;
}

TEST(ValidateTest, V6CallAgainstCalleeInputs) {
  Program p = WithCallee("Dense", {{"v", "[N, 4] f32", false}, {"bias", "[4] f32", true}}, OpKind::kRelu, {0});
  Valid f;
  NodeId ok = f.Op(OpKind::kCall, {f.x}, "ok");
  f.g.node(ok).callee = "Dense";
  NodeId bad = f.Op(OpKind::kCall, {f.x, f.x, f.x}, "bad");
  f.g.node(bad).callee = "Dense";
  EXPECT_FALSE(ValidateGraph(f.g, &p, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E085");
  EXPECT_EQ(d.message, "[G::bad] call expects 1 to 2 operands, got 3");
  ExpectSpan(d, f.g.node(bad).span);
}

// A call whose "inputs" attribute (OPS.md §3.16: which inputs the operands
// bind) skips a non-optional input, or is not ascending, is refused.
TEST(ValidateTest, V6CallBindingByInputIndices) {
  Program p = WithCallee("Mix", {{"a", "[4] f32", false}, {"bias", "[4] f32", true}, {"scale", "[4] f32", false}},
                         OpKind::kMul, {0, 2});
  for (const auto& [indices, valid] : std::vector<std::pair<std::vector<int64_t>, bool>>{
           {{0, 2}, true}, {{0, 1}, false}, {{2, 0}, false}, {{0, 3}, false}}) {
    Valid f;
    NodeId c = f.Op(OpKind::kCall, {f.x, f.x}, "c");
    f.g.node(c).callee = "Mix";
    f.g.node(c).attrs.Set("inputs", AttrValue::IntList(indices));
    EXPECT_EQ(ValidateGraph(f.g, &p, &f.diags), valid) << indices[0] << ", " << indices[1];
    if (valid) continue;
    auto d = Only(f.diags);
    EXPECT_STREQ(d.code(), "E085");
    EXPECT_EQ(d.message, "[G::c] call's operands do not bind the inputs of graph 'Mix' (every non-optional input once, in order)");
  }
}

TEST(ValidateTest, V7Cycle) {
  Valid f;
  NodeId a = f.Op(OpKind::kAdd, {f.x, f.x}, "a");
  NodeId b = f.Op(OpKind::kRelu, {a}, "b");
  f.g.node(a).operands[1] = b;
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E086");
  EXPECT_EQ(d.message, "[G] graph contains a cycle");
  ExpectSpan(d, f.g.node(a).span);
}

TEST(ValidateTest, V7SelfLoop) {
  Valid f;
  NodeId a = f.Op(OpKind::kRelu, {f.x}, "a");
  f.g.node(a).operands[0] = a;
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  EXPECT_STREQ(Only(f.diags).code(), "E086");
}

TEST(ValidateTest, V11DuplicateOutput) {
  Valid f;
  f.g.AddOutput("r", f.x, SpanFor(20));
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  auto d = Only(f.diags);
  EXPECT_STREQ(d.code(), "E090");
  EXPECT_EQ(d.message, "[G] duplicate output name 'r'");
  ExpectSpan(d, SpanFor(20));
}

// ---- program-level checks

Graph SimpleGraph(const std::string& name, int line) {
  Valid f;
  f.g.set_name(name);
  f.g.set_span(SpanFor(line));
  return f.g;
}

TEST(ValidateProgramTest, ValidProgram) {
  Program p;
  p.graphs.push_back(SimpleGraph("A", 1));
  p.training = TrainingSettings{};
  p.training->model = "A";
  diag::DiagnosticBag bag;
  EXPECT_TRUE(ValidateProgram(p, &bag));
  EXPECT_TRUE(bag.all().empty()) << Dump(bag);
}

TEST(ValidateProgramTest, V8TrainingAndInferenceModel) {
  Program p;
  p.graphs.push_back(SimpleGraph("A", 1));
  p.training = TrainingSettings{};
  p.training->model = "Missing";
  p.training->model_span = SpanFor(50);
  p.inference = InferenceSettings{};
  p.inference->model = "Gone";
  p.inference->model_span = SpanFor(60);
  diag::DiagnosticBag bag;
  EXPECT_FALSE(ValidateProgram(p, &bag));
  ASSERT_EQ(bag.all().size(), 2u) << Dump(bag);
  EXPECT_STREQ(bag.all()[0].code(), "E087");
  EXPECT_EQ(bag.all()[0].message, "[program] @training names unknown graph 'Missing'");
  ExpectSpan(bag.all()[0], SpanFor(50));
  EXPECT_EQ(bag.all()[1].message, "[program] @inference names unknown graph 'Gone'");
  ExpectSpan(bag.all()[1], SpanFor(60));
}

TEST(ValidateProgramTest, V8NoModelIsFine) {
  Program p;
  p.graphs.push_back(SimpleGraph("A", 1));
  p.training = TrainingSettings{};  // no model: nothing to check
  diag::DiagnosticBag bag;
  EXPECT_TRUE(ValidateProgram(p, &bag));
}

TEST(ValidateProgramTest, V9DuplicateGraph) {
  Program p;
  p.graphs.push_back(SimpleGraph("A", 1));
  p.graphs.push_back(SimpleGraph("A", 70));
  diag::DiagnosticBag bag;
  EXPECT_FALSE(ValidateProgram(p, &bag));
  auto d = Only(bag);
  EXPECT_STREQ(d.code(), "E088");
  EXPECT_EQ(d.message, "[program] duplicate graph 'A'; the first is at " + std::to_string(SpanFor(1).line) + ":" +
                           std::to_string(SpanFor(1).column));
  ExpectSpan(d, SpanFor(70));
}

TEST(ValidateProgramTest, V9BuiltinName) {
  Program p;
  p.graphs.push_back(SimpleGraph("softmax", 3));
  diag::DiagnosticBag bag;
  EXPECT_FALSE(ValidateProgram(p, &bag));
  auto d = Only(bag);
  EXPECT_STREQ(d.code(), "E088");
  EXPECT_EQ(d.message, "[program] graph name 'softmax' collides with a built-in operation");
  ExpectSpan(d, SpanFor(3));
}

Graph CallingGraph(const std::string& name, const std::string& callee, int line) {
  Valid f;
  f.g.set_name(name);
  NodeId c = f.g.AddNode("c", OpKind::kCall, {f.x}, SpanFor(line));
  f.g.node(c).callee = callee;
  f.Out(c, "c");
  return f.g;
}

TEST(ValidateProgramTest, V10RecursionThroughTwoGraphs) {
  Program p;
  p.graphs.push_back(CallingGraph("A", "B", 11));
  p.graphs.push_back(CallingGraph("B", "A", 22));
  diag::DiagnosticBag bag;
  EXPECT_FALSE(ValidateProgram(p, &bag));
  auto d = Only(bag);
  EXPECT_STREQ(d.code(), "E089");
  EXPECT_EQ(d.message, "[program] recursive graph call: A -> B -> A");
  ExpectSpan(d, SpanFor(22));  // the call that closes the cycle
}

TEST(ValidateProgramTest, V10DirectRecursion) {
  Program p;
  p.graphs.push_back(CallingGraph("A", "A", 11));
  diag::DiagnosticBag bag;
  EXPECT_FALSE(ValidateProgram(p, &bag));
  EXPECT_EQ(Only(bag).message, "[program] recursive graph call: A -> A");
}

TEST(ValidateProgramTest, V10RecursionInRepeatBody) {
  Program p;
  Valid f;
  f.g.set_name("A");
  NodeId rep = f.g.AddNode("rep", OpKind::kRepeat, {f.x}, SpanFor(8));
  f.g.node(rep).attrs.Set("count", AttrValue::Int(2));
  f.g.node(rep).repeat_body = RepeatBody{OpKind::kCall, {}, "A"};
  f.Out(rep);
  p.graphs.push_back(f.g);
  diag::DiagnosticBag bag;
  EXPECT_FALSE(ValidateProgram(p, &bag));
  EXPECT_STREQ(Only(bag).code(), "E089");
}

TEST(ValidateProgramTest, CallsWithoutRecursionAndUnknownCallee) {
  Program p;
  p.graphs.push_back(SimpleGraph("Leaf", 1));
  p.graphs.push_back(CallingGraph("Mid", "Leaf", 5));
  p.graphs.push_back(CallingGraph("Top", "Mid", 6));
  p.graphs.push_back(CallingGraph("Other", "Leaf", 7));
  diag::DiagnosticBag ok;
  EXPECT_TRUE(ValidateProgram(p, &ok)) << Dump(ok);
  p.graphs.push_back(CallingGraph("Broken", "Nowhere", 9));
  diag::DiagnosticBag bag;
  EXPECT_FALSE(ValidateProgram(p, &bag));
  auto d = Only(bag);
  EXPECT_STREQ(d.code(), "E040");
  EXPECT_EQ(d.message, "[Broken::c] call to unknown graph 'Nowhere'");
}

TEST(ValidateTest, CollectsEveryError) {
  GraphFixture f;  // no output
  NodeId x = f.In("x", "[2] f32");
  f.Op(OpKind::kAdd, {x}, "x");     // duplicate name + operand count
  f.Op(OpKind::kRelu, {5}, "bad");  // bad operand
  EXPECT_FALSE(ValidateGraph(f.g, nullptr, &f.diags));
  std::vector<std::string> codes;
  for (const auto& d : f.diags.all()) codes.push_back(d.code());
  EXPECT_EQ(codes, (std::vector<std::string>{"E080", "E081", "E082", "E085"}));
}

}  // namespace
}  // namespace shrew::ir
