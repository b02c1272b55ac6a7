// where (ref_where.cc) against a hand-written loop over the broadcast
// indices, for each condition storage and value size, on broadcasts whose
// rows are short (run in groups of rows, row_groups.h) and long (a call per
// row): a column condition, a repeated row, values that are columns or one
// value, planes of a third axis, several small planes at a time. The
// condition is "non-zero": NaN is true, -0 is false, in either path.
#include <cmath>
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::BroadcastOffset;
using testing::BroadcastShape;
using testing::MakeSpec;
using testing::RandomTensor;
using testing::Unravel;
using K = ir::OpKind;

void CheckWhere(ir::DType cond_dtype, ir::DType value_dtype, const Shape& c_shape, const Shape& a_shape,
                const Shape& b_shape) {
  SCOPED_TRACE(std::string(ir::DTypeName(cond_dtype)) + " " + ShapeToString(c_shape) + ", " +
               ir::DTypeName(value_dtype) + " " + ShapeToString(a_shape) + ", " + ShapeToString(b_shape));
  std::mt19937 rng(static_cast<unsigned>(c_shape.size() * 13 + a_shape.size() * 5 + b_shape.size()));
  Tensor c = RandomTensor(cond_dtype, c_shape, rng, -1, 1);
  if (ir::IsFloat(cond_dtype)) {
    // Zeros of either sign (false) and NaN (true) among the conditions.
    for (int64_t i = 0; i < c.num_elements(); i += 3) c.SetDouble(i, i % 2 ? -0.0 : 0.0);
    for (int64_t i = 1; i < c.num_elements(); i += 7) c.SetDouble(i, NAN);
  } else {
    for (int64_t i = 0; i < c.num_elements(); i += 3) c.SetDouble(i, 0);
  }
  Tensor a = RandomTensor(value_dtype, a_shape, rng, 0, 100);
  Tensor b = RandomTensor(value_dtype, b_shape, rng, -100, 0);
  const Shape out = BroadcastShape(c_shape, BroadcastShape(a_shape, b_shape));
  auto spec = MakeSpec(K::kWhere, {cond_dtype, value_dtype, value_dtype}, value_dtype);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&c, &a, &b}, out);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int64_t i = 0; i < y->num_elements(); ++i) {
    const std::vector<int64_t> idx = Unravel(i, out);
    const double cv = c.GetDouble(BroadcastOffset(idx, c_shape, out));
    const double want = cv != 0 || std::isnan(cv) ? a.GetDouble(BroadcastOffset(idx, a_shape, out))
                                                  : b.GetDouble(BroadcastOffset(idx, b_shape, out));
    ASSERT_EQ(y->GetDouble(i), want) << "element " << i;
  }
}

TEST(WhereKernelTest, ShortAndLongRowsOfEveryBroadcast) {
  struct Case {
    Shape c, a, b;
  };
  const Case cases[] = {
      {{300, 1}, {300, 2}, {300, 2}},           // a column condition
      {{5}, {300, 5}, {300, 5}},                // a repeated row
      {{300, 3}, {300, 1}, {3}},                // a column and a repeated row of values
      {{300, 7}, {}, {300, 7}},                 // one value of a
      {{300, 70}, {}, {}},                      // one value each: a mask's 1 and 0
      {{300, 70}, {300, 1}, {}},                // a column against one value
      {{4, 70, 1}, {4, 1, 6}, {4, 70, 6}},      // planes, each with its own column and row
      {{2, 300, 1}, {2, 300, 31}, {31}},        // 31: still short
      {{300, 1}, {300, 40}, {300, 40}},         // 40: a call per row
      {{200, 3}, {200, 3}, {200, 3}},           // no broadcast
      {{3, 1}, {3, 0}, {3, 0}},                 // empty: a last axis of 0 that does not merge away
      {{3, 0}, {3, 0}, {3, 1}},
      // Several small planes per group (row_groups::PlaneGroupsOf), each
      // operand in place, gathered once, or gathered for every group.
      {{1, 2, 1}, {600, 2, 2}, {}},
      {{600, 2, 1}, {1, 1, 2}, {600, 2, 2}},
      {{40, 1, 2, 1, 2}, {1, 2, 1, 2, 1}, {40, 2, 2, 2, 2}},
  };
  for (ir::DType cond : {ir::DType::kBool, ir::DType::kF32, ir::DType::kF64, ir::DType::kI64}) {
    for (ir::DType value : {ir::DType::kF32, ir::DType::kF64, ir::DType::kU8}) {
      for (const Case& k : cases) CheckWhere(cond, value, k.c, k.a, k.b);
    }
  }
}

}  // namespace
}  // namespace shrew::runtime::kernels
