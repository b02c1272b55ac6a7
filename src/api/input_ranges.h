// Values of inputs (and parameters) declared as a narrow integer dtype. i8, i16, i32, u16,
// u32 and u64 are held as i64 (OPS.md §1.3), so data given as i64 (a NumPy
// int64 array for an i32 input) can hold values no such input can: the graph
// would compute with 2^32 while the i32 outputs wrap it to 0, or take a u64's
// -1 for less than 0. Such values are an input error instead, naming the
// input, the value and where it is.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "base/status.h"
#include "ir/dtype.h"
#include "jit/binding.h"

namespace shrew {

struct IntRange {
  int64_t lo = 0;
  int64_t hi = 0;
};

// The range of `declared` when it is an integer dtype narrower than the i64
// it is held as; nullopt for every other dtype (nothing to check).
std::optional<IntRange> NarrowIntRange(ir::DType declared);

// Ok when every value lies in `range`; else InvalidArgument naming `input`
// (as `kind`: "input", "parameter"; then `graph`'s name when not empty, as
// the other input errors say "input 'a' of graph 'G'"), the first value out
// of range and its index, with `issue` filled in.
Status CheckIntRange(std::string_view input, ir::DType declared, IntRange range, std::span<const int64_t> values,
                     jit::InputIssue* issue, std::string_view kind = "input", std::string_view graph = {});

}  // namespace shrew
