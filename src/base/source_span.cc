#include "base/source_span.h"

#include <algorithm>

namespace shrew {

SourceSpan SourceSpan::Cover(const SourceSpan& a, const SourceSpan& b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  const SourceSpan& first = a.offset <= b.offset ? a : b;
  const uint32_t end = std::max(a.offset + a.length, b.offset + b.length);
  SourceSpan s = first;
  s.length = end - first.offset;
  return s;
}

}  // namespace shrew
