// multi_head_attention and transformer_block (OPS.md §3.12), explicit-weight
// forms (materialisation created the weights once, as named parameters), f32
// and f64. Composed of this directory's kernels — the dense kernel for every
// product (fully-connected with packed weights when the weight is a
// parameter, batch matmul for q·kᵀ and p·v), softmax, layer_norm, gelu —
// plus small own loops for the head split/merge permutes, the 1/√Dh scale
// with the causal −1e9 and the residual adds. Every intermediate lives in
// the kernel's workspace, which the JIT's memory plan places like any other
// workspace; Run allocates nothing.
//
// MHA(x [B,S,D]): q,k,v = x·W (each [B,S,D]) → heads [B,h,S,Dh] (k as
// [B,h,Dh,S]) → s = q·kᵀ/√Dh (+ −1e9 where j > i if causal) → softmax → o =
// p·v → [B,S,D] → o·Wo. Transformer block: a = x + MHA(LN1(x)),
// y = a + (gelu(LN2(a)·ff1_w + ff1_b)·ff2_w + ff2_b), layer-norm eps 1e-5.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel_registry.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;

// One sub-kernel with the synthetic node it was created for (kernels may
// keep the node pointer, so stages are heap-allocated and never move).
struct Stage {
  ir::Node node;
  KernelPtr kernel;
  size_t ws_offset = 0;
};

Result<std::unique_ptr<Stage>> MakeStage(K op, ir::DType dtype, std::vector<const Tensor*> constants) {
  auto st = std::make_unique<Stage>();
  st->node.op = op;
  st->node.name = std::string(ir::OpName(op));
  KernelSpec spec;
  spec.node = &st->node;
  spec.operand_dtypes.assign(constants.size(), dtype);
  spec.output_dtype = dtype;
  spec.constant_operands = std::move(constants);
  Result<KernelPtr> k = CreateKernel(spec);
  if (!k.ok()) return k.status();
  st->kernel = std::move(k).value();
  return st;
}

Status StageReshape(Stage& st, std::initializer_list<Shape> in, const Shape& out, WorkspaceLayout* layout) {
  std::vector<Shape> shapes(in);
  Result<size_t> ws = st.kernel->Reshape(shapes, out);
  if (!ws.ok()) return ws.status().Prefixed(st.node.name + " step: ");
  st.ws_offset = layout->Add(*ws);
  return Status::Ok();
}

Status StageSetup(Stage& st, std::initializer_list<const void*> in, void* out, void* workspace) {
  std::vector<const void*> ptrs(in);
  return st.kernel->Setup(ptrs, out, WorkspaceAt<std::byte>(workspace, st.ws_offset));
}

// A workspace buffer of `elements` T (plus the tail padding kernels may read);
// -1 (a count that overflowed) or a size past size_t marks the layout overflowed.
template <typename T>
size_t AddBuffer(WorkspaceLayout* layout, int64_t elements) {
  return layout->AddElements(elements, sizeof(T), kTailPaddingBytes);
}

// The element count of `shape`, -1 when it overflows int64.
int64_t CountOrMinusOne(const Shape& shape) {
  Result<int64_t> n = CountElements(shape);
  return n.ok() ? *n : -1;
}

// The scores are quadratic in S while x is linear: a long sequence needs a
// workspace that size_t cannot count (in wasm from h·S·S = 2^30 floats).
Status WorkspaceTooLarge(std::string_view op, const Shape& x, int64_t heads) {
  return ResourceExhausted(std::string(op) + ": the workspace for input " + ShapeToString(x) + " with n_heads " +
                           std::to_string(heads) + " (attention scores [B, n_heads, S, S]) is more bytes than this "
                           "platform can address");
}

// Multi-head attention on one [B, S, D] input; a component of both kernels.
template <typename T>
class AttentionCore {
 public:
  // `op`: the operation it is part of, which its messages name.
  Status Create(const char* op, ir::DType dtype, int64_t heads, bool causal, const Tensor* const w[4]) {
    op_ = op;
    heads_ = heads;
    causal_ = causal;
    for (int i = 0; i < 4; ++i) {
      Result<std::unique_ptr<Stage>> s = MakeStage(K::kMatmul, dtype, {nullptr, w[i]});
      if (!s.ok()) return s.status();
      proj_[i] = std::move(s).value();
    }
    Result<std::unique_ptr<Stage>> s = MakeStage(K::kMatmul, dtype, {nullptr, nullptr});
    if (!s.ok()) return s.status();
    scores_ = std::move(s).value();
    s = MakeStage(K::kMatmul, dtype, {nullptr, nullptr});
    if (!s.ok()) return s.status();
    pv_ = std::move(s).value();
    s = MakeStage(K::kSoftmax, dtype, {nullptr});
    if (!s.ok()) return s.status();
    softmax_ = std::move(s).value();
    return Status::Ok();
  }

