#include "base/status.h"

namespace shrew {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kNotFound: return "not_found";
    case StatusCode::kOutOfRange: return "out_of_range";
    case StatusCode::kResourceExhausted: return "resource_exhausted";
    case StatusCode::kFailedPrecondition: return "failed_precondition";
    case StatusCode::kUnimplemented: return "unimplemented";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

Status Status::At(const SourceSpan& span) const& { return Status(*this).At(span); }

Status Status::At(const SourceSpan& span) && {
  if (!span_.valid() && !ok()) span_ = span;
  return std::move(*this);
}

Status Status::Prefixed(std::string_view prefix) const {
  Status s(code_, std::string(prefix) + message_);
  s.span_ = span_;
  return s;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

}  // namespace shrew
