// Reference kernels: multi_head_attention and transformer_block (OPS.md
// §3.12), composed from the shared tensor primitives exactly as the spec
// writes them. Only the explicit-weight forms run: the one-operand forms get
// their parameters from materialisation (PIPELINE.md §5).
#include <cmath>
#include <type_traits>

#include "interp/kernel.h"

namespace shrew::interp {
namespace {

using K = ir::OpKind;

#define SHREW_STEP(step, lhs, expr)                                                     \
  auto SHREW_INTERP_CONCAT(step_, __LINE__) = (expr);                                   \
  if (!SHREW_INTERP_CONCAT(step_, __LINE__).ok())                                       \
    return SHREW_INTERP_CONCAT(step_, __LINE__).status().Prefixed(std::string(step) + ": "); \
  lhs = std::move(SHREW_INTERP_CONCAT(step_, __LINE__)).value()

// y = x·w, split into heads: [B, S, D] -> [B, h, S, Dh].
Result<Tensor> ProjectHeads(const Tensor& x, const Tensor& w, int64_t heads) {
  const int64_t b = x.dim(0), s = x.dim(1), d = x.dim(2);
  SHREW_TRY_ASSIGN(Tensor y, MatmulOp(x, w));
  if (y.rank() != 3 || y.dim(2) != d) {
    return InvalidArgument("projection weight of shape " + runtime::ShapeToString(w.shape()) + " must be [" +
                           std::to_string(d) + ", " + std::to_string(d) + "]");
  }
  SHREW_TRY_ASSIGN(y, ReshapeOp(y, {b, s, heads, d / heads}));
  return PermuteOp(y, {0, 2, 1, 3});
}

}  // namespace

// MHA of OPS.md §3.12.1 on x: [B, S, D] with [D, D] weights.
Result<Tensor> AttentionOp(const Tensor& x, const Tensor& wq, const Tensor& wk, const Tensor& wv, const Tensor& wo,
                           int64_t heads, bool causal) {
  SHREW_RETURN_IF_ERROR(RequireFloat(K::kMultiHeadAttention, x));
  if (x.rank() != 3) return InvalidArgument("multi_head_attention expects rank 3 [B, S, D], got rank " + std::to_string(x.rank()));
  const int64_t b = x.dim(0), s = x.dim(1), d = x.dim(2);
  if (heads < 1) return InvalidArgument("n_heads must be >= 1, got " + std::to_string(heads));
  if (d % heads != 0) {
    return InvalidArgument("model dimension " + std::to_string(d) + " is not divisible by n_heads " + std::to_string(heads));
  }
  // Named by role, as the shape rule says it (transformer_block checks its
  // own weights first, so this is multi_head_attention's).
  const std::pair<const Tensor*, const char*> weights[] = {{&wq, "w_q"}, {&wk, "w_k"}, {&wv, "w_v"}, {&wo, "w_o"}};
  for (const auto& [w, role] : weights) {
    SHREW_RETURN_IF_ERROR(RequireSameDType(x, *w));
    if (w->rank() != 2 || w->dim(0) != d || w->dim(1) != d) {
      return InvalidArgument(std::string("multi_head_attention ") + role + " has shape " +
                             runtime::ShapeToString(w->shape()) + ", expected [" + std::to_string(d) + ", " +
                             std::to_string(d) + "]");
    }
  }
  const int64_t dh = d / heads;
  SHREW_TRY_ASSIGN(Tensor q, ProjectHeads(x, wq, heads));
  SHREW_TRY_ASSIGN(Tensor k, ProjectHeads(x, wk, heads));
  SHREW_TRY_ASSIGN(Tensor v, ProjectHeads(x, wv, heads));
  SHREW_TRY_ASSIGN(Tensor kt, PermuteOp(k, {0, 1, 3, 2}));
  SHREW_TRY_ASSIGN(Tensor scores, MatmulOp(q, kt));  // [B, h, S, S]
  runtime::VisitStorage(scores.storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T root = std::sqrt(static_cast<T>(dh));
      std::span<T> sv = scores.mutable_values<T>();
      for (size_t i = 0; i < sv.size(); ++i) {
        sv[i] = sv[i] / root;
        // Causal: −1e9 (not −inf) on every j > i of the last two axes.
        const int64_t col = static_cast<int64_t>(i) % s;
        const int64_t row = (static_cast<int64_t>(i) / s) % s;
        if (causal && col > row) sv[i] = sv[i] + static_cast<T>(-1e9);
      }
    }
  });
  SHREW_TRY_ASSIGN(Tensor probs, SoftmaxOp(scores, -1));
  SHREW_TRY_ASSIGN(Tensor o, MatmulOp(probs, v));  // [B, h, S, Dh]
  SHREW_TRY_ASSIGN(o, PermuteOp(o, {0, 2, 1, 3}));
  SHREW_TRY_ASSIGN(o, ReshapeOp(o, {b, s, d}));
  return MatmulOp(o, wo);
}

