// f32 dense kernels: matmul, fused_matmul_add, fused_matmul_relu, linear,
// and any of them followed by an activation (relu gelu silu sigmoid tanh) as
// one kernel. One class, three steps:
//
//   core      XNNPACK fully-connected when the weight is a constant (packed at
//             Create; matmul's [K, N] weight via XNN_FLAG_TRANSPOSE_WEIGHTS,
//             linear's [N, K] natively), else batch-matrix-multiply with batch
//             broadcasting (linear's weight via XNN_FLAG_TRANSPOSE_B). A b
//             given transposed (KernelSpec::b_transposed: the JIT folded
//             matmul(a, transpose(w)) into the product) is [N, K] as
//             linear's weight is, with matmul's batch axes. Products
//             with K = 0 are zero-filled (XNNPACK rejects K = 0), products
//             whose batch axes still exceed 6 after merging, and those of
//             fewer than 4 rows (vector × matrix), use RefMatmul.
//             A large constant weight is split into column panels, one
//             operator each, run in alternating order (see PanelWidth).
//             Packs with equal bytes (a `repeat` of one product) are kept
//             once per process (runtime/packed_weights.h).
//             A product of 1 to 3 rows against a large [K, N] weight whose
//             input rows are mostly zeros reads, row by row, only the
//             weight rows each needs (sparse_row.h), bias and relu clamp
//             added after. Products of 2 rows (3 in wasm) against a
//             weight of 16 KiB or more (natively at most 3 MiB) run each
//             row on its own through XNNPACK's one-row kernel (kByRowBelow).
//             Products of at most 4 columns over a K of 8 or more, and of
//             fewer than 4 rows against a b that changes per run stored
//             [N, K] (linear), are our own row products (row_dots.h);
//             against a constant weight only those of 1 column, or 2 in
//             fewer than 4 rows (see kRowDotsMaxConstantColumns).
//   + c       fused_matmul_add's c or linear's bias. A constant c that only
//             varies along the last axis ([N], [1, N], [1], rank 0) becomes
//             the fully-connected bias; otherwise an XNNPACK broadcast add,
//             in place on the output, or from a workspace buffer when c
//             broadcasts the product to a larger shape.
//   activation  in place on the output. A relu right after the
//             fully-connected product is its output clamp [0, +inf).
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/matmul_shapes.h"
#include "runtime/kernels/row_dots.h"
#include "runtime/kernels/sparse_row.h"
#include "runtime/kernels/xnn_binary.h"
#include "runtime/kernels/xnn_unary.h"
#include "runtime/packed_weights.h"
#include "runtime/xnn_init.h"

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;

enum class Core { kFullyConnected, kBatchMatmul };

struct DenseConfig {
  ir::OpKind op = K::kMatmul;
  bool linear = false;
  bool b_transposed = false;             // matmul's b given [.., N, K] (KernelSpec::b_transposed)
  bool has_add = false;                  // operand 2 is added to the product
  std::optional<ir::OpKind> activation;  // applied last
};

class XnnMatmulKernel final : public Kernel {
 public:
  static Result<KernelPtr> Create(const KernelSpec& spec, DenseConfig config);

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override;
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override;
  Status Run() override;
  int num_xnn_operators() const override {
    return (core_op_ ? 1 : 0) + static_cast<int>(panels_.size()) + (add_ ? add_->num_xnn_operators() : 0) +
           (act_ ? act_->num_xnn_operators() : 0);
  }
  const char* impl_name() const override { return impl_name_.c_str(); }

 private:
  explicit XnnMatmulKernel(DenseConfig config) : config_(config) {}
  const char* name() const { return ir::OpName(config_.op); }
  BForm b_form() const {
    return config_.linear ? BForm::kLinear : config_.b_transposed ? BForm::kMatmulTransposed : BForm::kMatmul;
  }
  void FillProduct();  // the K = 0 product: bias (or 0), clamped
  Status RunFullyConnected();
  void RunSparseRow(int64_t row);  // one row over a's nonzeros (sparse_row.h)
  void RunRowDots();

