// Internal to src/interp: the reference kernel interface, the kernel
// declarations (one per ops.def row, defined in the ref_<family>.cc files)
// and shared helpers. Not a public header.
//
// A kernel receives the node, its operand values and the context, and
// returns the value or a Status whose message EvalNode prefixes with the
// node name. Kernels compute in the operands' storage type (f32 in f32).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "interp/eval.h"
#include "ir/graph.h"
#include "ir/op.h"
#include "runtime/broadcast_shape.h"
#include "runtime/tensor.h"

// `lhs = value of expr`, or return its Status.
#define SHREW_INTERP_CONCAT_(a, b) a##b
#define SHREW_INTERP_CONCAT(a, b) SHREW_INTERP_CONCAT_(a, b)
#define SHREW_TRY_ASSIGN(lhs, expr) SHREW_TRY_ASSIGN_IMPL_(SHREW_INTERP_CONCAT(try_result_, __LINE__), lhs, expr)
#define SHREW_TRY_ASSIGN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()

namespace shrew::interp {

using runtime::Shape;
using runtime::Tensor;

struct KernelArgs {
  const ir::Graph& graph;
  const ir::Node& node;
  std::span<const Tensor* const> in;
  const EvalContext& ctx;

  size_t size() const { return in.size(); }
  const Tensor& operator[](size_t i) const { return *in[i]; }
  // How messages name operand i ("'tokens'", "computed in node 'y'":
  // ir::Graph::ValueLabel); "#i" if unknown.
  std::string OperandLabel(size_t i) const;
};

using KernelFn = Result<Tensor> (*)(const KernelArgs&);

#define SHREW_OP(kind, name, arity, flags, rule) Result<Tensor> Ref##kind(const KernelArgs& args);
#include "ir/ops.def"
#undef SHREW_OP

// ---- attributes (value as written, else the schema default)

Result<ir::AttrValue> GetAttr(const ir::Node& node, std::string_view name);
Result<int64_t> GetIntAttr(const ir::Node& node, std::string_view name);
Result<double> GetFloatAttr(const ir::Node& node, std::string_view name);
Result<bool> GetBoolAttr(const ir::Node& node, std::string_view name);

// ---- checks (messages of PIPELINE.md §3.2)

// `axis` normalised for `rank`: "axis D is out of range for a rank-R tensor".
Result<int> NormalizeAxis(int64_t axis, int rank);
// "OP requires a float operand, got DTYPE".
Status RequireFloat(ir::OpKind op, const Tensor& t);
// "dtype mismatch: A and B".
Status RequireSameDType(const Tensor& a, const Tensor& b);

// ---- shapes and broadcasting

// NumPy broadcast of two shapes: "shapes [A] and [B] cannot be broadcast".
using runtime::BroadcastShapes;  // runtime/broadcast_shape.h
// Element strides of a row-major tensor of shape `in` read as shape `out`
// (aligned right; 0 on broadcast axes). `in` must broadcast to `out`.
std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out);
// Row-major strides of `shape`.
std::vector<int64_t> ContiguousStrides(const Shape& shape);
int64_t NumElements(const Shape& shape);  // shape already validated

// Calls fn(out_index, offsets) for every element of `out` in row-major order,
// where offsets[k] = Σ_d index[d]·strides[k][d] (strides sized rank(out)).
template <size_t N, typename Fn>
void ForEachIndex(const Shape& out, const std::array<std::vector<int64_t>, N>& strides, Fn&& fn) {
  const int64_t total = NumElements(out);
  if (total == 0) return;
  const int rank = static_cast<int>(out.size());
  std::vector<int64_t> index(out.size(), 0);
  std::array<int64_t, N> off{};
  for (int64_t i = 0; i < total; ++i) {
    fn(i, off);
    for (int d = rank - 1; d >= 0; --d) {
      const size_t ud = static_cast<size_t>(d);
      ++index[ud];
      for (size_t k = 0; k < N; ++k) off[k] += strides[k][ud];
      if (index[ud] < out[ud]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][ud] * out[ud];
      index[ud] = 0;
    }
  }
}

// ---- tensor-level primitives shared between families

// neg, relu, gelu, silu, sigmoid, tanh, exp, log, sqrt, not.
Result<Tensor> UnaryOp(ir::OpKind op, const Tensor& x);
// Arithmetic, comparisons, and/or with broadcasting (same-dtype rule).
Result<Tensor> BinaryOp(ir::OpKind op, const Tensor& a, const Tensor& b);
// `x` converted to `dtype` with the cast rules of OPS.md §3.17.
Result<Tensor> CastTo(const Tensor& x, ir::DType dtype);
// NumPy matmul (OPS.md §3.7).
Result<Tensor> MatmulOp(const Tensor& a, const Tensor& b);
// Stable softmax along `axis` (signed).
Result<Tensor> SoftmaxOp(const Tensor& x, int64_t axis);
// Layer norm over the last axis; w/b optional, broadcast to x's shape.
Result<Tensor> LayerNormOp(const Tensor& x, const Tensor* w, const Tensor* b, double eps);
// multi_head_attention (OPS.md §3.12.1) on x: [B, S, D] with [D, D] weights.
Result<Tensor> AttentionOp(const Tensor& x, const Tensor& wq, const Tensor& wk, const Tensor& wv, const Tensor& wo,
                           int64_t heads, bool causal);
// y[i0…] = x[j] with j[perm[k]] = i_k (perm already a permutation of 0…r−1).
Result<Tensor> PermuteOp(const Tensor& x, const std::vector<int>& perm);
// Same elements, new shape (element counts must match).
Result<Tensor> ReshapeOp(const Tensor& x, Shape shape);
// A literal (int, float or bool) as a tensor of `dtype` filled with it, with
// the weak-constant conversions of OPS.md §1.3 ("float literal V cannot be
// used with an integer operand").
Result<Tensor> MaterializeConstant(const ir::AttrValue& value, ir::DType dtype, Shape shape);

}  // namespace shrew::interp
