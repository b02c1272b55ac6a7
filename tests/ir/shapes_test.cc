// Shape inference driver: declared types (T6), graph calls, program order,
// specialisation with dim bindings, robustness on malformed graphs, and
// whole example graphs from the spec.
#include "ir/shapes.h"

#include <gtest/gtest.h>

#include <ctime>

#include "ir_test_util.h"
#include "support/sanitizer.h"

namespace shrew::ir {
namespace {

using testing::A;
using testing::GraphFixture;
using testing::SpanFor;
using testing::T;

TEST(ShapesTest, PipelineSection24Example) {
  GraphFixture f;
  NodeId x = f.In("x", "[2, 3] f32");
  NodeId w = f.Param("W", "[3, 4] f32");
  NodeId b = f.Param("b", "[4] f32");
  NodeId m = f.Op(OpKind::kMatmul, {x, w});
  NodeId a = f.Op(OpKind::kAdd, {m, b});
  NodeId h = f.Op(OpKind::kRelu, {a}, "h");
  NodeId two = f.Const(AttrValue::Int(2));
  NodeId c = f.Op(OpKind::kMul, {x, two}, "c");
  f.Out(h);
  f.Out(c);
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(m), "Tensor<[2, 4], f32>");
  EXPECT_EQ(f.TypeOf(a), "Tensor<[2, 4], f32>");
  EXPECT_EQ(f.TypeOf(h), "Tensor<[2, 4], f32>");
  EXPECT_EQ(f.TypeOf(two), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(c), "Tensor<[2, 3], f32>");
}

TEST(ShapesTest, T6DeclaredTypeMismatch) {
  GraphFixture f;
  NodeId x = f.In("x", "[4, 20] f32");
  NodeId n = f.Op(OpKind::kRelu, {x}, "h0");
  f.g.node(n).declared_type = T("[4, 32] f32");
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.OnlyError(), "E105");
  EXPECT_EQ(f.diags.all()[0].message,
            "[G::h0] declared type Tensor<[4, 32], f32> does not match inferred type "
            "Tensor<[4, 20], f32>");
  EXPECT_EQ(f.diags.all()[0].span.line, f.g.node(n).span.line);
  EXPECT_EQ(f.TypeOf(n), "Tensor<[4, 32], f32>");  // the declaration is kept
}

// LANGUAGE.md §4.1: a name is one size in a graph. A declared `[M]` takes
// the size inference finds (2); a later declaration of M is held to it.
TEST(ShapesTest, ADeclaredNameIsOneSizeInAGraph) {
  GraphFixture f;
  NodeId y = f.Op(OpKind::kRelu, {f.In("a", "[2] f32")}, "y");
  NodeId z = f.Op(OpKind::kRelu, {f.In("b", "[3] f32")}, "z");
  NodeId w = f.Op(OpKind::kRelu, {f.In("c", "[2, 5] f32")}, "w");
  f.g.node(y).declared_type = T("[M] f32");
  f.g.node(z).declared_type = T("[M] f32");
  f.g.node(w).declared_type = T("[M, K] f32");
  f.Out(y);
  f.Out(z);
  f.Out(w);
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.OnlyError(), "E105");
  EXPECT_EQ(f.diags.all()[0].message,
            "[G::z] declared type Tensor<[M], f32> does not match inferred type Tensor<[3], f32>: dimension 0 is 3 but "
            "M is 2 (bound by node 'y')");
  EXPECT_EQ(f.TypeOf(y), "Tensor<[2], f32>");
  EXPECT_EQ(f.TypeOf(w), "Tensor<[2, 5], f32>");  // M agrees; K is its own
}

TEST(ShapesTest, DeclaredTypeRefinesAndIsRefined) {
  GraphFixture f;
  NodeId x = f.In("x", "[Batch, 8, 8, 3] f32");
  NodeId r = f.Op(OpKind::kReshape, {x}, "r", A({{"shape", AttrValue::IntList({-1, 4, 48})}}));
  f.g.node(r).declared_type = T("[Batch, 4, ?] f32");  // more precise on axis 0
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(r), "Tensor<[Batch, 4, 48], f32>");
}