  // x: [B, S, D]; w: the four weight shapes.
  Status Reshape(const Shape& x, const Shape* w, WorkspaceLayout* layout) {
    if (x.size() != 3) return InvalidArgument(std::string(op_) + " expects rank 3 [B, S, D], got " + ShapeToString(x));
    b_ = x[0], s_ = x[1], d_ = x[2];
    if (d_ % heads_ != 0) {
      return InvalidArgument("model dimension " + std::to_string(d_) + " is not divisible by n_heads " +
                             std::to_string(heads_));
    }
    for (int i = 0; i < 4; ++i) {
      if (w[i] != Shape{d_, d_}) {
        return InvalidArgument("attention weight of shape " + ShapeToString(w[i]) + " must be [" + std::to_string(d_) +
                               ", " + std::to_string(d_) + "]");
      }
    }
    dh_ = d_ / heads_;
    const int64_t bsd = CountOrMinusOne(x);
    const int64_t bhss = CountOrMinusOne({b_, heads_, s_, s_});
    for (int i = 0; i < 3; ++i) qkv_[i] = AddBuffer<T>(layout, bsd);
    for (int i = 0; i < 3; ++i) heads_buf_[i] = AddBuffer<T>(layout, bsd);
    scores_buf_ = AddBuffer<T>(layout, bhss);
    probs_buf_ = AddBuffer<T>(layout, bhss);
    o4_ = AddBuffer<T>(layout, bsd);
    ocat_ = AddBuffer<T>(layout, bsd);
    if (layout->overflowed()) return WorkspaceTooLarge(op_, x, heads_);
    const Shape bsd_shape = {b_, s_, d_};
    for (int i = 0; i < 4; ++i) SHREW_RETURN_IF_ERROR(StageReshape(*proj_[i], {bsd_shape, w[i]}, bsd_shape, layout));
    const Shape hsd = {b_, heads_, s_, dh_}, hds = {b_, heads_, dh_, s_}, hss = {b_, heads_, s_, s_};
    SHREW_RETURN_IF_ERROR(StageReshape(*scores_, {hsd, hds}, hss, layout));
    SHREW_RETURN_IF_ERROR(StageReshape(*softmax_, {hss}, hss, layout));
    SHREW_RETURN_IF_ERROR(StageReshape(*pv_, {hss, hsd}, hsd, layout));
    return Status::Ok();
  }

  Status Setup(const void* x, const void* const w[4], void* out, void* ws) {
    ws_ = ws;
    for (int i = 0; i < 3; ++i) SHREW_RETURN_IF_ERROR(StageSetup(*proj_[i], {x, w[i]}, Buf(qkv_[i]), ws));
    SHREW_RETURN_IF_ERROR(StageSetup(*proj_[3], {Buf(ocat_), w[3]}, out, ws));
    SHREW_RETURN_IF_ERROR(StageSetup(*scores_, {Buf(heads_buf_[0]), Buf(heads_buf_[1])}, Buf(scores_buf_), ws));
    SHREW_RETURN_IF_ERROR(StageSetup(*softmax_, {Buf(scores_buf_)}, Buf(probs_buf_), ws));
    SHREW_RETURN_IF_ERROR(StageSetup(*pv_, {Buf(probs_buf_), Buf(heads_buf_[2])}, Buf(o4_), ws));
    return Status::Ok();
  }

