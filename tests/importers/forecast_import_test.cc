// Copyright 2026 The GridStore Authors.
//
// Imports fill the forecast collection attributes (issue 31, docs/collections.md): an ensemble
// GRIB file becomes one dataset per member, GRIB's centre, dataType and reference time name the
// collection and run, --collection / --run / --attr win, forecasts of several runs and a run on
// another grid than its collection are refused, the collection index is made, an ensemble
// appended step by step stays one dataset per member, and a generated collection of 8 runs x 10
// members (tests/data/make_forecast_runs.py) imports as 80 datasets of one collection. Real
// messages from ../shared/grib; values compared with ecCodes' decoding.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/import.h"
#include "tests/importers/grib_testutil.h"
#include "tests/test_util.h"

namespace gridstore::importers {
namespace {

using testing::DecodedField;
using testing::DecodeWithEcCodes;
using testing::GribDir;
using testing::LongKey;
using testing::WriteMessages;

constexpr int64_t k20170101 = 1483228800000;  // 2017-01-01T00:00:00Z in ms
constexpr int64_t k20130813 = 1376352000000;  // 2013-08-13T00:00:00Z in ms

int64_t IntAttribute(const grid::DataSetMeta& meta, const std::string& name) {
  auto it = meta.attributes.find(name);
  EXPECT_NE(it, meta.attributes.end()) << meta.id << " has no " << name;
  if (it == meta.attributes.end() || !it->second.is_number()) return -999;
  return static_cast<int64_t>(it->second.AsDouble());
}

class ForecastImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true});
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
  }

  // The command's way in: planned, then run.
  Result<ImportSummary> Import(const std::vector<std::string>& files,
                               const ImportOptions& options) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto plan, PlanImport(files, options));
    return RunImport(store_.get(), *plan, nullptr);
  }
  Result<ImportSummary> Import(const std::vector<std::string>& files, const std::string& id,
                               const std::string& collection = "", const std::string& run = "") {
    ImportOptions options;
    options.dataset_id = id;
    options.collection = collection;
    options.run_time = run;
    return Import(files, options);
  }

  bool HasCollectionIndex() {
    auto indexes = store_->ListMetaIndexes();
    EXPECT_TRUE(indexes.ok()) << indexes.status();
    if (!indexes.ok()) return false;
    for (const auto& index : *indexes) {
      if (index.name == forecast::kCollectionIndex) return true;
    }
    return false;
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<grid::GridStore> store_;
};