// A declared name where inference found a fixed size takes the size: the
// node computes it whatever the name says (found by the run fuzzer: a
// misspelt `OutFeaGtures` left the node unplannable on the tape).
TEST(ShapesTest, DeclaredNameYieldsToAnInferredFixedSize) {
  GraphFixture f;
  NodeId x = f.In("x", "[4, 5] f32");
  NodeId y = f.Op(OpKind::kRelu, {x}, "y");
  f.g.node(y).declared_type = T("[Batch, Nowhere] f32");
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(y), "Tensor<[4, 5], f32>");
}

// A declared name against another inferred name is a run-time check, like
// a name against a fixed size: M and N may be bound to one size (OPS.md §1.4
// gives `?` for two names, not an error). The declaration is kept, with the
// fact it adds.
TEST(ShapesTest, DeclaredNameAgainstAnotherNameIsLeftToTheRun) {
  GraphFixture f;
  NodeId a = f.In("a", "[M] f32");
  NodeId b = f.In("b", "[N] f32");
  NodeId s = f.Op(OpKind::kRelu, {b}, "s");
  f.g.node(s).declared_type = T("[M] f32");
  NodeId y = f.Op(OpKind::kAdd, {a, s}, "y");
  f.Out(y);
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(s), "Tensor<[M], f32>");
  EXPECT_EQ(f.TypeOf(y), "Tensor<[M], f32>");
  EXPECT_TRUE(f.g.node(s).declared_adds_facts);

  // Still an error where the sizes are known to differ.
  DimBindings dims{{"M", 3}, {"N", 4}};
  InferOptions o;
  o.bindings = &dims;
  EXPECT_FALSE(f.Infer(o));
  EXPECT_EQ(f.OnlyError(), "E105");
}

// Node::declared_adds_facts tells the optimiser which declarations still
// carry a check (or a dimension name) that inference does not have.
TEST(ShapesTest, DeclaredTypesThatStateMoreThanInferenceAreFlagged) {
  GraphFixture f;
  NodeId x = f.In("x", "?");
  NodeId s = f.In("s", "[?, 4] f32");
  NodeId a = f.Op(OpKind::kIdentity, {x}, "a");
  f.g.node(a).declared_type = T("[2] f32");
  NodeId b = f.Op(OpKind::kIdentity, {s}, "b");
  f.g.node(b).declared_type = T("[B, 4] f32");
  NodeId c = f.Op(OpKind::kRelu, {s}, "c");
  f.g.node(c).declared_type = T("[?, 4] f32");
  NodeId d = f.Op(OpKind::kRelu, {s}, "d");
  for (NodeId id : {a, b, c, d}) f.Out(id);
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_TRUE(f.g.node(a).declared_adds_facts);   // x is `?`
  EXPECT_TRUE(f.g.node(b).declared_adds_facts);   // the name B
  EXPECT_FALSE(f.g.node(c).declared_adds_facts);  // what inference found
  EXPECT_FALSE(f.g.node(d).declared_adds_facts);  // no declaration
  EXPECT_EQ(f.TypeOf(b), "Tensor<[B, 4], f32>");

  // Recomputed on every inference: with B bound, b states nothing more.
  DimBindings dims{{"B", 3}};
  f.g.node(s).declared_type = T("[3, 4] f32");
  InferOptions o;
  o.bindings = &dims;
  EXPECT_TRUE(f.Infer(o)) << f.Messages();
  EXPECT_FALSE(f.g.node(b).declared_adds_facts);
  EXPECT_TRUE(f.g.node(a).declared_adds_facts);
}

// A declaration that gives a weak literal its dtype (`node k { op: 2; };
// node y: Tensor<[], f64> { op: k; };`) is the dtype's only source when a
// run re-types the literals, i.e. when types depend on the inputs.
TEST(ShapesTest, DeclaredDtypeOfAWeakExpressionIsAFactOnlyWhenRunsRetypeIt) {
  for (bool untyped : {false, true}) {
    GraphFixture f;
    NodeId x = f.In("x", untyped ? "?" : "[2] f32");
    NodeId k = f.Const(AttrValue::Int(2), "k");
    NodeId y = f.Op(OpKind::kIdentity, {k}, "y");
    f.g.node(y).declared_type = T("[] f64");
    f.Out(x);
    f.Out(y);
    EXPECT_TRUE(f.Infer()) << f.Messages();
    EXPECT_EQ(f.TypeOf(k), "Tensor<[], f64>");
    EXPECT_EQ(f.g.node(y).declared_adds_facts, untyped) << untyped;
  }
}

