// Reference kernels: embedding, linear, layer_norm, batch_norm, dropout
// (OPS.md §3.11). Sums and statistics in double, the results rounded once to
// the float operand's storage type.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "interp/kernel.h"
#include "runtime/row_sums.h"

namespace shrew::interp {
namespace {

using K = ir::OpKind;

// `w` must broadcast to exactly `shape` (it scales each element of x).
Status RequireBroadcastsTo(const char* what, const Tensor& w, const Shape& shape) {
  Result<Shape> b = BroadcastShapes(shape, w.shape());
  if (!b.ok() || *b != shape) {
    return InvalidArgument(std::string(what) + " of shape " + runtime::ShapeToString(w.shape()) +
                           " does not broadcast to the input shape " + runtime::ShapeToString(shape));
  }
  return Status::Ok();
}

template <typename T>
void NormalizeRows(const Tensor& x, double eps, Tensor* out) {
  const int64_t d = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
  const int64_t rows = d == 0 ? 0 : x.num_elements() / d;
  const T* px = x.data<T>();
  T* po = out->mutable_data<T>();
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = px + r * d;
    double sum = 0;
    for (int64_t i = 0; i < d; ++i) sum += static_cast<double>(row[i]);
    double mean = sum / static_cast<double>(d);
    if constexpr (std::is_same_v<T, double>) {
      // The corrected two-pass mean (the tape's): an f64 sum rounds, and a
      // constant row of 1e30 then normalised to ±1 instead of 0.
      double off = 0;
      for (int64_t i = 0; i < d; ++i) off += static_cast<double>(row[i]) - mean;
      mean += off / static_cast<double>(d);
    }
    double sq = 0;
    for (int64_t i = 0; i < d; ++i) sq += (static_cast<double>(row[i]) - mean) * (static_cast<double>(row[i]) - mean);
    double denom = std::sqrt(sq / static_cast<double>(d) + eps);
    // Squared deviations past f64's range (the tape's, row_sums.h).
    if (std::isinf(sq) && std::isfinite(mean)) {
      denom = runtime::ScaledRowDenominator(row, static_cast<size_t>(d), mean, eps);
    }
    for (int64_t i = 0; i < d; ++i) po[r * d + i] = static_cast<T>((static_cast<double>(row[i]) - mean) / denom);
  }
}

template <typename T>
void BatchNormLoop(const Tensor& x, const Tensor* w, const Tensor* b, double eps, Tensor* out) {
  const int64_t n = x.dim(0);
  const int64_t c = x.dim(1);
  const int64_t inner = c == 0 || n == 0 ? 0 : x.num_elements() / (n * c);
  const int64_t count = n * inner;
  const T* px = x.data<T>();
  T* po = out->mutable_data<T>();
  const size_t row_len = static_cast<size_t>(inner);
  for (int64_t ch = 0; ch < c; ++ch) {
    auto at = [&](int64_t bi, int64_t s) { return (bi * c + ch) * inner + s; };
    auto value = [&](int64_t bi, int64_t s) { return static_cast<double>(px[at(bi, s)]); };
    // Each (n, c) row summed as runtime::RowSum sums it, then the rows in
    // order: the order of the tape's kernel, so the two agree bit for bit.
    double sum = 0;
    for (int64_t bi = 0; bi < n; ++bi) sum += runtime::RowSum(px + at(bi, 0), row_len);
    const double mean = sum / static_cast<double>(count);
    double sq = 0;
    for (int64_t bi = 0; bi < n; ++bi) sq += runtime::RowSquaredDeviation(px + at(bi, 0), row_len, mean);
    // 1 / sqrt(σ² + eps) is finite for any eps > 0 (a constant channel whose
    // mean comes out exact, as any f32 one does, gives b).
    const double inv_denom = 1.0 / std::sqrt(sq / static_cast<double>(count) + eps);
    const double scale = w ? static_cast<double>(w->data<T>()[ch]) : 1.0;
    const double shift = b ? static_cast<double>(b->data<T>()[ch]) : 0.0;
    for (int64_t bi = 0; bi < n; ++bi)
      for (int64_t s = 0; s < inner; ++s) po[at(bi, s)] = static_cast<T>((value(bi, s) - mean) * inv_denom * scale + shift);
  }
}

}  // namespace

