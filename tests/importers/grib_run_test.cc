// Copyright 2026 The GridStore Authors.
//
// A run from many GRIB files, a run appended step by step (complete steps readable, the others
// refused; its refusals), ensemble members (one dataset each), and the CF grid mapping: real
// messages from ../shared/grib, values compared with ecCodes' decoding. The step files are
// member 0 of ERA5's ensemble, so a run "run" is dataset "run/m00".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gridstore/geo/extract.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/grib/grib_importer.h"
#include "tests/importers/grib_testutil.h"
#include "tests/test_util.h"

namespace gridstore::importers {
namespace {

using testing::DecodedField;
using testing::DecodeWithEcCodes;
using testing::GribDir;
using ::testing::HasSubstr;
using testing::WriteMessages;
using testing::WriteRunStep;

class GribRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true});
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
    for (int k = 0; k < 4; ++k) {
      steps_.push_back(dir_.Sub("f" + std::to_string(6 * k) + ".grib"));
      ASSERT_EQ(WriteRunStep(steps_.back(), k), 4);  // z and t at 500 and 850 hPa
    }
  }

  Result<ImportSummary> Append(const std::vector<std::string>& files, bool finish = false,
                               int64_t expected = 0) {
    GribImportOptions options;
    options.dataset_id = "run";
    options.append = true;
    options.finish = finish;
    options.expected_steps = expected;
    return ImportGrib(store_.get(), files, options);
  }

  Result<grid::GridDataSet> Fetch(const std::string& id, int64_t t, bool allow_incomplete = false) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto fetcher, store_->GetDataFetcher(id));
    fetcher->SetVariablesToGet({"t"});
    fetcher->SetOriginShape({t, 0, 0, 0}, {1, 2, 61, 120});
    fetcher->set_options({.allow_incomplete = allow_incomplete});
    return fetcher->Fetch();
  }

  // Step k of dataset `id` holds exactly ecCodes' values of the file of step k.
  void ExpectStep(const std::string& id, int64_t k) {
    auto got = Fetch(id, k);
    ASSERT_TRUE(got.ok()) << got.status();
    const grid::Grid4D& grid = got->variables.at("t");
    std::vector<DecodedField> fields = DecodeWithEcCodes(steps_[size_t(k)]);
    int64_t z = 0;
    for (const DecodedField& f : fields) {
      if (f.short_name != "t") continue;
      z = f.level == 500 ? 0 : 1;
      for (size_t i = 0; i < f.values.size(); ++i) {
        ASSERT_EQ(grid.data<float>()[size_t(z) * f.values.size() + i],
                  static_cast<float>(f.values[i]))
            << "step " << k << " level " << f.level << " point " << i;
      }
    }
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<grid::GridStore> store_;
  std::vector<std::string> steps_;  // f0, f6, f12, f18
};

TEST_F(GribRunTest, ManyFilesMakeOneDataset) {
  GribImportOptions options;
  options.dataset_id = "whole";
  auto summary = ImportGrib(store_.get(), steps_, options);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->planes, 16);
  EXPECT_EQ(summary->status, "DONE");
  EXPECT_EQ(summary->datasets, (std::vector<std::string>{"whole/m00"}));
  auto meta = store_->GetDataSetMeta("whole/m00");
  ASSERT_TRUE(meta.ok());
  const grid::Coordinate* step = meta->FindCoordinate("step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->values, (std::vector<double>{0, 6, 12, 18}));
  EXPECT_EQ(grid::StringAttribute(meta->FindCoordinate("time")->attributes, "reference_time"),
            "2017-01-01 00:00:00");
  ASSERT_NE(meta->FindVariable("z"), nullptr);
  EXPECT_EQ(meta->FindVariable("t")->shape, (grid::Shape4{4, 2, 61, 120}));
  for (int64_t k = 0; k < 4; ++k) ExpectStep("whole/m00", k);

  // Files on different grids: the error names both.
  options.dataset_id = "mixed";
  auto mixed = ImportGrib(store_.get(), {steps_[0], GribDir() + "/regular_gg.grib2"}, options);
  EXPECT_TRUE(mixed.status().IsInvalidArgument());
  EXPECT_THAT(std::string(mixed.status().message()),
              HasSubstr("regular_gg.grib2': field 1 ('gh', isobaricInhPa 525): on another grid"));
  EXPECT_THAT(std::string(mixed.status().message()), HasSubstr("f0.grib'"));
  // The same step in two files.
  auto twice = ImportGrib(store_.get(), {steps_[1], steps_[1]}, options);
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("the same variable"));
  EXPECT_TRUE(store_->GetDataSetMeta("mixed/m00").status().IsNotFound());
  EXPECT_TRUE(store_->GetDataSetMeta("mixed").status().IsNotFound());
}

