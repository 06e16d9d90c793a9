// Copyright 2026 The GridStore Authors.
//
// Status and Result<T>, including the propagation macros.

#include "gridstore/util/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/util/result.h"
#include "tests/test_util.h"

namespace gridstore {
namespace {

TEST(StatusTest, DefaultIsOkWithNoMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(Status::OK().ok());
}

TEST(StatusTest, OkCodeWithAMessageIsStillOk) {
  Status s(StatusCode::kOk, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, EachFactoryHasItsCodeNameAndMessage) {
  struct Case {
    Status status;
    StatusCode code;
    const char* name;
  };
  const std::vector<Case> cases = {
      {Status::InvalidArgument("m"), StatusCode::kInvalidArgument, "InvalidArgument"},
      {Status::NotFound("m"), StatusCode::kNotFound, "NotFound"},
      {Status::AlreadyExists("m"), StatusCode::kAlreadyExists, "AlreadyExists"},
      {Status::FailedPrecondition("m"), StatusCode::kFailedPrecondition, "FailedPrecondition"},
      {Status::Aborted("m"), StatusCode::kAborted, "Aborted"},
      {Status::OutOfRange("m"), StatusCode::kOutOfRange, "OutOfRange"},
      {Status::Unimplemented("m"), StatusCode::kUnimplemented, "Unimplemented"},
      {Status::Internal("m"), StatusCode::kInternal, "Internal"},
      {Status::Unavailable("m"), StatusCode::kUnavailable, "Unavailable"},
      {Status::DataLoss("m"), StatusCode::kDataLoss, "DataLoss"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.status.ok()) << c.name;
    EXPECT_EQ(c.status.code(), c.code) << c.name;
    EXPECT_EQ(c.status.message(), "m") << c.name;
    EXPECT_EQ(StatusCodeName(c.code), c.name);
    EXPECT_EQ(c.status.ToString(), std::string(c.name) + ": m");
    EXPECT_EQ(c.status.IsInvalidArgument(), c.code == StatusCode::kInvalidArgument);
    EXPECT_EQ(c.status.IsNotFound(), c.code == StatusCode::kNotFound);
    EXPECT_EQ(c.status.IsAlreadyExists(), c.code == StatusCode::kAlreadyExists);
    EXPECT_EQ(c.status.IsFailedPrecondition(), c.code == StatusCode::kFailedPrecondition);
    EXPECT_EQ(c.status.IsAborted(), c.code == StatusCode::kAborted);
    EXPECT_EQ(c.status.IsOutOfRange(), c.code == StatusCode::kOutOfRange);
    EXPECT_EQ(c.status.IsDataLoss(), c.code == StatusCode::kDataLoss);
    EXPECT_EQ(c.status.IsUnavailable(), c.code == StatusCode::kUnavailable);
  }
  EXPECT_EQ(StatusCodeName(StatusCode::kOk), "OK");
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(99)), "Unknown");
}

TEST(StatusTest, CodesMatchAbseil) {
  // Same numbers as absl::StatusCode, so a later move to absl::Status is mechanical.
  EXPECT_EQ(static_cast<int>(StatusCode::kInvalidArgument), 3);
  EXPECT_EQ(static_cast<int>(StatusCode::kNotFound), 5);
  EXPECT_EQ(static_cast<int>(StatusCode::kFailedPrecondition), 9);
  EXPECT_EQ(static_cast<int>(StatusCode::kUnavailable), 14);
  EXPECT_EQ(static_cast<int>(StatusCode::kDataLoss), 15);
}

TEST(StatusTest, MessageKeepsArbitraryBytes) {
  const std::string msg("nul\0inside", 10);
  Status s = Status::DataLoss(msg);
  EXPECT_EQ(s.message(), msg);
}

TEST(StatusTest, CopyIsIndependentOfTheOriginal) {
  Status original = Status::NotFound("first");
  Status copy = original;
  EXPECT_EQ(copy, original);
  original = Status::Internal("second");
  EXPECT_EQ(copy.code(), StatusCode::kNotFound);
  EXPECT_EQ(copy.message(), "first");

  Status assigned;
  assigned = copy;
  EXPECT_EQ(assigned, copy);
  assigned = Status::OK();
  EXPECT_TRUE(assigned.ok());
  EXPECT_FALSE(copy.ok());

  const Status& alias = copy;
  copy = alias;  // self-assignment
  EXPECT_EQ(copy.message(), "first");
}

TEST(StatusTest, MoveTransfersTheError) {
  Status a = Status::Unavailable("busy");
  Status b = std::move(a);
  EXPECT_EQ(b.code(), StatusCode::kUnavailable);
  EXPECT_EQ(b.message(), "busy");
}

TEST(StatusTest, EqualityComparesCodeAndMessage) {
  EXPECT_EQ(Status::NotFound("x"), Status::NotFound("x"));
  EXPECT_FALSE(Status::NotFound("x") == Status::NotFound("y"));
  EXPECT_FALSE(Status::NotFound("x") == Status::DataLoss("x"));
  EXPECT_EQ(Status(), Status::OK());
}

TEST(StatusTest, WithContextPrefixesTheMessageAndKeepsTheCode) {
  Status s = Status::DataLoss("bad checksum").WithContext("block (t=3, z=0)");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "block (t=3, z=0): bad checksum");
  EXPECT_EQ(s.ToString(), "DataLoss: block (t=3, z=0): bad checksum");
  EXPECT_TRUE(Status::OK().WithContext("anything").ok());
}