TEST_F(ForecastImportTest, EnsembleFileIsOneDatasetPerMember) {
  const std::string path = GribDir() + "/era5-levels-members.grib";
  EXPECT_FALSE(HasCollectionIndex());
  ImportOptions options;
  options.dataset_id = "era";
  ASSERT_OK_AND_ASSIGN(auto plan, PlanImport({path}, options));
  const std::vector<const grid::DataSetMeta*> planned = PlannedDataSetMetas(*plan);
  ASSERT_EQ(planned.size(), 10u);
  EXPECT_EQ(&PlannedDataSetMeta(*plan), planned.front());
  EXPECT_EQ(planned[9]->id, "era/m09");
  ASSERT_OK_AND_ASSIGN(ImportSummary summary, RunImport(store_.get(), *plan, nullptr));
  EXPECT_EQ(summary.planes, 160);
  ASSERT_EQ(summary.datasets.size(), 10u);
  for (int m = 0; m < 10; ++m) {
    const std::string id = "era/m0" + std::to_string(m);
    EXPECT_EQ(summary.datasets[size_t(m)], id);
    ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, store_->GetDataSetMeta(id));
    // ERA5's analyses of four times: collection ecmf/an, run the earliest reference time.
    EXPECT_EQ(grid::StringAttribute(meta.attributes, "collection"), "ecmf/an");
    EXPECT_EQ(IntAttribute(meta, "run_time"), k20170101);
    EXPECT_EQ(IntAttribute(meta, "member"), m);
    ASSERT_EQ(meta.variables.size(), 2u) << id;
    EXPECT_NE(meta.FindVariable("z"), nullptr);
    EXPECT_NE(meta.FindVariable("t"), nullptr);
  }
  EXPECT_TRUE(HasCollectionIndex());
  // Member 3's t at 850 hPa, 2017-01-02 12 UTC (t 3, z 1), every 101st cell, as ecCodes has it.
  const std::vector<DecodedField> fields = DecodeWithEcCodes(path);
  const DecodedField* want = nullptr;
  for (size_t k = 120; k < 160; ++k) {  // the last time's fields
    if (fields[k].member == 3 && fields[k].short_name == "t" && fields[k].level == 850) {
      want = &fields[k];
    }
  }
  ASSERT_NE(want, nullptr);
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("era/m03"));
  fetcher->SetVariablesToGet({"t"});
  fetcher->SetOriginShape({3, 1, 0, 0}, {1, 1, 61, 120});
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet got, fetcher->Fetch());
  const grid::Grid4D& t = got.variables.at("t");
  ASSERT_EQ(want->values.size(), size_t(61 * 120));
  for (size_t i = 0; i < want->values.size(); i += 101) {
    ASSERT_EQ(t.data<float>()[i], static_cast<float>(want->values[i])) << "cell " << i;
  }
  // The forecast module sees one run of ten members.
  ASSERT_OK_AND_ASSIGN(forecast::Collection an, forecast::GetCollection(*store_, "ecmf/an"));
  ASSERT_EQ(an.runs.size(), 1u);
  EXPECT_EQ(an.runs[0].run_time_ms, k20170101);
  EXPECT_EQ(an.Members(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_F(ForecastImportTest, DeterministicFileIsOneDatasetOfItsCentre) {
  ASSERT_OK_AND_ASSIGN(ImportSummary summary, Import({GribDir() + "/regular_gg.grib2"}, "gg"));
  EXPECT_EQ(summary.datasets, (std::vector<std::string>{"gg"}));
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, store_->GetDataSetMeta("gg"));
  EXPECT_EQ(grid::StringAttribute(meta.attributes, "collection"), "kwbc/fc");
  EXPECT_EQ(IntAttribute(meta, "run_time"), k20130813);  // its reference time; step 69 h
  EXPECT_EQ(meta.attributes.count("member"), 0u);
  EXPECT_TRUE(HasCollectionIndex());
}

TEST_F(ForecastImportTest, GivenCollectionAndRunWin) {
  const std::string gg = GribDir() + "/regular_gg.grib2";
  ASSERT_OK(Import({gg}, "a", "ncep/gfs", "2017-01-01T06:00Z"));
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta a, store_->GetDataSetMeta("a"));
  EXPECT_EQ(grid::StringAttribute(a.attributes, "collection"), "ncep/gfs");
  EXPECT_EQ(IntAttribute(a, "run_time"), k20170101 + 6 * 3600 * 1000);
  // --attr wins over the files too; a run time given as text is stored as ms.
  ImportOptions options;
  options.dataset_id = "b";
  options.attributes["collection"] = grid::AttributeValue::String("mine/fc");
  options.attributes["run_time"] = grid::AttributeValue::String("2017-01-01T00:00:00Z");
  ASSERT_OK(Import({gg}, options));
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta b, store_->GetDataSetMeta("b"));
  EXPECT_EQ(grid::StringAttribute(b.attributes, "collection"), "mine/fc");
  EXPECT_EQ(IntAttribute(b, "run_time"), k20170101);
  EXPECT_TRUE(b.attributes.at("run_time").is_number());
  // The same attribute given twice, differently; a run time that is not one.
  options.dataset_id = "c";
  options.collection = "other/fc";
  EXPECT_STATUS(PlanImport({gg}, options).status(), kInvalidArgument,
                "--collection 'other/fc' and --attr collection=mine/fc disagree");
  options.collection = "";
  options.run_time = "yesterday";
  EXPECT_STATUS(PlanImport({gg}, options).status(), kInvalidArgument, "--run 'yesterday'",
                "ISO 8601");
  // An ensemble's members all take the given collection and run.
  ASSERT_OK(
      Import({GribDir() + "/era5-levels-members.grib"}, "ens", "ecmf/ens", "2017-01-01T00:00Z"));
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta m7, store_->GetDataSetMeta("ens/m07"));
  EXPECT_EQ(grid::StringAttribute(m7.attributes, "collection"), "ecmf/ens");
  EXPECT_EQ(IntAttribute(m7, "member"), 7);
}