TEST_F(GribRunTest, AppendedStepsAreReadableAsTheyComplete) {
  auto first = Append({steps_[0]});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->status, "INGESTING");
  EXPECT_EQ(first->steps, 1);
  EXPECT_EQ(first->complete_steps, 1);
  ExpectStep("run/m00", 0);
  ASSERT_TRUE(Append({steps_[1]}).ok());
  ExpectStep("run/m00", 0);
  ExpectStep("run/m00", 1);

  // A step the meta has but whose planes are not all written yet (an import under way, or one
  // that died): refused, never fill values, unless incomplete data is asked for.
  auto meta = store_->GetDataSetMeta("run/m00");
  ASSERT_TRUE(meta.ok());
  for (grid::VariableMeta& v : meta->variables) v.shape[grid::kT] = 3;
  grid::Coordinate time = *meta->FindCoordinate("time");
  for (grid::Coordinate& c : meta->coordinates) {
    if (c.name == "time" || c.name == "step") {
      c.values.push_back(c.values.back() + 6);
      c.shape = {3};
    }
  }
  ASSERT_TRUE(store_->UpdateDataSetMeta(*meta).ok());
  auto early = Fetch("run/m00", 2);
  EXPECT_TRUE(early.status().IsFailedPrecondition());
  EXPECT_THAT(std::string(early.status().message()),
              HasSubstr("dataset 'run/m00' is still being ingested: step 2 (t index) of variable "
                        "'t' is not written yet (complete steps: 0-1 of 3)"));
  // An extraction without a time takes the complete steps; one asking for the others is refused.
  grid::ExtractRequest request;
  request.variables = {"t"};
  request.points = {{3.0, 45.0}};
  auto plan = grid::PlanExtract(*meta, request);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->times, (std::vector<int64_t>{0, 1}));
  auto extracted = grid::Extract(*store_, "run/m00", request);
  ASSERT_TRUE(extracted.ok()) << extracted.status();
  request.time = "2017-01-01T12:00:00Z";
  EXPECT_TRUE(grid::Extract(*store_, "run/m00", request).status().IsFailedPrecondition());
  auto anyway = Fetch("run/m00", 2, /*allow_incomplete=*/true);
  ASSERT_TRUE(anyway.ok()) << anyway.status();
  EXPECT_TRUE(std::isnan(anyway->variables.at("t").data<float>()[0]));
  // The import of that step completes it.
  auto third = Append({steps_[2]});
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->complete_steps, 3);
  ExpectStep("run/m00", 2);

  // The last step, with the number of steps expected: the run is DONE.
  auto last = Append({steps_[3]}, /*finish=*/false, /*expected=*/4);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(last->status, "DONE");
  meta = store_->GetDataSetMeta("run/m00");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->status(), "DONE");
  EXPECT_TRUE(meta->FindVariable("t")->complete_steps.empty());
  for (int64_t k = 0; k < 4; ++k) ExpectStep("run/m00", k);
}

