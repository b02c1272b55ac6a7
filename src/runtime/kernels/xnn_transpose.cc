// transpose (two axes, OPS.md §3.10.1) and permute (§3.10.2), any dtype.
//
// Reshape normalises the axes, then simplifies the permutation: size-1 axes
// are dropped and input axes that stay adjacent in the output are merged
// (a [B, S, H, D] → [B, H, S, D] permute becomes a 3-D one, a transpose of
// size-1 axes becomes a copy). The result runs as:
//   rank <= 1     a memcpy (the permutation was a relabelling);
//   8-byte elements whose innermost output axis is strided in the input
//                 our own tiled copy (XNNPACK's x64 kernels are scalar in
//                 wasm: a 512 x 512 f64 transpose took 1.1 ms, 13x f32's),
//                 and 4-byte ones when that axis has at most 4 elements
//                 (NCHW -> NHWC of 3 channels: whole rows of 3 gathered)
//                 or, in wasm, its input stride is a multiple of 2 KiB
//                 (see SimdTilesFor4Bytes); an innermost axis kept in
//                 place makes blocks of 8-256 bytes (natively 8-64)
//                 elements of it;
//   rank <= 6     XNNPACK transpose_nd by element size (x8, x32, x64);
//   otherwise     our own strided copy.
#include <xnnpack.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/xnn_init.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;

// The permutation `perm` of `shape` with size-1 axes dropped and runs of
// axes that stay adjacent merged. Outputs the reduced input shape and
// permutation (output axis i reads reduced input axis perm[i]).
void SimplifyPermutation(const Shape& shape, const std::vector<int>& perm, std::vector<size_t>* dims,
                         std::vector<size_t>* out_perm) {
  // Output-order list of kept input axes, numbered among the kept ones: two
  // axes with a size-1 axis between them are adjacent once it is dropped
  // ([2, 1, 3, 1, 2] with axes 1 and 3 swapped is a copy).
  std::vector<int> kept_index(shape.size(), -1);
  int kept = 0;
  for (size_t a = 0; a < shape.size(); ++a) {
    if (shape[a] != 1) kept_index[a] = kept++;
  }
  std::vector<int> order;
  for (int p : perm) {
    if (shape[static_cast<size_t>(p)] != 1) order.push_back(kept_index[static_cast<size_t>(p)]);
  }
  std::vector<int64_t> kept_shape;
  for (int64_t d : shape) {
    if (d != 1) kept_shape.push_back(d);
  }
  // Runs of consecutive input axes in output order become one axis.
  std::vector<std::pair<int, int>> runs;  // [first, last] input axes
  for (int p : order) {
    if (!runs.empty() && runs.back().second + 1 == p) {
      runs.back().second = p;
    } else {
      runs.push_back({p, p});
    }
  }
  // Input order of the runs gives the reduced input shape.
  std::vector<size_t> by_input(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) by_input[i] = i;
  std::sort(by_input.begin(), by_input.end(), [&](size_t a, size_t b) { return runs[a].first < runs[b].first; });
  dims->assign(runs.size(), 1);
  out_perm->assign(runs.size(), 0);
  std::vector<size_t> reduced_index(runs.size());
  for (size_t j = 0; j < by_input.size(); ++j) {
    const auto& r = runs[by_input[j]];
    size_t size = 1;
    for (int a = r.first; a <= r.second; ++a) size *= static_cast<size_t>(kept_shape[static_cast<size_t>(a)]);
    (*dims)[j] = size;
    reduced_index[by_input[j]] = j;
  }
  for (size_t i = 0; i < runs.size(); ++i) (*out_perm)[i] = reduced_index[i];
}

class TransposeKernel final : public Kernel {
 public:
  TransposeKernel(ir::OpKind op, size_t element_size, std::vector<int64_t> axes)
      : op_(op), element_size_(element_size), axes_(std::move(axes)) {}

