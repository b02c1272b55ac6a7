// Reference kernel: matmul with NumPy rules (OPS.md §3.7).
#include <type_traits>

#include "interp/kernel.h"

namespace shrew::interp {
namespace {

// Floats accumulate in double (OPS.md §3.7 allows higher precision; the
// oracle should not be less precise than the JIT's kernels).
template <typename T>
using MatmulAcc = std::conditional_t<std::is_floating_point_v<T>, double, T>;

// acc + x·y; integers wrap (unsigned arithmetic, no UB).
template <typename T>
MatmulAcc<T> MulAdd(MatmulAcc<T> acc, T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return acc + static_cast<double>(x) * static_cast<double>(y);
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(acc) + static_cast<U>(static_cast<U>(x) * static_cast<U>(y)));
  }
}

}  // namespace

Result<Tensor> MatmulOp(const Tensor& a, const Tensor& b) {
  SHREW_RETURN_IF_ERROR(RequireSameDType(a, b));
  if (!ir::IsNumeric(a.dtype())) {
    return InvalidArgument(std::string("matmul requires numeric operands, got ") + ir::DTypeName(a.dtype()));
  }
  if (a.rank() < 1 || b.rank() < 1) {
    return InvalidArgument("matmul expects operands of rank >= 1, got ranks " + std::to_string(a.rank()) + " and " +
                           std::to_string(b.rank()));
  }
  // Rank-1 operands: [K] is [1, K] on the left and [K, 1] on the right; the
  // added axis is dropped from the result.
  Shape sa = a.shape();
  Shape sb = b.shape();
  if (a.rank() == 1) sa.insert(sa.begin(), 1);
  if (b.rank() == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2];
  const int64_t k = sa[sa.size() - 1];
  const int64_t k2 = sb[sb.size() - 2];
  const int64_t n = sb[sb.size() - 1];
  if (k != k2) {
    return InvalidArgument("matmul inner dimensions " + std::to_string(k) + " and " + std::to_string(k2) +
                           " differ (operands " + runtime::ShapeToString(a.shape()) + " and " +
                           runtime::ShapeToString(b.shape()) + ")");  // as shape inference says it
  }
  const Shape batch_a(sa.begin(), sa.end() - 2);
  const Shape batch_b(sb.begin(), sb.end() - 2);
  Result<Shape> batched = BroadcastShapes(batch_a, batch_b);
  if (!batched.ok()) {
    return InvalidArgument("matmul batch dimensions " + runtime::ShapeToString(batch_a) + " and " +
                           runtime::ShapeToString(batch_b) + " cannot be broadcast (operands " +
                           runtime::ShapeToString(a.shape()) + " and " + runtime::ShapeToString(b.shape()) +
                           ")");  // as shape inference says it
  }
  const Shape batch = std::move(batched).value();
  Shape out_shape = batch;
  if (a.rank() > 1) out_shape.push_back(m);
  if (b.rank() > 1) out_shape.push_back(n);
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(a.dtype(), out_shape));

  // Batch strides in units of whole matrices.
  std::vector<int64_t> stride_a = BroadcastStrides(batch_a, batch);
  std::vector<int64_t> stride_b = BroadcastStrides(batch_b, batch);
  for (int64_t& s : stride_a) s *= m * k;
  for (int64_t& s : stride_b) s *= k * n;
  runtime::VisitStorage(a.storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* po = out.mutable_data<T>();
      ForEachIndex<2>(batch, {stride_a, stride_b}, [&](int64_t bi, const std::array<int64_t, 2>& off) {
        const T* ma = pa + off[0];
        const T* mb = pb + off[1];
        T* mo = po + bi * m * n;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            MatmulAcc<T> acc = 0;
            for (int64_t p = 0; p < k; ++p) acc = MulAdd<T>(acc, ma[i * k + p], mb[p * n + j]);
            mo[i * n + j] = static_cast<T>(acc);
          }
        }
      });
    }
  });
  return out;
}

Result<Tensor> RefMatmul(const KernelArgs& args) { return MatmulOp(args[0], args[1]); }

}  // namespace shrew::interp