TEST_F(ForecastImportTest, ForecastsOfTwoRunsAreRefused) {
  // regular_gg.grib2 (a +69 h forecast) as the runs of 00 and 12 UTC.
  const std::string gg = GribDir() + "/regular_gg.grib2";
  const std::string f00 = dir_.Sub("f00.grib2"), f12 = dir_.Sub("f12.grib2");
  auto all = [](codes_handle*) { return true; };
  ASSERT_EQ(WriteMessages(gg, f00, all, {{"dataDate", 20170101}, {"dataTime", 0}}), 1);
  ASSERT_EQ(WriteMessages(gg, f12, all, {{"dataDate", 20170101}, {"dataTime", 1200}}), 1);
  EXPECT_STATUS(Import({f00, f12}, "two").status(), kInvalidArgument, "f12.grib2' and ",
                "f00.grib2': forecast fields of 2 runs (2017-01-01T00:00:00Z, "
                "2017-01-01T12:00:00Z): import each run separately");
  EXPECT_TRUE(store_->GetDataSetMeta("two").status().IsNotFound());
  // The run named: the caller joins them.
  ASSERT_OK(Import({f00, f12}, "joined", "", "2017-01-01T00:00Z"));
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta joined, store_->GetDataSetMeta("joined"));
  EXPECT_EQ(joined.variables[0].shape[grid::kT], 2);
}

TEST_F(ForecastImportTest, RunOnAnotherGridIsRefusedNamingTheRun) {
  // regular_gg.grib2 is 192x96 (Gaussian); missing_values.grib2 144x73 (3_layer.grib2's fields
  // are on two grids, which no import takes).
  ASSERT_OK(Import({GribDir() + "/regular_gg.grib2"}, "x/r1", "x/y", "2017-01-01T00:00Z"));
  EXPECT_STATUS(
      Import({GribDir() + "/missing_values.grib2"}, "x/r2", "x/y", "2017-01-02T00:00Z").status(),
      kFailedPrecondition,
      "run 2017-01-02T00:00:00Z of collection 'x/y' is on a 144x73 grid; the collection's run "
      "2017-01-01T00:00:00Z (dataset 'x/r1') is on 192x96");
  EXPECT_TRUE(store_->GetDataSetMeta("x/r2").status().IsNotFound());
  // The same grid: another run of it.
  ASSERT_OK(Import({GribDir() + "/regular_gg.grib2"}, "x/r3", "x/y", "2017-01-03T00:00Z"));
  // Replacing a run with itself compares it with the collection's other runs, not with itself.
  ImportOptions options;
  options.dataset_id = "x/r1";
  options.collection = "x/y";
  options.run_time = "2017-01-01T00:00Z";
  options.overwrite = true;
  ASSERT_OK(Import({GribDir() + "/regular_gg.grib2"}, options));
  // Another collection takes the other grid.
  ASSERT_OK(Import({GribDir() + "/missing_values.grib2"}, "x/r2", "x/z", "2017-01-02T00:00Z"));
}

