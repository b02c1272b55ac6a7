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

struct Status::Rep {
  StatusCode code;
  std::string message;
  SourceSpan span;
};

void Status::RepDeleter::operator()(Rep* rep) const { delete rep; }

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) rep_.reset(new Rep{code, std::move(message), {}});
}

Status::Status(const Status& other) {
  if (other.rep_) rep_.reset(new Rep(*other.rep_));
}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_.reset(other.rep_ ? new Rep(*other.rep_) : nullptr);
  return *this;
}

StatusCode Status::code() const { return rep_ ? rep_->code : StatusCode::kOk; }

const std::string& Status::message() const {
  static const std::string kNone;
  return rep_ ? rep_->message : kNone;
}

const SourceSpan& Status::span() const {
  static const SourceSpan kNowhere;
  return rep_ ? rep_->span : kNowhere;
}

Status Status::At(const SourceSpan& span) && {
  if (rep_ && !rep_->span.valid()) rep_->span = span;
  return std::move(*this);
}

Status Status::Prefixed(std::string_view prefix) const {
  Status s(*this);
  if (s.rep_) s.rep_->message.insert(0, prefix);
  return s;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(rep_->code)) + ": " + rep_->message;
}

}  // namespace shrew
