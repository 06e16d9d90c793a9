// Copyright 2026 The GridStore Authors.
//
// Compact coordinate values in the dataset meta (version 7): a regular axis as start + step, an
// irregular one of whole numbers as deltas, anything else raw; every form exact, bit for bit, and
// metas written before version 7 still read.
#include "gridstore/model/internal/coordinate_values.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gridstore/model/grid_meta.h"
#include "gridstore/util/internal/coding.h"
#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

using internal_meta::ChooseValuesForm;
using internal_meta::ValuesForm;

constexpr int64_t kDecadeHours = 350640;  // 40 years of hourly steps, 1985-2024

DataSetMeta MetaWithTime(std::vector<double> values) {
  DataSetMeta meta;
  meta.id = "decades";
  VariableMeta t2m;
  t2m.name = "t2m";
  t2m.shape = {static_cast<int64_t>(values.size()), 1, 64, 64};
  meta.variables.push_back(t2m);
  Coordinate time;
  time.name = "time";
  time.dimensions = {"time"};
  time.shape = {static_cast<int64_t>(values.size())};
  time.type = DataType::kInt64;
  time.values = std::move(values);
  time.attributes.emplace("units", AttributeValue::String("hours since 1985-01-01"));
  meta.coordinates.push_back(std::move(time));
  return meta;
}

int VersionOf(const std::string& bytes) { return static_cast<int>(bytes[4]); }

// Bit-for-bit equality (NaN and -0 included), which operator== on doubles is not.
void ExpectSameBits(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(double)), 0)
        << "value " << i << ": " << a[i] << " vs " << b[i];
  }
}

// Encodes, decodes, checks the values are back exactly and the encoding is stable.
std::string RoundTrip(const DataSetMeta& meta) {
  const std::string bytes = meta.Encode();
  Result<DataSetMeta> back = DataSetMeta::Decode(bytes);
  EXPECT_OK(back.status());
  if (!back.ok()) return bytes;
  ExpectSameBits(back->coordinates[0].values, meta.coordinates[0].values);
  EXPECT_EQ(back->Encode(), bytes);
  return bytes;
}

TEST(CoordinateValuesTest, RegularAxisIsStartAndStep) {
  std::vector<double> hours(kDecadeHours);
  for (int64_t i = 0; i < kDecadeHours; ++i) hours[i] = static_cast<double>(i);
  const DataSetMeta meta = MetaWithTime(hours);
  ASSERT_OK(meta.Validate());
  EXPECT_EQ(ChooseValuesForm(meta.coordinates[0].values), ValuesForm::kRegular);
  const std::string bytes = RoundTrip(meta);
  EXPECT_EQ(VersionOf(bytes), 7);
  // 2.7 MiB as raw doubles; a few dozen bytes as start + step.
  EXPECT_LT(bytes.size(), 200u);

  // Fractional steps are regular when every product and sum is exact (0.25 degrees) ...
  std::vector<double> lat;
  for (int i = 0; i < 721; ++i) lat.push_back(90.0 - i * 0.25);
  EXPECT_EQ(ChooseValuesForm(lat), ValuesForm::kRegular);
  RoundTrip(MetaWithTime(lat));
  // ... and not when they round (0.1 is not a binary fraction): those stay raw, exactly.
  std::vector<double> tenths;
  for (int i = 0; i < 1000; ++i) tenths.push_back(i * 0.1);
  EXPECT_EQ(ChooseValuesForm(tenths), ValuesForm::kRaw);
  const std::string raw = RoundTrip(MetaWithTime(tenths));
  EXPECT_GT(raw.size(), 8000u);
  // A decreasing axis, and one with a negative start.
  std::vector<double> down;
  for (int i = 0; i < 300; ++i) down.push_back(-1000.0 - 6.0 * i);
  EXPECT_EQ(ChooseValuesForm(down), ValuesForm::kRegular);
  RoundTrip(MetaWithTime(down));
}

TEST(CoordinateValuesTest, IrregularWholeNumbersAreDeltas) {
  // Hourly, with a gap of a day every 1000 steps and a step back once: whole numbers, not regular.
  std::vector<double> hours;
  double h = 1e9;
  for (int i = 0; i < 5000; ++i) {
    hours.push_back(h);
    h += (i % 1000 == 999) ? 24 : (i == 2500 ? -7 : 1);
  }
  EXPECT_EQ(ChooseValuesForm(hours), ValuesForm::kIntegerDeltas);
  const std::string bytes = RoundTrip(MetaWithTime(hours));
  EXPECT_EQ(VersionOf(bytes), 7);
  EXPECT_LT(bytes.size(), 5000u + 200u);  // about a byte a step, not eight

  // The extremes of what deltas hold: +-(2^53 - 1).
  std::vector<double> extremes(300, 0.0);
  extremes[0] = 9007199254740991.0;
  extremes[1] = -9007199254740991.0;
  for (int i = 2; i < 300; ++i) extremes[i] = i;
  EXPECT_EQ(ChooseValuesForm(extremes), ValuesForm::kIntegerDeltas);
  RoundTrip(MetaWithTime(extremes));
}

