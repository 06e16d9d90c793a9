// Copyright 2026 The GridStore Authors.
//
// Retention: which datasets expire (expires, create_time + ttl, create_time + older_than), which
// are left alone and why, dry runs, the --where restriction, and durations.
#include "gridstore/grid/retention.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/grid/grid_store.h"
#include "tests/grid/grid_testutil.h"

namespace gridstore::grid {
namespace {

using testing::MakeMeta;
using testing::MakeVariable;

constexpr int64_t kDay = 86'400'000;
constexpr int64_t kNow = 1'795'600'000'000;  // 2026-11-25T...

TEST(ParseDurationTest, UnitsTermsAndErrors) {
  EXPECT_EQ(*ParseDurationMs("7d", "x"), 7 * kDay);
  EXPECT_EQ(*ParseDurationMs("36h", "x"), 36 * 3'600'000);
  EXPECT_EQ(*ParseDurationMs("1d12h", "x"), kDay + kDay / 2);
  EXPECT_EQ(*ParseDurationMs(" 90 min ", "x"), 90 * 60'000);
  EXPECT_EQ(*ParseDurationMs("1.5 w", "x"), 7 * kDay + 7 * kDay / 2);
  EXPECT_EQ(*ParseDurationMs("2 weeks", "x"), 14 * kDay);
  EXPECT_EQ(*ParseDurationMs("3600", "x"), 3'600'000);  // a bare number: seconds
  EXPECT_EQ(*ParseDurationMs("0s", "x"), 0);
  for (const char* bad :
       {"", "d", "7 d 3", "7x", "-1d", "1e400d", "100000000w", "7d,3h", "1.2.3h"}) {
    auto r = ParseDurationMs(bad, "--older-than");
    EXPECT_TRUE(r.status().IsInvalidArgument()) << bad;
    EXPECT_NE(r.status().message().find("--older-than"), std::string_view::npos) << bad;
  }
}

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = GridStore::Open("memory://", {.create_if_missing = true});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(opened).value();
  }

  // A small dataset with data (so that it has bytes to reclaim), created `age_ms` before kNow.
  void Add(const std::string& id, std::optional<int64_t> age_ms, Attributes extra = {},
           std::string_view status = kStatusDone) {
    DataSetMeta meta = MakeMeta(id, {MakeVariable("v", DataType::kFloat32, {1, 1, 4, 4})});
    meta.set_status(status);
    if (age_ms) meta.attributes["create_time"] = AttributeValue::Int64(kNow - *age_ms);
    for (auto& [k, v] : extra) meta.attributes[k] = v;
    ASSERT_TRUE(store_->PutDataSetMeta(meta).ok());
    auto writer = store_->GetDataWriter(id);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->WriteGrid2D("v", 0, 0, Grid2D(DataType::kFloat32, 4, 4)).ok());
  }

  std::vector<std::string> Ids() {
    std::vector<std::string> ids;
    auto metas = store_->ListDataSets();
    EXPECT_TRUE(metas.ok());
    for (const DataSetMeta& m : *metas) ids.push_back(m.id);
    return ids;
  }

  RetentionReport Run(RetentionPolicy policy) {
    policy.now_ms = kNow;
    auto report = ApplyRetention(*store_, policy);
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? *report : RetentionReport{};
  }

  std::unique_ptr<GridStore> store_;
};

std::vector<std::string> ExpiredIds(const RetentionReport& r) {
  std::vector<std::string> ids;
  for (const auto& e : r.expired) ids.push_back(e.id);
  return ids;
}

TEST_F(RetentionTest, OlderThanTtlAndExpires) {
  Add("fresh", kDay);
  Add("old", 10 * kDay);
  Add("ttl-number-passed", 2 * kDay, {{"ttl", AttributeValue::Int64(86'400)}});  // 1 day, seconds
  Add("ttl-keeps-old", 10 * kDay, {{"ttl", AttributeValue::String("30d")}});     // ttl wins
  Add("expires-iso-passed", kDay, {{"expires", AttributeValue::String("2020-01-01T00:00:00Z")}});
  Add("expires-ms-future", 100 * kDay, {{"expires", AttributeValue::Int64(kNow + kDay)}});
  Add("no-create-time", std::nullopt);

  // Without a policy age, only datasets carrying their own expiry go.
  RetentionReport dry = Run({.dry_run = true});
  EXPECT_EQ(ExpiredIds(dry), (std::vector<std::string>{"expires-iso-passed", "ttl-number-passed"}));
  EXPECT_EQ(Ids().size(), 7u);  // a dry run deletes nothing

  RetentionReport r = Run({.older_than_ms = 7 * kDay});
  EXPECT_EQ(ExpiredIds(r),
            (std::vector<std::string>{"expires-iso-passed", "old", "ttl-number-passed"}));
  for (const auto& e : r.expired) {
    EXPECT_TRUE(e.deleted) << e.id;
    EXPECT_GT(e.bytes, 0u) << e.id;
  }
  EXPECT_EQ(r.expired[0].rule, "expires 2020-01-01T00:00:00Z");
  EXPECT_EQ(r.expired[1].rule, "older than 1w");
  EXPECT_EQ(r.expired[1].expires_ms, kNow - 3 * kDay);
  EXPECT_EQ(r.expired[2].rule, "ttl 1d");
  // The dataset without create_time cannot age: left, and said so.
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].id, "no-create-time");
  EXPECT_NE(r.skipped[0].why.find("create_time"), std::string::npos);
  EXPECT_EQ(Ids(), (std::vector<std::string>{"expires-ms-future", "fresh", "no-create-time",
                                             "ttl-keeps-old"}));
}

TEST_F(RetentionTest, IncompleteAndUnreadableAreLeftAlone) {
  Add("importing", 30 * kDay, {}, kStatusInit);
  Add("bad-ttl", 30 * kDay, {{"ttl", AttributeValue::String("soon")}});
  Add("bad-expires", 30 * kDay, {{"expires", AttributeValue::String("next tuesday")}});
  Add("ttl-without-create-time", std::nullopt, {{"ttl", AttributeValue::String("1h")}});
  RetentionReport r = Run({.older_than_ms = kDay});
  EXPECT_TRUE(r.expired.empty());
  ASSERT_EQ(r.skipped.size(), 4u);
  EXPECT_NE(r.skipped[0].why.find("'next tuesday'"), std::string::npos);  // bad-expires
  EXPECT_NE(r.skipped[1].why.find("'soon'"), std::string::npos);          // bad-ttl
  EXPECT_NE(r.skipped[2].why.find("INIT"), std::string::npos);            // importing
  EXPECT_NE(r.skipped[3].why.find("no 'create_time'"), std::string::npos);
  EXPECT_EQ(Ids().size(), 4u);
}

TEST_F(RetentionTest, WhereRestrictsWhatIsConsidered) {
  Add("ecmwf/old", 10 * kDay, {{"source", AttributeValue::String("ECMWF")}});
  Add("nmc/old", 10 * kDay, {{"source", AttributeValue::String("NMC")}});
  RetentionPolicy policy{.older_than_ms = kDay};
  policy.where = *ParseQuery("source = 'NMC'");
  RetentionReport r = Run(policy);
  EXPECT_EQ(r.examined, 1);
  EXPECT_EQ(ExpiredIds(r), (std::vector<std::string>{"nmc/old"}));
  EXPECT_EQ(Ids(), (std::vector<std::string>{"ecmwf/old"}));
}

}  // namespace
}  // namespace gridstore::grid
