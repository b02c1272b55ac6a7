// Helpers shared by the kernel families in src/runtime/kernels: owning
// XNNPACK operators (with a process-wide live count for lifetime tests),
// turning xnn_status into Status, attributes with schema defaults, shape
// checks and the workspace layout of kernels built from several stages.
//
// Contracts every kernel in this directory follows (on top of kernel.h):
//   - Reshape validates operand and output shapes and returns InvalidArgument
//     naming the op for anything wrong; it never crashes.
//   - The workspace passed to Setup is kTensorAlignment (64-byte) aligned and
//     has the bytes Reshape asked for.
//   - Operand buffers, and the output buffer too, are readable
//     kTailPaddingBytes past their end: multi-stage kernels (fused relu, "+ c",
//     activations) run XNNPACK in place on their output, and XNNPACK may
//     over-read (never over-write) its inputs by XNN_EXTRA_BYTES.
//   - Run does no allocation; it returns Internal naming the op and the step
//     if XNNPACK fails, and InvalidArgument for value errors (integer
//     division by zero).
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "ir/graph.h"
#include "runtime/broadcast_shape.h"
#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace shrew::runtime::kernels {

// ---- XNNPACK operators

struct XnnOperatorDeleter {
  void operator()(xnn_operator_t op) const;
};
// Owns one XNNPACK operator; destruction deletes it and decrements the live
// count.
using XnnOperatorPtr = std::unique_ptr<xnn_operator, XnnOperatorDeleter>;

// Takes ownership of an operator just created by XNNPACK (counts it).
XnnOperatorPtr AdoptXnnOperator(xnn_operator_t op);

// Number of XNNPACK operators currently owned by any kernel of this library.
int LiveXnnOperatorCount();

// Ok, or Internal("XNNPACK <what> <step> failed: <status>"), e.g.
// "XNNPACK softmax reshape failed: invalid parameter".
Status XnnCheck(xnn_status status, std::string_view what, std::string_view step);

// ---- attributes

// The node's attribute, else the op schema's default; InvalidArgument
// naming the op when neither exists or the kind is wrong.
Result<int64_t> IntAttr(const ir::Node& node, std::string_view name);
Result<double> FloatAttr(const ir::Node& node, std::string_view name);
Result<bool> BoolAttr(const ir::Node& node, std::string_view name);
Result<std::vector<int64_t>> IntListAttr(const ir::Node& node, std::string_view name);

// ---- spec checks

// The storage type every operand and the output of `spec` share; an error
// naming the op when they differ or one is not executable.
Result<ir::StorageType> CommonStorage(const KernelSpec& spec);
// InvalidArgument unless spec has between min and max operands.
Status CheckOperandCount(const KernelSpec& spec, size_t min, size_t max);
const char* OpNameOf(const KernelSpec& spec);

// ---- shapes

int64_t NumElements(std::span<const int64_t> shape);  // shape already validated
// NumPy broadcast of two shapes: "shapes [A] and [B] cannot be broadcast".
using runtime::BroadcastShapes;  // runtime/broadcast_shape.h
// `axis` normalised for `rank`: "axis D is out of range for a rank-R tensor".
Result<int> NormalizeAxis(int64_t axis, int rank);
// InvalidArgument("OP: output shape [X] does not match the expected [Y]").
Status CheckOutputShape(std::string_view op, const Shape& expected, const Shape& actual);
// InvalidArgument unless Reshape got exactly `n` operand shapes and every
// size is >= 0.
Status CheckShapes(std::string_view op, std::span<const Shape> operand_shapes, size_t min, size_t max,
                   const Shape& output_shape);

// ---- workspace

// Lays out sub-buffers of one workspace, each 64-byte aligned.
class WorkspaceLayout {
 public:
  // Reserves `bytes` (0 reserves nothing) and returns its offset. A total
  // that size_t cannot count sets overflowed() instead of wrapping.
  size_t Add(size_t bytes);
  // Reserves `count` elements of `element_size` bytes plus `extra` bytes; a
  // negative count (an element count that overflowed) or a byte count past
  // size_t sets overflowed().
  size_t AddElements(int64_t count, size_t element_size, size_t extra = 0);
  // SIZE_MAX once overflowed(), which no arena can hold.
  size_t total() const { return overflowed_ ? std::numeric_limits<size_t>::max() : total_; }
  // The caller must then fail Reshape (ResourceExhausted): the offsets are wrong.
  bool overflowed() const { return overflowed_; }

 private:
  size_t total_ = 0;
  bool overflowed_ = false;
};

// `base + offset` as T*, or nullptr when base is null.
template <typename T>
T* WorkspaceAt(void* base, size_t offset) {
  return base == nullptr ? nullptr : reinterpret_cast<T*>(static_cast<std::byte*>(base) + offset);
}

// InvalidArgument unless `workspace` is non-null (when bytes > 0) and 64-byte
// aligned.
Status CheckWorkspace(std::string_view op, const void* workspace, size_t bytes);

}  // namespace shrew::runtime::kernels