  Status Init() {
    SHREW_RETURN_IF_ERROR(EnsureXnnInitialized());
    xnn_operator_t raw = nullptr;
    xnn_status s = element_size_ == 1   ? xnn_create_transpose_nd_x8(0, &raw)
                   : element_size_ == 4 ? xnn_create_transpose_nd_x32(0, &raw)
                                        : xnn_create_transpose_nd_x64(0, &raw);
    SHREW_RETURN_IF_ERROR(XnnCheck(s, name(), "create"));
    op_xnn_ = AdoptXnnOperator(raw);
    return Status::Ok();
  }

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes(name(), operand_shapes, 1, 1, output_shape));
    const Shape& x = operand_shapes[0];
    Result<std::vector<int>> perm = Permutation(static_cast<int>(x.size()));
    if (!perm.ok()) return perm.status();
    Shape expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) expected[i] = x[static_cast<size_t>((*perm)[i])];
    SHREW_RETURN_IF_ERROR(CheckOutputShape(name(), expected, output_shape));
    bytes_ = static_cast<size_t>(NumElements(x)) * element_size_;
    SimplifyPermutation(x, *perm, &dims_, &perm_);
    // An innermost axis that stays in place moves as blocks of its bytes.
    // Blocks of 8 to kMaxBlockBytes bytes (a [B, S, H, Dh] -> [B, H, S, Dh]
    // permute of f32, attention's heads) are our tiled copy's elements:
    // XNNPACK took 1.6 ns an f32 at Dh 2 in wasm (more than a JS loop),
    // 0.37 at 16, 0.31 at 32, 0.25 at 64; ours 0.23, 0.09, 0.09 and 0.10.
    unit_ = element_size_;
    const size_t block = dims_.empty() ? 0 : element_size_ * dims_.back();
    // (SimplifyPermutation merged what stays adjacent: the rest is gathered.)
    if (dims_.size() > 2 && perm_.back() == dims_.size() - 1 && perm_[dims_.size() - 2] != dims_.size() - 2 &&
        block >= 8 && block <= kMaxBlockBytes && (block & (block - 1)) == 0) {
      unit_ = block;
      dims_.pop_back();
      perm_.pop_back();
    }
    // The output's rows are gathered from a strided input axis; narrow rows
    // (NCHW -> NHWC of 3 channels) and, in wasm, rows gathered from strides
    // of a multiple of 2 KiB take our copy for 4-byte elements too.
    const bool gathered = dims_.size() > 1 && perm_.back() != dims_.size() - 1;
    const bool narrow = gathered && dims_[perm_.back()] <= kNarrowColumns;
    const bool tiled = gathered && (unit_ >= 8 || (unit_ == 4 && (narrow || SimdTilesFor4Bytes())));
    mode_ = bytes_ == 0                           ? Mode::kEmpty
            : dims_.size() <= 1                   ? Mode::kCopy
            : tiled                               ? Mode::kTiled
            : dims_.size() <= XNN_MAX_TENSOR_DIMS ? Mode::kXnn
                                                  : Mode::kStrided;
    if (mode_ == Mode::kXnn) {
      xnn_status s =
          element_size_ == 1
              ? xnn_reshape_transpose_nd_x8(op_xnn_.get(), dims_.size(), dims_.data(), perm_.data(), nullptr)
          : element_size_ == 4
              ? xnn_reshape_transpose_nd_x32(op_xnn_.get(), dims_.size(), dims_.data(), perm_.data(), nullptr)
              : xnn_reshape_transpose_nd_x64(op_xnn_.get(), dims_.size(), dims_.data(), perm_.data(), nullptr);
      SHREW_RETURN_IF_ERROR(XnnCheck(s, name(), "reshape"));
    } else if (mode_ == Mode::kTiled) {
      PlanTiles();
    } else if (mode_ == Mode::kStrided) {
      // Input strides (elements) in output axis order, for the odometer.
      std::vector<size_t> in_strides(dims_.size(), 1);
      for (size_t i = dims_.size() - 1; i-- > 0;) in_strides[i] = in_strides[i + 1] * dims_[i + 1];
      out_dims_.resize(dims_.size());
      strides_.resize(dims_.size());
      for (size_t i = 0; i < dims_.size(); ++i) {
        out_dims_[i] = dims_[perm_[i]];
        strides_[i] = in_strides[perm_[i]];
      }
      index_.assign(dims_.size(), 0);
    }
    return size_t{0};
  }

  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument(std::string(name()) + ": expected 1 operand");
    in_ = operands[0];
    out_ = output;
    if (mode_ != Mode::kXnn) return Status::Ok();
    xnn_status s = element_size_ == 1   ? xnn_setup_transpose_nd_x8(op_xnn_.get(), in_, out_)
                   : element_size_ == 4 ? xnn_setup_transpose_nd_x32(op_xnn_.get(), in_, out_)
                                        : xnn_setup_transpose_nd_x64(op_xnn_.get(), in_, out_);
    return XnnCheck(s, name(), "setup");
  }

  Status Run() override {
    switch (mode_) {
      case Mode::kEmpty:
        return Status::Ok();
      case Mode::kCopy:
        if (in_ != out_) std::memcpy(out_, in_, bytes_);
        return Status::Ok();
      case Mode::kXnn:
        return XnnCheck(xnn_run_operator(op_xnn_.get(), nullptr), name(), "run");
      case Mode::kTiled:
        if (unit_ == 4) {
          TiledCopy<uint32_t>();
        } else if (unit_ == 8) {
          TiledCopy<uint64_t>();
        } else if (unit_ == 16) {
          TiledCopy<Block<16>>();
        } else if (unit_ == 32) {
          TiledCopy<Block<32>>();
        } else if (unit_ == 64) {
          TiledCopy<Block<64>>();
        } else if (unit_ == 128) {
          TiledCopy<Block<128>>();
        } else {
          TiledCopy<Block<256>>();
        }
        return Status::Ok();
      case Mode::kStrided:
        if (element_size_ == 1)
          StridedCopy<uint8_t>();
        else if (element_size_ == 4)
          StridedCopy<uint32_t>();
        else
          StridedCopy<uint64_t>();
        return Status::Ok();
    }
    return Status::Ok();
  }

  int num_xnn_operators() const override { return op_xnn_ ? 1 : 0; }
  const char* impl_name() const override {
    switch (mode_) {
      case Mode::kCopy:
        return "copy";
      case Mode::kStrided:
        return "ref_strided";
      case Mode::kTiled:
        return "ref_tiled";
      default:
        return "xnn_transpose";
    }
  }

 private:
  enum class Mode { kEmpty, kCopy, kXnn, kStrided, kTiled };
  const char* name() const { return ir::OpName(op_); }

  // The full permutation for a rank-`rank` operand, from the attributes.
  Result<std::vector<int>> Permutation(int rank) const {
    std::vector<int> perm(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
    if (op_ == K::kTranspose) {
      if (rank < 2)
        return InvalidArgument("transpose requires a tensor of rank >= 2, got rank " + std::to_string(rank));
      Result<int> d0 = NormalizeAxis(axes_[0], rank);
      if (!d0.ok()) return InvalidArgument("transpose: " + d0.status().message());
      Result<int> d1 = NormalizeAxis(axes_[1], rank);
      if (!d1.ok()) return InvalidArgument("transpose: " + d1.status().message());
      std::swap(perm[static_cast<size_t>(*d0)], perm[static_cast<size_t>(*d1)]);
      return perm;
    }
    if (axes_.size() != static_cast<size_t>(rank)) {
      return InvalidArgument("permute: dims has " + std::to_string(axes_.size()) + " entries for a rank-" +
                             std::to_string(rank) + " tensor");
    }
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t i = 0; i < axes_.size(); ++i) {
      Result<int> a = NormalizeAxis(axes_[i], rank);
      if (!a.ok()) return InvalidArgument("permute: " + a.status().message());
      if (seen[static_cast<size_t>(*a)]) return InvalidArgument("permute: dims is not a permutation (axis repeated)");
      seen[static_cast<size_t>(*a)] = true;
      perm[i] = *a;
    }
    return perm;
  }

  // kTiled: the output is walked as 2-D tiles over two of its axes: `rows_`
  // (the axis that reads the input's contiguous axis) and its innermost
  // axis (contiguous in the output, strided by `col_stride_` in the input),
  // so that both sides of a tile stay in cache; the other axes are an
  // odometer over (outer_dims_, outer_in_, outer_out_).
  void PlanTiles() {
    const size_t rank = dims_.size();
    std::vector<size_t> in_strides(rank, 1), out_dims(rank), out_strides(rank, 1);
    for (size_t i = rank - 1; i-- > 0;) in_strides[i] = in_strides[i + 1] * dims_[i + 1];
    for (size_t i = 0; i < rank; ++i) out_dims[i] = dims_[perm_[i]];
    for (size_t i = rank - 1; i-- > 0;) out_strides[i] = out_strides[i + 1] * out_dims[i + 1];
    const size_t row_axis = static_cast<size_t>(std::find(perm_.begin(), perm_.end(), rank - 1) - perm_.begin());
    rows_ = out_dims[row_axis];
    row_out_stride_ = out_strides[row_axis];
    cols_ = out_dims[rank - 1];
    col_stride_ = in_strides[perm_[rank - 1]];
    outer_dims_.clear();
    outer_in_.clear();
    outer_out_.clear();
    for (size_t i = 0; i + 1 < rank; ++i) {
      if (i == row_axis) continue;
      outer_dims_.push_back(out_dims[i]);
      outer_in_.push_back(in_strides[perm_[i]]);
      outer_out_.push_back(out_strides[i]);
    }
    index_.assign(outer_dims_.size(), 0);
  }

  // Whether the input stride of the output's innermost axis is a multiple
  // of 2 KiB, in the wasm build (natively the tiles have no 4 x 4 blocks):
  // the lines of a column of the input then share a few cache sets, and
  // XNNPACK's transpose, walking a few input rows across all their columns,
  // took 3.5x its time at other sizes (f32 [1024, 1024] 0.71 ns an element,
  // [1000, 1000] 0.19; [64, 16384] 0.62). Our 16 x 16 tiles of 4 x 4
  // blocks take 0.46 and 0.38 there, but 1.1-1.9x XNNPACK's time elsewhere.
  bool SimdTilesFor4Bytes() const {
#ifdef __wasm_simd128__
    size_t stride = element_size_;
    for (size_t a = perm_.back() + 1; a < dims_.size(); ++a) stride *= dims_[a];
    return stride % 2048 == 0;
#else
    return false;
#endif
  }

  // Output rows of kNarrowColumns or fewer are copied whole, each a
  // fixed-length gather: 16 x 16 tiles of 3 columns cost 2.2x the reverse
  // permute (f64 [8, 3, 32, 32] -> [8, 32, 32, 3]: 1.2 ns an element).
  static constexpr size_t kNarrowColumns = 4;

  template <typename T, size_t C>
  void NarrowRows(const T* in, T* out) const {
    for (size_t r = 0; r < rows_; ++r) {
      const T* src = in + r;
      T* dst = out + r * row_out_stride_;
      for (size_t c = 0; c < C; ++c) dst[c] = src[c * col_stride_];
    }
  }