  DenseConfig config_;
  Core core_ = Core::kBatchMatmul;
  XnnOperatorPtr core_op_;   // batch-matrix-multiply
  // The panels' packed weights, shared with every other operator that
  // packed the same bytes (a `repeat` of one matmul). Outlives panels_.
  PackedWeights packs_;
  // Fully-connected: the product's columns [col0, col0 + width), each an
  // operator over its slice of the packed weight, writing its columns of
  // the output rows. None when K = 0 or N = 0.
  struct Panel {
    XnnOperatorPtr op;
    int64_t col0 = 0;
  };
  std::vector<Panel> panels_;
  bool reverse_ = false;     // the order of the next run's panels
  Shape weight_shape_;       // fully-connected: the packed constant's shape
  Shape addend_shape_;       // the constant folded into bias_, when bias_packed_
  std::vector<float> bias_;  // packed bias (fully-connected), for FillProduct
  bool bias_packed_ = false;
  bool clamp_relu_ = false;  // relu applied as the fully-connected clamp
  // A [K, N] weight large enough to stream and all finite: products of 1 to
  // 3 rows may skip the weight rows a zero multiplies (sparse_row.h).
  bool sparse_rows_ = false;
  std::vector<int32_t> nonzero_rows_;  // K entries, filled per run
  // From Reshape: the operators are reshaped for one row and run once per
  // row and panel (kByRowBelow).
  bool by_row_ = false;
  std::optional<BinaryStage> add_;
  std::optional<UnaryStage> act_;
  std::string panel_tag_;    // "[N panels]" when the weight is split
  std::string impl_suffix_;  // the "+ c" and activation steps
  std::string impl_name_;    // core + suffix, updated by Reshape

  // From Reshape.
  MatmulDims dims_;
  BroadcastLoop<2> batch_loop_;
  enum class Plan { kEmpty, kXnn, kFill, kRef, kRowDots } plan_ = Plan::kEmpty;
  // Row dots of a [K, N] b (2-4 columns) in 8 rows or more: its columns
  // gathered into rows of the workspace once per product (kNarrowRowsBelow).
  size_t columns_offset_ = 0;
  bool columns_in_workspace_ = false;
  size_t packed_offset_ = 0, packed_bytes_ = 0;  // batch-matmul packed weights
  size_t temp_offset_ = 0;
  bool product_in_temp_ = false;
  size_t workspace_bytes_ = 0;

  // From Setup.
  const float* a_ = nullptr;
  const float* b_ = nullptr;
  float* product_ = nullptr;
  float* columns_ = nullptr;
};

// Whether constant `c` only varies along the last axis with size n (or is
// one value), so that it can be the fully-connected bias.
bool IsBiasLike(const Tensor& c, int64_t n) {
  const Shape& s = c.shape();
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != 1) return false;
  }
  return s.empty() || s.back() == n || s.back() == 1;
}

// The column width of a fully-connected weight's panels (n: one panel).
// A weight of kPanelSplitBytes or more is split into panels of about
// kPanelBytes, and successive runs take the panels in alternating order, so
// that each run starts with the panels the last one read: those are still
// in cache. In one order every run, a model whose weights exceed the cache
// a little (mlp: 2.7 MB of weights, 2 MiB of L2 here) evicts each panel
// just before it is read again and streams all of them from memory (XNNPACK
// alone, mlp at batch 1: 81 -> 74 µs in wasm, 75 -> 64 µs natively). Each
// output column is computed as in the whole product (same microkernel, same
// K order), so results do not depend on the split or the order.
// Not split either: fewer than two aligned panels' worth of columns, or a
// K so long that even the narrowest panel would not stay cached (gathering
// one would only add its size to the peak memory of Create).
constexpr int64_t kPanelSplitBytes = 512 * 1024;
constexpr int64_t kPanelBytes = 256 * 1024;
constexpr int64_t kPanelAlign = 32;  // columns: a multiple of the f32 GEMM tile widths (nr)
constexpr int64_t kMaxPanelBytes = 1024 * 1024;

int64_t PanelWidth(int64_t k, int64_t n) {
  const int64_t column_bytes = k * static_cast<int64_t>(sizeof(float));
  const int64_t bytes = column_bytes * n;
  if (bytes < kPanelSplitBytes || n < 2 * kPanelAlign || column_bytes * kPanelAlign > kMaxPanelBytes) return n;
  const int64_t panels = (bytes + kPanelBytes - 1) / kPanelBytes;
  const int64_t width = ((n + panels - 1) / panels + kPanelAlign - 1) / kPanelAlign * kPanelAlign;
  return std::min(width, n);
}

