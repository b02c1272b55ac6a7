#include "runtime/xnn_init.h"

#include <xnnpack.h>

namespace shrew::runtime {

Status EnsureXnnInitialized() {
  // A function-local static runs xnn_initialize exactly once.
  static const xnn_status status = xnn_initialize(/*allocator=*/nullptr);
  if (status != xnn_status_success) {
    return Internal(std::string("xnn_initialize failed: ") + XnnStatusName(status));
  }
  return Status::Ok();
}

const char* XnnStatusName(int status) {
  switch (static_cast<xnn_status>(status)) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "uninitialized";
    case xnn_status_invalid_parameter: return "invalid parameter";
    case xnn_status_invalid_state: return "invalid state";
    case xnn_status_unsupported_parameter: return "unsupported parameter";
    case xnn_status_unsupported_hardware: return "unsupported hardware";
    case xnn_status_out_of_memory: return "out of memory";
    case xnn_status_reallocation_required: return "reallocation required";
    case xnn_status_deprecated: return "deprecated";
  }
  return "unknown xnn_status";
}

Status XnnStatusError(int status, std::string message) {
  message += ": ";
  message += XnnStatusName(status);
  if (status == xnn_status_out_of_memory) return ResourceExhausted(std::move(message));
  return Internal(std::move(message));
}

}  // namespace shrew::runtime