  Status Run() {
    for (int i = 0; i < 3; ++i) SHREW_RETURN_IF_ERROR(proj_[i]->kernel->Run());
    const T* q = Buf(qkv_[0]);
    const T* k = Buf(qkv_[1]);
    const T* v = Buf(qkv_[2]);
    T* qh = Buf(heads_buf_[0]);
    T* kt = Buf(heads_buf_[1]);
    T* vh = Buf(heads_buf_[2]);
    // [B, S, h·Dh] → [B, h, S, Dh] (q, v) and [B, h, Dh, S] (k).
    for (int64_t b = 0; b < b_; ++b) {
      for (int64_t h = 0; h < heads_; ++h) {
        for (int64_t i = 0; i < s_; ++i) {
          const int64_t src = (b * s_ + i) * d_ + h * dh_;
          const int64_t dst = ((b * heads_ + h) * s_ + i) * dh_;
          for (int64_t e = 0; e < dh_; ++e) {
            qh[dst + e] = q[src + e];
            vh[dst + e] = v[src + e];
            kt[((b * heads_ + h) * dh_ + e) * s_ + i] = k[src + e];
          }
        }
      }
    }
    SHREW_RETURN_IF_ERROR(scores_->kernel->Run());
    T* sc = Buf(scores_buf_);
    const T root = std::sqrt(static_cast<T>(dh_));
    const int64_t rows = b_ * heads_ * s_;
    for (int64_t r = 0; r < rows; ++r) {
      T* row = sc + r * s_;
      const int64_t i = r % s_;
      for (int64_t j = 0; j < s_; ++j) row[j] = row[j] / root;
      // Causal: −1e9 (not −inf) on every j > i.
      if (causal_) {
        for (int64_t j = i + 1; j < s_; ++j) row[j] = row[j] + static_cast<T>(-1e9);
      }
    }
    SHREW_RETURN_IF_ERROR(softmax_->kernel->Run());
    SHREW_RETURN_IF_ERROR(pv_->kernel->Run());
    const T* o4 = Buf(o4_);
    T* oc = Buf(ocat_);
    for (int64_t b = 0; b < b_; ++b) {
      for (int64_t h = 0; h < heads_; ++h) {
        for (int64_t i = 0; i < s_; ++i) {
          const T* src = o4 + ((b * heads_ + h) * s_ + i) * dh_;
          T* dst = oc + (b * s_ + i) * d_ + h * dh_;
          for (int64_t e = 0; e < dh_; ++e) dst[e] = src[e];
        }
      }
    }
    return proj_[3]->kernel->Run();
  }

  int num_xnn_operators() const {
    int n = scores_->kernel->num_xnn_operators() + pv_->kernel->num_xnn_operators() +
            softmax_->kernel->num_xnn_operators();
    for (const auto& p : proj_) n += p->kernel->num_xnn_operators();
    return n;
  }
  int64_t heads() const { return heads_; }

 private:
  T* Buf(size_t offset) const { return WorkspaceAt<T>(ws_, offset); }

  const char* op_ = "multi_head_attention";
  int64_t heads_ = 1;
  bool causal_ = false;
  int64_t b_ = 0, s_ = 0, d_ = 0, dh_ = 0;
  std::unique_ptr<Stage> proj_[4];  // q, k, v, o
  std::unique_ptr<Stage> scores_, softmax_, pv_;
  size_t qkv_[3] = {}, heads_buf_[3] = {}, scores_buf_ = 0, probs_buf_ = 0, o4_ = 0, ocat_ = 0;
  void* ws_ = nullptr;
};

template <typename T>
class MultiHeadAttentionKernel final : public Kernel {
 public:
  Status Create(const KernelSpec& spec, int64_t heads, bool causal) {
    const Tensor* w[4];
    for (int i = 0; i < 4; ++i) w[i] = spec.constant_operands.empty() ? nullptr : spec.constant_operands[1 + i];
    return core_.Create("multi_head_attention", spec.output_dtype, heads, causal, w);
  }
  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("multi_head_attention", operand_shapes, 5, 5, output_shape));
    SHREW_RETURN_IF_ERROR(CheckOutputShape("multi_head_attention", operand_shapes[0], output_shape));
    WorkspaceLayout layout;
    SHREW_RETURN_IF_ERROR(core_.Reshape(operand_shapes[0], &operand_shapes[1], &layout));
    if (layout.overflowed()) return WorkspaceTooLarge("multi_head_attention", operand_shapes[0], core_.heads());
    ws_bytes_ = layout.total();
    return ws_bytes_;
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 5) return InvalidArgument("multi_head_attention: expected 5 operands");
    SHREW_RETURN_IF_ERROR(CheckWorkspace("multi_head_attention", workspace, ws_bytes_));
    return core_.Setup(operands[0], &operands[1], output, workspace);
  }
  Status Run() override { return core_.Run(); }
  int num_xnn_operators() const override { return core_.num_xnn_operators(); }
  const char* impl_name() const override { return "composite"; }

 private:
  AttentionCore<T> core_;
  size_t ws_bytes_ = 0;
};