// [K, N] weights from this size on may take the sparse product
// (sparse_row.h) when enough of each row's inputs are zero.
constexpr int64_t kSparseRowsBytes = 64 * 1024;

// Fully-connected products of 2 up to kByRowBelow rows, exclusive, against
// a weight of kByRowMinBytes to kByRowMaxBytes, run one row at a time, panel
// by panel, so that the rows after the first read the panel from cache.
// XNNPACK's wasm f32 GEMM has tiles of 1x8 and 4x8 only, and 2 or 3 rows
// cost a whole 4-row tile: [2, 512] x [512, 512] 50 µs against 15 µs for one
// row; past the last-level cache the 4-row tile also streams the weight at
// a third of the one-row kernel's rate ([2, 2048] x [2048, 8192]: 8.7 ms
// against 2.6 ms for one row). By row, in wasm: 0.58-0.77x the time for 2
// rows, 0.85-0.96x for 3 (16 KiB to 16 MiB). Natively (AVX-512: tiles of
// 1x16 and 7x16) 2 rows by row take 0.65-0.85x the time up to 2.25 MiB, but
// 1.05x at 4 MiB and 1.11x at 16 MiB, and 3 rows gain nothing. Under 16 KiB
// the calls per row cost more than the tile wastes ([3, 16] x [16, 16]:
// 1.6x the time).
#if defined(__wasm__)
constexpr int64_t kByRowBelow = 4;
constexpr int64_t kByRowMaxBytes = std::numeric_limits<int64_t>::max();
#else
constexpr int64_t kByRowBelow = 3;
constexpr int64_t kByRowMaxBytes = 3 << 20;
#endif
constexpr int64_t kByRowMinBytes = 16 * 1024;

// Row dots against a constant weight up to this many columns, and from 2
// only under 4 rows: XNNPACK's 4-row tiles share each load of the packed
// weight, and took 0.8x our time at 2 columns ([64, 4096] x [4096, 2]),
// the same at 3 and 0.75x at 4. A column alone, or fewer rows, run on its
// 1-row kernel over 8 columns: 5x our time ([2, 4096] x [4096, 1]).
// (Products of few rows against a constant wider weight stay XNNPACK's:
// it packed that weight once, at Create.)
constexpr int64_t kRowDotsMaxConstantColumns = 2;

// A [K, N] b of 2-4 columns is read as it is by fewer rows than this
// (RowsTimesNarrow; a constant 2-column weight always is, its rows being
// under 4), else its columns are gathered into rows first and the rows take
// RowDots, which is 1.3-2x faster per multiply-add ([64, 4096] x [4096,
// 2..4]) but the gathering cost as much as the whole product for one row.
constexpr int64_t kNarrowRowsBelow = 8;
static_assert(kByRowBelow <= kGemmTileRows, "RunFullyConnected marks rows under kGemmTileRows");

