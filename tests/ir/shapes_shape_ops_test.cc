// Shape inference: transpose, permute, reshape/view, expand, concat, split, range.
#include <gtest/gtest.h>

#include <limits>

#include "ir/shapes.h"
#include "ir_test_util.h"

namespace shrew::ir {
namespace {

using testing::A;
using testing::GraphFixture;

struct One : GraphFixture {
  NodeId n;
  One(OpKind op, std::string_view a, Attrs attrs = {}, const InferOptions& o = {}) {
    n = Op(op, {In("x", a)}, "n", std::move(attrs));
    Infer(o);
  }
  std::string Type() const { return TypeOf(n); }
  std::string Msg() const { return diags.all().empty() ? "" : diags.all()[0].message; }
};

AttrValue Shape(std::initializer_list<const char*> entries) {
  std::vector<Dim> dims;
  for (const char* e : entries) {
    std::string s(e);
    if (s == "-1") {
      dims.push_back(Dim::Dynamic());
    } else if (s[0] >= '0' && s[0] <= '9') {
      dims.push_back(Dim::Fixed(std::atoll(e)));
    } else {
      dims.push_back(Dim::Symbolic(s));
    }
  }
  return AttrValue::Shape(std::move(dims));
}

TEST(TransposeShapeTest, DefaultsSwapLastTwo) {
  EXPECT_EQ(One(OpKind::kTranspose, "[Batch, 4, 32] f32").Type(), "Tensor<[Batch, 32, 4], f32>");
  EXPECT_EQ(One(OpKind::kTranspose, "[96, 64] f32").Type(), "Tensor<[64, 96], f32>");
  EXPECT_EQ(One(OpKind::kTranspose, "[2, 3, 4, 5] i64",
                A({{"dim0", AttrValue::Int(0)}, {"dim1", AttrValue::Int(-2)}}))
                .Type(),
            "Tensor<[4, 3, 2, 5], i64>");
}

TEST(TransposeShapeTest, T8RankAndT2Axis) {
  One r1(OpKind::kTranspose, "[5] f32");
  EXPECT_EQ(r1.OnlyError(), "E107");
  EXPECT_EQ(r1.Msg(), "[G::n] transpose expects rank >= 2, got rank 1");
  One ax(OpKind::kTranspose, "[2, 3] f32", A({{"dim0", AttrValue::Int(5)}}));
  EXPECT_EQ(ax.OnlyError(), "E101");
  EXPECT_EQ(ax.Msg(), "[G::n] axis 5 is out of range for a rank-2 tensor");
}

TEST(PermuteShapeTest, Permutes) {
  EXPECT_EQ(One(OpKind::kPermute, "[Batch, 2, 4, 2, 4, 3] f32",
                A({{"dims", AttrValue::IntList({0, 1, 3, 2, 4, 5})}}))
                .Type(),
            "Tensor<[Batch, 2, 2, 4, 4, 3], f32>");
  EXPECT_EQ(One(OpKind::kPermute, "[A, B, C] f32", A({{"dims", AttrValue::IntList({-1, 0, 1})}})).Type(),
            "Tensor<[C, A, B], f32>");
}

TEST(PermuteShapeTest, T9NotAPermutation) {
  One dup(OpKind::kPermute, "[2, 3, 4] f32", A({{"dims", AttrValue::IntList({0, 0, 1})}}));
  EXPECT_EQ(dup.OnlyError(), "E108");
  EXPECT_EQ(dup.Msg(), "[G::n] dims [0, 0, 1] is not a permutation of the axes of a rank-3 tensor");
  EXPECT_EQ(One(OpKind::kPermute, "[2, 3, 4] f32", A({{"dims", AttrValue::IntList({0, 1})}})).OnlyError(),
            "E108");
  EXPECT_EQ(One(OpKind::kPermute, "[2, 3] f32", A({{"dims", AttrValue::IntList({0, 2})}})).OnlyError(),
            "E101");
  EXPECT_EQ(One(OpKind::kPermute, "[2, 3] f32").OnlyError(), "E048");
}

TEST(ReshapeShapeTest, FixedAndInferred) {
  EXPECT_EQ(One(OpKind::kReshape, "[2, 3, 4] f32", A({{"shape", Shape({"6", "4"})}})).Type(),
            "Tensor<[6, 4], f32>");
  EXPECT_EQ(One(OpKind::kReshape, "[2, 3, 4] f32", A({{"shape", Shape({"-1", "4"})}})).Type(),
            "Tensor<[6, 4], f32>");
  EXPECT_EQ(One(OpKind::kView, "[2, 3, 4] i64", A({{"shape", Shape({"-1"})}})).Type(),
            "Tensor<[24], i64>");
  EXPECT_EQ(One(OpKind::kReshape, "[2, 3] f32", A({{"shape", Shape({})}})).OnlyError(), "E104");
  EXPECT_EQ(One(OpKind::kReshape, "[1, 1] f32", A({{"shape", Shape({})}})).Type(), "Tensor<[], f32>");
}

TEST(ReshapeShapeTest, SymbolicEntriesAndUnknownInferred) {
  // patch_mixer.sw
  EXPECT_EQ(One(OpKind::kReshape, "[Batch, 8, 8, 3] f32",
                A({{"shape", Shape({"Batch", "2", "4", "2", "4", "3"})}}))
                .Type(),
            "Tensor<[Batch, 2, 4, 2, 4, 3], f32>");
  EXPECT_EQ(One(OpKind::kReshape, "[Batch, 2, 2, 4, 4, 3] f32", A({{"shape", Shape({"-1", "4", "48"})}})).Type(),
            "Tensor<[?, 4, 48], f32>");
  InferOptions o;
  DimBindings b{{"Batch", 8}};
  o.bindings = &b;
  EXPECT_EQ(One(OpKind::kReshape, "[Batch, 2, 2, 4, 4, 3] f32", A({{"shape", Shape({"-1", "4", "48"})}}), o)
                .Type(),
            "Tensor<[8, 4, 48], f32>");
  EXPECT_EQ(One(OpKind::kReshape, "[Batch, 12] f32", A({{"shape", Shape({"Batch", "3", "4"})}}), o).Type(),
            "Tensor<[8, 3, 4], f32>");
}

// Names on both sides cancel: -1 is the ratio of the fixed parts for every
// size of the names (a name bound to 0 makes -1 ambiguous, a run-time
// error), so attention's head split has a static head size; and no size can
// make a ratio that is not whole fit. It stayed `?` (and the mistake was
// found only when run).
TEST(ReshapeShapeTest, MinusOneBesideTheSameNamesIsStatic) {
  EXPECT_EQ(One(OpKind::kReshape, "[B, S, 256] f32", A({{"shape", Shape({"B", "S", "4", "-1"})}})).Type(),
            "Tensor<[B, S, 4, 64], f32>");
  EXPECT_EQ(One(OpKind::kReshape, "[S, B, 2, 6] f32", A({{"shape", Shape({"-1", "B", "S"})}})).Type(),
            "Tensor<[12, B, S], f32>");
  EXPECT_EQ(One(OpKind::kReshape, "[N, N, 6] f32", A({{"shape", Shape({"N", "3", "N", "-1"})}})).Type(),
            "Tensor<[N, 3, N, 2], f32>");
  One split(OpKind::kReshape, "[N, 3] f32", A({{"shape", Shape({"N", "2", "-1"})}}));
  EXPECT_EQ(split.OnlyError(), "E104");
  EXPECT_EQ(split.Msg(), "[G::n] cannot reshape [N, 3] (3*N elements) to [N, 2, -1]: -1 would be 3/2, whatever N is");
  One two(OpKind::kReshape, "[B, S, 10] f32", A({{"shape", Shape({"S", "B", "4", "-1"})}}));
  EXPECT_EQ(two.Msg(), "[G::n] cannot reshape [B, S, 10] (10*B*S elements) to [S, B, 4, -1]: -1 would be 10/4, "
                       "whatever B and S are");
  // Different names, a name only on one side, or a `?`: unknown until run.
  EXPECT_EQ(One(OpKind::kReshape, "[N, 3] f32", A({{"shape", Shape({"M", "-1"})}})).Type(), "Tensor<[M, ?], f32>");
  EXPECT_EQ(One(OpKind::kReshape, "[N, N, 6] f32", A({{"shape", Shape({"N", "-1"})}})).Type(),
            "Tensor<[N, ?], f32>");
  EXPECT_EQ(One(OpKind::kReshape, "[?, 6] f32", A({{"shape", Shape({"3", "-1"})}})).Type(), "Tensor<[3, ?], f32>");
  // Without a -1, [N, 3] to [N, 4] fits N = 0: left to run time.
  EXPECT_EQ(One(OpKind::kReshape, "[N, 3] f32", A({{"shape", Shape({"N", "4"})}})).Type(), "Tensor<[N, 4], f32>");
}

TEST(ReshapeShapeTest, T5ElementCounts) {
  One bad(OpKind::kReshape, "[2, 3] f32", A({{"shape", Shape({"4", "2"})}}));
  EXPECT_EQ(bad.OnlyError(), "E104");
  EXPECT_EQ(bad.Msg(), "[G::n] cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)");
  One inf(OpKind::kReshape, "[2, 3] f32", A({{"shape", Shape({"-1", "4"})}}));
  EXPECT_EQ(inf.OnlyError(), "E104");
  EXPECT_EQ(inf.Msg(), "[G::n] cannot reshape [2, 3] (6 elements) to [-1, 4]: 6 is not a multiple of 4, the other sizes' product");
  EXPECT_EQ(One(OpKind::kReshape, "[2, 3] f32", A({{"shape", Shape({"-1", "-1"})}})).OnlyError(), "E046");
  EXPECT_EQ(One(OpKind::kReshape, "[2, 3] f32", A({{"shape", AttrValue::IntList({6, 0})}})).OnlyError(),
            "E046");
  EXPECT_EQ(One(OpKind::kReshape, "[2, 3] f32", A({{"shape", AttrValue::IntList({3, -1})}})).Type(),
            "Tensor<[3, 2], f32>");
}

TEST(ReshapeShapeTest, NameBoundToZeroIsAnEmptyTarget) {
  // A batch bound to 0 at run time is legal (inputs accept it, and the
  // interpreter reshapes): run-time inference rejected the 0 as if written.
  InferOptions o;
  DimBindings b{{"N", 0}};
  o.bindings = &b;
  EXPECT_EQ(One(OpKind::kView, "[N, 3] f32", A({{"shape", Shape({"3", "N"})}}), o).Type(), "Tensor<[3, 0], f32>");
  EXPECT_EQ(One(OpKind::kExpand, "[N, 3] f32", A({{"shape", Shape({"2", "N", "3"})}}), o).Type(),
            "Tensor<[2, 0, 3], f32>");
  // -1 beside a 0 has no unique value: an error, not a division by zero.
  One amb(OpKind::kReshape, "[N, 3] f32", A({{"shape", Shape({"N", "-1"})}}), o);
  EXPECT_EQ(amb.OnlyError(), "E104");
  EXPECT_EQ(amb.Msg(), "[G::n] cannot reshape [0, 3] to [0, -1]: -1 cannot be inferred when the other sizes multiply to 0");
}

TEST(ReshapeShapeTest, OverflowIsADiagnostic) {
  const int64_t big = int64_t{1} << 40;
  GraphFixture f;
  NodeId x = f.In("x", "[1099511627776, 1099511627776] f32");
  (void)big;
  f.Op(OpKind::kReshape, {x}, "n", A({{"shape", Shape({"-1"})}}));
  EXPECT_FALSE(f.Infer());
  EXPECT_EQ(f.OnlyError(), "E113");
  GraphFixture g;
  NodeId y = g.In("y", "[2] f32");
  g.Op(OpKind::kReshape, {y}, "n",
       A({{"shape", AttrValue::IntList({std::numeric_limits<int64_t>::max(), 4})}}));
  EXPECT_FALSE(g.Infer());
  EXPECT_EQ(g.OnlyError(), "E113");
}

TEST(ExpandShapeTest, Rules) {
  EXPECT_EQ(One(OpKind::kExpand, "[3, 1] f32", A({{"shape", Shape({"2", "3", "4"})}})).Type(),
            "Tensor<[2, 3, 4], f32>");
  EXPECT_EQ(One(OpKind::kExpand, "[3, 1] f32", A({{"shape", Shape({"-1", "B"})}})).Type(),
            "Tensor<[3, B], f32>");
  EXPECT_EQ(One(OpKind::kExpand, "[S, 1] f32", A({{"shape", Shape({"S", "5"})}})).Type(),
            "Tensor<[S, 5], f32>");
  One bad(OpKind::kExpand, "[3, 2] f32", A({{"shape", Shape({"3", "4"})}}));
  EXPECT_EQ(bad.OnlyError(), "E112");
  EXPECT_EQ(bad.Msg(), "[G::n] cannot expand [3, 2] to [3, 4]");
  EXPECT_EQ(One(OpKind::kExpand, "[2, 3] f32", A({{"shape", Shape({"3"})}})).OnlyError(), "E112");
  EXPECT_EQ(One(OpKind::kExpand, "[3] f32", A({{"shape", Shape({"-1", "3"})}})).OnlyError(), "E112");
}

TEST(ConcatShapeTest, SumsAlongAxis) {
  GraphFixture f;
  NodeId a = f.In("a", "[B, 2, 5] f32");
  NodeId b = f.In("b", "[B, 3, 5] f32");
  NodeId n = f.Op(OpKind::kConcat, {a, b}, "n", A({{"dim", AttrValue::Int(1)}}));
  NodeId neg = f.Op(OpKind::kConcat, {a, a, a}, "neg", A({{"dim", AttrValue::Int(-1)}}));
  NodeId sym = f.Op(OpKind::kConcat, {a, b}, "sym", A({{"dim", AttrValue::Int(1)}}));
  NodeId along_b = f.Op(OpKind::kConcat, {a, a}, "along_b");
  NodeId single = f.Op(OpKind::kConcat, {a}, "single");
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(n), "Tensor<[B, 5, 5], f32>");
  EXPECT_EQ(f.TypeOf(neg), "Tensor<[B, 2, 15], f32>");
  EXPECT_EQ(f.TypeOf(sym), "Tensor<[B, 5, 5], f32>");
  EXPECT_EQ(f.TypeOf(along_b), "Tensor<[?, 2, 5], f32>");  // symbolic axis -> ?
  EXPECT_EQ(f.TypeOf(single), "Tensor<[B, 2, 5], f32>");
}

TEST(ConcatShapeTest, Errors) {
  auto run = [](std::string_view a, std::string_view b, int64_t dim) {
    auto f = std::make_unique<GraphFixture>();
    NodeId x = f->In("a", a);
    NodeId y = f->In("b", b);
    f->Op(OpKind::kConcat, {x, y}, "n", A({{"dim", AttrValue::Int(dim)}}));
    f->Infer();
    return f;
  };
  auto size = run("[2, 3] f32", "[4, 4] f32", 0);
  EXPECT_EQ(size->OnlyError(), "E112");
  // Both shapes and which axis may differ, as the interpreter says it.
  EXPECT_EQ(size->diags.all()[0].message,
            "[G::n] concat operand 1 has shape [4, 4], operand 0 [2, 3]: sizes 3 and 4 on axis 1 (only axis 0, the one "
            "joined, may differ)");
  EXPECT_EQ(run("[2, 3] f32", "[2, 3] f64", 0)->OnlyError(), "E100");
  EXPECT_EQ(run("[2, 3] f32", "[2, 3, 1] f32", 0)->OnlyError(), "E107");
  EXPECT_EQ(run("[2, 3] f32", "[2, 3] f32", 2)->OnlyError(), "E101");
  EXPECT_EQ(run("[] f32", "[] f32", 0)->OnlyError(), "E101");
  auto overflow = run("[9223372036854775807] f32", "[1] f32", 0);
  EXPECT_EQ(overflow->OnlyError(), "E113");
}

// An operand of unknown type leaves the result unknown; the known operands
// must still agree among themselves and with the axis (OPS.md §1.3, §3.10.5).
TEST(ConcatShapeTest, KnownOperandsAgreeWhenOneIsUnknown) {
  auto run = [](std::vector<std::string_view> types, int64_t dim) {
    auto f = std::make_unique<GraphFixture>();
    std::vector<NodeId> ins;
    for (size_t i = 0; i < types.size(); ++i) ins.push_back(f->In("in" + std::to_string(i), types[i]));
    NodeId n = f->Op(OpKind::kConcat, ins, "n", A({{"dim", AttrValue::Int(dim)}}));
    f->Infer();
    if (!f->diags.all().empty()) {
      EXPECT_EQ(f->diags.all()[0].span.line, f->g.node(n).span.line);
      EXPECT_EQ(f->diags.all()[0].span.line, static_cast<uint32_t>(types.size() + 1));
      EXPECT_EQ(f->diags.all()[0].span.column, 3u);
    }
    return f;
  };
  auto dtype = run({"?", "[2, 3] f32", "[2, 3] f64"}, 0);
  EXPECT_EQ(dtype->OnlyError(), "E100");
  ASSERT_FALSE(dtype->diags.all().empty());
  EXPECT_EQ(dtype->diags.all()[0].message, "[G::n] dtype mismatch: f32 and f64; convert one with cast(..., dtype: \"f32\")");
  auto size = run({"[2, 3] f32", "?", "[4, 4] f32"}, 0);
  EXPECT_EQ(size->OnlyError(), "E112");
  ASSERT_FALSE(size->diags.all().empty());
  EXPECT_EQ(size->diags.all()[0].message,
            "[G::n] concat operand 2 has shape [4, 4], operand 0 [2, 3]: sizes 3 and 4 on axis 1 (only axis 0, the one "
            "joined, may differ)");
  // The size it differs from is the operand's that fixed it, not the first's (N).
  auto later = run({"[N, 4] f32", "[2, 4] f32", "[3, 4] f32"}, 1);
  EXPECT_EQ(later->OnlyError(), "E112");
  ASSERT_FALSE(later->diags.all().empty());
  EXPECT_EQ(later->diags.all()[0].message,
            "[G::n] concat operand 2 has shape [3, 4], operand 1 [2, 4]: sizes 2 and 3 on axis 0 (only axis 1, the one "
            "joined, may differ)");
  EXPECT_EQ(run({"?", "[2, 3] f32", "[2, 3, 1] f32"}, 0)->OnlyError(), "E107");
  EXPECT_EQ(run({"?", "[2, 3] f32"}, 2)->OnlyError(), "E101");
  EXPECT_EQ(run({"[9223372036854775807] f32", "?", "[1] f32"}, 0)->OnlyError(), "E113");
  for (auto types : std::vector<std::vector<std::string_view>>{
           {"?", "[2, 3] f32", "[5, 3] f32"}, {"[2, ?] f32", "?", "[5, 3] f32"}, {"?", "?"}, {"?"}}) {
    auto ok = run(types, 0);
    EXPECT_EQ(ok->OnlyError(), "") << ok->Messages();
    EXPECT_EQ(ok->TypeOf(ok->g.num_nodes() - 1), "?");
  }
}

TEST(SplitShapeTest, ChunkSizes) {
  EXPECT_EQ(SplitChunkSize(5, 4, 0), 2);
  EXPECT_EQ(SplitChunkSize(5, 4, 2), 1);
  EXPECT_FALSE(SplitChunkSize(5, 4, 3).has_value());  // only 3 chunks produced
  EXPECT_EQ(SplitChunkSize(6, 3, 2), 2);
  EXPECT_EQ(SplitChunkSize(1, 8, 0), 1);
  EXPECT_FALSE(SplitChunkSize(4, 0, 0).has_value());
  // An empty axis gives one empty chunk (torch.chunk's rule), so an empty
  // batch flows through; the executors use the same rule.
  EXPECT_EQ(SplitChunkSize(0, 2, 0), 0);
  EXPECT_FALSE(SplitChunkSize(0, 2, 1).has_value());
  auto split = [](std::string_view type, int64_t chunks, int64_t dim, int64_t index) {
    return std::make_unique<One>(OpKind::kSplit, type,
                                 A({{"chunks", AttrValue::Int(chunks)}, {"dim", AttrValue::Int(dim)},
                                    {"index", AttrValue::Int(index)}}));
  };
  EXPECT_EQ(split("[5, 7] f32", 4, 0, 2)->Type(), "Tensor<[1, 7], f32>");
  EXPECT_EQ(split("[5, 7] f32", 2, -1, 1)->Type(), "Tensor<[5, 3], f32>");
  EXPECT_EQ(split("[S, 7] f32", 2, 0, 1)->Type(), "Tensor<[?, 7], f32>");
  auto bad = split("[5, 7] f32", 4, 0, 3);
  EXPECT_EQ(bad->OnlyError(), "E109");
  EXPECT_EQ(bad->Msg(), "[G::n] split index 3 does not exist: an axis of size 5 in 4 chunks gives 3 chunks");
  EXPECT_EQ(split("[5] f32", 2, 1, 0)->OnlyError(), "E101");
  EXPECT_EQ(split("[5] f32", 0, 0, 0)->OnlyError(), "E046");
  EXPECT_EQ(One(OpKind::kSplit, "[4] f32").OnlyError(), "E048");  // chunks is required
}

TEST(RangeShapeTest, ConstantOperands) {
  GraphFixture f;
  NodeId end = f.Const(AttrValue::Int(16));
  NodeId r1 = f.Op(OpKind::kRange, {end}, "r1");
  NodeId s = f.Const(AttrValue::Int(3));
  NodeId e = f.Const(AttrValue::Float(7.9));  // truncated to 7
  NodeId r2 = f.Op(OpKind::kRange, {s, e}, "r2");
  NodeId alias = f.Op(OpKind::kIdentity, {end});
  NodeId r3 = f.Op(OpKind::kRange, {alias}, "r3");
  NodeId x = f.In("n", "[] i64");
  NodeId r4 = f.Op(OpKind::kRange, {x}, "r4");
  // Held as f32, 2.9999999 is 3 when the run reads it.
  NodeId r5 = f.Op(OpKind::kRange, {f.Const(AttrValue::Float(2.9999999))}, "r5");
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(r5), "Tensor<[3], i64>");
  EXPECT_EQ(f.TypeOf(r1), "Tensor<[16], i64>");
  EXPECT_EQ(f.TypeOf(r2), "Tensor<[4], i64>");
  EXPECT_EQ(f.TypeOf(r3), "Tensor<[16], i64>");
  EXPECT_EQ(f.TypeOf(r4), "Tensor<[?], i64>");
}

