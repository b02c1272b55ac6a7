#include "support/heap_counter.h"

#include <atomic>
#include <cerrno>
#include <cstddef>

#include "support/sanitizer.h"

#if defined(__GLIBC__) && !defined(SHREW_TEST_UNDER_ASAN)
#define SHREW_HEAP_COUNTER 1
#endif

namespace {
std::atomic<int64_t> g_allocations{0};
std::atomic<int> g_scopes{0};
}  // namespace

#ifdef SHREW_HEAP_COUNTER
extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void* __libc_valloc(size_t);
void* __libc_pvalloc(size_t);
}

namespace {
// Relaxed: only the counts matter, read after the counted code returned.
inline void Note() {
  if (g_scopes.load(std::memory_order_relaxed) > 0) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(size_t n) {
  Note();
  return __libc_malloc(n);
}
void free(void* p) { __libc_free(p); }
void* calloc(size_t count, size_t n) {
  Note();
  return __libc_calloc(count, n);
}
void* realloc(void* p, size_t n) {
  Note();
  return __libc_realloc(p, n);
}
void* memalign(size_t alignment, size_t n) {
  Note();
  return __libc_memalign(alignment, n);
}
void* aligned_alloc(size_t alignment, size_t n) {
  Note();
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, size_t alignment, size_t n) {
  Note();
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(alignment, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
void* valloc(size_t n) {
  Note();
  return __libc_valloc(n);
}
void* pvalloc(size_t n) {
  Note();
  return __libc_pvalloc(n);
}
}
#endif

namespace shrew::testing {

bool HeapCountingAvailable() {
#ifdef SHREW_HEAP_COUNTER
  return true;
#else
  return false;
#endif
}

CountAllocations::CountAllocations() : start_(g_allocations.load()) { g_scopes.fetch_add(1); }
CountAllocations::~CountAllocations() { g_scopes.fetch_sub(1); }
int64_t CountAllocations::count() const { return g_allocations.load() - start_; }

}  // namespace shrew::testing
