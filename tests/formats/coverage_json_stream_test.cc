// Copyright 2026 The GridStore Authors.
//
// The streamed CoverageJSON of a point (formats/internal/coverage_json_stream.h) against the
// tree-built document it replaces on the wire: for every real file of $GRIDSTORE_TEST_DATA, at
// points all over the globe, every time and level, one time, one level, the two must be the
// same bytes. Then its numbers and strings against nlohmann's serializer, the time-label cache
// against AxisCoordinate::Label, and what it declines (areas, many times and many levels) and a
// failing stream.
#include "gridstore/formats/internal/coverage_json_stream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gridstore/formats/extraction_formats.h"
#include "gridstore/formats/internal/coverage_json.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/util/internal/strings.h"
#include "tests/formats/formats_testutil.h"
#include "tests/test_util.h"

namespace gridstore::internal_formats {
namespace {

using grid::Extraction;

// The document as WriteCoverageJson built it before the streamed writer: the tree, dumped.
std::string TreeDocument(const Extraction& r) {
  RawArrays raw;
  std::vector<covjson> coverages = ExtractionCoverages(r, &raw);
  EXPECT_EQ(coverages.size(), 1u);
  covjson& c = coverages[0];
  covjson doc = {{"type", c["type"]},
                 {"domain", std::move(c["domain"])},
                 {"parameters", CoverageParameters(r)},
                 {"ranges", std::move(c["ranges"])}};
  std::ostringstream out;
  EXPECT_OK(EmitJson(doc, out, formats::JsonLayout::kCompact, &raw));
  return out.str();
}

std::string Streamed(const Extraction& r) {
  std::string text;
  EXPECT_TRUE(AppendPointCoverageJson(r, &text));
  return text;
}

TEST(CoverageJsonStreamTest, EveryRealFileStreamsTheTreesBytes) {
  const std::filesystem::path data = testing::RealDataDir();
  ASSERT_FALSE(data.empty());
  testing::ScopedTempDir tmp;
  ASSERT_OK_AND_ASSIGN(auto store,
                       grid::GridStore::Open(tmp.Sub("store"), {.create_if_missing = true}));
  int compared = 0, series = 0, profiles = 0, single = 0;
  for (const char* file :
       {"tos_O1_2001-2002.nc", "era5_1995-07-14T12.nc", "small_theta_colpex.nc",
        "SMALL_total_column_co2.nc", "sub.nc", "nc4uvt.nc", "contour.cdf", "reduced.nc"}) {
    SCOPED_TRACE(file);
    importers::NetCdfImportOptions options;
    options.dataset_id = file;
    ASSERT_OK(importers::ImportNetCdf(store.get(), (data / file).string(), options));
    // Points of each variable's own grid: 16 cells spread over it, each a little off its centre.
    ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, store->GetDataSetMeta(file));
    std::vector<grid::LonLat> points;
    for (const grid::VariableMeta& var : meta.variables) {
      Result<std::shared_ptr<const grid::HorizontalGrid>> g =
          grid::HorizontalGrid::Build(meta, var);
      if (!g.ok()) continue;  // a variable without horizontal coordinates
      const int64_t nx = (*g)->nx(), ny = (*g)->ny();
      for (int64_t x : {int64_t{0}, nx / 3, 2 * nx / 3, nx - 1}) {
        for (int64_t y : {int64_t{0}, ny / 3, 2 * ny / 3, ny - 1}) {
          const grid::LonLat c = (*g)->At({x, y});
          points.push_back({c.lon + 0.001, c.lat - 0.001});
        }
      }
    }
    int here = 0;
    for (const grid::LonLat& point : points) {
      {
        const double lon = point.lon, lat = point.lat;
        grid::ExtractRequest request;
        request.points = {point};
        std::vector<std::string> left_out;
        Result<std::vector<Extraction>> all = grid::ExtractEvery(*store, file, request, &left_out);
        if (!all.ok()) continue;  // outside this file's grid
        for (const Extraction& r : *all) {
          // Every time and level; then the first time alone and the first level alone.
          std::vector<grid::ExtractRequest> variants;
          grid::ExtractRequest one = request;
          for (const auto& v : r.variables) one.variables.push_back(v.meta.name);
          variants.push_back(one);
          if (r.time_axis.size() > 1 && !r.time_axis.name().empty()) {
            variants.push_back(one);
            variants.back().time = r.time_axis.Label(0);
          }
          if (r.level_axis.size() > 1 && !r.level_axis.name().empty()) {
            variants.push_back(one);
            variants.back().level = FormatDouble(r.level_axis.values()[0]);
          }
          for (const grid::ExtractRequest& q : variants) {
            Result<Extraction> e = grid::Extract(*store, file, q);
            ASSERT_TRUE(e.ok()) << q.time << " " << q.level << ": " << e.status().ToString();
            const size_t nt = e->plan.num_times(), nz = e->plan.num_levels();
            std::string text;
            if (nt > 1 && nz > 1) {
              EXPECT_FALSE(AppendPointCoverageJson(*e, &text));  // a collection: the tree's
              EXPECT_TRUE(text.empty());
              continue;
            }
            ASSERT_EQ(Streamed(*e), TreeDocument(*e)) << lon << " " << lat;
            // Twice: the second from the caches of labels and descriptions.
            ASSERT_EQ(Streamed(*e), TreeDocument(*e));
            std::ostringstream out;
            ASSERT_OK(formats::WriteCoverageJson(*e, out, formats::JsonLayout::kCompact));
            ASSERT_EQ(out.str(), TreeDocument(*e));
            ++compared, ++here;
            series += nt > 1, profiles += nz > 1, single += nt == 1 && nz == 1;
          }
        }
      }
    }
    // (No horizontal grid at all: a rotated grid in a build without PROJ.)
    if (!points.empty()) {
      EXPECT_GT(here, 0) << "no point of the globe fell in " << file;
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(series, 10);
  EXPECT_GT(profiles, 10);
  EXPECT_GT(single, 10);
}

TEST(CoverageJsonStreamTest, NumbersAndStringsAsNlohmannWritesThem) {
  const auto dump = [](const covjson& j) {
    return j.dump(-1, ' ', false, covjson::error_handler_t::replace);
  };
  for (double v : {0.0, -0.0, 1.0, 200.0, -79.5, 0.1, 1e-5, 1.5e-7, 123456789012345.0,
                   1234567890123456789.0, 1e21, 5e-324, std::numeric_limits<double>::max(),
                   double(float(290.55)), double(std::numeric_limits<float>::lowest())}) {
    std::string text;
    AppendJsonNumber(v, &text);
    EXPECT_EQ(text, dump(covjson(v))) << v;
  }
  for (double v : {std::nan(""), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    std::string text;
    AppendJsonNumber(v, &text);
    EXPECT_EQ(text, "null");
    EXPECT_EQ(text, dump(covjson(v)));
  }
  for (std::string s : {std::string(""), std::string("plain"), std::string("wind, \"gust\" max"),
                        std::string("back\\slash"), std::string("tab\there\nnewline\x01"),
                        std::string("\xc3\xa9t\xc3\xa9 \xe2\x84\x83"),
                        std::string("bad \xff utf-8 \xc3"), std::string("del \x7f")}) {
    std::string text = "x";  // appended, not replaced
    AppendJsonString(s, &text);
    EXPECT_EQ(text, "x" + dump(covjson(s))) << s;
  }
}

// A float32 variable's values are written as the float they are: the shortest text that reads
// back the same float, never the 17 digits of its double. Any other value (a double variable, or
// a float variable's value that is no float, as unpacking can make) reads back the same double.
TEST(CoverageJsonStreamTest, RangeValuesAreWrittenInTheVariablesPrecision) {
  auto text = [](double v, bool as_float) {
    std::string out = "x";  // appended, not replaced
    AppendRangeValue(v, as_float, &out);
    return out.substr(1);
  };
  EXPECT_EQ(text(double(282.30316f), true), "282.30316");
  EXPECT_EQ(text(double(282.30316f), false), "282.30316162109375");
  EXPECT_EQ(text(0.1, true), "0.1");  // not a float: the double
  EXPECT_EQ(text(double(0.1f), true), "0.1");
  EXPECT_EQ(text(double(0.1f), false), "0.10000000149011612");
  EXPECT_EQ(text(200.0, true), "200");
  EXPECT_EQ(text(-0.0, true), "-0");
  EXPECT_EQ(text(double(1e-7f), true), "1e-07");
  EXPECT_EQ(text(1e300, true), "1e+300");  // beyond float's range: the double
  for (double v : {std::nan(""), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(text(v, true), "null");
    EXPECT_EQ(text(v, false), "null");
  }
  // Every float of a wide sample reads back as itself, and every double as itself.
  std::mt19937 random(33);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t bits = random();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    if (!std::isfinite(f)) continue;
    const std::string t = text(double(f), true);
    EXPECT_EQ(std::strtof(t.c_str(), nullptr), f) << t;
    EXPECT_LE(t.size(), 15u) << t;
    const double d = std::ldexp(double(random()) / 4294967296.0, int(random() % 200) - 100);
    EXPECT_EQ(std::strtod(text(d, false).c_str(), nullptr), d);
  }
}

// Placeholders spliced wherever they are, in any order; text that only looks like one stays.
TEST(CoverageJsonStreamTest, RawArraysSpliceEachArrayWhereItsPlaceholderIs) {
  RawArrays raw;
  const std::vector<double> a = {1.5, std::nan("")};
  const covjson first = raw.Add(&a, false);
  const covjson second = raw.Add(std::vector<double>{double(0.1f)}, true);
  const std::string prefix =
      first.get<std::string>().substr(0, first.get<std::string>().size() - 2);
  covjson doc = {{"b", second},
                 {"a", first},
                 {"c", prefix + "9@"},
                 {"d", prefix + "x"},
                 {"e", std::vector<double>{}}};
  std::ostringstream out;
  ASSERT_OK(EmitJson(doc, out, formats::JsonLayout::kCompact, &raw));
  EXPECT_EQ(out.str(), "{\"b\":[0.1],\"a\":[1.5,null],\"c\":\"" + prefix + "9@\",\"d\":\"" +
                           prefix + "x\",\"e\":[]}\n");
}

class CoverageJsonStreamFixture : public testing::FormatsTest {};

TEST_F(CoverageJsonStreamFixture, TimeLabelsAreTheAxisLabelsWhateverTheAxis) {
  const grid::VariableMeta& var = meta_.variables[0];
  ASSERT_OK_AND_ASSIGN(grid::AxisCoordinate hours,
                       grid::AxisCoordinate::Build(meta_, var, grid::Axis::kT));
  // The same values in other units, and in another calendar: other labels, never the cached.
  grid::DataSetMeta days_meta = meta_;
  grid::DataSetMeta noleap_meta = meta_;
  for (grid::Coordinate& c : days_meta.coordinates) {
    if (c.name == "time")
      c.attributes["units"] = grid::AttributeValue::String("days since 2000-02-27");
  }
  for (grid::Coordinate& c : noleap_meta.coordinates) {
    if (c.name == "time") {
      c.attributes["units"] = grid::AttributeValue::String("days since 2000-02-27");
      c.attributes["calendar"] = grid::AttributeValue::String("noleap");
    }
  }
  ASSERT_OK_AND_ASSIGN(grid::AxisCoordinate days,
                       grid::AxisCoordinate::Build(days_meta, var, grid::Axis::kT));
  ASSERT_OK_AND_ASSIGN(grid::AxisCoordinate noleap,
                       grid::AxisCoordinate::Build(noleap_meta, var, grid::Axis::kT));
  for (int round = 0; round < 3; ++round) {
    for (const grid::AxisCoordinate* axis : {&hours, &days, &noleap}) {
      for (int64_t i = 0; i < axis->size(); ++i) {
        EXPECT_EQ(std::string(TimeLabels(*axis).Get(i)), axis->Label(i))
            << axis->units() << " " << i;
      }
    }
  }
  // Day 6 after 2000-02-27: 2000-03-04 in the standard calendar, 03-05 without 29 February.
  const std::string standard = std::string(TimeLabels(days).Get(1));
  EXPECT_NE(standard, std::string(TimeLabels(noleap).Get(1)));
}

// An axis longer than the cache holds is labelled afresh, the same labels; two such axes in turn
// never answer each other's.
TEST(CoverageJsonStreamTest, LongAxesAreLabelledAsTheAxisLabelsThem) {
  constexpr int64_t kSteps = 20000;
  std::vector<double> hours(kSteps);
  for (int64_t i = 0; i < kSteps; ++i) hours[size_t(i)] = double(i);
  grid::VariableMeta var = testing::MakeVariable("v", grid::DataType::kFloat32, {kSteps, 1, 2, 2});
  var.dimension_names = {"time", "z", "lat", "lon"};
  grid::DataSetMeta meta = testing::MakeMeta("long", {var}, 2, 2);
  meta.coordinates = {testing::Coord1D("time", hours, "hours since 1985-01-01 00:00:00")};
  grid::DataSetMeta later = meta;
  later.coordinates = {testing::Coord1D("time", hours, "hours since 2000-01-01 00:00:00")};
  ASSERT_OK_AND_ASSIGN(grid::AxisCoordinate a,
                       grid::AxisCoordinate::Build(meta, var, grid::Axis::kT));
  ASSERT_OK_AND_ASSIGN(grid::AxisCoordinate b,
                       grid::AxisCoordinate::Build(later, var, grid::Axis::kT));
  for (int64_t i : {int64_t{0}, int64_t{1}, kSteps / 2, kSteps - 1}) {
    EXPECT_EQ(std::string(TimeLabels(a).Get(i)), a.Label(i));
    EXPECT_EQ(std::string(TimeLabels(b).Get(i)), b.Label(i));
    const std::string from_a = std::string(TimeLabels(a).Get(i));
    EXPECT_NE(from_a, std::string(TimeLabels(b).Get(i)));
  }
}

// Two answers' labels alive at once on one thread (the second is not cached, so that neither
// replaces the other's entry), and more axes than the cache keeps, asked in turn.
TEST(CoverageJsonStreamTest, LabelsAliveTogetherAnswerEachForItsOwnAxis) {
  std::vector<grid::AxisCoordinate> axes;
  for (int k = 0; k < 6; ++k) {
    grid::VariableMeta var = testing::MakeVariable("v", grid::DataType::kFloat32, {30, 1, 2, 2});
    var.dimension_names = {"time", "z", "lat", "lon"};
    grid::DataSetMeta meta = testing::MakeMeta("m", {var}, 2, 2);
    std::vector<double> days(30);
    for (size_t i = 0; i < days.size(); ++i) days[i] = double(i * (k + 1));
    meta.coordinates = {testing::Coord1D("time", days, "days since 2000-02-27")};
    ASSERT_OK_AND_ASSIGN(grid::AxisCoordinate axis,
                         grid::AxisCoordinate::Build(meta, var, grid::Axis::kT));
    axes.push_back(std::move(axis));
  }
  for (int round = 0; round < 3; ++round) {
    for (size_t k = 0; k + 1 < axes.size(); ++k) {
      TimeLabels first(axes[k]);
      TimeLabels second(axes[k + 1]);
      for (int64_t i = 0; i < 30; ++i) {
        EXPECT_EQ(first.Get(i), axes[k].Label(i)) << k << " " << i;
        EXPECT_EQ(second.Get(i), axes[k + 1].Label(i)) << k + 1 << " " << i;
      }
    }
  }
}

TEST_F(CoverageJsonStreamFixture, DeclinesWhatIsNotOnePointsCoverage) {
  grid::ExtractRequest area;
  area.variables = {"t"};
  area.bbox = std::array<double, 4>{-25, 50, -15, 55};
  ASSERT_OK_AND_ASSIGN(Extraction a, grid::Extract(*store_, "run", area));
  std::string text = "kept";
  EXPECT_FALSE(AppendPointCoverageJson(a, &text));
  EXPECT_EQ(text, "kept");
  grid::ExtractRequest two = area;
  two.bbox.reset();
  two.points = {{-20, 52}, {-12, 48}};
  ASSERT_OK_AND_ASSIGN(Extraction b, grid::Extract(*store_, "run", two));
  EXPECT_FALSE(AppendPointCoverageJson(b, &text));
  EXPECT_EQ(text, "kept");
  // Many times and many levels at one point: one coverage per time, the tree's collection.
  grid::ExtractRequest both = two;
  both.points.resize(1);
  ASSERT_OK_AND_ASSIGN(Extraction c, grid::Extract(*store_, "run", both));
  EXPECT_FALSE(AppendPointCoverageJson(c, &text));
  EXPECT_EQ(text, "kept");
  std::ostringstream out;
  ASSERT_OK(formats::WriteCoverageJson(c, out, formats::JsonLayout::kCompact));
  EXPECT_NE(out.str().find("\"CoverageCollection\""), std::string::npos);
}

TEST_F(CoverageJsonStreamFixture, AFailingStreamIsUnavailable) {
  grid::ExtractRequest one;
  one.variables = {"t", testing::kOddName};
  one.points = {{-20, 52}};
  one.level = "850";
  ASSERT_OK_AND_ASSIGN(Extraction r, grid::Extract(*store_, "run", one));
  std::string text;
  ASSERT_TRUE(AppendPointCoverageJson(r, &text));
  EXPECT_EQ(text, TreeDocument(r));  // the odd name escaped alike
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  Status s = formats::WriteCoverageJson(r, out, formats::JsonLayout::kCompact);
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
}

}  // namespace
}  // namespace gridstore::internal_formats
