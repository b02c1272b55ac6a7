// where (OPS.md §3.17): per element `a` where `cond` is non-zero, else
// `b`; all three broadcast together. Our own C++ for every storage type.
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/row_groups.h"

namespace shrew::runtime::kernels {
namespace {

// One row of where: y[i] = c[i·sc] != 0 ? a[i·sa] : b[i·sb], steps 0 or 1.
using WhereRowFn = void (*)(const void* c, const void* a, const void* b, void* y, const std::array<int64_t, 3>& steps,
                            int64_t n);

// Values are copied as unsigned integers of their size (as XNNPACK's x32
// kernels copy floats), so one row serves every value dtype of that size;
// the condition keeps its type: -0.0 is zero and NaN is not. Both values are
// loaded before the select so that compilers make it branch-free and
// vectorise it (a branch per element was 12x slower on random conditions).
template <typename C, typename V>
void WhereRow(const void* cond, const void* av, const void* bv, void* out, const std::array<int64_t, 3>& steps,
              int64_t n) {
  const C* __restrict c = static_cast<const C*>(cond);
  const V* __restrict a = static_cast<const V*>(av);
  const V* __restrict b = static_cast<const V*>(bv);
  V* __restrict y = static_cast<V*>(out);
  const auto [sc, sa, sb] = steps;
  if (sc == 1 && sa == 1 && sb == 1) {  // the common contiguous row
    for (int64_t i = 0; i < n; ++i) {
      const V x = a[i], z = b[i];
      y[i] = c[i] != C(0) ? x : z;
    }
  } else if (sc == 1 && sa == 1 && sb == 0) {
    const V z = b[0];
    for (int64_t i = 0; i < n; ++i) {
      const V x = a[i];
      y[i] = c[i] != C(0) ? x : z;
    }
  } else if (sc == 1 && sa == 0 && sb == 1) {
    const V x = a[0];
    for (int64_t i = 0; i < n; ++i) {
      const V z = b[i];
      y[i] = c[i] != C(0) ? x : z;
    }
  } else if (sc == 1 && sa == 0 && sb == 0) {  // two values: a mask's 1 and 0
    const V x = a[0], z = b[0];
    for (int64_t i = 0; i < n; ++i) y[i] = c[i] != C(0) ? x : z;
  } else if (sc == 0) {
    // One condition for the whole row (a column [N, 1] against [N, M]): the
    // row is a's or b's. Selected per element it ran 12x a JS row copy.
    const bool take_a = c[0] != C(0);
    const V* src = take_a ? a : b;
    if ((take_a ? sa : sb) == 1) {
      std::memcpy(y, src, static_cast<size_t>(n) * sizeof(V));
    } else {
      const V v = src[0];
      for (int64_t i = 0; i < n; ++i) y[i] = v;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = c[i * sc] != C(0) ? a[i * sa] : b[i * sb];
  }
}

template <typename C>
WhereRowFn WhereRowFor(size_t value_bytes) {
  switch (value_bytes) {
    case 1: return &WhereRow<C, uint8_t>;
    case 4: return &WhereRow<C, uint32_t>;
    case 8: return &WhereRow<C, uint64_t>;
    default: return nullptr;
  }
}

class WhereKernel final : public Kernel {
 public:
  WhereKernel(WhereRowFn row, size_t cond_bytes, size_t value_bytes)
      : row_(row), cond_bytes_(static_cast<int64_t>(cond_bytes)), value_bytes_(static_cast<int64_t>(value_bytes)) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("where", operand_shapes, 3, 3, output_shape));
    Result<Shape> ab = BroadcastShapes(operand_shapes[1], operand_shapes[2]);
    if (!ab.ok()) return InvalidArgument("where: " + ab.status().message());
    Result<Shape> all = BroadcastShapes(operand_shapes[0], *ab);
    if (!all.ok()) return InvalidArgument("where: " + all.status().message());
    SHREW_RETURN_IF_ERROR(CheckOutputShape("where", *all, output_shape));
    loop_.Init(output_shape, {&operand_shapes[0], &operand_shapes[1], &operand_shapes[2]});
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 3) return InvalidArgument("where: expected 3 operands");
    c_ = static_cast<const uint8_t*>(operands[0]);
    a_ = static_cast<const uint8_t*>(operands[1]);
    b_ = static_cast<const uint8_t*>(operands[2]);
    y_ = static_cast<uint8_t*>(output);
    return Status::Ok();
  }
  Status Run() override {
    if (RunsInGroups(loop_)) {
      // A call per group of whole rows (row_groups.h): a column condition
      // against rows of 2 took 10x a same-shape where.
      const size_t cb = static_cast<size_t>(cond_bytes_), vb = static_cast<size_t>(value_bytes_);
      ForEachRowGroup<3>(loop_, {c_, a_, b_}, {cb, vb, vb},
                         [&](const std::array<const uint8_t*, 3>& q, const std::array<int64_t, 3>& steps,
                             int64_t out_off, int64_t count) {
                           row_(q[0], q[1], q[2], y_ + out_off * value_bytes_, steps, count);
                         });
      return Status::Ok();
    }
    const std::array<int64_t, 3> steps = {loop_.inner_stride(0), loop_.inner_stride(1), loop_.inner_stride(2)};
    const int64_t n = loop_.inner();
    loop_.ForEachRow([&](const std::array<int64_t, 3>& off, int64_t out_off) {
      row_(c_ + off[0] * cond_bytes_, a_ + off[1] * value_bytes_, b_ + off[2] * value_bytes_,
           y_ + out_off * value_bytes_, steps, n);
    });
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  WhereRowFn row_;
  int64_t cond_bytes_, value_bytes_;
  BroadcastLoop<3> loop_;
  const uint8_t* c_ = nullptr;
  const uint8_t* a_ = nullptr;
  const uint8_t* b_ = nullptr;
  uint8_t* y_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateWhereKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 3, 3));
  const ir::StorageType s = ir::StorageOf(spec.operand_dtypes[1]);
  if (ir::StorageOf(spec.operand_dtypes[2]) != s || ir::StorageOf(spec.output_dtype) != s) {
    return InvalidArgument(std::string("dtype mismatch: ") + ir::DTypeName(spec.operand_dtypes[1]) + " and " +
                           ir::DTypeName(spec.operand_dtypes[2]));
  }
  const size_t value_bytes = ir::StorageByteSize(s);
  const ir::StorageType cond = ir::StorageOf(spec.operand_dtypes[0]);
  // A bool condition is read as its bytes (0/1), like u8.
  WhereRowFn row = nullptr;
  if (s != ir::StorageType::kUnsupported) {
    switch (cond) {
      case ir::StorageType::kF32: row = WhereRowFor<float>(value_bytes); break;
      case ir::StorageType::kF64: row = WhereRowFor<double>(value_bytes); break;
      case ir::StorageType::kI64: row = WhereRowFor<int64_t>(value_bytes); break;
      case ir::StorageType::kU8:
      case ir::StorageType::kBool: row = WhereRowFor<uint8_t>(value_bytes); break;
      default: break;
    }
  }
  if (row == nullptr) {
    return InvalidArgument(std::string("where: dtype ") + ir::DTypeName(spec.output_dtype) +
                           " is not supported for execution");
  }
  return KernelPtr(new WhereKernel(row, ir::StorageByteSize(cond), value_bytes));
}

}  // namespace shrew::runtime::kernels
