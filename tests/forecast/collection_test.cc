// Copyright 2026 The GridStore Authors.
//
// Forecast collections on a real RocksDB store: 4 runs x 5 members x 8 steps of t, u and v on a
// small grid, written with known values, then every selection, cross-run view, statistic and
// derived quantity compared with a brute-force answer computed here from those values.
#include "gridstore/forecast/collection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "gridstore/forecast/collection_query.h"
#include "gridstore/forecast/derived.h"
#include "gridstore/forecast/ensemble_stats.h"
#include "gridstore/grid/grid_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/model/model_testutil.h"
#include "tests/test_util.h"

namespace gridstore::forecast {
namespace {

using testing::Coord1D;
using ::testing::HasSubstr;

constexpr int kRuns = 4, kMembers = 5, kSteps = 8, kLat = 10, kLon = 12;
constexpr int64_t kHour = 3'600'000;
// 2026-11-20T00:00:00Z in ms; runs every 12 h, steps every 6 h.
constexpr int64_t kFirstRun = 1'763'596'800'000;

int64_t RunTime(int r) { return kFirstRun + r * 12 * kHour; }

class CollectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_,
                         grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    std::mt19937 rng(31);
    std::normal_distribution<double> noise(0, 2);
    for (int r = 0; r < kRuns; ++r) {
      for (int m = 0; m < kMembers; ++m) {
        Write(r, m, [&](int, int64_t, int, int64_t, int64_t) { return noise(rng); });
      }
    }
    // A deterministic collection beside it, one run.
    Write(
        0, -1, [](int, int64_t, int, int64_t, int64_t) { return 0.0; }, "kwbc/fc");
  }

  std::string Id(int r, int m, const std::string& collection) const {
    return collection + "/" + FormatIsoMs(RunTime(r)) + (m < 0 ? "" : "/m" + std::to_string(m));
  }

  template <typename Noise>
  void Write(int r, int m, Noise noise, const std::string& collection = "ecmf/ens") {
    std::vector<grid::VariableMeta> vars;
    for (const char* name : {"t", "u", "v"}) {
      grid::VariableMeta v =
          testing::MakeVariable(name, grid::DataType::kFloat64, {kSteps, 1, kLat, kLon});
      v.dimension_names = {"time", "level", "lat", "lon"};
      v.attributes["units"] = grid::AttributeValue::String(name[0] == 't' ? "K" : "m s**-1");
      vars.push_back(v);
    }
    const std::string id = Id(r, m, collection);
    grid::DataSetMeta meta = testing::MakeMeta(id, vars, 8, 8);
    std::vector<double> lats, lons, hours;
    for (int x = 0; x < kLat; ++x) lats.push_back(50.0 - x);
    for (int y = 0; y < kLon; ++y) lons.push_back(float(y));
    for (int s = 0; s < kSteps; ++s) hours.push_back(r * 12 + s * 6);
    meta.coordinates = {Coord1D("lat", lats, "degrees_north"), Coord1D("lon", lons, "degrees_east"),
                        Coord1D("time", hours, "hours since 2025-11-20 00:00:00"),
                        Coord1D("level", {850}, "hPa")};
    meta.coordinates[2].attributes["units"] =
        grid::AttributeValue::String("hours since 2025-11-20 00:00:00");
    // (Dates are computed from kFirstRun below; the units' epoch is the first run's.)
    meta.coordinates[2].attributes["units"] =
        grid::AttributeValue::String("hours since " + FormatIsoMs(kFirstRun));
    meta.attributes[std::string(kCollectionAttribute)] = grid::AttributeValue::String(collection);
    meta.attributes[std::string(kRunTimeAttribute)] = grid::AttributeValue::Int64(RunTime(r));
    if (m >= 0) meta.attributes[std::string(kMemberAttribute)] = grid::AttributeValue::Int64(m);
    ASSERT_OK(store_->PutDataSetMeta(meta));
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter(id));
    for (int vi = 0; vi < 3; ++vi) {
      for (int s = 0; s < kSteps; ++s) {
        grid::Grid2D plane(grid::DataType::kFloat64, kLat, kLon);
        auto data = plane.data<double>();
        for (int64_t x = 0; x < kLat; ++x) {
          for (int64_t y = 0; y < kLon; ++y) {
            const double base = vi == 0 ? 270 + x - y * 0.5 + s : (vi == 1 ? 5.0 - y : 3.0 + x);
            const double value = base + noise(vi, s, m, x, y) + r * 0.1;
            data[size_t(x * kLon + y)] = value;
            values_[{Id(r, m, collection), vi, s, x, y}] = value;
          }
        }
        ASSERT_OK(writer->WriteGrid2D(vars[size_t(vi)].name, s, 0, plane));
      }
    }
    ASSERT_OK(writer->Flush());
    ASSERT_OK(EnsureCollectionIndex(*store_));
  }

  double Value(int r, int m, int var, int step, int64_t x, int64_t y) const {
    return values_.at({Id(r, m, "ecmf/ens"), var, step, x, y});
  }

  // The point request at cell (x=3, y=4): lat 47, lon 4.
  CollectionRequest PointRequest() const {
    CollectionRequest r;
    r.collection = "ecmf/ens";
    r.extract.variables = {"t"};
    r.extract.points = {{4.0, 47.0}};
    return r;
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<grid::GridStore> store_;
  std::map<std::tuple<std::string, int, int, int64_t, int64_t>, double> values_;
};