Result<Tensor> LayerNormOp(const Tensor& x, const Tensor* w, const Tensor* b, double eps) {
  SHREW_RETURN_IF_ERROR(RequireFloat(K::kLayerNorm, x));
  if (x.rank() < 1) return InvalidArgument("layer_norm expects rank >= 1, got rank 0");
  if (w) SHREW_RETURN_IF_ERROR(RequireBroadcastsTo("layer_norm weight", *w, x.shape()));
  if (b) SHREW_RETURN_IF_ERROR(RequireBroadcastsTo("layer_norm bias", *b, x.shape()));
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), x.shape()));
  if (x.storage() == ir::StorageType::kF32) {
    NormalizeRows<float>(x, eps, &out);
  } else {
    NormalizeRows<double>(x, eps, &out);
  }
  // y = normalised · w + b, each step rounded as written.
  if (w) {
    SHREW_TRY_ASSIGN(out, BinaryOp(K::kMul, out, *w));
  }
  if (b) {
    SHREW_TRY_ASSIGN(out, BinaryOp(K::kAdd, out, *b));
  } else {
    // A missing b is b = 0 (OPS.md §3.11.3), and −0 + 0 is +0, as on the tape.
    SHREW_TRY_ASSIGN(Tensor zero, Tensor::Zeros(x.dtype(), {}));
    SHREW_TRY_ASSIGN(out, BinaryOp(K::kAdd, out, zero));
  }
  return out;
}

Result<Tensor> RefEmbedding(const KernelArgs& args) {
  const Tensor& idx = args[0];
  const Tensor& table = args[1];
  if (ir::IsFloat(idx.dtype()) && ir::IsInteger(table.dtype())) {
    return InvalidArgument("embedding operands look swapped: expected (indices, table), got " + idx.TypeString() +
                           " then " + table.TypeString());
  }
  if (!ir::IsInteger(idx.dtype()) && !ir::IsFloat(idx.dtype())) {
    return InvalidArgument(std::string("embedding indices must have an integer dtype, got ") +
                           ir::DTypeName(idx.dtype()));
  }
  if (!ir::IsFloat(table.dtype())) {
    return InvalidArgument(std::string("embedding table must have a float dtype, got ") + ir::DTypeName(table.dtype()) +
                           " (operands are (indices, table))");
  }
  if (table.rank() != 2) {
    return InvalidArgument("embedding expects a rank-2 table, got rank " + std::to_string(table.rank()));
  }
  const int64_t rows = table.dim(0);
  const int64_t d = table.dim(1);
  Shape shape = idx.shape();
  shape.push_back(d);
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(table.dtype(), shape));
  const size_t row_bytes = static_cast<size_t>(d) * ir::StorageByteSize(table.storage());
  for (int64_t i = 0; i < idx.num_elements(); ++i) {
    int64_t row;
    std::string shown;
    if (ir::IsFloat(idx.dtype())) {
      const double v = idx.GetDouble(i);
      // Truncated toward zero; NaN and huge values are simply out of range.
      const bool in_range = std::isfinite(v) && std::trunc(v) >= 0 && std::trunc(v) < static_cast<double>(rows);
      row = in_range ? static_cast<int64_t>(v) : -1;
      shown = ir::FormatDouble(v);
    } else {
      row = idx.GetInt64(i);
      shown = std::to_string(row);
    }
    if (row < 0 || row >= rows) {
      return OutOfRange("embedding index " + shown + " out of range for a table of " + std::to_string(rows) +
                        " rows (indices " + args.OperandLabel(0) + ", element " + std::to_string(i) + ")");
    }
    std::memcpy(out.mutable_raw_data() + static_cast<size_t>(i) * row_bytes,
                table.raw_data() + static_cast<size_t>(row) * row_bytes, row_bytes);
  }
  return out;
}

