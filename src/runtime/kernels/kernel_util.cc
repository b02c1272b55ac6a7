#include "runtime/kernels/kernel_util.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

#include "runtime/xnn_init.h"

namespace shrew::runtime::kernels {
namespace {

// Live operators across all kernels; only the lifetime tests read it.
std::atomic<int> g_live_xnn_operators{0};

Result<ir::AttrValue> AttrOrDefault(const ir::Node& node, std::string_view name) {
  if (const ir::AttrValue* v = node.attr(name)) return *v;
  const ir::OpAttrSpec* spec = ir::FindOpAttrSpec(node.op, name);
  if (spec != nullptr && spec->has_default) return spec->default_value;
  return InvalidArgument(std::string(ir::OpName(node.op)) + ": missing required attribute '" + std::string(name) + "'");
}

Status WrongAttrKind(const ir::Node& node, std::string_view name, const char* want, const ir::AttrValue& v) {
  return InvalidArgument(std::string(ir::OpName(node.op)) + ": attribute '" + std::string(name) + "' must be " + want +
                         ", got " + v.ToString());
}

}  // namespace

void XnnOperatorDeleter::operator()(xnn_operator_t op) const {
  if (op == nullptr) return;
  xnn_delete_operator(op);
  g_live_xnn_operators.fetch_sub(1, std::memory_order_relaxed);
}

XnnOperatorPtr AdoptXnnOperator(xnn_operator_t op) {
  if (op != nullptr) g_live_xnn_operators.fetch_add(1, std::memory_order_relaxed);
  return XnnOperatorPtr(op);
}

int LiveXnnOperatorCount() { return g_live_xnn_operators.load(std::memory_order_relaxed); }

Status XnnCheck(xnn_status status, std::string_view what, std::string_view step) {
  if (status == xnn_status_success) return Status::Ok();
  return XnnStatusError(status, "XNNPACK " + std::string(what) + " " + std::string(step) + " failed");
}

Result<int64_t> IntAttr(const ir::Node& node, std::string_view name) {
  Result<ir::AttrValue> v = AttrOrDefault(node, name);
  if (!v.ok()) return v.status();
  if (!v->is_int()) return WrongAttrKind(node, name, "an int", *v);
  return v->as_int();
}

Result<double> FloatAttr(const ir::Node& node, std::string_view name) {
  Result<ir::AttrValue> v = AttrOrDefault(node, name);
  if (!v.ok()) return v.status();
  if (!v->is_number()) return WrongAttrKind(node, name, "a float", *v);
  return v->as_float();
}

Result<bool> BoolAttr(const ir::Node& node, std::string_view name) {
  Result<ir::AttrValue> v = AttrOrDefault(node, name);
  if (!v.ok()) return v.status();
  if (!v->is_bool()) return WrongAttrKind(node, name, "a bool", *v);
  return v->as_bool();
}

Result<std::vector<int64_t>> IntListAttr(const ir::Node& node, std::string_view name) {
  Result<ir::AttrValue> v = AttrOrDefault(node, name);
  if (!v.ok()) return v.status();
  if (!v->is_int_list()) return WrongAttrKind(node, name, "an int list", *v);
  return v->as_int_list();
}

const char* OpNameOf(const KernelSpec& spec) { return spec.node == nullptr ? "?" : ir::OpName(spec.node->op); }

Result<ir::StorageType> CommonStorage(const KernelSpec& spec) {
  const ir::StorageType out = ir::StorageOf(spec.output_dtype);
  if (out == ir::StorageType::kUnsupported) {
    return InvalidArgument(std::string(OpNameOf(spec)) + ": dtype " + ir::DTypeName(spec.output_dtype) +
                           " is not supported for execution");
  }
  for (ir::DType d : spec.operand_dtypes) {
    if (ir::StorageOf(d) != out) {
      return InvalidArgument(std::string(OpNameOf(spec)) + ": dtype mismatch: " + ir::DTypeName(d) + " and " +
                             ir::DTypeName(spec.output_dtype));
    }
  }
  return out;
}

Status CheckOperandCount(const KernelSpec& spec, size_t min, size_t max) {
  const size_t n = spec.operand_dtypes.size();
  if (n >= min && n <= max) return Status::Ok();
  return InvalidArgument(std::string(OpNameOf(spec)) + ": expected " +
                         ir::OperandsText(ir::Arity::Range(static_cast<int>(min), static_cast<int>(max)).ToString()) +
                         ", got " + std::to_string(n));
}

int64_t NumElements(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Result<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis " + std::to_string(axis) + " is out of range for a rank-" + std::to_string(rank) +
                           " tensor");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Status CheckOutputShape(std::string_view op, const Shape& expected, const Shape& actual) {
  if (expected == actual) return Status::Ok();
  return InvalidArgument(std::string(op) + ": output shape " + ShapeToString(actual) + " does not match the expected " +
                         ShapeToString(expected));
}

Status CheckShapes(std::string_view op, std::span<const Shape> operand_shapes, size_t min, size_t max,
                   const Shape& output_shape) {
  if (operand_shapes.size() < min || operand_shapes.size() > max) {
    return InvalidArgument(std::string(op) + ": expected " + std::to_string(min) +
                           (min == max ? "" : " to " + std::to_string(max)) + " operand shapes, got " +
                           std::to_string(operand_shapes.size()));
  }
  auto check = [&](const Shape& s, const std::string& what) -> Status {
    for (int64_t d : s) {
      if (d < 0) return InvalidArgument(std::string(op) + ": " + what + " has a negative size: " + ShapeToString(s));
    }
    if (!CountElements(s).ok())
      return InvalidArgument(std::string(op) + ": " + what + " is too large: " + ShapeToString(s));
    return Status::Ok();
  };
  for (size_t i = 0; i < operand_shapes.size(); ++i) {
    SHREW_RETURN_IF_ERROR(check(operand_shapes[i], "operand " + std::to_string(i)));
  }
  return check(output_shape, "output");
}

size_t WorkspaceLayout::Add(size_t bytes) {
  if (bytes == 0) return total_;
  const size_t offset = total_;
  // Each part starts 64-byte aligned and keeps XNNPACK's over-read slack.
  const size_t room = std::numeric_limits<size_t>::max() - total_;
  if (bytes > room || room - bytes < kTailPaddingBytes + kTensorAlignment) {
    overflowed_ = true;
    return offset;
  }
  const size_t padded = bytes + kTailPaddingBytes;
  total_ += (padded + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  return offset;
}

size_t WorkspaceLayout::AddElements(int64_t count, size_t element_size, size_t extra) {
  const size_t max = std::numeric_limits<size_t>::max();
  if (count < 0 || (element_size > 0 && static_cast<uint64_t>(count) > (max - extra) / element_size)) {
    overflowed_ = true;
    return total_;
  }
  return Add(static_cast<size_t>(count) * element_size + extra);
}

Status CheckWorkspace(std::string_view op, const void* workspace, size_t bytes) {
  if (bytes == 0) return Status::Ok();
  if (workspace == nullptr) {
    return InvalidArgument(std::string(op) + ": needs a workspace of " + std::to_string(bytes) + " bytes, got none");
  }
  if (reinterpret_cast<uintptr_t>(workspace) % kTensorAlignment != 0) {
    return InvalidArgument(std::string(op) + ": workspace must be " + std::to_string(kTensorAlignment) +
                           "-byte aligned");
  }
  return Status::Ok();
}

}  // namespace shrew::runtime::kernels