TEST_F(CollectionTest, ListsCollectionsWithRunsMembersVariablesAndSteps) {
  ASSERT_OK_AND_ASSIGN(std::vector<Collection> all, ListCollections(*store_));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "ecmf/ens");
  EXPECT_EQ(all[1].name, "kwbc/fc");
  const Collection& ens = all[0];
  ASSERT_EQ(ens.runs.size(), size_t(kRuns));
  EXPECT_EQ(ens.runs[0].run_time_ms, RunTime(0));
  EXPECT_EQ(ens.Members(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(ens.Variables(), (std::vector<std::string>{"t", "u", "v"}));
  std::vector<int64_t> leads;
  for (int s = 0; s < kSteps; ++s) leads.push_back(s * 6 * kHour);
  EXPECT_EQ(ens.LeadsMs(), leads);
  EXPECT_EQ(ens.Latest()->run_time_ms, RunTime(3));
  EXPECT_FALSE(all[1].has_members());
  EXPECT_THAT(GetCollection(*store_, "nope").status().message(),
              HasSubstr("no collection 'nope' in the store (it has 'ecmf/ens', 'kwbc/fc')"));
}

TEST_F(CollectionTest, LatestIsTheNewestCompleteRun) {
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, store_->GetDataSetMeta(Id(3, 2, "ecmf/ens")));
  meta.set_status(grid::kStatusIngesting);
  ASSERT_OK(store_->UpdateDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(Collection c, GetCollection(*store_, "ecmf/ens"));
  EXPECT_EQ(c.Latest()->run_time_ms, RunTime(2));
  ASSERT_OK_AND_ASSIGN(auto runs, SelectRuns(c, "latest-1"));
  EXPECT_EQ(runs[0]->run_time_ms, RunTime(1));
}

TEST_F(CollectionTest, RunSelection) {
  ASSERT_OK_AND_ASSIGN(Collection c, GetCollection(*store_, "ecmf/ens"));
  ASSERT_OK_AND_ASSIGN(auto one, SelectRuns(c, FormatIsoMs(RunTime(1))));
  EXPECT_EQ(one[0]->run_time_ms, RunTime(1));
  ASSERT_OK_AND_ASSIGN(auto range,
                       SelectRuns(c, FormatIsoMs(RunTime(1)) + "/" + FormatIsoMs(RunTime(2))));
  EXPECT_EQ(range.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto open, SelectRuns(c, FormatIsoMs(RunTime(2)) + "/.."));
  EXPECT_EQ(open.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto all, SelectRuns(c, "all"));
  EXPECT_EQ(all.size(), size_t(kRuns));
  // A run time that does not exist names the nearest runs.
  auto missing = SelectRuns(c, FormatIsoMs(RunTime(1) + 6 * kHour));
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_THAT(missing.status().message(), HasSubstr("the nearest are " + FormatIsoMs(RunTime(1)) +
                                                    " and " + FormatIsoMs(RunTime(2))));
  EXPECT_FALSE(SelectRuns(c, "latest-9").ok());
  EXPECT_FALSE(SelectRuns(c, "yesterday").ok());
  EXPECT_FALSE(SelectRuns(c, "2026-11-22T00:00Z/2026-11-21T00:00Z").ok());
}

TEST_F(CollectionTest, MembersOfTheLatestRunEqualTheStoredValues) {
  CollectionRequest r = PointRequest();
  r.members = "0,3";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction e, ExtractCollection(*store_, r));
  ASSERT_EQ(e.slices.size(), 2u);
  EXPECT_TRUE(e.has_members);
  EXPECT_EQ(e.slices[1].member, 3);
  EXPECT_EQ(e.slices[1].run_time_ms, RunTime(3));
  const std::vector<double>& v = e.slices[1].groups[0].variables[0].values;
  ASSERT_EQ(v.size(), size_t(kSteps));
  for (int s = 0; s < kSteps; ++s) EXPECT_EQ(v[size_t(s)], Value(3, 3, 0, s, 3, 4)) << s;
  // Members that do not exist are named with those that do.
  r.members = "0,7";
  auto bad = ExtractCollection(*store_, r);
  EXPECT_TRUE(bad.status().IsNotFound());
  EXPECT_THAT(bad.status().message(), HasSubstr("has no member 7 (it has 0,1,2,3,4)"));
  r.members = "x";
  EXPECT_FALSE(ExtractCollection(*store_, r).ok());
}

