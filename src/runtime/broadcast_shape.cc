#include "runtime/broadcast_shape.h"

#include <algorithm>

namespace shrew::runtime {

Result<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return InvalidArgument("shapes " + ShapeToString(a) + " and " + ShapeToString(b) + " cannot be broadcast");
    }
  }
  return out;
}

}  // namespace shrew::runtime
