// Binary elementwise rows: one type-erased loop per (operation, storage
// type), chosen when a kernel is created. Our kernels for arithmetic,
// comparisons, the f32 fallback of the XNNPACK binary stage and the "+ c"
// of the reference matmul all run through it, so the broadcast walk exists
// once and each operation's loops exist once per dtype instead of once per
// kernel class, op and dtype (that duplication was a fifth of the wasm
// module's kernel code).
//
// A row computes out[i] = f(a[i·sa], b[i·sb]) for i < n, with steps 0
// (broadcast) or 1, vectorised for each step combination (loops.h).
//
//   BinaryRows rows = ArithmeticRows(ir::OpKind::kAdd, ir::StorageType::kI64);
//   loop.Init(out_shape, {&a_shape, &b_shape});
//   rows.Run(loop, a, b, out);
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/status.h"
#include "ir/dtype.h"
#include "ir/op.h"
#include "runtime/kernels/broadcast.h"

namespace shrew::runtime::kernels {

using BinaryRowFn = void (*)(const void* a, int64_t sa, const void* b, int64_t sb, void* out, size_t n);

// A chosen row and how to call it; false when the (op, storage) pair has
// no row.
struct BinaryRows {
  BinaryRowFn fn = nullptr;
  size_t in_bytes = 0;   // element size of both operands
  size_t out_bytes = 0;  // element size of the output
  bool swap = false;     // fn computes f(b, a): greater(a, b) is less(b, a)

  explicit operator bool() const { return fn != nullptr; }
  // out = f(a, b) over `loop`, whose input 0 is a and input 1 is b.
  void Run(const BroadcastLoop<2>& loop, const void* a, const void* b, void* out) const;
  // Whether Run takes `loop` in groups of whole rows, one call each (a
  // broadcast whose rows are shorter than 32; row_groups.h) rather than a
  // call per row.
  static bool RunsInGroups(const BroadcastLoop<2>& loop);
};

// add sub mul div mod pow for f32 f64 i64 u8, and fused_add_relu /
// fused_sub_relu for f64 (relu takes floats; f32's is an XNNPACK stage), with the
// semantics of OPS.md §3.4: integers wrap, integer division truncates and
// INT64_MIN / −1 wraps, mod is floored, float pow is C pow and integer pow
// exact repeated multiplication. The output may be an operand whose step is
// 1 (in place). Integer div and mod rows assume non-zero divisors and
// integer pow rows non-negative exponents: check with CheckRightOperand.
BinaryRows ArithmeticRows(ir::OpKind op, ir::StorageType storage);

// For div, mod (integer storage): InvalidArgument "integer division by
// zero" when one of the `n` elements of `b` is 0; for pow (i64):
// "negative integer exponent in pow" when one is negative. Ok otherwise.
Status CheckRightOperand(ir::OpKind op, ir::StorageType storage, const void* b, size_t n);

// equal not_equal less greater less_equal greater_equal and or for f32 f64
// i64 u8 bool (OPS.md §3.5, §3.6), writing bool bytes 0/1. NaN compares
// false except `!=`; and/or take non-zero (NaN too) as true. The output
// never overlaps an operand.
BinaryRows ComparisonRows(ir::OpKind op, ir::StorageType storage);

}  // namespace shrew::runtime::kernels
