// Copyright 2026 The GridStore Authors.
//
// Result<T> holds either a value of type T or a non-OK Status (like absl::StatusOr<T>).
// Accessing the value of an error Result is a programming error (asserts in debug builds).
#ifndef GRIDSTORE_UTIL_RESULT_H_
#define GRIDSTORE_UTIL_RESULT_H_

#include <cassert>
#include <optional>
#include <type_traits>
#include <utility>

#include "gridstore/util/status.h"

namespace gridstore {

template <typename T>
class [[nodiscard]] Result {
 public:
  // REQUIRES: !status.ok().
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit on purpose
    assert(!status_.ok());
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK status");
  }
  Result(const T& value) : value_(value) {}        // NOLINT
  Result(T&& value) : value_(std::move(value)) {}  // NOLINT
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Status> &&
                                                    !std::is_same_v<std::decay_t<U>, Result>>>
  Result(U&& value) : value_(std::forward<U>(value)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }

  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T& value() & {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*value_); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  // Returns the value, or `fallback` if this is an error.
  T value_or(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

  void IgnoreError() const {}

 private:
  Status status_;  // OK iff value_ is set
  std::optional<T> value_;
};

}  // namespace gridstore

#define GRIDSTORE_CONCAT_INNER_(a, b) a##b
#define GRIDSTORE_CONCAT_(a, b) GRIDSTORE_CONCAT_INNER_(a, b)

// Evaluates `rexpr` (a Result<T>); on error returns its status, else assigns the value to `lhs`,
// which may be a declaration: GRIDSTORE_ASSIGN_OR_RETURN(auto meta, store->GetDataSetMeta(id));
#define GRIDSTORE_ASSIGN_OR_RETURN(lhs, rexpr) \
  GRIDSTORE_ASSIGN_OR_RETURN_IMPL_(GRIDSTORE_CONCAT_(gridstore_result_, __LINE__), lhs, rexpr)
#define GRIDSTORE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                     \
  if (!tmp.ok()) return std::move(tmp).status();          \
  lhs = std::move(tmp).value()

#endif  // GRIDSTORE_UTIL_RESULT_H_
