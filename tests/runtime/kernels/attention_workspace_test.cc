// The attention kernels' workspace holds the [B, h, S, S] scores and
// probabilities, quadratic in S while x is only [B, S, D]: a long sequence
// makes a workspace beyond what size_t can count (wasm's 32-bit size_t at
// h·S·S ≥ 2^30, a 256 KiB input; natively at 2^62). Reshape must refuse it
// as ResourceExhausted, not wrap the byte count to a small workspace that
// the run then overflows.
#include <cstdint>
#include <limits>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::Attr;
using testing::MakeSpec;
using K = ir::OpKind;
constexpr ir::DType F = ir::DType::kF32;

// Scores of b·h·S·S floats with h = D = 4: for S = 2^15 that is 2^32 bytes
// per buffer, past a 32-bit size_t; natively S = 2^30 makes 2^64.
constexpr int64_t kLongSequence = sizeof(size_t) == 4 ? int64_t{1} << 15 : int64_t{1} << 30;

// Whether Reshape either refuses the shapes or returns a workspace that can
// hold both [1, 4, S, S] float buffers.
// A refusal names the operation the user wrote (transformer_block's said
// multi_head_attention, the part that overflowed).
void ExpectNoWrappedWorkspace(const std::string& op, const KernelSpec& spec, const std::vector<Shape>& in,
                              const Shape& out) {
  Result<KernelPtr> k = CreateKernel(spec);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  Result<size_t> ws = (*k)->Reshape(in, out);
  if (!ws.ok()) {
    EXPECT_EQ(ws.status().code(), StatusCode::kResourceExhausted) << ws.status().ToString();
    EXPECT_EQ(ws.status().message().substr(0, op.size() + 2), op + ": ") << ws.status().ToString();
    return;
  }
  const double scores_bytes = 4.0 * static_cast<double>(kLongSequence) * static_cast<double>(kLongSequence) * 4.0;
  EXPECT_GE(static_cast<double>(*ws), 2 * scores_bytes) << "workspace of " << *ws << " bytes";
}

TEST(AttentionWorkspace, BeyondSizeTIsResourceExhausted) {
  const Shape x = {1, kLongSequence, 4}, w = {4, 4};
  auto mha = MakeSpec(K::kMultiHeadAttention, {F, F, F, F, F}, F, Attr("n_heads", ir::AttrValue::Int(4)));
  ExpectNoWrappedWorkspace("multi_head_attention", mha->spec, {x, w, w, w, w}, x);
  ir::Attrs block_attrs = Attr("n_heads", ir::AttrValue::Int(4));
  block_attrs.Set("causal", ir::AttrValue::Bool(true));
  auto block = MakeSpec(K::kTransformerBlock, std::vector<ir::DType>(13, F), F, block_attrs);
  ExpectNoWrappedWorkspace("transformer_block", block->spec, {x, {4}, {4}, w, w, w, w, {4}, {4}, {4, 16}, {16}, {16, 4}, {4}}, x);
}

}  // namespace
}  // namespace shrew::runtime::kernels