Result<Tensor> RefLinear(const KernelArgs& args) {
  const Tensor& x = args[0];
  const Tensor& w = args[1];
  SHREW_TRY_ASSIGN(bool bias, GetBoolAttr(args.node, "bias"));
  if (!bias && args.size() == 3) return InvalidArgument("linear has a bias operand but bias: false");
  SHREW_RETURN_IF_ERROR(RequireSameDType(x, w));
  if (x.rank() < 1) return InvalidArgument("linear expects an input of rank >= 1, got rank 0");
  if (w.rank() != 2) return InvalidArgument("linear expects a rank-2 weight, got rank " + std::to_string(w.rank()));
  const int64_t in = x.dim(x.rank() - 1);
  const int64_t out_f = w.dim(0);
  if (w.dim(1) != in) {
    // In the words of shape inference (shapes_nn.cc), hint included.
    return InvalidArgument("linear input has " + std::to_string(in) + " features but the weight has shape " +
                           runtime::ShapeToString(w.shape()) + " ([out, in])" +
                           (w.dim(0) == in ? "; for a weight stored [in, out] write matmul(x, w) (+ b), or declare it " +
                                                 runtime::ShapeToString(Shape{w.dim(1), w.dim(0)})
                                           : std::string()));
  }
  const Tensor* b = args.size() == 3 ? &args[2] : nullptr;
  if (b) {
    SHREW_RETURN_IF_ERROR(RequireSameDType(x, *b));
    const bool ok = (b->rank() == 1 && b->dim(0) == out_f) || (b->rank() == 2 && b->dim(0) == 1 && b->dim(1) == out_f);
    if (!ok) {
      return InvalidArgument("linear bias has shape " + runtime::ShapeToString(b->shape()) + ", expected [" +
                             std::to_string(out_f) + "] or [1, " + std::to_string(out_f) + "]");
    }
  }
  Shape shape = x.shape();
  shape.back() = out_f;
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), shape));
  const int64_t rows = NumElements(Shape(x.shape().begin(), x.shape().end() - 1));
  runtime::VisitStorage(x.storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T* px = x.data<T>();
      const T* pw = w.data<T>();
      const T* pb = b ? b->data<T>() : nullptr;
      T* po = out.mutable_data<T>();
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t o = 0; o < out_f; ++o) {
          double acc = 0;
          for (int64_t i = 0; i < in; ++i) acc += static_cast<double>(px[r * in + i]) * static_cast<double>(pw[o * in + i]);
          po[r * out_f + o] = static_cast<T>(pb ? acc + static_cast<double>(pb[o]) : acc);
        }
      }
    }
  });
  return out;
}

Result<Tensor> RefLayerNorm(const KernelArgs& args) {
  SHREW_TRY_ASSIGN(double eps, GetFloatAttr(args.node, "eps"));
  if (!(eps > 0)) return InvalidArgument("layer_norm eps must be > 0, got " + ir::FormatDouble(eps));
  return LayerNormOp(args[0], args.size() > 1 ? &args[1] : nullptr, args.size() > 2 ? &args[2] : nullptr, eps);
}

Result<Tensor> RefBatchNorm(const KernelArgs& args) {
  const Tensor& x = args[0];
  SHREW_TRY_ASSIGN(double eps, GetFloatAttr(args.node, "eps"));
  if (!(eps > 0)) return InvalidArgument("batch_norm eps must be > 0, got " + ir::FormatDouble(eps));
  if (x.rank() < 2) return InvalidArgument("batch_norm expects rank >= 2, got rank " + std::to_string(x.rank()));
  const Tensor* w = args.size() == 3 ? &args[1] : nullptr;
  const Tensor* b = args.size() == 3 ? &args[2] : nullptr;
  for (const Tensor* p : {w, b}) {
    if (p == nullptr) continue;
    SHREW_RETURN_IF_ERROR(RequireSameDType(x, *p));
    if (p->rank() != 1 || p->dim(0) != x.dim(1)) {
      return InvalidArgument("batch_norm " + std::string(p == w ? "weight" : "bias") + " has shape " +
                             runtime::ShapeToString(p->shape()) + ", expected [" + std::to_string(x.dim(1)) + "]");
    }
  }
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), x.shape()));
  if (x.storage() == ir::StorageType::kF32) {
    BatchNormLoop<float>(x, w, b, eps, &out);
  } else {
    BatchNormLoop<double>(x, w, b, eps, &out);
  }
  return out;
}

Result<Tensor> RefDropout(const KernelArgs& args) {
  const Tensor& x = args[0];
  SHREW_TRY_ASSIGN(double p, GetFloatAttr(args.node, "p"));
  if (!(p >= 0.0 && p < 1.0)) {
    return InvalidArgument("dropout probability " + ir::FormatDouble(p) + " is outside [0, 1)");
  }
  if (!args.ctx.training || p == 0.0) return x.Clone();
  if (args.ctx.rng == nullptr) return FailedPrecondition("dropout in training mode needs a random generator");
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), x.shape()));
  // One uniform per element in row-major order (OPS.md §3.11.5); kept
  // elements are scaled by 1/(1−p), computed in double then rounded.
  const double scale = 1.0 / (1.0 - p);
  runtime::VisitStorage(x.storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      std::span<const T> in = x.values<T>();
      std::span<T> o = out.mutable_values<T>();
      for (size_t i = 0; i < in.size(); ++i) {
        const double u = args.ctx.rng->NextUniform();
        o[i] = u >= p ? in[i] * static_cast<T>(scale) : T(0);
      }
    }
  });
  return out;
}

}  // namespace shrew::interp