TEST(ShapesTest, T6GraphReturnType) {
  GraphFixture f;
  NodeId x = f.In("x", "[4, 20] f32");
  NodeId y = f.Op(OpKind::kRelu, {x}, "y");
  f.g.AddOutput("y", y, SpanFor(77));
  f.g.set_return_type(T("[4, 5] f32"));
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.OnlyError(), "E105");
  EXPECT_EQ(f.diags.all()[0].message,
            "[G] the header declares -> Tensor<[4, 5], f32> but its first output 'y' is Tensor<[4, 20], f32>");
  EXPECT_EQ(f.diags.all()[0].span.line, 77u);
  GraphFixture ok;
  NodeId ox = ok.In("x", "[4, 20] f32");
  ok.Out(ok.Op(OpKind::kRelu, {ox}, "y"));
  ok.g.set_return_type(T("[4, 20] f32"));
  EXPECT_TRUE(ok.Infer());
}

TEST(ShapesTest, InputsAndParamsKeepDeclaredTypes) {
  GraphFixture f;
  NodeId x = f.In("x", "[Batch, 4] f32");
  NodeId w = f.Param("w", "[4, 8] f32");
  f.g.node(x).type = Type::Unknown();  // stale state is overwritten from the declaration
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(x), "Tensor<[Batch, 4], f32>");
  EXPECT_EQ(f.TypeOf(w), "Tensor<[4, 8], f32>");
}

TEST(ShapesTest, ReinferenceRecomputesStaleTypes) {
  GraphFixture f;
  NodeId x = f.In("x", "[2, 3] f32");
  NodeId r = f.Op(OpKind::kRelu, {x}, "r");
  f.g.node(r).type = T("[9] i64");  // wrong leftover from an earlier pass
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(r), "Tensor<[2, 3], f32>");
}

TEST(ShapesTest, SpecializeWithBindings) {
  GraphFixture f;
  NodeId x = f.In("x", "[Batch, 4] f32");
  NodeId w = f.Param("w", "[4, Hidden] f32");
  NodeId m = f.Op(OpKind::kMatmul, {x, w}, "m");
  NodeId r = f.Op(OpKind::kReshape, {m}, "r",
                  A({{"shape", AttrValue::Shape({Dim::Dynamic(), Dim::Symbolic("Hidden")})}}));
  f.Out(r);
  EXPECT_TRUE(f.Infer());
  EXPECT_EQ(f.TypeOf(m), "Tensor<[Batch, Hidden], f32>");
  EXPECT_EQ(f.TypeOf(r), "Tensor<[?, Hidden], f32>");
  Graph specialised = f.g;
  diag::DiagnosticBag bag;
  DimBindings b{{"Batch", 8}, {"Hidden", 16}};
  EXPECT_TRUE(SpecializeGraphTypes(&specialised, nullptr, b, &bag));
  EXPECT_EQ(specialised.node(x).type.ToString(), "Tensor<[8, 4], f32>");
  EXPECT_EQ(specialised.node(m).type.ToString(), "Tensor<[8, 16], f32>");
  EXPECT_EQ(specialised.node(r).type.ToString(), "Tensor<[8, 16], f32>");
  // The generic graph is untouched and can be re-specialised.
  EXPECT_EQ(f.TypeOf(r), "Tensor<[?, Hidden], f32>");
  Graph other = f.g;
  EXPECT_TRUE(SpecializeGraphTypes(&other, nullptr, {{"Batch", 2}, {"Hidden", 3}}, &bag));
  EXPECT_EQ(other.node(r).type.ToString(), "Tensor<[2, 3], f32>");
}

