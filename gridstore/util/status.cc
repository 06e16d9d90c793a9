// Copyright 2026 The GridStore Authors.
#include "gridstore/util/status.h"

namespace gridstore {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kResourceExhausted:
      return "ResourceExhausted";
    case StatusCode::kFailedPrecondition:
      return "FailedPrecondition";
    case StatusCode::kAborted:
      return "Aborted";
    case StatusCode::kOutOfRange:
      return "OutOfRange";
    case StatusCode::kUnimplemented:
      return "Unimplemented";
    case StatusCode::kInternal:
      return "Internal";
    case StatusCode::kUnavailable:
      return "Unavailable";
    case StatusCode::kDataLoss:
      return "DataLoss";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string_view message) {
  if (code != StatusCode::kOk) rep_.reset(new Rep{code, std::string(message)});
}

Status::Status(const Status& other) : rep_(other.rep_ ? new Rep(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_.reset(other.rep_ ? new Rep(*other.rep_) : nullptr);
  return *this;
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return Status();
  std::string msg(prefix);
  msg += ": ";
  msg += rep_->message;
  return Status(rep_->code, msg);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(StatusCodeName(rep_->code));
  s += ": ";
  s += rep_->message;
  return s;
}

std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

}  // namespace gridstore