Result<KernelPtr> XnnMatmulKernel::Create(const KernelSpec& spec, DenseConfig config) {
  SHREW_RETURN_IF_ERROR(EnsureXnnInitialized());
  std::unique_ptr<XnnMatmulKernel> k(new XnnMatmulKernel(config));
  const Tensor* weight = spec.constant_operands.size() > 1 ? spec.constant_operands[1] : nullptr;
  const Tensor* addend = config.has_add && spec.constant_operands.size() > 2 ? spec.constant_operands[2] : nullptr;
  // [N, K]: linear's weight or a folded transpose's source (2-D for a weight).
  const bool nk = config.linear || config.b_transposed;
  const bool fc = weight != nullptr && weight->storage() == ir::StorageType::kF32 &&
                  (nk ? weight->rank() == 2 : (weight->rank() == 1 || weight->rank() == 2));
  const float inf = std::numeric_limits<float>::infinity();
  bool relu_done = false;
  if (fc) {
    k->core_ = Core::kFullyConnected;
    k->weight_shape_ = weight->shape();
    const Shape& w = weight->shape();
    // Channels: matmul [K, N] or [K] (N = 1); linear and transposed [N, K].
    const int64_t kk = nk ? w[1] : w[0];
    const int64_t n = nk ? w[0] : (w.size() == 2 ? w[1] : 1);
    // A 1-D matmul weight drops the N axis, so "+ c" is not along N.
    const bool n_is_last = nk || w.size() == 2;
    if (addend != nullptr && addend->storage() == ir::StorageType::kF32 && n_is_last && IsBiasLike(*addend, n)) {
      std::span<const float> cv = addend->values<float>();
      k->bias_.resize(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) k->bias_[j] = cv.size() == 1 ? cv[0] : cv[j];
      k->bias_packed_ = true;
      k->addend_shape_ = addend->shape();
    }
    if (config.activation == K::kRelu && (!config.has_add || k->bias_packed_)) {
      k->clamp_relu_ = true;
      relu_done = true;
    }
    if (kk > 0 && n > 0) {
      const uint32_t flags = nk ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS;
      const int64_t width = PanelWidth(kk, n);
      const float* w = weight->data<float>();
      std::vector<float> columns;  // a [K, N] weight's panel, gathered
      for (int64_t col0 = 0; col0 < n; col0 += width) {
        const int64_t cols = std::min(width, n - col0);
        // An [N, K] weight's panel is rows col0.. as they are; a [K, N]
        // weight's columns are gathered (XNNPACK packs them at create).
        const float* panel = nk ? w + col0 * kk : w;
        if (!nk && cols < n) {
          columns.resize(static_cast<size_t>(kk * cols));
          for (int64_t r = 0; r < kk; ++r) std::copy_n(w + r * n + col0, cols, columns.data() + r * cols);
          panel = columns.data();
        }
        xnn_operator_t raw = nullptr;
        SHREW_RETURN_IF_ERROR(XnnCheck(
            xnn_create_fully_connected_nc_f32(static_cast<size_t>(kk), static_cast<size_t>(cols),
                                              static_cast<size_t>(kk), static_cast<size_t>(n), panel,
                                              k->bias_packed_ ? k->bias_.data() + col0 : nullptr,
                                              k->clamp_relu_ ? 0.0f : -inf, inf, flags, nullptr, k->packs_.cache(), &raw),
            k->name(), "fully_connected create"));
        k->panels_.push_back({AdoptXnnOperator(raw), col0});
      }
      if (k->panels_.size() > 1) k->panel_tag_ = "[" + std::to_string(k->panels_.size()) + " panels]";
      if (!nk && weight->rank() == 2 && kk * n * static_cast<int64_t>(sizeof(float)) >= kSparseRowsBytes &&
          kk <= std::numeric_limits<int32_t>::max()) {
        std::span<const float> values = weight->values<float>();
        k->sparse_rows_ = std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
        if (k->sparse_rows_) k->nonzero_rows_.resize(static_cast<size_t>(kk));
      }
    }
  } else {
    k->core_ = Core::kBatchMatmul;
    xnn_operator_t raw = nullptr;
    SHREW_RETURN_IF_ERROR(
        XnnCheck(xnn_create_batch_matrix_multiply_nc_f32(nk ? XNN_FLAG_TRANSPOSE_B : 0, &raw), k->name(),
                 "batch_matrix_multiply create"));
    k->core_op_ = AdoptXnnOperator(raw);
  }
  if (config.has_add && !k->bias_packed_) {
    Result<BinaryStage> add = BinaryStage::Create(K::kAdd);
    if (!add.ok()) return add.status();
    k->add_.emplace(std::move(add).value());
    k->impl_suffix_ += "+xnn_binary";
  }
  if (config.activation && !relu_done) {
    Result<UnaryStage> act = UnaryStage::Create(*config.activation);
    if (!act.ok()) return act.status();
    k->act_.emplace(std::move(act).value());
    k->impl_suffix_ += std::string("+") + ir::OpName(*config.activation);
  } else if (relu_done) {
    k->impl_suffix_ += "(relu clamp)";
  }
  k->impl_name_ = (k->core_ == Core::kFullyConnected ? "xnn_fully_connected" + k->panel_tag_
                                                     : std::string("xnn_batch_matrix_multiply")) +
                  k->impl_suffix_;
  return KernelPtr(k.release());
}

