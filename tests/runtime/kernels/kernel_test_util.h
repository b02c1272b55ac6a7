// Shared pieces of the kernel testers: a node + KernelSpec owned together,
// random tensors, running a kernel through Reshape/Setup/Run on buffers
// with tail padding and a guarded output, and index helpers for the
// hand-written reference loops.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/kernel.h"
#include "runtime/kernel_registry.h"
#include "runtime/tensor.h"

namespace shrew::runtime::kernels::testing {

// A KernelSpec points at its node; this keeps both alive together.
struct OwnedSpec {
  ir::Node node;
  KernelSpec spec;
};

inline std::unique_ptr<OwnedSpec> MakeSpec(ir::OpKind op, std::vector<ir::DType> operand_dtypes, ir::DType output_dtype,
                                           ir::Attrs attrs = {}, std::vector<const Tensor*> constants = {}) {
  auto s = std::make_unique<OwnedSpec>();
  s->node.op = op;
  s->node.name = std::string(ir::OpName(op)) + "_under_test";
  s->node.attrs = std::move(attrs);
  for (size_t i = 0; i < operand_dtypes.size(); ++i) s->node.operands.push_back(static_cast<ir::NodeId>(i));
  s->spec.node = &s->node;
  s->spec.operand_dtypes = std::move(operand_dtypes);
  s->spec.output_dtype = output_dtype;
  if (!constants.empty()) {
    constants.resize(s->spec.operand_dtypes.size(), nullptr);
    s->spec.constant_operands = std::move(constants);
  }
  return s;
}

inline ir::Attrs Attr(std::string_view name, ir::AttrValue v) {
  ir::Attrs a;
  a.Set(name, std::move(v));
  return a;
}

// Values uniform in [lo, hi) (integers: rounded), in the dtype's storage.
inline Tensor RandomTensor(ir::DType dtype, const Shape& shape, std::mt19937& rng, double lo = -1.0, double hi = 1.0) {
  Result<Tensor> t = Tensor::Zeros(dtype, shape);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  std::uniform_real_distribution<double> d(lo, hi);
  const bool integer = !ir::IsFloat(dtype);
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    const double v = d(rng);
    t->SetDouble(i, integer ? std::floor(v) : v);
  }
  return std::move(t).value();
}

struct RunOptions {
  bool in_place = false;  // output buffer = operand `in_place_operand`'s buffer
  size_t in_place_operand = 0;
  int repeats = 1;  // Run() calls after one Setup
  // The output filled with NaN bytes before each Run (not in place): a run
  // that leaves part of it unwritten cannot pass on an earlier run's values.
  bool poison_each_run = false;
};

// Reshape → Setup → Run on copies of the operands. The output buffer has 64
// guard bytes after it that must stay untouched; the workspace is 64-byte
// aligned. Failures of Reshape/Setup/Run come back as the Status.
inline Result<Tensor> RunKernel(Kernel& kernel, const std::vector<const Tensor*>& operands, const Shape& out_shape,
                                ir::DType out_dtype, RunOptions opt = {}) {
  std::vector<Shape> shapes;
  for (const Tensor* t : operands) shapes.push_back(t->shape());
  Result<size_t> ws = kernel.Reshape(shapes, out_shape);
  if (!ws.ok()) return ws.status();
  // Copies (so in-place runs do not clobber the caller's tensors).
  std::vector<Tensor> ins;
  for (const Tensor* t : operands) ins.push_back(*t);
  const size_t elem = ir::StorageByteSize(ir::StorageOf(out_dtype));
  Result<int64_t> n = CountElements(out_shape);
  if (!n.ok()) return n.status();
  const size_t out_bytes = static_cast<size_t>(*n) * elem;
  constexpr size_t kGuard = 64;
  Result<Tensor> out_buf = Tensor::Zeros(ir::DType::kU8, {static_cast<int64_t>(out_bytes + kGuard)});
  if (!out_buf.ok()) return out_buf.status();
  std::memset(out_buf->mutable_raw_data() + out_bytes, 0xA5, kGuard);
  Result<Tensor> ws_buf = Tensor::Zeros(ir::DType::kU8, {static_cast<int64_t>(*ws)});
  if (!ws_buf.ok()) return ws_buf.status();
  std::vector<const void*> ptrs;
  for (const Tensor& t : ins) ptrs.push_back(t.raw_data());
  void* out_ptr = out_buf->mutable_raw_data();
  if (opt.in_place) out_ptr = ins[opt.in_place_operand].mutable_raw_data();
  Status s = kernel.Setup(ptrs, out_ptr, *ws > 0 ? ws_buf->mutable_raw_data() : nullptr);
  if (!s.ok()) return s;
  for (int r = 0; r < opt.repeats; ++r) {
    if (opt.poison_each_run && !opt.in_place) std::memset(out_ptr, 0xFF, out_bytes);
    s = kernel.Run();
    if (!s.ok()) return s;
  }
  const std::byte* result = opt.in_place ? ins[opt.in_place_operand].raw_data() : out_buf->raw_data();
  for (size_t i = 0; i < kGuard && !opt.in_place; ++i) {
    if (out_buf->raw_data()[out_bytes + i] != std::byte{0xA5}) {
      return Internal("kernel wrote past the end of its output (byte " + std::to_string(i) + ")");
    }
  }
  return Tensor::FromBytes(out_dtype, out_shape, std::span<const std::byte>(result, out_bytes));
}

// Creates the kernel for `spec` and runs it; ADD_FAILURE on creation errors.
inline Result<Tensor> CreateAndRun(const KernelSpec& spec, const std::vector<const Tensor*>& operands,
                                   const Shape& out_shape, RunOptions opt = {}) {
  Result<KernelPtr> k = CreateKernel(spec);
  if (!k.ok()) return k.status();
  return RunKernel(**k, operands, out_shape, spec.output_dtype, opt);
}

// Flat offset into `in` (broadcast to `out`) of the output multi-index `idx`.
inline int64_t BroadcastOffset(const std::vector<int64_t>& idx, const Shape& in, const Shape& out) {
  int64_t off = 0, stride = 1;
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t ia = in.size() - 1 - i, oa = out.size() - 1 - i;
    if (in[ia] != 1) off += idx[oa] * stride;
    stride *= in[ia];
  }
  return off;
}

// Row-major multi-index of flat `flat` in `shape`.
inline std::vector<int64_t> Unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = shape[i] == 0 ? 0 : flat % shape[i];
    flat = shape[i] == 0 ? 0 : flat / shape[i];
  }
  return idx;
}

inline Shape BroadcastShape(const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// EXPECT that `actual` matches `expected` within rtol/atol (AllClose).
#define EXPECT_TENSOR_NEAR(actual, expected, rtol, atol)                                          \
  do {                                                                                            \
    std::string why_;                                                                             \
    EXPECT_TRUE(::shrew::runtime::AllClose((actual), (expected), (rtol), (atol), &why_)) << why_; \
  } while (0)

}  // namespace shrew::runtime::kernels::testing