Result<Tensor> RefMultiHeadAttention(const KernelArgs& args) {
  if (args.size() != 5) {
    return FailedPrecondition("multi_head_attention has no weight operands (got " + std::to_string(args.size()) +
                              " operands, expects 5): run materialisation first");
  }
  SHREW_TRY_ASSIGN(int64_t heads, GetIntAttr(args.node, "n_heads"));
  SHREW_TRY_ASSIGN(bool causal, GetBoolAttr(args.node, "causal"));
  return AttentionOp(args[0], args[1], args[2], args[3], args[4], heads, causal);
}

Result<Tensor> RefTransformerBlock(const KernelArgs& args) {
  if (args.size() != 13) {
    return FailedPrecondition("transformer_block has no weight operands (got " + std::to_string(args.size()) +
                              " operands, expects 13): run materialisation first");
  }
  SHREW_TRY_ASSIGN(int64_t heads, GetIntAttr(args.node, "n_heads"));
  SHREW_TRY_ASSIGN(bool causal, GetBoolAttr(args.node, "causal"));
  const Tensor& x = args[0];
  if (x.rank() != 3) return InvalidArgument("transformer_block expects rank 3 [B, S, D], got rank " + std::to_string(x.rank()));
  // The weights' shapes (OPS.md §3.12.2), as the shape rule checks them
  // (the tape's types): layer_norm and the products would broadcast or
  // take an [D, H] feed-forward of any H.
  const int64_t d = x.dim(2);
  struct Expect {
    runtime::Shape shape;
    const char* role;
  };
  const Expect expect[12] = {
      {{d}, "ln1_w"},        {{d}, "ln1_b"},     {{d, d}, "w_q"},       {{d, d}, "w_k"},
      {{d, d}, "w_v"},       {{d, d}, "w_o"},    {{d}, "ln2_w"},        {{d}, "ln2_b"},
      {{d, 4 * d}, "ff1_w"}, {{4 * d}, "ff1_b"}, {{4 * d, d}, "ff2_w"}, {{d}, "ff2_b"},
  };
  for (size_t i = 1; i < 13; ++i) {
    if (args[i].shape() == expect[i - 1].shape) continue;
    return InvalidArgument("transformer_block " + std::string(expect[i - 1].role) + " has shape " +
                           runtime::ShapeToString(args[i].shape()) + ", expected " +
                           runtime::ShapeToString(expect[i - 1].shape));
  }
  constexpr double kEps = 1e-5;
  // Pre-norm block: a = x + MHA(LN1(x)); y = a + FF(LN2(a)).
  SHREW_STEP("ln1", Tensor h1, LayerNormOp(x, &args[1], &args[2], kEps));
  SHREW_STEP("attention", Tensor attn, AttentionOp(h1, args[3], args[4], args[5], args[6], heads, causal));
  SHREW_STEP("residual 1", Tensor a, BinaryOp(K::kAdd, x, attn));
  SHREW_STEP("ln2", Tensor h2, LayerNormOp(a, &args[7], &args[8], kEps));
  SHREW_STEP("ff1", Tensor f, MatmulOp(h2, args[9]));
  SHREW_STEP("ff1 bias", f, BinaryOp(K::kAdd, f, args[10]));
  SHREW_STEP("gelu", f, UnaryOp(K::kGelu, f));
  SHREW_STEP("ff2", f, MatmulOp(f, args[11]));
  SHREW_STEP("ff2 bias", f, BinaryOp(K::kAdd, f, args[12]));
  if (f.shape() != a.shape()) {
    return InvalidArgument("feed-forward output " + runtime::ShapeToString(f.shape()) + " does not match the input " +
                           runtime::ShapeToString(a.shape()));
  }
  return BinaryOp(K::kAdd, a, f);
}

}  // namespace shrew::interp