TEST(StatusTest, StreamsAsToString) {
  std::ostringstream os;
  os << Status::OutOfRange("t=9 outside [0, 4)") << " / " << Status::OK();
  EXPECT_EQ(os.str(), "OutOfRange: t=9 outside [0, 4) / OK");
}

Status FailIf(bool fail, int* reached) {
  GRIDSTORE_RETURN_IF_ERROR(fail ? Status::NotFound("early") : Status::OK());
  ++*reached;
  return Status::OK();
}

TEST(StatusTest, ReturnIfErrorReturnsOnlyOnError) {
  int reached = 0;
  EXPECT_OK(FailIf(false, &reached));
  EXPECT_EQ(reached, 1);
  EXPECT_STATUS(FailIf(true, &reached), kNotFound, "early");
  EXPECT_EQ(reached, 1);
}

TEST(ResultTest, HoldsAValue) {
  Result<std::string> r = std::string("grid");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), "grid");
  EXPECT_EQ(*r, "grid");
  EXPECT_EQ(r->size(), 4u);
  EXPECT_EQ(r.value_or("fallback"), "grid");
  r.value() += "store";
  EXPECT_EQ(*r, "gridstore");
}

TEST(ResultTest, HoldsAnError) {
  Result<int> r = Status::OutOfRange("x=7");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(), "x=7");
  EXPECT_EQ(r.value_or(-1), -1);
  Status moved = std::move(r).status();
  EXPECT_EQ(moved.code(), StatusCode::kOutOfRange);
}

TEST(ResultTest, ConvertsFromCompatibleValues) {
  Result<std::string> from_literal = "literal";
  EXPECT_EQ(*from_literal, "literal");
  struct Base {
    virtual ~Base() = default;
  };
  struct Derived : Base {};
  Result<std::unique_ptr<Base>> from_derived = std::make_unique<Derived>();
  ASSERT_TRUE(from_derived.ok());
  EXPECT_NE(from_derived->get(), nullptr);
}

TEST(ResultTest, HoldsMoveOnlyTypes) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(42);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 42);
}

TEST(ResultTest, FromOkStatusIsAProgrammingError) {
#ifdef NDEBUG
  Result<int> r(Status::OK());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
#else
  EXPECT_DEATH(
      {
        Result<int> r(Status::OK());
        r.IgnoreError();
      },
      "");
#endif
}

Result<int> ParsePositive(int v) {
  if (v <= 0) return Status::InvalidArgument("not positive: " + std::to_string(v));
  return v;
}

Result<int> SumOfTwo(int a, int b) {
  GRIDSTORE_ASSIGN_OR_RETURN(int x, ParsePositive(a));
  GRIDSTORE_ASSIGN_OR_RETURN(auto y, ParsePositive(b));  // two in one scope: distinct temporaries
  return x + y;
}

Status StoreInto(int v, std::unique_ptr<int>* out) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(v);
  GRIDSTORE_ASSIGN_OR_RETURN(*out, std::move(r));  // assigns to an existing lvalue, moves
  return Status::OK();
}

TEST(ResultTest, AssignOrReturnPropagatesErrorsAndAssignsValues) {
  ASSERT_OK_AND_ASSIGN(int sum, SumOfTwo(2, 3));
  EXPECT_EQ(sum, 5);
  EXPECT_STATUS(SumOfTwo(2, -1), kInvalidArgument, "not positive: -1");
  EXPECT_STATUS(SumOfTwo(0, -1), kInvalidArgument, "not positive: 0");
  std::unique_ptr<int> out;
  ASSERT_OK(StoreInto(9, &out));
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(*out, 9);
}

}  // namespace
}  // namespace gridstore
