#include "wasm/out_of_memory.h"

#include <emscripten/em_macros.h>
#include <emscripten/heap.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

namespace {

// Written once, just before an abort; read by the JS wrapper (module.ts).
char g_abort_reason[160];

// Escapes the probe, so that the compiler cannot drop its malloc/free pair.
void* volatile g_probe;

}  // namespace

namespace shrew::wasm {

Status EnsureHeadroom(const char* what, uint64_t input_bytes, uint64_t per_byte) {
  // In 64 bits: 64 bytes for each byte of a 64 MiB source wraps a 32-bit size_t.
  const uint64_t bytes = kWorkHeadroom + input_bytes * per_byte;
  // While the memory can still grow by that much, malloc will find it: no
  // probe, which would grow the memory now (a 16 MiB module became 19 MiB).
  if (emscripten_get_heap_max() - emscripten_get_heap_size() >= bytes) return Status::Ok();
  // More than any module holds: no program to dispose of would help.
  if (bytes > emscripten_get_heap_max()) {
    return ResourceExhausted("not enough wasm memory to " + std::string(what) + ": it needs up to " +
                             std::to_string(bytes >> 20) + " MiB, more than a module's memory holds (" +
                             std::to_string(emscripten_get_heap_max() >> 20) + " MiB)");
  }
  g_probe = bytes <= SIZE_MAX ? std::malloc(static_cast<size_t>(bytes)) : nullptr;
  if (g_probe == nullptr) {
    return ResourceExhausted("not enough wasm memory left to " + std::string(what) + " (" +
                             std::to_string(bytes >> 20) +
                             " MiB is kept free for it); dispose of programs no longer needed, or load another module");
  }
  std::free(g_probe);
  g_probe = nullptr;
  return Status::Ok();
}

uint64_t NodeCount(const ir::Program& program) {
  uint64_t nodes = 0;
  for (const ir::Graph& g : program.graphs) nodes += static_cast<uint64_t>(g.num_nodes());
  return nodes;
}

Status EnsureBuildHeadroom(const ir::Program& program) {
  const uint64_t nodes = NodeCount(program);
  const std::string what = "build a program of " + std::to_string(nodes) + " nodes";
  return EnsureHeadroom(what.c_str(), nodes, kBuildBytesPerNode);
}

}  // namespace shrew::wasm

extern "C" EMSCRIPTEN_KEEPALIVE const char* shrew_abort_reason() { return g_abort_reason; }

// The replaceable allocation functions that std containers call.
void* operator new(std::size_t n) {
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  std::snprintf(g_abort_reason, sizeof g_abort_reason, "out of wasm memory (an allocation of %zu bytes failed)", n);
  std::abort();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
// libc++'s nothrow forms call the throwing ones, which abort without exceptions.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n == 0 ? 1 : n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n == 0 ? 1 : n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