TEST_F(CollectionTest, StatisticsEqualTheirDefinitionsValueByValue) {
  CollectionRequest r = PointRequest();
  r.statistics = "mean,spread,min,max,p10,p50,p90,prob>271.5,prob<270";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction e, ExtractCollection(*store_, r));
  ASSERT_EQ(e.slices.size(), 9u);
  EXPECT_TRUE(e.has_statistics);
  for (int s = 0; s < kSteps; ++s) {
    std::vector<double> m;
    for (int k = 0; k < kMembers; ++k) m.push_back(Value(3, k, 0, s, 3, 4));
    double mean = 0;
    for (double x : m) mean += x;
    mean /= kMembers;
    double ss = 0;
    for (double x : m) ss += (x - mean) * (x - mean);
    std::vector<double> sorted = m;
    std::sort(sorted.begin(), sorted.end());
    // numpy.percentile(m, p) ("linear"): position (n - 1) p / 100.
    auto pct = [&](double p) {
      const double pos = (kMembers - 1) * p / 100;
      const int lo = int(pos);
      return sorted[size_t(lo)] +
             (sorted[size_t(std::min(lo + 1, kMembers - 1))] - sorted[size_t(lo)]) * (pos - lo);
    };
    auto frac = [&](auto pred) {
      return double(std::count_if(m.begin(), m.end(), pred)) / kMembers;
    };
    const double expected[] = {mean,
                               std::sqrt(ss / kMembers),
                               sorted.front(),
                               sorted.back(),
                               pct(10),
                               pct(50),
                               pct(90),
                               frac([](double x) { return x > 271.5; }),
                               frac([](double x) { return x < 270; })};
    for (size_t k = 0; k < 9; ++k) {
      EXPECT_NEAR(e.slices[k].groups[0].variables[0].values[size_t(s)], expected[k], 1e-9)
          << e.slices[k].statistic << " step " << s;
    }
  }
  EXPECT_EQ(e.slices[7].statistic, "prob>271.5");
  EXPECT_EQ(grid::StringAttribute(e.slices[7].groups[0].variables[0].meta.attributes, "units"),
            "1");
}

TEST_F(CollectionTest, StatisticErrorsAreNamed) {
  CollectionRequest r = PointRequest();
  r.statistics = "mean";
  r.members = "2";
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(),
              HasSubstr("a statistic over 1 member"));
  r.members = "";
  r.statistics = "prob>";
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(),
              HasSubstr("the threshold is not a number"));
  r.statistics = "p101";
  EXPECT_FALSE(ExtractCollection(*store_, r).ok());
  r.statistics = "mode";
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(), HasSubstr("unknown statistic"));
  r.collection = "kwbc/fc";
  r.statistics = "mean";
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(), HasSubstr("deterministic"));
}