TEST(ShapesTest, SpecializeFindsErrorsOnlyVisibleWithBindings) {
  GraphFixture f;
  NodeId x = f.In("x", "[Batch, 6] f32");
  f.Op(OpKind::kReshape, {x}, "r", A({{"shape", AttrValue::IntList({4, 5})}}));
  EXPECT_TRUE(f.Infer());
  diag::DiagnosticBag bag;
  Graph copy = f.g;
  EXPECT_FALSE(SpecializeGraphTypes(&copy, nullptr, {{"Batch", 3}}, &bag));
  ASSERT_EQ(bag.all().size(), 1u);
  EXPECT_EQ(bag.all()[0].message, "[G::r] cannot reshape [3, 6] (18 elements) to [4, 5] (20 elements)");
}

// ---- graph calls (graph_calls.sw)

Program GraphCallsProgram() {
  Program p;
  {
    GraphFixture d;
    d.g.set_name("Dense");
    NodeId v = d.In("v", "[Rows, 16] f32");
    NodeId w = d.Param("w", "[16, 16] f32");
    NodeId b = d.Param("b", "[16] f32");
    NodeId out = d.Op(OpKind::kGelu, {d.Op(OpKind::kAdd, {d.Op(OpKind::kMatmul, {v, w}), b})}, "out");
    d.Out(out);
    p.graphs.push_back(d.g);
  }
  {
    GraphFixture r;
    r.g.set_name("Residual");
    NodeId v = r.In("v", "[Rows, 16] f32");
    NodeId gate = r.In("gate", "[16] f32");
    NodeId inner = r.Op(OpKind::kCall, {v}, "inner");
    r.g.node(inner).callee = "Dense";
    NodeId sig = r.Op(OpKind::kSigmoid, {gate});
    NodeId out = r.Op(OpKind::kAdd, {v, r.Op(OpKind::kMul, {inner, sig})}, "out");
    r.Out(out);
    r.g.set_return_type(T("[Rows, 16] f32"));
    p.graphs.push_back(r.g);
  }
  return p;
}

TEST(ShapesCallTest, UnifiesCalleeSymbolsWithOperands) {
  Program p = GraphCallsProgram();
  GraphFixture m;
  m.g.set_name("Model");
  NodeId feats = m.In("features", "[Rows, 16] f32");
  NodeId g1 = m.Param("gate1", "[16] f32");
  NodeId head = m.Param("head", "[16, 4] f32");
  NodeId r1 = m.Op(OpKind::kCall, {feats, g1}, "r1");
  m.g.node(r1).callee = "Residual";
  NodeId logits = m.Op(OpKind::kMatmul, {r1, head}, "logits");
  m.Out(logits);
  NodeId fixed_in = m.In("fixed", "[5, 16] f32");
  NodeId r2 = m.Op(OpKind::kCall, {fixed_in, g1}, "r2");
  m.g.node(r2).callee = "Residual";
  // The caller comes first in source order: callees are inferred first anyway.
  p.graphs.insert(p.graphs.begin(), m.g);
  diag::DiagnosticBag bag;
  EXPECT_TRUE(InferProgramTypes(&p, &bag)) << testing::GraphFixture().Messages();
  for (const auto& d : bag.all()) ADD_FAILURE() << d.message;
  const Graph& model = *p.FindGraph("Model");
  EXPECT_EQ(model.node(r1).type.ToString(), "Tensor<[Rows, 16], f32>");
  EXPECT_EQ(model.node(logits).type.ToString(), "Tensor<[Rows, 4], f32>");
  EXPECT_EQ(model.node(r2).type.ToString(), "Tensor<[5, 16], f32>");
  EXPECT_EQ(p.FindGraph("Residual")->node(2).type.ToString(), "Tensor<[Rows, 16], f32>");
}