TEST_F(GribRunTest, AppendRefusesWhatDoesNotFitTheRun) {
  ASSERT_TRUE(Append({steps_[0], steps_[2]}).ok());
  // A step already complete.
  auto again = Append({steps_[2]});
  EXPECT_TRUE(again.status().IsFailedPrecondition());
  EXPECT_THAT(std::string(again.status().message()),
              HasSubstr("at time 2017-01-01T12:00:00Z is already complete in dataset 'run/m00'"));
  // A step before the last one stored, not one of the run's.
  auto early = Append({steps_[1]});
  EXPECT_THAT(std::string(early.status().message()),
              HasSubstr("time 2017-01-01T06:00:00Z falls before the last step stored in dataset "
                        "'run/m00' (2017-01-01T12:00:00Z)"));
  // Half of a step's levels.
  const std::string half = dir_.Sub("half.grib");
  ASSERT_EQ(WriteRunStep(half, 3, {850}), 2);
  auto partial = Append({half});
  EXPECT_THAT(std::string(partial.status().message()),
              HasSubstr("half.grib' brings levels [850] of 'isobaricInhPa', but dataset 'run/m00' "
                        "has [500, 850]: a step arrives whole in one import"));
  // Another run (member 0 of the analysis of 2017-01-02 00 UTC, as a run of its own).
  const std::string next = dir_.Sub("next.grib");
  ASSERT_EQ(WriteMessages(GribDir() + "/era5-levels-members.grib", next,
                          [](codes_handle* h) {
                            return testing::LongKey(h, "perturbationNumber", -1) == 0 &&
                                   testing::LongKey(h, "dataDate", 0) == 20170102 &&
                                   testing::LongKey(h, "dataTime", -1) == 0;
                          },
                          {}),
            4);
  auto other = Append({next});
  EXPECT_THAT(std::string(other.status().message()),
              HasSubstr("belongs to the run of 2017-01-02 00:00:00, but dataset 'run/m00' is the "
                        "run of 2017-01-01 00:00:00"));
  // The same run on another grid (member 0 of an ensemble, as the run's files are).
  const std::string grid = dir_.Sub("grid.grib");
  ASSERT_EQ(testing::WriteMessages(GribDir() + "/era5-2mt-2019-03-uk.grib", grid,
                                   [n = 0](codes_handle*) mutable { return n++ == 0; },
                                   {{"dataDate", 20170101},
                                    {"dataTime", 0},
                                    {"step", 24},
                                    {"numberOfForecastsInEnsemble", 10}}),
            1);
  auto moved = Append({grid});
  EXPECT_THAT(std::string(moved.status().message()),
              HasSubstr("coordinate 'latitude' is [58, 57.75"));
  // Nothing of these was written: the run is as it was, two steps complete.
  auto meta = store_->GetDataSetMeta("run/m00");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->status(), "INGESTING");
  EXPECT_EQ(meta->FindVariable("t")->shape[grid::kT], 2);
  EXPECT_EQ(meta->FindVariable("t")->complete_steps.ToString(), "0-1");
  // --finish ends it.
  auto done = Append({steps_[3]}, /*finish=*/true);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status, "DONE");

  // Appending to a dataset that is not a complete or growing one.
  GribImportOptions options;
  options.dataset_id = "run";
  options.append = true;
  options.overwrite = true;
  EXPECT_TRUE(ImportGrib(store_.get(), steps_[0], options).status().IsInvalidArgument());
}

TEST_F(GribRunTest, AppendingToACompleteDatasetKeepsItsStepsReadable) {
  GribImportOptions options;
  options.dataset_id = "run";
  ASSERT_TRUE(ImportGrib(store_.get(), {steps_[0], steps_[1]}, options).ok());
  auto grown = Append({steps_[2]});
  ASSERT_TRUE(grown.ok()) << grown.status();
  EXPECT_EQ(grown->status, "INGESTING");
  EXPECT_EQ(grown->complete_steps, 3);
  for (int64_t k = 0; k < 3; ++k) ExpectStep("run/m00", k);
}

