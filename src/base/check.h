// SHREW_CHECK: invariants that only a bug can break. Always on; prints the
// failed condition and aborts (a wasm trap in the browser, which the JS
// wrapper turns into "module unusable"). Never used for user input.
#pragma once

#include <cstdio>
#include <cstdlib>

#define SHREW_CHECK(cond)                                                        \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "%s:%d: SHREW_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

#ifdef NDEBUG
#define SHREW_DCHECK(cond) \
  do {                     \
  } while (0)
#else
#define SHREW_DCHECK(cond) SHREW_CHECK(cond)
#endif