TEST(ShapesCallTest, T6OperandMismatch) {
  Program p = GraphCallsProgram();
  GraphFixture m;
  m.g.set_name("Model");
  NodeId x = m.In("x", "[3, 8] f32");
  NodeId gate = m.In("gate", "[16] f32");
  NodeId c = m.Op(OpKind::kCall, {x, gate}, "c");
  m.g.node(c).callee = "Residual";
  m.Out(c);
  p.graphs.push_back(m.g);
  diag::DiagnosticBag bag;
  EXPECT_FALSE(InferProgramTypes(&p, &bag));
  ASSERT_EQ(bag.all().size(), 1u);
  EXPECT_STREQ(bag.all()[0].code(), "E105");
  EXPECT_EQ(bag.all()[0].message,
            "[Model::c] call of graph 'Residual': its input 'v' is declared Tensor<[Rows, 16], f32> but the "
            "argument 'x' is Tensor<[3, 8], f32>: dimension 1 is 8, expected 16");
}

TEST(ShapesCallTest, InconsistentSymbolBindingIsAnError) {
  Program p;
  GraphFixture callee;
  callee.g.set_name("Pair");
  NodeId a = callee.In("a", "[N] f32");
  NodeId b = callee.In("b", "[N] f32");
  callee.Out(callee.Op(OpKind::kAdd, {a, b}, "s"));
  p.graphs.push_back(callee.g);
  GraphFixture m;
  m.g.set_name("M");
  NodeId c = m.Op(OpKind::kCall, {m.In("x", "[3] f32"), m.In("y", "[4] f32")}, "c");
  m.g.node(c).callee = "Pair";
  m.Out(c);
  p.graphs.push_back(m.g);
  diag::DiagnosticBag bag;
  EXPECT_FALSE(InferProgramTypes(&p, &bag));
  ASSERT_EQ(bag.all().size(), 1u);
  EXPECT_STREQ(bag.all()[0].code(), "E105");
  // It says what N is and which input bound it ("[N] does not match [4]" alone read as a contradiction).
  EXPECT_EQ(bag.all()[0].message,
            "[M::c] call of graph 'Pair': its input 'b' is declared Tensor<[N], f32> but the argument 'y' is "
            "Tensor<[4], f32>: dimension 0 is 4 but N is 3 (bound by input 'a')");
}

// LANGUAGE.md §4.1: a callee's names are its own. `Scale`'s K unifies with
// the caller's N in one call and with M in the next; the results carry the
// caller's names. (This was rejected as "declared type [K] does not match
// inferred type [N]".)
TEST(ShapesCallTest, CalleeNamesUnifyWithDifferentlyNamedCallerDims) {
  Program p;
  GraphFixture callee;
  callee.g.set_name("Scale");
  NodeId v = callee.In("v", "[K, 2] f32");
  callee.Out(callee.Op(OpKind::kMul, {v, v}, "out"));
  p.graphs.push_back(callee.g);
  GraphFixture m;
  m.g.set_name("M");
  NodeId x = m.Op(OpKind::kCall, {m.In("a", "[N, 2] f32")}, "x");
  m.g.node(x).callee = "Scale";
  NodeId y = m.Op(OpKind::kCall, {m.In("b", "[M, 2] f32")}, "y");
  m.g.node(y).callee = "Scale";
  NodeId z = m.Op(OpKind::kCall, {m.In("c", "[3, 2] f32")}, "z");
  m.g.node(z).callee = "Scale";
  m.Out(x);
  p.graphs.push_back(m.g);
  diag::DiagnosticBag bag;
  EXPECT_TRUE(InferProgramTypes(&p, &bag));
  for (const auto& d : bag.all()) ADD_FAILURE() << d.message;
  const Graph& g = *p.FindGraph("M");
  EXPECT_EQ(g.node(x).type.ToString(), "Tensor<[N, 2], f32>");
  EXPECT_EQ(g.node(y).type.ToString(), "Tensor<[M, 2], f32>");
  EXPECT_EQ(g.node(z).type.ToString(), "Tensor<[3, 2], f32>");
}

TEST(ShapesCallTest, UnboundCalleeSymbolsBecomeDynamic) {
  Program p;
  GraphFixture callee;
  callee.g.set_name("Make");
  NodeId r = callee.Op(OpKind::kRange, {}, "r");
  callee.g.node(r).declared_type = T("[Len] i64");
  callee.Out(r);
  p.graphs.push_back(callee.g);
  GraphFixture m;
  m.g.set_name("M");
  NodeId c = m.Op(OpKind::kCall, {}, "c");
  m.g.node(c).callee = "Make";
  m.Out(c);
  p.graphs.push_back(m.g);
  diag::DiagnosticBag bag;
  EXPECT_TRUE(InferProgramTypes(&p, &bag));
  EXPECT_EQ(p.graphs[1].node(c).type.ToString(), "Tensor<[?], i64>");
}

