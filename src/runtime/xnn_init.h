// One-time XNNPACK initialisation, shared by every kernel.
#pragma once

#include <string>

#include "base/status.h"

namespace shrew::runtime {

// Initialises XNNPACK on first call (thread-safe); later calls return the
// first call's outcome. Fails on a CPU XNNPACK does not support.
Status EnsureXnnInitialized();

// Human-readable name of an xnn_status value, for error messages.
const char* XnnStatusName(int status);

// The error for a failed XNNPACK call: `message` + ": " + the status's name,
// as ResourceExhausted when XNNPACK ran out of memory (the caller can free
// memory or ask for less), else Internal (a parameter we should not pass).
Status XnnStatusError(int status, std::string message);

}  // namespace shrew::runtime