Result<size_t> XnnMatmulKernel::Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) {
  const size_t want = config_.has_add ? 3 : 2;
  SHREW_RETURN_IF_ERROR(CheckShapes(name(), operand_shapes, want, want, output_shape));
  Result<MatmulDims> dims = ComputeMatmulDims(name(), operand_shapes[0], operand_shapes[1], b_form());
  if (!dims.ok()) return dims.status();
  dims_ = std::move(dims).value();
  Shape expected = dims_.result;
  Shape addend;
  if (config_.has_add) {
    Result<MatmulAddShapes> add = ComputeMatmulAddShapes(name(), dims_, operand_shapes[2], config_.linear);
    if (!add.ok()) return add.status();
    expected = add->output;
    addend = add->addend;
  }
  SHREW_RETURN_IF_ERROR(CheckOutputShape(name(), expected, output_shape));
  if (core_ == Core::kFullyConnected && operand_shapes[1] != weight_shape_) {
    return InvalidArgument(std::string(name()) + ": weight shape " + ShapeToString(operand_shapes[1]) +
                           " differs from the packed constant's " + ShapeToString(weight_shape_));
  }
  if (bias_packed_ && operand_shapes[2] != addend_shape_) {
    return InvalidArgument(std::string(name()) + ": bias shape " + ShapeToString(operand_shapes[2]) +
                           " differs from the packed constant's " + ShapeToString(addend_shape_));
  }

  WorkspaceLayout layout;
  packed_bytes_ = 0;
  by_row_ = false;
  columns_in_workspace_ = false;
  const bool empty = NumElements(dims_.result) == 0 || NumElements(output_shape) == 0;
  if (empty) {
    plan_ = Plan::kEmpty;
  } else if (dims_.k == 0 || (core_ == Core::kFullyConnected && panels_.empty())) {
    plan_ = Plan::kFill;
  } else if (dims_.k >= kRowDotsMinK &&
             (core_ == Core::kFullyConnected
                  ? dims_.n == 1 || (dims_.n <= kRowDotsMaxConstantColumns && dims_.m < kGemmTileRows)
                  : dims_.n <= kRowDotsMaxColumns || (dims_.transpose_b && dims_.m < kGemmTileRows))) {
    // Few columns; or few rows against a b that changes per run and is
    // stored [N, K] (linear's weight), which XNNPACK would pack every run
    // (a linear of one row took 2.7x the matmul of the same shape).
    plan_ = Plan::kRowDots;
    if (core_ == Core::kBatchMatmul) {
      batch_loop_.Init(dims_.batch_out, {&dims_.batch_a, &dims_.batch_b});
      if (!dims_.transpose_b && dims_.n > 1 && dims_.m >= kNarrowRowsBelow) {
        columns_in_workspace_ = true;
        columns_offset_ = layout.Add(static_cast<size_t>(dims_.n * dims_.k) * sizeof(float));
      }
    }
  } else if (core_ == Core::kFullyConnected) {
    plan_ = Plan::kXnn;
    const int64_t weight_bytes = dims_.k * dims_.n * static_cast<int64_t>(sizeof(float));
    by_row_ = dims_.m > 1 && dims_.m < kByRowBelow && weight_bytes >= kByRowMinBytes && weight_bytes <= kByRowMaxBytes;
    const size_t batch = by_row_ ? 1 : static_cast<size_t>(dims_.m);
    for (const Panel& p : panels_) {
      SHREW_RETURN_IF_ERROR(XnnCheck(xnn_reshape_fully_connected_nc_f32(p.op.get(), batch, nullptr), name(),
                                     "fully_connected reshape"));
    }
  } else {
    batch_loop_.Init(dims_.batch_out, {&dims_.batch_a, &dims_.batch_b});
    // Without batch axes XNNPACK still gets valid (unused) dim arrays.
    std::vector<size_t> ba = {1}, bb = {1};
    size_t num_batch = 0;
    if (!dims_.batch_out.empty()) {
      ba = batch_loop_.InputDims(0);
      bb = batch_loop_.InputDims(1);
      num_batch = ba.size();
    }
    // Fewer than 4 rows per product against a b that is not transposed (a
    // vector times a matrix: attention's query of one token against its
    // keys, a dot product) run on our tiles, which read b in place where
    // XNNPACK packs it on every run: [1, 1024] × [1024, 1024] 1.0 ms -> 0.3
    // ms, 256 × ([1, 128] × [128, 128]) 4.2 -> 1.1 ms in wasm.
    const bool few_rows = dims_.m < kGemmTileRows && !dims_.transpose_b;
    plan_ = num_batch <= XNN_MAX_TENSOR_DIMS && !few_rows ? Plan::kXnn : Plan::kRef;
    if (plan_ == Plan::kXnn) {
      size_t ws = 0, align = 0;
      SHREW_RETURN_IF_ERROR(
          XnnCheck(xnn_reshape_batch_matrix_multiply_nc_f32(core_op_.get(), num_batch, ba.data(), bb.data(),
                                                            static_cast<size_t>(dims_.m), static_cast<size_t>(dims_.k),
                                                            static_cast<size_t>(dims_.n), &ws, &align, nullptr),
                   name(), "batch_matrix_multiply reshape"));
      if (align > kTensorAlignment) {
        return Internal(std::string(name()) + ": XNNPACK wants workspace alignment " + std::to_string(align));
      }
      packed_bytes_ = ws;
      packed_offset_ = layout.Add(ws);
    }
  }
  // The product goes straight to the output unless "+ c" makes it larger.
  product_in_temp_ = add_ && dims_.result != output_shape && plan_ != Plan::kEmpty;
  if (product_in_temp_) {
    temp_offset_ = layout.Add(static_cast<size_t>(NumElements(dims_.result)) * sizeof(float));
  }
  if (add_) SHREW_RETURN_IF_ERROR(add_->Reshape(dims_.result, addend, output_shape));
  if (act_) SHREW_RETURN_IF_ERROR(act_->Reshape(static_cast<size_t>(NumElements(output_shape))));
  workspace_bytes_ = layout.total();
  // "|by_row": one row at a time; "|sparse_rows": a product of fewer than 4
  // rows may take the sparse product.
  const bool sparse = plan_ == Plan::kXnn && sparse_rows_ && dims_.m < kGemmTileRows;
  const std::string fc =
      "xnn_fully_connected" + panel_tag_ + (by_row_ ? "|by_row" : "") + (sparse ? "|sparse_rows" : "");
  const std::string core = plan_ == Plan::kRef              ? "ref_matmul"
                           : plan_ == Plan::kRowDots        ? "row_dots"
                           : plan_ == Plan::kFill           ? "zero_fill"
                           : core_ == Core::kFullyConnected ? fc
                                                            : "xnn_batch_matrix_multiply";
  if (plan_ != Plan::kEmpty) impl_name_ = core + impl_suffix_;
  return workspace_bytes_;
}