TEST(ShapesCallTest, RecursionAndMissingCalleesDoNotCrash) {
  Program p;
  GraphFixture a;
  a.g.set_name("A");
  NodeId c = a.Op(OpKind::kCall, {a.In("x", "[2] f32")}, "c");
  a.g.node(c).callee = "A";
  a.Out(c);
  p.graphs.push_back(a.g);
  GraphFixture b;
  b.g.set_name("B");
  NodeId d = b.Op(OpKind::kCall, {b.In("x", "[2] f32")}, "d");
  b.g.node(d).callee = "Nowhere";
  b.Out(d);
  p.graphs.push_back(b.g);
  diag::DiagnosticBag bag;
  InferProgramTypes(&p, &bag);
  EXPECT_EQ(p.graphs[0].node(c).type.ToString(), "?");
  EXPECT_EQ(p.graphs[1].node(d).type.ToString(), "?");
}

// ---- robustness

TEST(ShapesRobustnessTest, BadOperandIdsAndCyclesReadAsUnknown) {
  GraphFixture f;
  NodeId x = f.In("x", "[2] f32");
  NodeId bad = f.Op(OpKind::kAdd, {x, 99}, "bad");
  NodeId neg = f.Op(OpKind::kRelu, {-3}, "neg");
  NodeId a = f.Op(OpKind::kAdd, {x, x}, "a");
  NodeId b = f.Op(OpKind::kRelu, {a}, "b");
  f.g.node(a).operands[1] = b;  // cycle
  NodeId self = f.Op(OpKind::kRelu, {x}, "self");
  f.g.node(self).operands[0] = self;
  NodeId wrong_arity = f.Op(OpKind::kMatmul, {x}, "wrong");
  NodeId many = f.Op(OpKind::kRelu, {x, x, x}, "many");
  f.Infer();
  EXPECT_EQ(f.TypeOf(bad), "?");
  EXPECT_EQ(f.TypeOf(neg), "?");
  EXPECT_EQ(f.TypeOf(a), "?");
  EXPECT_EQ(f.TypeOf(self), "?");
  EXPECT_EQ(f.TypeOf(wrong_arity), "?");
  EXPECT_EQ(f.TypeOf(many), "?");
}

TEST(ShapesRobustnessTest, WeakConstantsInMalformedGraphs) {
  GraphFixture f;
  NodeId c = f.Const(AttrValue::Int(1));
  NodeId a = f.Op(OpKind::kAdd, {c, c});
  f.g.node(c).operands = {a};  // constant pointing forward: nonsense, must not hang
  NodeId s = f.Const(AttrValue::String("oops"), "s");
  NodeId missing = f.Op(OpKind::kConstant, {}, "missing");
  f.Infer();
  EXPECT_EQ(f.TypeOf(s), "?");
  EXPECT_EQ(f.TypeOf(missing), "?");
}

TEST(ShapesTest, WeakLiteralsSharedBetweenExpressionsTakeTheLastDtype) {
  // c is shared. `a = c + 1` types it i64 provisionally (and `a2 = a + 1`
  // types a's sub-expression again), `b = c + 1.5` re-types it f32, and
  // `d = a + 2` re-types a's sub-expression, c included, back to i64: the
  // walk must reach c although it had typed a's sub-expression i64 before.
  GraphFixture f;
  NodeId c = f.Const(AttrValue::Int(1), "c");
  NodeId a = f.Op(OpKind::kAdd, {c, f.Const(AttrValue::Int(1))}, "a");
  NodeId a2 = f.Op(OpKind::kAdd, {a, f.Const(AttrValue::Int(1))}, "a2");
  NodeId b = f.Op(OpKind::kAdd, {c, f.Const(AttrValue::Float(1.5))}, "b");
  NodeId d = f.Op(OpKind::kAdd, {a, f.Const(AttrValue::Int(2))}, "d");
  f.Out(a2);
  f.Out(b);
  f.Out(d);
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(c), "Tensor<[], i64>");
  EXPECT_EQ(f.TypeOf(a), "Tensor<[], i64>");
  EXPECT_EQ(f.TypeOf(a2), "Tensor<[], i64>");
  EXPECT_EQ(f.TypeOf(b), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(d), "Tensor<[], i64>");
}