TEST(RangeShapeTest, NoOperandsUsesDeclaredType) {
  GraphFixture f;
  NodeId r = f.Op(OpKind::kRange, {}, "r");
  f.g.node(r).declared_type = testing::T("[Seq] i64");
  EXPECT_TRUE(f.Infer()) << f.Messages();
  EXPECT_EQ(f.TypeOf(r), "Tensor<[Seq], i64>");
  GraphFixture bare;
  bare.Op(OpKind::kRange, {}, "r");
  EXPECT_FALSE(bare.Infer());
  EXPECT_EQ(bare.OnlyError(), "E107");
  // A `?` length is no length: it failed only when a run reached it.
  GraphFixture unknown;
  NodeId u = unknown.Op(OpKind::kRange, {}, "r");
  unknown.g.node(u).declared_type = testing::T("[?] i64");
  EXPECT_FALSE(unknown.Infer());
  EXPECT_EQ(unknown.OnlyError(), "E107");
  EXPECT_EQ(unknown.diags.all()[0].message,
            "[G::r] range() without operands needs a declared length (a size or a name), got Tensor<[?], i64>");
}

TEST(RangeShapeTest, Errors) {
  GraphFixture empty;
  empty.Op(OpKind::kRange, {empty.Const(AttrValue::Int(5)), empty.Const(AttrValue::Int(5))}, "r");
  EXPECT_FALSE(empty.Infer());
  EXPECT_EQ(empty.OnlyError(), "E112");
  EXPECT_EQ(empty.diags.all()[0].message, "[G::r] range is empty (start 5, end 5)");
  GraphFixture vec;
  vec.Op(OpKind::kRange, {vec.In("v", "[3] i64")}, "r");
  EXPECT_FALSE(vec.Infer());
  EXPECT_EQ(vec.OnlyError(), "E112");
  GraphFixture huge;
  huge.Op(OpKind::kRange, {huge.Const(AttrValue::Int(std::numeric_limits<int64_t>::min())),
                           huge.Const(AttrValue::Int(std::numeric_limits<int64_t>::max()))},
          "r");
  EXPECT_FALSE(huge.Infer());
  EXPECT_EQ(huge.OnlyError(), "E113");
  // A bool operand is known not to be a number at compile time (it failed only when a run reached it).
  GraphFixture flag;
  flag.Op(OpKind::kRange, {flag.In("b", "[] bool")}, "r");
  EXPECT_FALSE(flag.Infer());
  EXPECT_EQ(flag.OnlyError(), "E106");
  EXPECT_EQ(flag.diags.all()[0].message, "[G::r] range operands must be numbers, got bool");
  GraphFixture mixed;
  mixed.Op(OpKind::kRange, {mixed.Const(AttrValue::Int(1)), mixed.In("b", "[1] bool")}, "r");
  EXPECT_FALSE(mixed.Infer());
  EXPECT_EQ(mixed.OnlyError(), "E106");
}

}  // namespace
}  // namespace shrew::ir