TEST_F(GribRunTest, EnsembleMembersAreDatasets) {
  const std::string path = GribDir() + "/era5-levels-members.grib";
  GribImportOptions options;
  options.dataset_id = "ens";
  auto summary = ImportGrib(store_.get(), path, options);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->planes, 160);
  ASSERT_EQ(summary->datasets.size(), 10u);
  EXPECT_EQ(summary->dataset_id, "ens/m00");
  EXPECT_EQ(summary->variables, 2);
  for (int m = 0; m < 10; ++m) {
    const std::string id = "ens/m0" + std::to_string(m);
    EXPECT_EQ(summary->datasets[size_t(m)], id);
    auto meta = store_->GetDataSetMeta(id);
    ASSERT_TRUE(meta.ok()) << id;
    EXPECT_EQ(meta->status(), "DONE");
    ASSERT_EQ(meta->variables.size(), 2u);  // z and t, named as for a deterministic file
    const grid::VariableMeta* v = meta->FindVariable("t");
    ASSERT_NE(v, nullptr) << id;
    EXPECT_EQ(v->shape, (grid::Shape4{4, 2, 61, 120}));
    EXPECT_EQ(v->attributes.at("GRIB_perturbationNumber").AsDouble(), m);
    EXPECT_EQ(meta->attributes.at("member").AsDouble(), m);
  }
  EXPECT_TRUE(store_->GetDataSetMeta("ens").status().IsNotFound());
  // Every field's values, in its member's dataset.
  std::map<int, grid::GridDataSet> all;
  for (int m = 0; m < 10; ++m) {
    auto fetcher = store_->GetDataFetcher("ens/m0" + std::to_string(m));
    ASSERT_TRUE(fetcher.ok());
    auto got = (*fetcher)->Fetch();
    ASSERT_TRUE(got.ok()) << got.status();
    all.emplace(m, std::move(got).value());
  }
  const std::vector<DecodedField> fields = DecodeWithEcCodes(path);
  ASSERT_EQ(fields.size(), 160u);
  // File order: time, then z 500, t 500, z 850, t 850, each for members 0..9.
  for (size_t k = 0; k < fields.size(); ++k) {
    const DecodedField& f = fields[k];
    const grid::Grid4D& grid = all.at(int(f.member)).variables.at(f.short_name);
    const int64_t t = int64_t(k / 40), z = f.level == 500 ? 0 : 1;
    const size_t plane = f.values.size();
    for (size_t i = 0; i < plane; i += 7) {
      ASSERT_EQ(grid.data<float>()[size_t(t * 2 + z) * plane + i], static_cast<float>(f.values[i]))
          << f.short_name << " member " << f.member << " t " << t << " z " << z << " point " << i;
    }
  }
}

TEST_F(GribRunTest, GridMappingIsCf) {
  GribImportOptions options;
  options.dataset_id = "lambert";
  ASSERT_TRUE(ImportGrib(store_.get(), GribDir() + "/lambert.grib2", options).ok());
  auto meta = store_->GetDataSetMeta("lambert");
  ASSERT_TRUE(meta.ok());
  const grid::Coordinate* crs = meta->FindCoordinate("crs");
  ASSERT_NE(crs, nullptr);
  EXPECT_EQ(grid::StringAttribute(crs->attributes, "grid_mapping_name"), "lambert_conformal_conic");
  EXPECT_TRUE(crs->attributes.count("standard_parallel"));
  EXPECT_TRUE(crs->attributes.count("longitude_of_central_meridian"));
  EXPECT_EQ(grid::StringAttribute(meta->variables[0].attributes, "grid_mapping"), "crs");

  options.dataset_id = "polar";
  ASSERT_TRUE(ImportGrib(store_.get(),
                         GribDir() + "/CMC_glb_TMP_ISBL_1015_ps30km_2013052000_P006.grib2", options)
                  .ok());
  meta = store_->GetDataSetMeta("polar");
  ASSERT_TRUE(meta.ok());
  crs = meta->FindCoordinate("crs");
  ASSERT_NE(crs, nullptr);
  EXPECT_EQ(grid::StringAttribute(crs->attributes, "grid_mapping_name"), "polar_stereographic");
  EXPECT_EQ(crs->attributes.at("latitude_of_projection_origin").AsDouble(), 90.0);
  EXPECT_TRUE(crs->attributes.count("straight_vertical_longitude_from_pole"));
}

}  // namespace
}  // namespace gridstore::importers