TEST(CoordinateValuesTest, AnythingElseStaysRawAndExact) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double odd : {nan, inf, -0.0, 9007199254740992.0, 0.5}) {
    std::vector<double> values;
    for (int i = 0; i < 300; ++i) values.push_back(3.0 * i);
    values[150] = odd;
    EXPECT_EQ(ChooseValuesForm(values), ValuesForm::kRaw) << odd;
    RoundTrip(MetaWithTime(values));
  }
  // Short axes stay raw, so the metas of ordinary runs need no version 7.
  std::vector<double> day;
  for (int i = 0; i < 255; ++i) day.push_back(i);
  EXPECT_EQ(ChooseValuesForm(day), ValuesForm::kRaw);
  EXPECT_EQ(VersionOf(RoundTrip(MetaWithTime(day))), 5);
}

// A meta written before version 7 (here: a version-5 writer's bytes, raw values of a long axis,
// built field by field) still decodes, values exact; rewritten, it takes the compact form.
TEST(CoordinateValuesTest, OlderMetasStillDecode) {
  std::vector<double> hours(1000);
  for (int i = 0; i < 1000; ++i) hours[i] = 24.0 * i;
  const DataSetMeta meta = MetaWithTime(hours);
  const std::string compact = meta.Encode();
  ASSERT_EQ(VersionOf(compact), 7);

  std::string v5 = "GSMD";
  PutFixed32(&v5, 5);
  PutLengthPrefixed(&v5, meta.id);
  PutVarint64(&v5, 0);  // incarnation
  PutVarint64(&v5, 0);  // generation
  PutVarint64(&v5, 1);  // flags
  PutVarsint64(&v5, 256);
  PutVarsint64(&v5, 256);
  v5.push_back(static_cast<char>(meta.layout.codec.codec));
  PutVarsint64(&v5, meta.layout.codec.level);
  PutVarsint64(&v5, 0);  // frame_rows
  PutVarint64(&v5, 0);   // no dataset attributes
  // The variable is encoded alike in every version: take it from the compact encoding.
  std::string probe = compact.substr(8);
  const size_t variable_at = v5.size() - 8;
  ASSERT_EQ(probe.substr(0, variable_at), v5.substr(8));
  PutVarint64(&v5, 1);  // one variable
  std::string vars_and_more = compact.substr(8 + variable_at + 1);
  // Cut the variable: everything up to the coordinate count (1) before "time".
  const size_t coord_at = vars_and_more.find("\x01\x04time");
  ASSERT_NE(coord_at, std::string::npos);
  v5 += vars_and_more.substr(0, coord_at);
  PutVarint64(&v5, 1);  // one coordinate, raw doubles as version 5 wrote them
  PutLengthPrefixed(&v5, "time");
  PutVarint64(&v5, 1);
  PutLengthPrefixed(&v5, "time");
  PutVarint64(&v5, 1);
  PutVarsint64(&v5, 1000);
  v5.push_back(static_cast<char>(DataType::kInt64));
  PutVarint64(&v5, hours.size());
  for (double h : hours) PutDouble(&v5, h);
  PutVarint64(&v5, 1);
  PutLengthPrefixed(&v5, "units");
  v5.push_back(1);
  PutLengthPrefixed(&v5, "hours since 1985-01-01");
  PutVarint64(&v5, 0);  // no complete steps
  v5.push_back(0);      // no series layout

  ASSERT_OK_AND_ASSIGN(DataSetMeta back, DataSetMeta::Decode(v5));
  EXPECT_EQ(back, meta);
  EXPECT_EQ(back.Encode(), compact);
}

TEST(CoordinateValuesTest, MalformedCompactValuesAreDataLoss) {
  std::vector<double> hours(kDecadeHours);
  for (int64_t i = 0; i < kDecadeHours; ++i) hours[i] = static_cast<double>(i);
  const std::string bytes = MetaWithTime(hours).Encode();
  // The regular form: tag 1, count, start, step, right after the type byte of "time".
  const size_t tag = bytes.find("\x01\x04time") + 2 + 4 + 1 + 5 + 1 + 3 + 1;
  ASSERT_EQ(bytes[tag], 1) << "layout of the test's meta changed";
  std::string unknown = bytes;
  unknown[tag] = 3;
  EXPECT_STATUS(DataSetMeta::Decode(unknown), kDataLoss, "coordinate 'time' values");
  // A count that disagrees with the shape (a damaged count must not allocate gigabytes).
  std::string wrong_count = bytes;
  wrong_count[tag + 1] = static_cast<char>(wrong_count[tag + 1] ^ 0x10);
  EXPECT_STATUS(DataSetMeta::Decode(wrong_count), kDataLoss, "coordinate 'time' values");
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_TRUE(DataSetMeta::Decode(bytes.substr(0, n)).status().IsDataLoss()) << n;
  }

  // Deltas that leave (-2^53, 2^53) were not written by an encoder.
  auto decode = [](const std::string& in, uint64_t expected) {
    ByteReader reader(in);
    std::vector<double> values;
    return internal_meta::DecodeValues(&reader, expected, &values) && reader.empty();
  };
  std::string deltas(1, static_cast<char>(ValuesForm::kIntegerDeltas));
  PutVarint64(&deltas, 2);
  PutVarsint64(&deltas, (int64_t{1} << 53) - 1);
  std::string fits = deltas, overflows = deltas;
  PutVarsint64(&fits, -1);
  PutVarsint64(&overflows, 1);
  EXPECT_TRUE(decode(fits, 2));
  EXPECT_FALSE(decode(overflows, 2));
  EXPECT_FALSE(decode(fits, 3));  // the shape says 3
}

}  // namespace
}  // namespace gridstore::grid
