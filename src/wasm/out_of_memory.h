// Running out of wasm memory without exceptions. The library reports a failed
// tensor, arena or XNNPACK allocation as ResourceExhausted, but its std
// containers (AST, IR, tapes, plans) abort the module when `new` fails. Two
// guards for that case, for the bindings only (the native build throws
// std::bad_alloc as usual):
//   - EnsureHeadroom before a call that builds such containers: the margin
//     must be free, as room the memory can still grow by or else as a block
//     malloc gives (allocated and released), so a memory that is nearly full
//     is an error value, not an abort;
//   - operator new records what it failed to allocate before it aborts, and
//     the JS wrapper reads it back (shrew_abort_reason) for its error, which
//     said only "Aborted()".
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/status.h"
#include "ir/graph.h"

namespace shrew::wasm {

// The margin kept free for compiling, loading or planning.
inline constexpr size_t kWorkHeadroom = size_t{16} << 20;

// What compiling takes per byte of source, at most (AST and IR), and so the
// longest source the module's largest memory (-sMAXIMUM_MEMORY=2GB) can
// compile beside what a fresh module holds (16 MiB, the source's own two
// copies on the way in, the heap's growth steps): 28 MiB. The CLI reads
// sources up to it (js/src/cli/files.ts).
inline constexpr uint64_t kCompileBytesPerSourceByte = 64;
inline constexpr uint64_t kMaxSourceBytes = uint64_t{28} << 20;
static_assert(kWorkHeadroom + kMaxSourceBytes * (kCompileBytesPerSourceByte + 2) + (uint64_t{64} << 20) <=
                  uint64_t{2048} << 20,
              "the longest source must compile in a fresh module");

// What building a program's executors takes per IR node, at most: its
// instruction, kernel (an XNNPACK operator), plan entries and labels held
// (about 3 KiB measured on long chains, `x + x + …`) and what the build
// uses on the way. A 3 MiB sum of 1.5 million terms aborted the module.
inline constexpr uint64_t kBuildBytesPerNode = 6144;

// The IR nodes of every graph of `program`: what building it, and a bundle
// of it, is sized by.
uint64_t NodeCount(const ir::Program& program);

// EnsureHeadroom for building the executors of `program`.
Status EnsureBuildHeadroom(const ir::Program& program);

// Ok when kWorkHeadroom plus `per_byte` bytes for each of `input_bytes`
// (a source's) can be allocated now; else ResourceExhausted naming `what`
// ("compile", "run", …).
Status EnsureHeadroom(const char* what, uint64_t input_bytes = 0, uint64_t per_byte = 0);

}  // namespace shrew::wasm