#ifdef __wasm_simd128__
  // Output rows r and r + 1, columns [c0, c1), of 8-byte elements: two
  // columns at a time, each pair of input rows one 2 x 2 block of two
  // 16-byte loads and two shuffles (element by element the f64 copy took 6x
  // XNNPACK's f32 transpose per element).
  template <typename T>
  void PairOfRows(const T* src, T* dst, size_t c0, size_t c1) const {
    T* dst1 = dst + row_out_stride_;
    size_t c = c0;
    for (; c + 2 <= c1; c += 2) {
      const v128_t a = wasm_v128_load(src + c * col_stride_);        // (c, r), (c, r + 1)
      const v128_t b = wasm_v128_load(src + (c + 1) * col_stride_);  // (c + 1, r), (c + 1, r + 1)
      wasm_v128_store(dst + c, wasm_i64x2_shuffle(a, b, 0, 2));
      wasm_v128_store(dst1 + c, wasm_i64x2_shuffle(a, b, 1, 3));
    }
    for (; c < c1; ++c) dst[c] = src[c * col_stride_], dst1[c] = src[c * col_stride_ + 1];
  }

  // The same for 4-byte elements: 4 x 4 blocks of four loads and eight shuffles.
  template <typename T>
  void QuadOfRows(const T* src, T* dst, size_t c0, size_t c1) const {
    const size_t s = col_stride_, d = row_out_stride_;
    size_t c = c0;
    for (; c + 4 <= c1; c += 4) {
      const v128_t v0 = wasm_v128_load(src + c * s), v1 = wasm_v128_load(src + (c + 1) * s);
      const v128_t v2 = wasm_v128_load(src + (c + 2) * s), v3 = wasm_v128_load(src + (c + 3) * s);
      const v128_t t0 = wasm_i32x4_shuffle(v0, v1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(v0, v1, 2, 6, 3, 7);
      const v128_t t2 = wasm_i32x4_shuffle(v2, v3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(v2, v3, 2, 6, 3, 7);
      wasm_v128_store(dst + c, wasm_i64x2_shuffle(t0, t2, 0, 2));
      wasm_v128_store(dst + d + c, wasm_i64x2_shuffle(t0, t2, 1, 3));
      wasm_v128_store(dst + 2 * d + c, wasm_i64x2_shuffle(t1, t3, 0, 2));
      wasm_v128_store(dst + 3 * d + c, wasm_i64x2_shuffle(t1, t3, 1, 3));
    }
    for (; c < c1; ++c) {
      for (size_t k = 0; k < 4; ++k) dst[k * d + c] = src[c * s + k];
    }
  }
#endif

  template <typename T>
  void TiledCopy() {
    constexpr size_t kTile = 16;
    const T* in = static_cast<const T*>(in_);
    T* out = static_cast<T*>(out_);
    size_t outer = 1;
    for (size_t d : outer_dims_) outer *= d;
    for (size_t& i : index_) i = 0;
    size_t in_off = 0, out_off = 0;
    for (size_t o = 0; o < outer; ++o) {
      switch (cols_) {
        case 2: NarrowRows<T, 2>(in + in_off, out + out_off); break;
        case 3: NarrowRows<T, 3>(in + in_off, out + out_off); break;
        case 4: NarrowRows<T, 4>(in + in_off, out + out_off); break;
        default:
          for (size_t r0 = 0; r0 < rows_; r0 += kTile) {
            const size_t r1 = std::min(rows_, r0 + kTile);
            for (size_t c0 = 0; c0 < cols_; c0 += kTile) {
              const size_t c1 = std::min(cols_, c0 + kTile);
              size_t r = r0;
#ifdef __wasm_simd128__
              if constexpr (sizeof(T) == 8) {
                for (; r + 2 <= r1 && c1 - c0 >= 2; r += 2) {
                  PairOfRows(in + in_off + r, out + out_off + r * row_out_stride_, c0, c1);
                }
              } else if constexpr (sizeof(T) == 4) {
                for (; r + 4 <= r1 && c1 - c0 >= 4; r += 4) {
                  QuadOfRows(in + in_off + r, out + out_off + r * row_out_stride_, c0, c1);
                }
              }
#endif
              for (; r < r1; ++r) {
                const T* src = in + in_off + r;
                T* dst = out + out_off + r * row_out_stride_;
                for (size_t c = c0; c < c1; ++c) dst[c] = src[c * col_stride_];
              }
            }
          }
      }
      for (size_t i = outer_dims_.size(); i-- > 0;) {
        ++index_[i];
        in_off += outer_in_[i];
        out_off += outer_out_[i];
        if (index_[i] < outer_dims_[i]) break;
        in_off -= outer_in_[i] * outer_dims_[i];
        out_off -= outer_out_[i] * outer_dims_[i];
        index_[i] = 0;
      }
    }
  }

  template <typename T>
  void StridedCopy() {
    const T* in = static_cast<const T*>(in_);
    T* out = static_cast<T*>(out_);
    const size_t rank = out_dims_.size();
    const size_t inner = out_dims_[rank - 1], inner_stride = strides_[rank - 1];
    size_t rows = 1;
    for (size_t i = 0; i + 1 < rank; ++i) rows *= out_dims_[i];
    for (size_t i = 0; i < rank; ++i) index_[i] = 0;
    size_t off = 0;
    for (size_t r = 0; r < rows; ++r) {
      T* o = out + r * inner;
      for (size_t j = 0; j < inner; ++j) o[j] = in[off + j * inner_stride];
      for (size_t i = rank - 1; i-- > 0;) {
        ++index_[i];
        off += strides_[i];
        if (index_[i] < out_dims_[i]) break;
        off -= strides_[i] * out_dims_[i];
        index_[i] = 0;
      }
    }
  }

  // The largest innermost block taken as one element: natively XNNPACK's
  // copies of 128 and 256 bytes are as fast as ours.
#ifdef __wasm_simd128__
  static constexpr size_t kMaxBlockBytes = 256;
#else
  static constexpr size_t kMaxBlockBytes = 64;
#endif

  // N bytes, copied inline (a struct copy of 128 bytes was a memcpy call).
  template <size_t N>
  struct Block {
    static_assert(N % 16 == 0);
    uint64_t words[N / 8];
    Block& operator=(const Block& other) {
#ifdef __wasm_simd128__
      for (size_t b = 0; b < N; b += 16) {
        wasm_v128_store(reinterpret_cast<std::byte*>(words) + b,
                        wasm_v128_load(reinterpret_cast<const std::byte*>(other.words) + b));
      }
#else
      std::memcpy(words, other.words, N);
#endif
      return *this;
    }
  };

  ir::OpKind op_;
  size_t element_size_;
  size_t unit_ = 0;  // bytes moved as one element by kTiled: element_size_, or a block of them
  std::vector<int64_t> axes_;  // transpose: {dim0, dim1}; permute: dims
  XnnOperatorPtr op_xnn_;
  Mode mode_ = Mode::kEmpty;
  size_t bytes_ = 0;
  std::vector<size_t> dims_, perm_;                 // simplified
  std::vector<size_t> out_dims_, strides_, index_;  // kStrided (index_ also kTiled)
  size_t rows_ = 0, row_out_stride_ = 0, cols_ = 0, col_stride_ = 0;  // kTiled
  std::vector<size_t> outer_dims_, outer_in_, outer_out_;             // kTiled
  const void* in_ = nullptr;
  void* out_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateTransposeKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  std::vector<int64_t> axes;
  if (spec.node->op == K::kTranspose) {
    Result<int64_t> d0 = IntAttr(*spec.node, "dim0");
    if (!d0.ok()) return d0.status();
    Result<int64_t> d1 = IntAttr(*spec.node, "dim1");
    if (!d1.ok()) return d1.status();
    axes = {*d0, *d1};
  } else {
    Result<std::vector<int64_t>> dims = IntListAttr(*spec.node, "dims");
    if (!dims.ok()) return dims.status();
    axes = std::move(dims).value();
  }
  auto k = std::make_unique<TransposeKernel>(spec.node->op, ir::StorageByteSize(*storage), std::move(axes));
  SHREW_RETURN_IF_ERROR(k->Init());
  return KernelPtr(std::move(k));
}

}  // namespace shrew::runtime::kernels
