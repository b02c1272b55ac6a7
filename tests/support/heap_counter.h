// Counts heap allocations made while a CountAllocations is alive: the check
// behind "compute never allocates" (jit/executor.h, api/prepared_run.h).
// Every C allocation function (malloc, calloc, realloc, the aligned ones)
// counts, and so does operator new, which reaches malloc or aligned_alloc.
//
// Available in the native test build on glibc, where heap_counter.cc
// replaces malloc with a counting layer over glibc's own allocator (the
// replacement glibc documents). Under AddressSanitizer, which owns malloc,
// and on other C libraries HeapCountingAvailable() is false and callers
// skip the check. Counts every thread (the tests run kernels on one).
#pragma once

#include <cstdint>

namespace shrew::testing {

bool HeapCountingAvailable();

class CountAllocations {
 public:
  CountAllocations();
  ~CountAllocations();
  CountAllocations(const CountAllocations&) = delete;
  CountAllocations& operator=(const CountAllocations&) = delete;
  // Allocations since construction.
  int64_t count() const;

 private:
  int64_t start_;
};

}  // namespace shrew::testing
