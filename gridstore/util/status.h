// Copyright 2026 The GridStore Authors.
//
// Status is the outcome of an operation: OK, or an error code with a message. Every public
// function that can fail returns a Status or a Result<T>; library code never throws. An OK
// status holds no allocation, so returning one costs a pointer. A Status is a value: copy it,
// store it per block on a worker thread, merge it later. Not synchronised; do not share one
// mutable Status between threads.
#ifndef GRIDSTORE_UTIL_STATUS_H_
#define GRIDSTORE_UTIL_STATUS_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace gridstore {

// The codes are a subset of absl::StatusCode, with the same names and meanings.
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 3,
  kNotFound = 5,
  kAlreadyExists = 6,
  kResourceExhausted = 8,  // a request beyond a documented work budget
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
};

// Returns "OK", "InvalidArgument", ... for `code`.
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;  // OK
  Status(StatusCode code, std::string_view message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string_view msg) {
    return {StatusCode::kInvalidArgument, msg};
  }
  static Status NotFound(std::string_view msg) { return {StatusCode::kNotFound, msg}; }
  static Status AlreadyExists(std::string_view msg) { return {StatusCode::kAlreadyExists, msg}; }
  static Status FailedPrecondition(std::string_view msg) {
    return {StatusCode::kFailedPrecondition, msg};
  }
  // A conflict with a concurrent writer (a conditional write whose condition no longer held);
  // retrying the whole read-modify-write can succeed.
  static Status Aborted(std::string_view msg) { return {StatusCode::kAborted, msg}; }
  static Status ResourceExhausted(std::string_view msg) {
    return {StatusCode::kResourceExhausted, msg};
  }
  static Status OutOfRange(std::string_view msg) { return {StatusCode::kOutOfRange, msg}; }
  static Status Unimplemented(std::string_view msg) { return {StatusCode::kUnimplemented, msg}; }
  static Status Internal(std::string_view msg) { return {StatusCode::kInternal, msg}; }
  static Status Unavailable(std::string_view msg) { return {StatusCode::kUnavailable, msg}; }
  static Status DataLoss(std::string_view msg) { return {StatusCode::kDataLoss, msg}; }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  // The message without the code name; empty for OK.
  std::string_view message() const { return rep_ ? std::string_view(rep_->message) : ""; }

  bool IsInvalidArgument() const { return code() == StatusCode::kInvalidArgument; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code() == StatusCode::kAlreadyExists; }
  bool IsFailedPrecondition() const { return code() == StatusCode::kFailedPrecondition; }
  bool IsAborted() const { return code() == StatusCode::kAborted; }
  bool IsOutOfRange() const { return code() == StatusCode::kOutOfRange; }
  bool IsDataLoss() const { return code() == StatusCode::kDataLoss; }
  bool IsUnavailable() const { return code() == StatusCode::kUnavailable; }

  // Returns a status with the same code and "`prefix`: message". OK stays OK.
  Status WithContext(std::string_view prefix) const;

  // "OK", or "<CodeName>: <message>".
  std::string ToString() const;

  // Marks a deliberately dropped status; searchable, like RocksDB's PermitUncheckedError().
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<Rep> rep_;
};

std::ostream& operator<<(std::ostream& os, const Status& s);

}  // namespace gridstore

// Returns from the enclosing function if `expr` (a Status) is not OK. The temporary's name is
// unique per use, so the macro nests (inside a lambda passed in `expr`) without shadowing.
#define GRIDSTORE_RETURN_IF_ERROR(expr) \
  GRIDSTORE_RETURN_IF_ERROR_IMPL_(GRIDSTORE_STATUS_CONCAT_(gridstore_status_, __COUNTER__), expr)
#define GRIDSTORE_RETURN_IF_ERROR_IMPL_(tmp, expr) \
  do {                                             \
    ::gridstore::Status tmp = (expr);              \
    if (!tmp.ok()) return tmp;                     \
  } while (0)
#define GRIDSTORE_STATUS_CONCAT_INNER_(a, b) a##b
#define GRIDSTORE_STATUS_CONCAT_(a, b) GRIDSTORE_STATUS_CONCAT_INNER_(a, b)

#endif  // GRIDSTORE_UTIL_STATUS_H_
