// Running out of wasm memory without exceptions. The library reports a failed
// tensor, arena or XNNPACK allocation as ResourceExhausted, but its std
// containers (AST, IR, tapes, plans) abort the module when `new` fails. Two
// guards for that case, for the bindings only (the native build throws
// std::bad_alloc as usual):
//   - EnsureHeadroom before a call that builds such containers: the margin
//     is allocated and released (growing the memory if it can), so a memory
//     that is nearly full is an error value, not an abort;
//   - operator new records what it failed to allocate before it aborts, and
//     the JS wrapper reads it back (shrew_abort_reason) for its error, which
//     said only "Aborted()".
#pragma once

#include <cstddef>

#include "base/status.h"

namespace shrew::wasm {

// The margin kept free for compiling, loading or planning.
inline constexpr size_t kWorkHeadroom = size_t{16} << 20;

// Ok when `bytes` can be allocated now; else ResourceExhausted naming `what`
// ("compile", "run", …).
Status EnsureHeadroom(size_t bytes, const char* what);

}  // namespace shrew::wasm