Status XnnMatmulKernel::Setup(std::span<const void* const> operands, void* output, void* workspace) {
  const size_t want = config_.has_add ? 3 : 2;
  if (operands.size() != want) {
    return InvalidArgument(std::string(name()) + ": expected " + std::to_string(want) + " operands");
  }
  SHREW_RETURN_IF_ERROR(CheckWorkspace(name(), workspace, workspace_bytes_));
  a_ = static_cast<const float*>(operands[0]);
  b_ = static_cast<const float*>(operands[1]);
  float* out = static_cast<float*>(output);
  product_ = product_in_temp_ ? WorkspaceAt<float>(workspace, temp_offset_) : out;
  columns_ = columns_in_workspace_ ? WorkspaceAt<float>(workspace, columns_offset_) : nullptr;
  if (plan_ == Plan::kXnn) {
    if (core_ == Core::kFullyConnected) {
      for (const Panel& p : panels_) {
        if (by_row_) break;  // set up per row in Run
        SHREW_RETURN_IF_ERROR(XnnCheck(xnn_setup_fully_connected_nc_f32(p.op.get(), a_, product_ + p.col0), name(),
                                       "fully_connected setup"));
      }
    } else {
      SHREW_RETURN_IF_ERROR(
          XnnCheck(xnn_setup_batch_matrix_multiply_nc_f32(core_op_.get(), WorkspaceAt<void>(workspace, packed_offset_),
                                                          a_, b_, product_),
                   name(), "batch_matrix_multiply setup"));
    }
  }
  if (add_) SHREW_RETURN_IF_ERROR(add_->Setup(product_, static_cast<const float*>(operands[2]), out));
  if (act_) SHREW_RETURN_IF_ERROR(act_->Setup(out, out));
  return Status::Ok();
}

