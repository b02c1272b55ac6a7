// Status and Result<T>: library failures as values (no exceptions anywhere,
// so the same code runs in wasm where exception catching is off).
// User mistakes in source or inputs are Diagnostics (diag/) or Status codes
// with a clear message; bugs trip SHREW_CHECK (base/check.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/source_span.h"

namespace shrew {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // bad input from the caller (shape, dtype, name, bytes)
  kNotFound,           // unknown graph, input or parameter name
  kOutOfRange,         // index out of range at run time (e.g. embedding)
  kResourceExhausted,  // memory or a configured cap
  kFailedPrecondition, // object not in a usable state (e.g. compile failed)
  kUnimplemented,
  kInternal,           // a library (XNNPACK) failed
};

const char* StatusCodeName(StatusCode code);

// One pointer: null when ok, else the failure on the heap. Success costs
// nothing to make, move or test (every kernel run returns one), and the
// failure's details (message, source position) cost no code where a Status
// is only passed along.
class [[nodiscard]] Status {
 public:
  Status() = default;
  // A failure; StatusCode::kOk gives success (the message is dropped).
  Status(StatusCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;
  static Status Ok() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const;
  const std::string& message() const;  // "" when ok
  // Where in the .sw source the failure is (a node, a parameter, an
  // @assert), when it is about one; invalid otherwise. The message says it
  // too, for people; this is for tools (the playground marks it).
  const SourceSpan& span() const;
  std::string ToString() const;

  // This status pointing at `span`, unless it already points somewhere:
  // the innermost position (the node inside a called graph) is the precise one.
  Status At(const SourceSpan& span) &&;
  // The same failure (code and span) with context before its message.
  Status Prefixed(std::string_view prefix) const;

 private:
  struct Rep;
  struct RepDeleter {
    void operator()(Rep* rep) const;
  };
  std::unique_ptr<Rep, RepDeleter> rep_;
};

inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status OutOfRange(std::string m) { return Status(StatusCode::kOutOfRange, std::move(m)); }
inline Status ResourceExhausted(std::string m) { return Status(StatusCode::kResourceExhausted, std::move(m)); }
inline Status FailedPrecondition(std::string m) { return Status(StatusCode::kFailedPrecondition, std::move(m)); }
inline Status Unimplemented(std::string m) { return Status(StatusCode::kUnimplemented, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}            // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}    // NOLINT: must not be Ok
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace shrew

#define SHREW_RETURN_IF_ERROR(expr)              \
  do {                                           \
    ::shrew::Status shrew_status_ = (expr);      \
    if (!shrew_status_.ok()) return shrew_status_; \
  } while (0)
