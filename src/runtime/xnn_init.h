// One-time XNNPACK initialisation, shared by every kernel.
#pragma once

#include "base/status.h"

namespace shrew::runtime {

// Initialises XNNPACK on first call (thread-safe); later calls return the
// first call's outcome. Fails on a CPU XNNPACK does not support.
Status EnsureXnnInitialized();

// Human-readable name of an xnn_status value, for error messages.
const char* XnnStatusName(int status);

}  // namespace shrew::runtime
