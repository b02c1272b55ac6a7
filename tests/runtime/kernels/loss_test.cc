// mse_loss (ref_loss.cc) against a long double sum of the squared
// differences, each difference rounded in the operands' type first (as the
// interpreter takes it): operands of the same shape (one contiguous row,
// summed in lanes, block by block past 4,096 elements) and broadcast ones
// (rows with a step of 0), f32 and f64, with an offset that makes the
// order of a plain double sum show.
#include <cmath>
#include <random>

#include "runtime/kernels/kernel_test_util.h"
#include "runtime/row_sums.h"

namespace shrew::runtime::kernels {
namespace {

using testing::BroadcastOffset;
using testing::BroadcastShape;
using testing::MakeSpec;
using testing::RandomTensor;
using testing::Unravel;
using K = ir::OpKind;

template <typename T>
void CheckMse(const Shape& a_shape, const Shape& b_shape) {
  const ir::DType dtype = std::is_same_v<T, float> ? ir::DType::kF32 : ir::DType::kF64;
  SCOPED_TRACE(ShapeToString(a_shape) + " , " + ShapeToString(b_shape) + " " + ir::DTypeName(dtype));
  std::mt19937 rng(static_cast<unsigned>(a_shape.size() * 3 + b_shape.size()));
  Tensor a = RandomTensor(dtype, a_shape, rng, 1000, 1010), b = RandomTensor(dtype, b_shape, rng, -1, 1);
  const Shape out = BroadcastShape(a_shape, b_shape);
  long double sum = 0;
  int64_t count = 1;
  for (int64_t d : out) count *= d;
  for (int64_t i = 0; i < count; ++i) {
    const std::vector<int64_t> idx = Unravel(i, out);
    const T d = a.values<T>()[static_cast<size_t>(BroadcastOffset(idx, a_shape, out))] -
                b.values<T>()[static_cast<size_t>(BroadcastOffset(idx, b_shape, out))];
    sum += static_cast<long double>(d) * static_cast<long double>(d);
  }
  const double want = static_cast<double>(sum / static_cast<long double>(count));
  auto spec = MakeSpec(K::kMseLoss, {dtype, dtype}, dtype);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&a, &b}, {});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  // f32: the result's rounding; f64: a few ulp of the double sum.
  const double tolerance = std::is_same_v<T, float> ? 6e-8 : 1e-14;
  EXPECT_NEAR(y->GetDouble(0), want, tolerance * want);
  if (a_shape == b_shape) {
    // One row: RowSum's lanes over the differences, as the interpreter sums them, bit for bit.
    const T* av = a.values<T>().data();
    const T* bv = b.values<T>().data();
    const double lanes = LaneSum(static_cast<size_t>(count), [&](size_t i) {
      const T d = av[i] - bv[i];
      return static_cast<double>(d) * static_cast<double>(d);
    });
    EXPECT_EQ(y->values<T>()[0], static_cast<T>(lanes / static_cast<double>(count)));
  }
}

TEST(MseLossKernelTest, SameShapeAndBroadcastOperands) {
  for (const auto& [a, b] : std::vector<std::pair<Shape, Shape>>{
           {{7}, {7}}, {{100003}, {100003}}, {{300, 70}, {300, 70}}, {{300, 70}, {70}}, {{300, 1}, {300, 70}}}) {
    CheckMse<float>(a, b);
    CheckMse<double>(a, b);
  }
}

}  // namespace
}  // namespace shrew::runtime::kernels