TEST_F(CollectionTest, ConstantForecastTimeTakesOneValidTimeFromEveryRunCoveringIt) {
  CollectionRequest r = PointRequest();
  r.members = "1";
  // Valid at run 1 + 30 h = run 3 + 6 h: runs 0 (+42 h, the last step), 1, 2 and 3 cover it.
  const int64_t valid = RunTime(1) + 30 * kHour;
  r.valid_time = FormatIsoMs(valid);
  ASSERT_OK_AND_ASSIGN(CollectionExtraction e, ExtractCollection(*store_, r));
  EXPECT_EQ(e.view, RunView::kConstantValidTime);
  ASSERT_EQ(e.slices.size(), 4u);
  for (int run = 0; run < 4; ++run) {
    const int step = int((valid - RunTime(run)) / (6 * kHour));
    EXPECT_EQ(e.slices[size_t(run)].groups[0].variables[0].values,
              std::vector<double>{Value(run, 1, 0, step, 3, 4)})
        << run;
  }
  // Beyond every run's steps: refused, naming the runs.
  r.valid_time = FormatIsoMs(RunTime(3) + 100 * kHour);
  auto none = ExtractCollection(*store_, r);
  EXPECT_EQ(none.status().code(), StatusCode::kOutOfRange);
  EXPECT_THAT(none.status().message(), HasSubstr("no run of collection 'ecmf/ens' covers"));
  r.extract.time = FormatIsoMs(valid);
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(), HasSubstr("ask no time"));
}

TEST_F(CollectionTest, ConstantOffsetIsASeriesOverRunTimes) {
  CollectionRequest r = PointRequest();
  r.members = "4";
  r.lead = "18h";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction e, ExtractCollection(*store_, r));
  ASSERT_EQ(e.slices.size(), size_t(kRuns));
  for (int run = 0; run < kRuns; ++run) {
    EXPECT_EQ(e.slices[size_t(run)].run_time_ms, RunTime(run));
    EXPECT_EQ(e.slices[size_t(run)].groups[0].variables[0].values,
              std::vector<double>{Value(run, 4, 0, 3, 3, 4)});
  }
  r.lead = "300h";
  auto beyond = ExtractCollection(*store_, r);
  EXPECT_EQ(beyond.status().code(), StatusCode::kOutOfRange);
  EXPECT_THAT(
      beyond.status().message(),
      HasSubstr("lead +300 h is beyond every run of 'ecmf/ens' (the longest reaches +42 h)"));
  r.lead = "7h";
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(), HasSubstr("has a step at lead"));
  r.lead = "soon";
  EXPECT_FALSE(ExtractCollection(*store_, r).ok());
  r.lead = "6h";
  r.best = true;
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(), HasSubstr("choose one"));
}

TEST_F(CollectionTest, BestTakesEachValidTimeFromTheNewestRunThatCoversIt) {
  CollectionRequest r = PointRequest();
  r.members = "0";
  r.best = true;
  ASSERT_OK_AND_ASSIGN(CollectionExtraction e, ExtractCollection(*store_, r));
  // Brute force: every valid time of any run, from the newest run that has it.
  std::map<int64_t, std::pair<int, int>> best;  // valid -> (run, step)
  for (int run = 0; run < kRuns; ++run) {
    for (int s = 0; s < kSteps; ++s) best[RunTime(run) + s * 6 * kHour] = {run, s};
  }
  std::map<int64_t, double> got;
  for (const CollectionSlice& slice : e.slices) {
    const grid::Extraction& x = slice.groups[0];
    for (size_t i = 0; i < x.plan.times.size(); ++i) {
      const int64_t valid = slice.run_time_ms + x.plan.times[i] * 6 * kHour;
      EXPECT_EQ(best.at(valid).first, int((slice.run_time_ms - kFirstRun) / (12 * kHour)));
      got[valid] = x.variables[0].values[i];
    }
  }
  ASSERT_EQ(got.size(), best.size());
  for (const auto& [valid, rs] : best) {
    EXPECT_EQ(got[valid], Value(rs.first, 0, 0, rs.second, 3, 4)) << FormatIsoMs(valid);
  }
  // Narrowed by valid time.
  r.extract.time = FormatIsoMs(RunTime(1)) + "/" + FormatIsoMs(RunTime(2));
  ASSERT_OK_AND_ASSIGN(CollectionExtraction narrowed, ExtractCollection(*store_, r));
  size_t n = 0;
  for (const CollectionSlice& slice : narrowed.slices) n += slice.groups[0].plan.times.size();
  EXPECT_EQ(n, 3u);  // run 1 + 0, +6, run 2 + 0
}