// Operands: x, ln1_w, ln1_b, w_q, w_k, w_v, w_o, ln2_w, ln2_b, ff1_w, ff1_b, ff2_w, ff2_b.
template <typename T>
class TransformerBlockKernel final : public Kernel {
 public:
  Status Create(const KernelSpec& spec, int64_t heads, bool causal) {
    auto c = [&](size_t i) -> const Tensor* {
      return spec.constant_operands.empty() ? nullptr : spec.constant_operands[i];
    };
    const ir::DType dt = spec.output_dtype;
    const Tensor* w[4] = {c(3), c(4), c(5), c(6)};
    SHREW_RETURN_IF_ERROR(core_.Create("transformer_block", dt, heads, causal, w));
    Result<std::unique_ptr<Stage>> s = MakeStage(K::kLayerNorm, dt, {nullptr, c(1), c(2)});
    if (!s.ok()) return s.status();
    ln1_ = std::move(s).value();
    s = MakeStage(K::kLayerNorm, dt, {nullptr, c(7), c(8)});
    if (!s.ok()) return s.status();
    ln2_ = std::move(s).value();
    s = MakeStage(K::kFusedMatmulAdd, dt, {nullptr, c(9), c(10)});
    if (!s.ok()) return s.status();
    ff1_ = std::move(s).value();
    s = MakeStage(K::kGelu, dt, {nullptr});
    if (!s.ok()) return s.status();
    gelu_ = std::move(s).value();
    s = MakeStage(K::kFusedMatmulAdd, dt, {nullptr, c(11), c(12)});
    if (!s.ok()) return s.status();
    ff2_ = std::move(s).value();
    return Status::Ok();
  }
  Result<size_t> Reshape(std::span<const Shape> in, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("transformer_block", in, 13, 13, output_shape));
    const Shape& x = in[0];
    if (x.size() != 3) return InvalidArgument("transformer_block expects rank 3 [B, S, D], got " + ShapeToString(x));
    SHREW_RETURN_IF_ERROR(CheckOutputShape("transformer_block", x, output_shape));
    const int64_t bsd = NumElements(x);
    Shape wide = x;
    wide.back() = in[9].size() == 2 ? in[9][1] : 0;
    WorkspaceLayout layout;
    h1_ = AddBuffer<T>(&layout, bsd);
    attn_ = AddBuffer<T>(&layout, bsd);
    a_ = AddBuffer<T>(&layout, bsd);
    h2_ = AddBuffer<T>(&layout, bsd);
    f_ = AddBuffer<T>(&layout, NumElements(wide));
    g_ = AddBuffer<T>(&layout, NumElements(wide));
    f2_ = AddBuffer<T>(&layout, bsd);
    n_ = static_cast<size_t>(bsd);
    SHREW_RETURN_IF_ERROR(StageReshape(*ln1_, {x, in[1], in[2]}, x, &layout));
    SHREW_RETURN_IF_ERROR(core_.Reshape(x, &in[3], &layout));
    SHREW_RETURN_IF_ERROR(StageReshape(*ln2_, {x, in[7], in[8]}, x, &layout));
    SHREW_RETURN_IF_ERROR(StageReshape(*ff1_, {x, in[9], in[10]}, wide, &layout));
    SHREW_RETURN_IF_ERROR(StageReshape(*gelu_, {wide}, wide, &layout));
    SHREW_RETURN_IF_ERROR(StageReshape(*ff2_, {wide, in[11], in[12]}, x, &layout));
    if (layout.overflowed()) return WorkspaceTooLarge("transformer_block", x, core_.heads());
    ws_bytes_ = layout.total();
    return ws_bytes_;
  }
  Status Setup(std::span<const void* const> op, void* output, void* ws) override {
    if (op.size() != 13) return InvalidArgument("transformer_block: expected 13 operands");
    SHREW_RETURN_IF_ERROR(CheckWorkspace("transformer_block", ws, ws_bytes_));
    ws_ = ws;
    x_ = static_cast<const T*>(op[0]);
    y_ = static_cast<T*>(output);
    SHREW_RETURN_IF_ERROR(StageSetup(*ln1_, {op[0], op[1], op[2]}, Buf(h1_), ws));
    SHREW_RETURN_IF_ERROR(core_.Setup(Buf(h1_), &op[3], Buf(attn_), ws));
    SHREW_RETURN_IF_ERROR(StageSetup(*ln2_, {Buf(a_), op[7], op[8]}, Buf(h2_), ws));
    SHREW_RETURN_IF_ERROR(StageSetup(*ff1_, {Buf(h2_), op[9], op[10]}, Buf(f_), ws));
    SHREW_RETURN_IF_ERROR(StageSetup(*gelu_, {Buf(f_)}, Buf(g_), ws));
    SHREW_RETURN_IF_ERROR(StageSetup(*ff2_, {Buf(g_), op[11], op[12]}, Buf(f2_), ws));
    return Status::Ok();
  }
  Status Run() override {
    SHREW_RETURN_IF_ERROR(ln1_->kernel->Run());
    SHREW_RETURN_IF_ERROR(core_.Run());
    {
      const T* __restrict at = Buf(attn_);
      T* __restrict a = Buf(a_);
      for (size_t i = 0; i < n_; ++i) a[i] = x_[i] + at[i];
    }
    SHREW_RETURN_IF_ERROR(ln2_->kernel->Run());
    SHREW_RETURN_IF_ERROR(ff1_->kernel->Run());
    SHREW_RETURN_IF_ERROR(gelu_->kernel->Run());
    SHREW_RETURN_IF_ERROR(ff2_->kernel->Run());
    const T* __restrict a = Buf(a_);
    const T* __restrict f = Buf(f2_);
    for (size_t i = 0; i < n_; ++i) y_[i] = a[i] + f[i];
    return Status::Ok();
  }
  int num_xnn_operators() const override {
    return core_.num_xnn_operators() + ln1_->kernel->num_xnn_operators() + ln2_->kernel->num_xnn_operators() +
           ff1_->kernel->num_xnn_operators() + gelu_->kernel->num_xnn_operators() + ff2_->kernel->num_xnn_operators();
  }
  const char* impl_name() const override { return "composite"; }

 private:
  T* Buf(size_t offset) const { return WorkspaceAt<T>(ws_, offset); }

  AttentionCore<T> core_;
  std::unique_ptr<Stage> ln1_, ln2_, ff1_, gelu_, ff2_;
  size_t h1_ = 0, attn_ = 0, a_ = 0, h2_ = 0, f_ = 0, g_ = 0, f2_ = 0, ws_bytes_ = 0, n_ = 0;
  void* ws_ = nullptr;
  const T* x_ = nullptr;
  T* y_ = nullptr;
};