void XnnMatmulKernel::FillProduct() {
  const int64_t rows = dims_.m * NumElements(dims_.batch_out);
  const int64_t n = dims_.n;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = product_ + r * n;
    for (int64_t j = 0; j < n; ++j) {
      // 0 + bias (the empty sum plus c, as the interpreter adds it): -0 gives +0.
      const float v = bias_packed_ ? 0.0f + bias_[j] : 0.0f;
      row[j] = clamp_relu_ && !(v > 0.0f) ? 0.0f : v;
    }
  }
}

void XnnMatmulKernel::RunRowDots() {
  const int64_t m = dims_.m, k = dims_.k, n = dims_.n;
  // The fully-connected bias and relu clamp; a batch product's "+ c" and
  // activation run after, as stages.
  const bool fc = core_ == Core::kFullyConnected;
  const float* bias = fc && bias_packed_ ? bias_.data() : nullptr;
  const bool relu = fc && clamp_relu_;
  auto one = [&](const float* a, const float* b, float* y) {
    if (columns_ != nullptr) {
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t p = 0; p < k; ++p) columns_[j * k + p] = b[p * n + j];
      }
      return RowDots(a, k, columns_, k, y, n, m, n, k);
    }
    if (dims_.transpose_b || n == 1) {
      // b's columns are its rows ([N, K]; one column is a row too).
      if (n <= kRowDotsMaxColumns) return RowDots(a, k, b, k, y, n, m, n, k, bias, relu);
      return RowDotsWide(a, k, b, k, y, n, m, n, k);  // batch products only
    }
    RowsTimesNarrow(a, k, b, y, n, m, n, k, bias, relu);
  };
  ForEachProduct(dims_, batch_loop_, a_, b_, product_, one);
}

void XnnMatmulKernel::RunSparseRow(int64_t row) {
  const int64_t k = dims_.k, n = dims_.n;
  const float* a = a_ + row * k;
  float* y = product_ + row * n;
  const int64_t count = ListNonzeroRows(a, k, nonzero_rows_.data());
  SparseRowProduct(a, nonzero_rows_.data(), count, b_, y, n);
  if (bias_packed_) {
    for (int64_t j = 0; j < n; ++j) y[j] += bias_[j];
  }
  if (clamp_relu_) {
    // relu as the interpreter takes it (v > 0 ? v : 0): a NaN sum gives 0, as XNNPACK's clamp does.
    for (int64_t j = 0; j < n; ++j) y[j] = y[j] > 0.0f ? y[j] : 0.0f;
  }
}

// Rows under 4 whose inputs are mostly zeros take the sparse product. By
// row, each row is judged on its own against one dense row; otherwise the
// rows run together as XNNPACK's tile, and only when every row pays (2 or 3
// rows cost what 4 do: two sparse rows of half zeros cost about one dense
// row). The dense rest goes through the panels, in alternating order.
Status XnnMatmulKernel::RunFullyConnected() {
  const int64_t k = dims_.k, n = dims_.n, rows = dims_.m;
  bool sparse[kGemmTileRows] = {};
  bool any_dense = true;
  if (sparse_rows_ && rows < kGemmTileRows) {
    any_dense = false;
    for (int64_t r = 0; r < rows; ++r) {
      sparse[r] = SparseRowPays(CountNonzero(a_ + r * k, k), k, n, by_row_ ? 1 : rows);
      any_dense = any_dense || !sparse[r];
    }
    if (!by_row_ && any_dense) std::fill_n(sparse, rows, false);
    for (int64_t r = 0; r < rows; ++r) {
      if (sparse[r]) RunSparseRow(r);
    }
  }
  if (!any_dense) return Status::Ok();
  for (size_t i = 0; i < panels_.size(); ++i) {
    const Panel& p = panels_[reverse_ ? panels_.size() - 1 - i : i];
    for (int64_t r = 0; r < (by_row_ ? rows : 1); ++r) {
      if (by_row_) {
        if (sparse[r]) continue;
        SHREW_RETURN_IF_ERROR(XnnCheck(xnn_setup_fully_connected_nc_f32(p.op.get(), a_ + r * k, product_ + r * n + p.col0),
                                       name(), "fully_connected setup"));
      }
      SHREW_RETURN_IF_ERROR(XnnCheck(xnn_run_operator(p.op.get(), nullptr), name(), "run"));
    }
  }
  reverse_ = !reverse_;
  return Status::Ok();
}

