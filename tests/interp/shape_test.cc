// Shape operations (OPS.md §3.10) and range (§3.14).
#include "interp/interp_test_util.h"

namespace shrew::interp {
namespace {

using namespace shrew::interp::testing;  // NOLINT
using ir::AttrValue;
using ir::Dim;
using K = ir::OpKind;

std::vector<float> Iota(int n) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}

TEST(RefTransposeTest, DefaultSwapsLastTwo) {
  Tensor x = F32({2, 3}, Iota(6));
  EXPECT_TRUE(Same(Eval(K::kTranspose, {&x}), F32({3, 2}, {0, 3, 1, 4, 2, 5})));
  Tensor c = F32({2, 3, 4}, Iota(24));
  Result<Tensor> r = Eval(K::kTranspose, {&c}, A({{"dim0", AttrValue::Int(0)}, {"dim1", AttrValue::Int(-1)}}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), (Shape{4, 3, 2}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(r->values<float>()[static_cast<size_t>(k * 6 + j * 2 + i)], i * 12 + j * 4 + k);
  Tensor v = F32({3}, {1, 2, 3});
  EXPECT_TRUE(FailsWith(Eval(K::kTranspose, {&v}), "transpose expects rank >= 2, got rank 1"));
  Tensor i = I64({2, 1}, {7, 8});  // any dtype
  EXPECT_TRUE(Same(Eval(K::kTranspose, {&i}), I64({1, 2}, {7, 8})));
}

TEST(RefPermuteTest, MatchesIndexRule) {
  Tensor x = F32({2, 3, 4}, Iota(24));
  Result<Tensor> r = Eval(K::kPermute, {&x}, A({{"dims", AttrValue::IntList({2, 0, -2})}}));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->shape(), (Shape{4, 2, 3}));
  // y[a, b, c] = x[j] with j[p_k] = i_k: y[k, i, j] = x[i, j, k].
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(r->values<float>()[static_cast<size_t>(k * 6 + i * 3 + j)], i * 12 + j * 4 + k);
  EXPECT_TRUE(FailsWith(Eval(K::kPermute, {&x}, A({{"dims", AttrValue::IntList({0, 0, 1})}})), "not a permutation"));
  EXPECT_TRUE(FailsWith(Eval(K::kPermute, {&x}, A({{"dims", AttrValue::IntList({0, 1})}})), "2 entries for a rank-3"));
  EXPECT_TRUE(FailsWith(Eval(K::kPermute, {&x}), "missing required attribute 'dims'"));
}

ir::Attrs ShapeAttr(std::vector<Dim> dims) { return A({{"shape", AttrValue::Shape(std::move(dims))}}); }

TEST(RefReshapeTest, FixedInferredAndSymbolic) {
  Tensor x = F32({2, 3}, Iota(6));
  EXPECT_TRUE(Same(Eval(K::kReshape, {&x}, ShapeAttr({Dim::Fixed(3), Dim::Fixed(2)})), F32({3, 2}, Iota(6))));
  EXPECT_TRUE(Same(Eval(K::kView, {&x}, ShapeAttr({Dim::Dynamic(), Dim::Fixed(1)})), F32({6, 1}, Iota(6))));
  ir::DimBindings dims = {{"N", 3}};
  EvalContext ctx;
  ctx.dims = &dims;
  EXPECT_TRUE(Same(Eval(K::kReshape, {&x}, ShapeAttr({Dim::Symbolic("N"), Dim::Dynamic()}), ctx), F32({3, 2}, Iota(6))));
  EXPECT_TRUE(FailsWith(Eval(K::kReshape, {&x}, ShapeAttr({Dim::Symbolic("M"), Dim::Dynamic()}), ctx),
                        "unresolved symbolic dimension 'M'"));
  EXPECT_TRUE(FailsWith(Eval(K::kReshape, {&x}, ShapeAttr({Dim::Fixed(4)})),
                        "cannot reshape [2, 3] (6 elements) to [4] (4 elements)"));
  EXPECT_TRUE(FailsWith(Eval(K::kReshape, {&x}, ShapeAttr({Dim::Fixed(4), Dim::Dynamic()})),
                        "cannot reshape [2, 3] (6 elements) to [4, -1]: 6 is not a multiple of 4, the other sizes' product"));
  EXPECT_TRUE(FailsWith(Eval(K::kReshape, {&x}, ShapeAttr({Dim::Dynamic(), Dim::Dynamic()})), "two -1"));
  Tensor empty = F32({0, 3}, {});
  EXPECT_TRUE(FailsWith(Eval(K::kReshape, {&empty}, ShapeAttr({Dim::Fixed(0), Dim::Dynamic()})),
                        "cannot reshape [0, 3] to [0, -1]: -1 cannot be inferred when the other sizes multiply to 0"));
  // A 0 among huge sizes: no elements (multiplied from the left, 2^32 · 2^32
  // overflowed before the 0, "too many elements", where the tape reshaped).
  const int64_t big = int64_t{1} << 32;
  Result<Tensor> huge = Eval(K::kReshape, {&empty}, ShapeAttr({Dim::Fixed(big), Dim::Fixed(big), Dim::Fixed(0)}));
  ASSERT_TRUE(huge.ok()) << huge.status().ToString();
  EXPECT_EQ(huge->shape(), (Shape{big, big, 0}));
  EXPECT_TRUE(FailsWith(Eval(K::kReshape, {&empty}, ShapeAttr({Dim::Fixed(big), Dim::Fixed(big), Dim::Fixed(0), Dim::Dynamic()})),
                        "-1 cannot be inferred when the other sizes multiply to 0"));
  Tensor s = F32({}, {5});
  EXPECT_TRUE(Same(Eval(K::kReshape, {&s}, ShapeAttr({Dim::Fixed(1), Dim::Fixed(1)})), F32({1, 1}, {5})));
  Tensor b = Bool({4}, {true, false, false, true});
  EXPECT_TRUE(Same(Eval(K::kReshape, {&b}, ShapeAttr({Dim::Fixed(2), Dim::Fixed(2)})), Bool({2, 2}, {true, false, false, true})));
}

TEST(RefExpandTest, BroadcastCopy) {
  Tensor x = F32({3, 1}, {1, 2, 3});
  EXPECT_TRUE(Same(Eval(K::kExpand, {&x}, ShapeAttr({Dim::Fixed(2), Dim::Dynamic(), Dim::Fixed(2)})),
                   F32({2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3})));
  Tensor s = I64({}, {7});
  EXPECT_TRUE(Same(Eval(K::kExpand, {&s}, ShapeAttr({Dim::Fixed(3)})), I64({3}, {7, 7, 7})));
  EXPECT_TRUE(FailsWith(Eval(K::kExpand, {&x}, ShapeAttr({Dim::Fixed(4), Dim::Fixed(2)})), "cannot expand [3, 1] to [4, 2]"));
  EXPECT_TRUE(FailsWith(Eval(K::kExpand, {&x}, ShapeAttr({Dim::Fixed(3)})), "lower-rank"));
  EXPECT_TRUE(FailsWith(Eval(K::kExpand, {&x}, ShapeAttr({Dim::Dynamic(), Dim::Fixed(3), Dim::Fixed(1)})), "new leading axis"));
}

TEST(RefConcatTest, AxesAndOperands) {
  Tensor a = F32({2, 2}, {1, 2, 3, 4});
  Tensor b = F32({2, 1}, {5, 6});
  Tensor c = F32({2, 3}, {7, 8, 9, 10, 11, 12});
  EXPECT_TRUE(Same(Eval(K::kConcat, {&a, &b, &c}, A({{"dim", AttrValue::Int(-1)}})),
                   F32({2, 6}, {1, 2, 5, 7, 8, 9, 3, 4, 6, 10, 11, 12})));
  Tensor d = F32({1, 2}, {9, 9});
  EXPECT_TRUE(Same(Eval(K::kConcat, {&a, &d}), F32({3, 2}, {1, 2, 3, 4, 9, 9})));  // default dim 0
  EXPECT_TRUE(Same(Eval(K::kConcat, {&a}), a));
  Tensor e = F32({0, 2}, {});
  EXPECT_TRUE(Same(Eval(K::kConcat, {&e, &a, &e}), a));
  // Empty slabs under a huge outer axis: no work (it looped 2^40 times).
  Tensor h = F32({int64_t{1} << 40, 0}, {});
  Result<Tensor> hh = Eval(K::kConcat, {&h, &h}, A({{"dim", AttrValue::Int(1)}}));
  ASSERT_TRUE(hh.ok()) << hh.status().ToString();
  EXPECT_EQ(hh->shape(), (Shape{int64_t{1} << 40, 0}));
  // The axis where the operands differ is named (it named the joined one).
  EXPECT_TRUE(FailsWith(Eval(K::kConcat, {&a, &b}),
                        "concat operand 1 has shape [2, 1], operand 0 [2, 2]: sizes 2 and 1 on axis 1 (only axis 0, "
                        "the one joined, may differ)"));
  EXPECT_TRUE(FailsWith(Eval(K::kConcat, {&e, &a, &e}, A({{"dim", AttrValue::Int(-1)}})),
                        "concat operand 1 has shape [2, 2], operand 0 [0, 2]: sizes 0 and 2 on axis 0 (only axis 1"));
  Tensor r3 = F32({1, 2, 1}, {1, 2});
  EXPECT_TRUE(FailsWith(Eval(K::kConcat, {&a, &r3}), "their ranks differ"));
  Tensor i = I64({1, 2}, {1, 2});
  EXPECT_TRUE(FailsWith(Eval(K::kConcat, {&a, &i}), "dtype mismatch: f32 and i64"));
  Tensor s = F32({}, {1});
  EXPECT_TRUE(FailsWith(Eval(K::kConcat, {&s, &s}), "out of range for a rank-0 tensor"));
}

ir::Attrs SplitAttr(int64_t chunks, int64_t dim, int64_t index) {
  return A({{"chunks", AttrValue::Int(chunks)}, {"dim", AttrValue::Int(dim)}, {"index", AttrValue::Int(index)}});
}

TEST(RefSplitTest, ChunkArithmetic) {
  // L = 5, n = 4: c = 2, m = 3 chunks [0,2), [2,4), [4,5).
  Tensor x = F32({5, 2}, Iota(10));
  EXPECT_TRUE(Same(Eval(K::kSplit, {&x}, SplitAttr(4, 0, 0)), F32({2, 2}, {0, 1, 2, 3})));
  EXPECT_TRUE(Same(Eval(K::kSplit, {&x}, SplitAttr(4, 0, 2)), F32({1, 2}, {8, 9})));
  EXPECT_TRUE(FailsWith(Eval(K::kSplit, {&x}, SplitAttr(4, 0, 3)), "gives 3 chunks"));
  Tensor y = F32({2, 6}, Iota(12));
  EXPECT_TRUE(Same(Eval(K::kSplit, {&y}, SplitAttr(3, -1, 1)), F32({2, 2}, {2, 3, 8, 9})));
  EXPECT_TRUE(FailsWith(Eval(K::kSplit, {&y}, SplitAttr(0, 0, 0)), "chunks must be >= 1"));
  EXPECT_TRUE(FailsWith(Eval(K::kSplit, {&y}, SplitAttr(2, 2, 0)), "axis 2 is out of range"));
  Tensor e = F32({0}, {});
  Result<Tensor> r = Eval(K::kSplit, {&e}, SplitAttr(2, 0, 0));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape(), (Shape{0}));
}

TEST(RefRangeTest, Forms) {
  Tensor five = I64({}, {5});
  EXPECT_TRUE(Same(Eval(K::kRange, {&five}), I64({5}, {0, 1, 2, 3, 4})));
  Tensor two = I64({1}, {2});  // a one-element tensor is a scalar too
  EXPECT_TRUE(Same(Eval(K::kRange, {&two, &five}), I64({3}, {2, 3, 4})));
  Tensor fs = F32({}, {-1.7f});  // truncated toward zero: -1
  Tensor fe = F32({}, {2.9f});   // 2
  EXPECT_TRUE(Same(Eval(K::kRange, {&fs, &fe}), I64({3}, {-1, 0, 1})));
  EXPECT_TRUE(FailsWith(Eval(K::kRange, {&five, &two}), "range is empty"));
  Tensor zero = I64({}, {0});
  EXPECT_TRUE(FailsWith(Eval(K::kRange, {&zero}), "range is empty"));
  Tensor v = I64({2}, {1, 2});
  EXPECT_TRUE(FailsWith(Eval(K::kRange, {&v}), "must be a scalar"));
}

TEST(RefRangeTest, NoOperandsUsesDeclaredType) {
  OneNode fixed(K::kRange, {}, {}, ir::Type::Tensor({Dim::Fixed(3)}, ir::DType::kI64));
  EXPECT_TRUE(Same(EvalNode(fixed.graph, fixed.n(), {}, {}), I64({3}, {0, 1, 2})));
  OneNode sym(K::kRange, {}, {}, ir::Type::Tensor({Dim::Symbolic("Seq")}, ir::DType::kI64));
  ir::DimBindings dims = {{"Seq", 4}};
  EvalContext ctx;
  ctx.dims = &dims;
  EXPECT_TRUE(Same(EvalNode(sym.graph, sym.n(), {}, ctx), I64({4}, {0, 1, 2, 3})));
  EXPECT_TRUE(FailsWith(EvalNode(sym.graph, sym.n(), {}, {}), "unresolved symbolic dimension 'Seq'"));
  OneNode untyped(K::kRange, {});
  EXPECT_TRUE(FailsWith(EvalNode(untyped.graph, untyped.n(), {}, {}), "declared rank-1 type"));
}

}  // namespace
}  // namespace shrew::interp