TEST_F(CollectionTest, WindSpeedDirectionAndUnitsArePerValue) {
  CollectionRequest r = PointRequest();
  r.members = "2";
  r.extract.variables = {"ws", "wdir", "t"};
  r.units = "degC,km/h";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction e, ExtractCollection(*store_, r));
  ASSERT_EQ(e.slices.size(), 1u);
  const grid::Extraction& x = e.slices[0].groups[0];
  ASSERT_EQ(x.variables.size(), 3u);
  EXPECT_EQ(x.variables[0].meta.name, "ws");
  EXPECT_EQ(x.variables[1].meta.name, "wdir");
  EXPECT_EQ(grid::StringAttribute(x.variables[0].meta.attributes, "units"), "km/h");
  EXPECT_EQ(grid::StringAttribute(x.variables[1].meta.attributes, "units"), "degree");
  EXPECT_EQ(grid::StringAttribute(x.variables[2].meta.attributes, "units"), "degC");
  for (int s = 0; s < kSteps; ++s) {
    const double u = Value(3, 2, 1, s, 3, 4), v = Value(3, 2, 2, s, 3, 4);
    EXPECT_NEAR(x.variables[0].values[size_t(s)], std::hypot(u, v) * 3.6, 1e-9);
    double dir = std::fmod(std::atan2(-u, -v) * 180 / std::numbers::pi + 360, 360);
    EXPECT_NEAR(x.variables[1].values[size_t(s)], dir, 1e-9);
    EXPECT_NEAR(x.variables[2].values[size_t(s)], Value(3, 2, 0, s, 3, 4) - 273.15, 1e-9);
  }
  r.units = "hPa";
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(),
              HasSubstr("--units 'hPa' converts none of the variables"));
  r.units = "furlongs_per_fortnight_x";
  EXPECT_THAT(ExtractCollection(*store_, r).status().message(), HasSubstr("udunits2"));
}

TEST_F(CollectionTest, KeepNewestRunsDeletesTheOldest) {
  ASSERT_OK_AND_ASSIGN(auto would, KeepNewestRuns(*store_, "ecmf/ens", 2, /*dry_run=*/true));
  EXPECT_EQ(would.size(), size_t(2 * kMembers));
  ASSERT_OK_AND_ASSIGN(Collection before, GetCollection(*store_, "ecmf/ens"));
  EXPECT_EQ(before.runs.size(), size_t(kRuns));
  ASSERT_OK_AND_ASSIGN(auto gone, KeepNewestRuns(*store_, "ecmf/ens", 2, /*dry_run=*/false));
  EXPECT_EQ(gone, would);
  ASSERT_OK_AND_ASSIGN(Collection after, GetCollection(*store_, "ecmf/ens"));
  ASSERT_EQ(after.runs.size(), 2u);
  EXPECT_EQ(after.runs[0].run_time_ms, RunTime(2));
  EXPECT_FALSE(KeepNewestRuns(*store_, "ecmf/ens", 0, true).ok());
  // The other collection is untouched.
  ASSERT_OK_AND_ASSIGN(Collection fc, GetCollection(*store_, "kwbc/fc"));
  EXPECT_EQ(fc.runs.size(), 1u);
}

TEST(EnsembleStatsTest, MissingInAnyMemberIsMissingAndParsingNamesTheItem) {
  ASSERT_OK_AND_ASSIGN(auto stats, ParseStatistics("mean,median,prob>=1,std"));
  EXPECT_EQ(stats[1].kind, Statistic::Kind::kPercentile);
  const std::vector<double> a = {1, NAN}, b = {2, 3}, c = {1, 4};
  const std::vector<const std::vector<double>*> members = {&a, &b, &c};
  auto out = ComputeStatistics(stats, members);
  EXPECT_NEAR(out[0][0], 4.0 / 3, 1e-12);
  EXPECT_EQ(out[1][0], 1);
  EXPECT_EQ(out[2][0], 1);  // prob>=1: every member
  EXPECT_TRUE(std::isnan(out[0][1]));
  EXPECT_THAT(ParseStatistics("mean,mean").status().message(), HasSubstr("asked twice"));
  EXPECT_THAT(ParseStatistics("prob=3").status().message(), HasSubstr("prob>X or prob<X"));
}

}  // namespace
}  // namespace gridstore::forecast
