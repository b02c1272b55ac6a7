// Shared helpers of the reference kernels: attributes, axis and dtype checks,
// broadcasting.
#include <algorithm>

#include "interp/kernel.h"

namespace shrew::interp {

std::string KernelArgs::OperandLabel(size_t i) const {
  if (i < node.operands.size() && graph.HasNode(node.operands[i])) return graph.ValueLabel(graph.node(node.operands[i]));
  return "#" + std::to_string(i);
}

Result<ir::AttrValue> GetAttr(const ir::Node& node, std::string_view name) {
  if (const ir::AttrValue* v = node.attr(name)) return *v;
  const ir::OpAttrSpec* spec = ir::FindOpAttrSpec(node.op, name);
  if (spec != nullptr && spec->has_default) return spec->default_value;
  return InvalidArgument("missing required attribute '" + std::string(name) + "'");
}

Result<int64_t> GetIntAttr(const ir::Node& node, std::string_view name) {
  SHREW_TRY_ASSIGN(ir::AttrValue v, GetAttr(node, name));
  if (!v.is_int()) return InvalidArgument("attribute '" + std::string(name) + "' must be an int, got " + v.ToString());
  return v.as_int();
}

Result<double> GetFloatAttr(const ir::Node& node, std::string_view name) {
  SHREW_TRY_ASSIGN(ir::AttrValue v, GetAttr(node, name));
  if (!v.is_number()) return InvalidArgument("attribute '" + std::string(name) + "' must be a float, got " + v.ToString());
  return v.as_float();
}

Result<bool> GetBoolAttr(const ir::Node& node, std::string_view name) {
  SHREW_TRY_ASSIGN(ir::AttrValue v, GetAttr(node, name));
  if (!v.is_bool()) return InvalidArgument("attribute '" + std::string(name) + "' must be a bool, got " + v.ToString());
  return v.as_bool();
}

Result<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis " + std::to_string(axis) + " is out of range for a rank-" + std::to_string(rank) +
                           " tensor");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Status RequireFloat(ir::OpKind op, const Tensor& t) {
  if (ir::IsFloat(t.dtype())) return Status::Ok();
  return InvalidArgument(std::string(ir::OpName(op)) + " requires a float operand, got " + ir::DTypeName(t.dtype()));
}

Status RequireSameDType(const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return Status::Ok();
  return InvalidArgument(std::string("dtype mismatch: ") + ir::DTypeName(a.dtype()) + " and " + ir::DTypeName(b.dtype()));
}

std::vector<int64_t> ContiguousStrides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  // Unsigned: an empty tensor's strides may pass 2^63 ([0, 2^32, 2^32]);
  // they address nothing, but signed overflow would be undefined behaviour.
  for (size_t i = shape.size(); i-- > 1;) {
    s[i - 1] = static_cast<int64_t>(static_cast<uint64_t>(s[i]) * static_cast<uint64_t>(shape[i]));
  }
  return s;
}

std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  const std::vector<int64_t> in_strides = ContiguousStrides(in);
  const size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != 1 || out[lead + i] == 1) strides[lead + i] = in_strides[i];
  }
  return strides;
}

int64_t NumElements(const Shape& shape) {
  // A 0 anywhere first: [2^32, 2^32, 0] has none, and its product from the
  // left overflowed (undefined behaviour) before reaching the 0.
  for (int64_t d : shape) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace shrew::interp