TEST_F(ForecastImportTest, EnsembleAppendedStepByStepStaysOneDatasetPerMember) {
  // Step k: every member's fields of analysis time k, labelled step 6k of the run of 00 UTC.
  const long dates[] = {20170101, 20170101, 20170102};
  const long times[] = {0, 1200, 0};
  std::vector<std::string> steps;
  for (int k = 0; k < 3; ++k) {
    steps.push_back(dir_.Sub("step" + std::to_string(k) + ".grib"));
    ASSERT_EQ(WriteMessages(GribDir() + "/era5-levels-members.grib", steps.back(),
                            [&](codes_handle* h) {
                              return LongKey(h, "dataDate", 0) == dates[k] &&
                                     LongKey(h, "dataTime", -1) == times[k];
                            },
                            {{"dataDate", 20170101}, {"dataTime", 0}, {"step", 6L * k}}),
              40);
  }
  ImportOptions options;
  options.dataset_id = "ens";
  options.append = true;
  options.expected_steps = 3;
  for (int k = 0; k < 3; ++k) {
    ASSERT_OK_AND_ASSIGN(ImportSummary summary, Import({steps[size_t(k)]}, options));
    ASSERT_EQ(summary.datasets.size(), 10u);
    EXPECT_EQ(summary.complete_steps, k + 1);
    EXPECT_EQ(summary.status, k < 2 ? "INGESTING" : "DONE");
  }
  EXPECT_TRUE(store_->GetDataSetMeta("ens").status().IsNotFound());
  for (int m = 0; m < 10; ++m) {
    ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta,
                         store_->GetDataSetMeta("ens/m0" + std::to_string(m)));
    EXPECT_EQ(meta.status(), "DONE");
    EXPECT_EQ(meta.FindVariable("t")->shape, (grid::Shape4{3, 2, 61, 120}));
    EXPECT_EQ(grid::StringAttribute(meta.attributes, "collection"), "ecmf/an");
    EXPECT_EQ(IntAttribute(meta, "run_time"), k20170101);
    EXPECT_EQ(IntAttribute(meta, "member"), m);
  }
  // Member 5's z at 500 hPa of the last step, as ecCodes has it.
  const std::vector<DecodedField> fields = DecodeWithEcCodes(steps[2]);
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("ens/m05"));
  fetcher->SetVariablesToGet({"z"});
  fetcher->SetOriginShape({2, 0, 0, 0}, {1, 1, 61, 120});
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet got, fetcher->Fetch());
  int compared = 0;
  for (const DecodedField& f : fields) {
    if (f.member != 5 || f.short_name != "z" || f.level != 500) continue;
    for (size_t i = 0; i < f.values.size(); ++i) {
      ASSERT_EQ(got.variables.at("z").data<float>()[i], static_cast<float>(f.values[i])) << i;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 1);
}

// tests/data/make_forecast_runs.py: 8 runs x 10 members x 20 steps, one file per run.
TEST_F(ForecastImportTest, GeneratedCollectionOfEightRunsOfTenMembers) {
  const std::string out = dir_.Sub("runs");
  const std::string command = std::string("/usr/bin/python3 ") + GRIDSTORE_SOURCE_DIR +
                              "/tests/data/make_forecast_runs.py --runs 8 --members 10 "
                              "--steps 20 --out " +
                              out + " --source " + GribDir() + "/era5-levels-members.grib" + " > " +
                              dir_.Sub("generator.log") + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 8u);
  for (size_t r = 0; r < files.size(); ++r) {
    ASSERT_OK_AND_ASSIGN(ImportSummary summary, Import({files[r]}, "gen/run" + std::to_string(r)));
    EXPECT_EQ(summary.datasets.size(), 10u);
    EXPECT_EQ(summary.planes, 10 * 20 * 4);
  }
  ASSERT_OK_AND_ASSIGN(std::vector<grid::DataSetMeta> all, store_->ListDataSets());
  EXPECT_EQ(all.size(), 80u);
  ASSERT_OK_AND_ASSIGN(forecast::Collection ens, forecast::GetCollection(*store_, "ecmf/ens"));
  ASSERT_EQ(ens.runs.size(), 8u);
  for (size_t r = 0; r < ens.runs.size(); ++r) {
    EXPECT_EQ(ens.runs[r].run_time_ms, k20170101 + int64_t(r) * 12 * 3600 * 1000);
    EXPECT_EQ(ens.runs[r].members.size(), 10u);
    EXPECT_TRUE(ens.runs[r].complete());
  }
  EXPECT_EQ(ens.LeadsMs().size(), 20u);
  EXPECT_EQ(ens.LeadsMs().back(), int64_t(19) * 6 * 3600 * 1000);
  // Run 3, member 7, t at 850 hPa, the last step, as ecCodes decodes it (file order: step, then
  // z 500, t 500, z 850, t 850, each for members 0..9).
  const std::vector<DecodedField> fields = DecodeWithEcCodes(files[3]);
  ASSERT_EQ(fields.size(), 800u);
  const DecodedField& want = fields[19 * 40 + 3 * 10 + 7];
  ASSERT_EQ(want.short_name, "t");
  ASSERT_EQ(want.member, 7);
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("gen/run3/m07"));
  fetcher->SetVariablesToGet({"t"});
  fetcher->SetOriginShape({19, 1, 0, 0}, {1, 1, 61, 120});
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet got, fetcher->Fetch());
  for (size_t i = 0; i < want.values.size(); i += 13) {
    ASSERT_EQ(got.variables.at("t").data<float>()[i], static_cast<float>(want.values[i])) << i;
  }
}

}  // namespace
}  // namespace gridstore::importers