TEST(ShapesRobustnessTest, LongChainsOfWeakLiteralsInferInLinearTime) {
  // c0 = 1 + 1, c1 = c0 + 1, …, then y = x * c: each new link re-types the
  // chain below it provisionally; walking all of it every time was
  // quadratic (20,000 links: 5.5 s). CPU time, for a loaded machine.
  constexpr int kLinks = 50000;
  GraphFixture f;
  NodeId x = f.In("x", "[2] f64");
  NodeId prev = f.Const(AttrValue::Int(1));
  for (int i = 0; i < kLinks; ++i) {
    // Every seventh literal is a float: the chain's kind changes midway.
    AttrValue one = i % 7 == 6 ? AttrValue::Float(1.0) : AttrValue::Int(1);
    prev = f.Op(OpKind::kAdd, {prev, f.Const(one)});
  }
  NodeId y = f.Op(OpKind::kMul, {x, prev}, "y");
  f.Out(y);
  const std::clock_t start = std::clock();
  EXPECT_TRUE(f.Infer()) << f.Messages();
  const double ms = 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  EXPECT_EQ(f.TypeOf(y), "Tensor<[2], f64>");
  EXPECT_EQ(f.TypeOf(prev), "Tensor<[], f64>");
  EXPECT_EQ(f.TypeOf(1), "Tensor<[], f64>");  // the first literal
  EXPECT_LT(ms, 1000.0 * shrew::testing::kTimeScale);
}

TEST(ShapesRobustnessTest, HugeDimsOverflowAsDiagnostics) {
  GraphFixture f;
  NodeId x = f.In("x", "[9223372036854775807, 9223372036854775807] f32");
  NodeId r = f.Op(OpKind::kReshape, {x}, "r", A({{"shape", AttrValue::IntList({-1})}}));
  NodeId s = f.Op(OpKind::kSum, {x}, "s");
  NodeId t = f.Op(OpKind::kTransformerBlock, {f.In("y", "[1, 1, 9223372036854775807] f32")}, "t");
  f.Infer();
  EXPECT_EQ(f.TypeOf(r), "?");
  EXPECT_EQ(f.TypeOf(s), "Tensor<[], f32>");
  EXPECT_EQ(f.TypeOf(t), "Tensor<[1, 1, 9223372036854775807], f32>");
  ASSERT_EQ(f.diags.all().size(), 1u) << f.Messages();
  EXPECT_STREQ(f.diags.all()[0].code(), "E113");
  EXPECT_EQ(f.diags.all()[0].message,
            "[G::x] element count of Tensor<[9223372036854775807, 9223372036854775807], f32> is "
            "over 2^63 - 1 elements");
  EXPECT_EQ(f.diags.all()[0].span.line, f.g.node(x).span.line);
}

TEST(ShapesRobustnessTest, OverflowReportedOnceWhereItAppears) {
  GraphFixture f;
  NodeId a = f.In("a", "[4294967296, 1] f32");
  NodeId b = f.In("b", "[1, 4294967296] f32");
  NodeId m = f.Op(OpKind::kMatmul, {a, b}, "m");
  NodeId r = f.Op(OpKind::kRelu, {m}, "r");
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.OnlyError(), "E113");
  EXPECT_EQ(f.diags.all()[0].span.line, f.g.node(m).span.line);
  EXPECT_EQ(f.TypeOf(r), "Tensor<[4294967296, 4294967296], f32>");
  // Symbolic dims overflow only once bound.
  GraphFixture s;
  s.Op(OpKind::kRelu, {s.In("x", "[N, 4294967296] f32")}, "r");
  EXPECT_TRUE(s.Infer());
  DimBindings big{{"N", int64_t{1} << 40}};
  Graph copy = s.g;
  diag::DiagnosticBag bag;
  EXPECT_FALSE(SpecializeGraphTypes(&copy, nullptr, big, &bag));
  ASSERT_EQ(bag.all().size(), 1u);
  EXPECT_EQ(bag.all()[0].message,
            "[G::x] element count of Tensor<[1099511627776, 4294967296], f32> is over 2^63 - 1 elements");
}

