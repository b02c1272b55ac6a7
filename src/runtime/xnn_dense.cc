#include "runtime/xnn_dense.h"

#include <xnnpack.h>

#include <limits>
#include <memory>
#include <string>

#include "runtime/xnn_init.h"

namespace shrew::runtime {
namespace {

struct OperatorDeleter {
  void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using OperatorPtr = std::unique_ptr<xnn_operator, OperatorDeleter>;

Status XnnError(const char* step, xnn_status status) {
  return XnnStatusError(status, std::string("XNNPACK fully_connected ") + step + " failed");
}

}  // namespace

Result<std::vector<float>> DenseXnn(const DenseShape& shape, const std::vector<float>& x,
                                    const std::vector<float>& w, const std::vector<float>& bias) {
  if (shape.in == 0 || shape.out == 0) return InvalidArgument("dense: in and out must be positive");
  if (x.size() != shape.batch * shape.in) {
    return InvalidArgument("dense: x has " + std::to_string(x.size()) + " elements, expected " +
                           std::to_string(shape.batch * shape.in));
  }
  if (w.size() != shape.out * shape.in) {
    return InvalidArgument("dense: w has " + std::to_string(w.size()) + " elements, expected " +
                           std::to_string(shape.out * shape.in));
  }
  if (!bias.empty() && bias.size() != shape.out) {
    return InvalidArgument("dense: bias has " + std::to_string(bias.size()) + " elements, expected " +
                           std::to_string(shape.out));
  }
  SHREW_RETURN_IF_ERROR(EnsureXnnInitialized());

  xnn_operator_t raw = nullptr;
  const float inf = std::numeric_limits<float>::infinity();
  xnn_status status = xnn_create_fully_connected_nc_f32(
      shape.in, shape.out, /*input_stride=*/shape.in, /*output_stride=*/shape.out, w.data(),
      bias.empty() ? nullptr : bias.data(), -inf, inf, /*flags=*/0,
      /*code_cache=*/nullptr, /*weights_cache=*/nullptr, &raw);
  if (status != xnn_status_success) return XnnError("create", status);
  OperatorPtr op(raw);

  status = xnn_reshape_fully_connected_nc_f32(op.get(), shape.batch, /*threadpool=*/nullptr);
  if (status != xnn_status_success) return XnnError("reshape", status);

  // XNNPACK may read (never write) up to XNN_EXTRA_BYTES past the input.
  std::vector<float> input(x.size() + XNN_EXTRA_BYTES / sizeof(float));
  std::copy(x.begin(), x.end(), input.begin());
  std::vector<float> y(shape.batch * shape.out);
  status = xnn_setup_fully_connected_nc_f32(op.get(), input.data(), y.data());
  if (status != xnn_status_success) return XnnError("setup", status);
  status = xnn_run_operator(op.get(), /*threadpool=*/nullptr);
  if (status != xnn_status_success) return XnnError("run", status);
  return y;
}

}  // namespace shrew::runtime
