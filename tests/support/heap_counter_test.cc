// The allocation counter behind the "compute never allocates" checks must
// see every way our code and XNNPACK reach the heap, and nothing outside its
// scope.
#include "support/heap_counter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace shrew::testing {
namespace {

// Keeps the compiler from eliding an allocation it can see is unused.
void* volatile g_sink;

TEST(HeapCounter, CountsEveryAllocationFunctionInScope) {
  if (!HeapCountingAvailable()) GTEST_SKIP() << "no allocation counting in this build";
  CountAllocations counted;
  EXPECT_EQ(counted.count(), 0);
  void* m = std::malloc(24);
  g_sink = m;
  EXPECT_EQ(counted.count(), 1);
  void* c = std::calloc(3, 8);
  g_sink = c;
  void* r = std::realloc(m, 4096);
  g_sink = r;
  EXPECT_EQ(counted.count(), 3);
  void* a = std::aligned_alloc(64, 128);  // the executor's arena
  g_sink = a;
  void* pm = nullptr;
  ASSERT_EQ(posix_memalign(&pm, 64, 256), 0);  // XNNPACK's allocator
  g_sink = pm;
  EXPECT_EQ(counted.count(), 5);
  std::free(r);
  std::free(c);
  std::free(a);
  std::free(pm);
  EXPECT_EQ(counted.count(), 5);  // frees are not allocations
  auto v = std::make_unique<std::vector<int>>(1000);
  g_sink = v->data();
  EXPECT_EQ(counted.count(), 7);
  void* aligned = ::operator new[](100, std::align_val_t(64), std::nothrow);  // runtime::Tensor storage
  g_sink = aligned;
  EXPECT_EQ(counted.count(), 8);
  ::operator delete[](aligned, std::align_val_t(64));
}

TEST(HeapCounter, NothingOutsideAScopeAndNestedScopesCountFromTheirStart) {
  if (!HeapCountingAvailable()) GTEST_SKIP() << "no allocation counting in this build";
  void* before = std::malloc(16);
  g_sink = before;
  CountAllocations outer;
  std::string s(200, 'x');  // beyond the small-string buffer
  g_sink = s.data();
  {
    CountAllocations inner;
    EXPECT_EQ(inner.count(), 0);
    void* p = std::malloc(16);
    g_sink = p;
    std::free(p);
    EXPECT_EQ(inner.count(), 1);
  }
  EXPECT_EQ(outer.count(), 2);
  std::free(before);
}

}  // namespace
}  // namespace shrew::testing