TEST(ShapesRobustnessTest, WrongAttributeKindsAreDiagnostics) {
  GraphFixture f;
  NodeId x = f.In("x", "[2, 3] f32");
  f.Op(OpKind::kSoftmax, {x}, "a", A({{"dim", AttrValue::String("last")}}));
  f.Op(OpKind::kTranspose, {x}, "b", A({{"dim0", AttrValue::Bool(true)}}));
  f.Op(OpKind::kReshape, {x}, "c", A({{"shape", AttrValue::Float(2)}}));
  f.Op(OpKind::kConcat, {x}, "d", A({{"dim", AttrValue::IntList({0})}}));
  f.Op(OpKind::kSum, {x}, "e", A({{"keepdim", AttrValue::Int(1)}}));
  f.Op(OpKind::kLayerNorm, {x}, "g", A({{"eps", AttrValue::Bool(false)}}));
  EXPECT_FALSE(f.Infer());
  ASSERT_EQ(f.diags.all().size(), 6u) << f.Messages();
  for (const auto& d : f.diags.all()) EXPECT_STREQ(d.code(), "E046");
  EXPECT_EQ(f.diags.all()[0].message, "[G::a] attribute 'dim' of softmax must be an int");
}

// ---- a whole example (tiny_gpt.sw, after lowering)

TEST(ShapesExampleTest, TinyGpt) {
  GraphFixture f;
  f.g.set_name("LanguageModel");
  NodeId tokens = f.In("tokens", "[Batch, 16] i64");
  NodeId targets = f.In("targets", "[Batch, 16] i64");
  NodeId tok = f.Param("tok_table", "[96, 64] f32");
  NodeId pos = f.Param("pos_table", "[16, 64] f32");
  NodeId g = f.Param("lnf_g", "[64] f32");
  NodeId b = f.Param("lnf_b", "[64] f32");
  NodeId ctx = f.Const(AttrValue::Int(16));
  NodeId positions = f.Op(OpKind::kRange, {ctx}, "positions");
  NodeId e1 = f.Op(OpKind::kEmbedding, {tokens, tok});
  NodeId e2 = f.Op(OpKind::kEmbedding, {positions, pos});
  NodeId embedded = f.Op(OpKind::kAdd, {e1, e2}, "embedded");
  NodeId blocks = f.Op(OpKind::kRepeat, {embedded}, "blocks", A({{"count", AttrValue::Int(2)}}));
  f.g.node(blocks).repeat_body = RepeatBody{OpKind::kTransformerBlock, A({{"n_heads", AttrValue::Int(4)}}), ""};
  NodeId final_ = f.Op(OpKind::kLayerNorm, {blocks, g, b}, "final");
  NodeId tt = f.Op(OpKind::kTranspose, {tok});
  NodeId logits = f.Op(OpKind::kMatmul, {final_, tt}, "logits");
  NodeId loss = f.Op(OpKind::kCrossEntropy, {logits, targets}, "loss");
  f.Out(logits);
  f.Out(loss);
  EXPECT_TRUE(ValidateGraph(f.g, nullptr, &f.diags));
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(ctx), "Tensor<[], i64>");
  EXPECT_EQ(f.TypeOf(positions), "Tensor<[16], i64>");
  EXPECT_EQ(f.TypeOf(e2), "Tensor<[16, 64], f32>");
  EXPECT_EQ(f.TypeOf(embedded), "Tensor<[Batch, 16, 64], f32>");
  EXPECT_EQ(f.TypeOf(blocks), "Tensor<[Batch, 16, 64], f32>");
  EXPECT_EQ(f.TypeOf(logits), "Tensor<[Batch, 16, 96], f32>");
  EXPECT_EQ(f.TypeOf(loss), "Tensor<[], f32>");
}

}  // namespace
}  // namespace shrew::ir