template <typename KernelT>
Result<KernelPtr> Build(const KernelSpec& spec, int64_t heads, bool causal) {
  auto k = std::make_unique<KernelT>();
  SHREW_RETURN_IF_ERROR(k->Create(spec, heads, causal));
  return KernelPtr(std::move(k));
}

}  // namespace

Result<KernelPtr> CreateAttentionKernel(const KernelSpec& spec) {
  const K op = spec.node->op;
  const bool mha = op == K::kMultiHeadAttention;
  if (!mha && op != K::kTransformerBlock) return InvalidArgument(std::string(ir::OpName(op)) + " is not attention");
  const size_t want = mha ? 5 : 13;
  if (spec.operand_dtypes.size() != want) {
    // The one-operand form must be materialised first (its weights become params).
    return FailedPrecondition(std::string(ir::OpName(op)) + " has " + std::to_string(spec.operand_dtypes.size()) +
                              " operands, expects " + std::to_string(want) + ": run materialisation first");
  }
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  Result<int64_t> heads = IntAttr(*spec.node, "n_heads");
  if (!heads.ok()) return heads.status();
  if (*heads < 1) return InvalidArgument("n_heads must be >= 1, got " + std::to_string(*heads));
  Result<bool> causal = BoolAttr(*spec.node, "causal");
  if (!causal.ok()) return causal.status();
  if (*storage == ir::StorageType::kF32) {
    return mha ? Build<MultiHeadAttentionKernel<float>>(spec, *heads, *causal)
               : Build<TransformerBlockKernel<float>>(spec, *heads, *causal);
  }
  if (*storage == ir::StorageType::kF64) {
    return mha ? Build<MultiHeadAttentionKernel<double>>(spec, *heads, *causal)
               : Build<TransformerBlockKernel<double>>(spec, *heads, *causal);
  }
  return InvalidArgument(std::string(ir::OpName(op)) + " requires a float operand, got " +
                         ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