Status XnnMatmulKernel::Run() {
  switch (plan_) {
    case Plan::kEmpty:
      return Status::Ok();
    case Plan::kFill:
      FillProduct();
      break;
    case Plan::kXnn:
      if (core_ == Core::kBatchMatmul) {
        SHREW_RETURN_IF_ERROR(XnnCheck(xnn_run_operator(core_op_.get(), nullptr), name(), "run"));
        break;
      }
      SHREW_RETURN_IF_ERROR(RunFullyConnected());
      break;
    case Plan::kRef:
      RefMatmul<float, float>(dims_, batch_loop_, a_, b_, product_);
      break;
    case Plan::kRowDots:
      RunRowDots();
      break;
  }
  if (add_) SHREW_RETURN_IF_ERROR(add_->Run());
  if (act_) SHREW_RETURN_IF_ERROR(act_->Run());
  return Status::Ok();
}

// The dense op's configuration from its spec; Unimplemented when the op
// is not a dense op this file handles.
Result<DenseConfig> DenseConfigOf(const KernelSpec& spec) {
  DenseConfig c;
  c.op = spec.node->op;
  switch (c.op) {
    case K::kMatmul:
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
      c.b_transposed = spec.b_transposed;
      break;
    case K::kFusedMatmulRelu:
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
      c.b_transposed = spec.b_transposed;
      c.activation = K::kRelu;
      break;
    case K::kFusedMatmulAdd:
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 3, 3));
      c.b_transposed = spec.b_transposed;
      c.has_add = true;
      break;
    case K::kLinear: {
      if (spec.b_transposed) return InvalidArgument("linear: a transposed weight operand");
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 3));
      Result<bool> bias = BoolAttr(*spec.node, "bias");
      if (!bias.ok()) return bias.status();
      c.linear = true;
      c.has_add = spec.operand_dtypes.size() == 3;
      if (c.has_add && !*bias) return InvalidArgument("linear: bias: false together with a bias operand");
      break;
    }
    default:
      return Unimplemented(std::string("no dense kernel for ") + ir::OpName(c.op));
  }
  return c;
}

}  // namespace

Result<KernelPtr> CreateMatmulKernel(const KernelSpec& spec) {
  Result<DenseConfig> config = DenseConfigOf(spec);
  if (!config.ok()) return config.status();
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  if (*storage != ir::StorageType::kF32) return CreateRefMatmulKernel(spec);
  return XnnMatmulKernel::Create(spec, *config);
}

Result<KernelPtr> CreateDenseActivationKernel(const KernelSpec& dense, ir::OpKind activation) {
  if (dense.node == nullptr) return InvalidArgument("dense + activation: no node");
  if (activation != K::kRelu && activation != K::kGelu && activation != K::kSilu && activation != K::kSigmoid &&
      activation != K::kTanh) {
    return Unimplemented(std::string("no dense + activation kernel for activation ") + ir::OpName(activation));
  }
  const ir::OpKind op = dense.node->op;
  if (op != K::kMatmul && op != K::kFusedMatmulAdd && op != K::kLinear) {
    return Unimplemented(std::string("no dense + activation kernel for ") + ir::OpName(op));
  }
  Result<DenseConfig> config = DenseConfigOf(dense);
  if (!config.ok()) return config.status();
  Result<ir::StorageType> storage = CommonStorage(dense);
  if (!storage.ok()) return storage.status();
  if (*storage != ir::StorageType::kF32) {
    return Unimplemented(std::string("dense + activation is f32 only, got ") + ir::DTypeName(dense.output_dtype));
  }
  config->activation = activation;
  return XnnMatmulKernel::Create(dense, *config);
}

}  // namespace shrew::runtime::kernels
