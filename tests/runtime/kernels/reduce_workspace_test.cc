// sum/mean/variance accumulate in double: the workspace is 8 bytes per
// output element (16 for variance), up to four times the f32 output's
// bytes. For an output near wasm's 1 GiB tensor cap that is more than a
// 32-bit size_t counts; the byte count wrapped to a small workspace that
// the run then overflowed. Reshape must refuse it as ResourceExhausted (here
// natively, with an output of 2^60 elements: Reshape allocates nothing).
#include <cstdint>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::Attr;
using testing::MakeSpec;
using K = ir::OpKind;
constexpr ir::DType F = ir::DType::kF32;

// Rows whose double accumulators, two per row for variance, need 2^32 bytes
// (32-bit size_t) or 2^64 (64-bit).
constexpr int64_t kRows = sizeof(size_t) == 4 ? int64_t{1} << 28 : int64_t{1} << 60;

TEST(ReduceWorkspace, BeyondSizeTIsResourceExhausted) {
  for (K op : {K::kVariance, K::kSum}) {
    SCOPED_TRACE(ir::OpName(op));
    // sum's single accumulator fits for these rows; only variance overflows.
    auto spec = MakeSpec(op, {F}, F, Attr("dims", ir::AttrValue::IntList({1})));
    Result<KernelPtr> k = CreateKernel(spec->spec);
    ASSERT_TRUE(k.ok()) << k.status().ToString();
    Result<size_t> ws = (*k)->Reshape(std::vector<Shape>{{kRows, 2}}, Shape{kRows});
    if (op == K::kVariance) {
      ASSERT_FALSE(ws.ok()) << "workspace of " << *ws << " bytes";
      EXPECT_EQ(ws.status().code(), StatusCode::kResourceExhausted) << ws.status().ToString();
    } else {
      ASSERT_TRUE(ws.ok()) << ws.status().ToString();
      EXPECT_GE(static_cast<double>(*ws), static_cast<double>(kRows) * 8);
    }
  }
}

}  // namespace
}  // namespace shrew::runtime::kernels
