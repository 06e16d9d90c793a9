// Copyright 2026 The GridStore Authors.
#include "gridstore/model/grid_meta.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/util/internal/coding.h"
#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

using std::string_literals::operator""s;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

VariableMeta SimpleVariable(std::string name) {
  VariableMeta v;
  v.name = std::move(name);
  v.shape = {2, 3, 40, 50};
  return v;
}

DataSetMeta SimpleMeta() {
  DataSetMeta meta;
  meta.id = "run";
  meta.variables.push_back(SimpleVariable("T"));
  return meta;
}

// Several variables of different types and shapes, every attribute kind, 1-D and 2-D coordinates.
DataSetMeta RichMeta() {
  DataSetMeta meta;
  meta.id = "ecmwf/2026-01-01T00, run 1|\xc3\xa9";
  meta.incarnation = 0xfedcba9876543210;
  meta.layout = {128, 300, {Codec::kZstd, -5}, 32};
  meta.set_status(kStatusDone);
  meta.attributes.emplace(kCreateTimeAttribute, AttributeValue::Int64(1767225600000));
  meta.attributes.emplace("source", AttributeValue::String("ECMWF"));
  meta.attributes.emplace("resolution", AttributeValue::Double(0.25));
  meta.attributes.emplace("operational", AttributeValue::Bool(true));
  meta.attributes.emplace("offset", AttributeValue::Int64(-42));

  VariableMeta t;
  t.name = "T 2m";
  t.shape = {73, 1, 721, 1440};
  t.dimension_names = {"time", "", "lat", "lon"};
  t.set_fill_value(-9999.0f);
  t.missing_values = {-9999.0, 1e30};
  t.attributes.emplace("units", AttributeValue::String("K"));
  t.attributes.emplace("long_name", AttributeValue::String("2 metre temperature"));
  t.attributes.emplace("valid_range", AttributeValue::Floats(DataType::kFloat32, {180.5, 340}));
  t.attributes.emplace("weird", AttributeValue::Floats(DataType::kFloat64,
                                                       {kNaN, -0.0, -1e300, 1e-310,
                                                        std::numeric_limits<double>::infinity()}));
  meta.variables.push_back(t);

  VariableMeta u;
  u.name = "u,wind";
  u.shape = {73, 37, 722, 1440};  // staggered: one more point in x
  u.dimension_names = {"time", "level", "lat_u", "lon"};
  u.set_fill_value(int16_t{-32767});
  u.packing = Packing{0.01, 273.15, DataType::kFloat32};
  u.attributes.emplace("flag_values",
                       AttributeValue::Integers(DataType::kInt8, {-1, 0, 1, 127, -128}));
  u.attributes.emplace(
      "big", AttributeValue::Integers(DataType::kUint64, {static_cast<int64_t>(UINT64_MAX), 0, 7}));
  u.attributes.emplace("empty", AttributeValue::Integers(DataType::kInt32, {}));
  u.attributes.emplace("comment", AttributeValue::String("multi\nline \"text\" \0 with NUL"s));
  meta.variables.push_back(u);

  VariableMeta mask;
  mask.name = "land_mask";
  mask.type = DataType::kUint8;
  mask.shape = {1, 1, 721, 1440};
  meta.variables.push_back(mask);

  VariableMeta count;
  count.name = "\xce\xb8";
  count.set_fill_value(uint64_t{UINT64_MAX});
  count.shape = {1, 1, 1, 1};
  meta.variables.push_back(count);

  Coordinate lat;
  lat.name = "lat";
  lat.dimensions = {"lat"};
  lat.shape = {721};
  lat.type = DataType::kFloat32;
  for (int i = 0; i < 721; ++i) lat.values.push_back(90.0 - i * 0.25);
  lat.attributes.emplace("units", AttributeValue::String("degrees_north"));
  meta.coordinates.push_back(lat);

  Coordinate time;
  time.name = "time";
  time.dimensions = {"time"};
  time.shape = {3};
  time.values = {0, 3, 6};
  time.attributes.emplace("units", AttributeValue::String("hours since 2026-01-01 00:00:00"));
  time.attributes.emplace("calendar", AttributeValue::String("proleptic_gregorian"));
  meta.coordinates.push_back(time);

  Coordinate lon2d;
  lon2d.name = "lon2d";
  lon2d.dimensions = {"y", "x"};
  lon2d.shape = {3, 4};
  lon2d.values = {-180, -179.5, -179, -178.5, 0, 0.5, 1, 1.5, 179, 179.25, 179.5, 179.75};
  meta.coordinates.push_back(lon2d);

  Coordinate reftime;  // a scalar coordinate: no dimensions, one value
  reftime.name = "reftime";
  reftime.type = DataType::kInt32;
  reftime.values = {832908};
  reftime.attributes.emplace("units", AttributeValue::String("hours since 1900-01-01"));
  meta.coordinates.push_back(reftime);
  return meta;
}

TEST(GridMetaTest, RichMetaRoundTrips) {
  const DataSetMeta meta = RichMeta();
  ASSERT_OK(meta.Validate());
  const std::string bytes = meta.Encode();
  EXPECT_EQ(bytes.substr(0, 4), "GSMD");
  ASSERT_OK_AND_ASSIGN(DataSetMeta decoded, DataSetMeta::Decode(bytes));
  EXPECT_TRUE(decoded == meta);
  EXPECT_EQ(decoded.Encode(), bytes);  // canonical
  EXPECT_EQ(decoded.id, meta.id);
  EXPECT_EQ(decoded.incarnation, meta.incarnation);
  EXPECT_EQ(decoded.layout, meta.layout);
  ASSERT_EQ(decoded.variables.size(), 4u);
  EXPECT_TRUE(decoded.variables[1] == meta.variables[1]);
  EXPECT_EQ(decoded.variables[1].packing->unpacked_type, DataType::kFloat32);
  EXPECT_EQ(decoded.variables[0].missing_values, meta.variables[0].missing_values);
  const AttributeValue& weird = decoded.variables[0].attributes.at("weird");
  EXPECT_TRUE(std::isnan(weird.floats()[0]));
  EXPECT_TRUE(std::signbit(weird.floats()[1]));
  EXPECT_EQ(weird.floats()[3], 1e-310);
  EXPECT_EQ(decoded.variables[1].attributes.at("comment").string_value(),
            "multi\nline \"text\" \0 with NUL"s);
  EXPECT_EQ(decoded.coordinates, meta.coordinates);
  EXPECT_EQ(decoded.status(), "DONE");
}

TEST(GridMetaTest, DecodeAttributesKeepsOnlyTheNamedOnes) {
  DataSetMeta meta = RichMeta();
  meta.attributes.emplace("a", AttributeValue::Int64(7));
  meta.attributes.emplace("m", AttributeValue::Floats(DataType::kFloat64, {0.5, 1.5}));
  meta.attributes.emplace("s", AttributeValue::String("x"));
  meta.attributes.emplace("z", AttributeValue::Bool(true));
  const std::string bytes = meta.Encode();
  Attributes all;
  ASSERT_OK(DataSetMeta::DecodeAttributes(bytes, &all));
  EXPECT_EQ(all, meta.attributes);
  for (const std::vector<std::string>& keep :
       std::vector<std::vector<std::string>>{{}, {"a"}, {"m", "z"}, {"a", "nope", "s", "z"}}) {
    Attributes want;
    for (const std::string& name : keep) {
      if (auto it = meta.attributes.find(name); it != meta.attributes.end()) want.insert(*it);
    }
    Attributes got = {{"stale", AttributeValue::Int64(1)}};  // replaced, not merged
    ASSERT_OK(DataSetMeta::DecodeAttributes(bytes, keep, &got));
    EXPECT_EQ(got, want);
  }
  // Skipped attributes are still checked: every prefix fails exactly when the full decode does.
  int failures = 0;
  for (size_t n = 0; n < bytes.size(); n += 3) {
    Attributes full, kept;
    const Status a = DataSetMeta::DecodeAttributes(bytes.substr(0, n), &full);
    const Status b =
        DataSetMeta::DecodeAttributes(bytes.substr(0, n), std::vector<std::string>{"a"}, &kept);
    EXPECT_EQ(a.ok(), b.ok()) << n;
    if (!b.ok()) {
      EXPECT_TRUE(b.IsDataLoss()) << b;
      ++failures;
    }
  }
  EXPECT_GT(failures, 10);
}

TEST(GridMetaTest, EncodeToAppends) {
  const DataSetMeta meta = SimpleMeta();
  std::string dst = "xyz";
  meta.EncodeTo(&dst);
  EXPECT_EQ(dst, "xyz" + meta.Encode());
}

TEST(GridMetaTest, EncodingIsDeterministic) {
  DataSetMeta a = SimpleMeta(), b = SimpleMeta();
  // Insertion order of attributes does not matter: maps are ordered.
  a.attributes.emplace("x", AttributeValue::Int64(1));
  a.attributes.emplace("a", AttributeValue::Int64(2));
  b.attributes.emplace("a", AttributeValue::Int64(2));
  b.attributes.emplace("x", AttributeValue::Int64(1));
  EXPECT_EQ(a.Encode(), b.Encode());
}

TEST(GridMetaTest, EveryTruncationIsDataLoss) {
  const std::string bytes = RichMeta().Encode();
  // Each prefix is tried; coordinate values are long, so step through their middle quickly.
  for (size_t n = 0; n < bytes.size(); n += (n > 400 && n + 400 < bytes.size()) ? 7 : 1) {
    EXPECT_STATUS(DataSetMeta::Decode(bytes.substr(0, n)), kDataLoss, "");
  }
  const std::string simple = SimpleMeta().Encode();
  for (size_t n = 0; n < simple.size(); ++n) {
    EXPECT_STATUS(DataSetMeta::Decode(simple.substr(0, n)), kDataLoss, "");
  }
}

TEST(GridMetaTest, TrailingBytesAreDataLoss) {
  EXPECT_STATUS(DataSetMeta::Decode(SimpleMeta().Encode() + "\0"s), kDataLoss, "trailing bytes");
}

TEST(GridMetaTest, CorruptBytesNeverCrash) {
  // Any single flipped byte must decode to DataLoss or to some meta (never crash or hang).
  const std::string bytes = SimpleMeta().Encode();
  DataSetMeta with_attrs = SimpleMeta();
  with_attrs.variables[0].attributes.emplace("a", AttributeValue::Floats(DataType::kFloat32, {1}));
  with_attrs.attributes.emplace("s", AttributeValue::String("x"));
  with_attrs.coordinates.push_back(Coordinate{"c", {"d"}, {2}, DataType::kFloat64, {1, 2}, {}});
  for (const std::string& good : {bytes, with_attrs.Encode()}) {
    for (size_t pos = 0; pos < good.size(); ++pos) {
      for (uint8_t mask : {0x01, 0x40, 0x80, 0xff}) {
        std::string bad = good;
        bad[pos] = static_cast<char>(bad[pos] ^ mask);
        Result<DataSetMeta> r = DataSetMeta::Decode(bad);
        if (!r.ok()) {
          EXPECT_TRUE(r.status().IsDataLoss() || r.status().code() == StatusCode::kUnimplemented)
              << r.status();
        }
      }
    }
  }
}

TEST(GridMetaTest, NewerVersionIsUnimplemented) {
  std::string bytes = SimpleMeta().Encode();
  bytes[4] = 9;
  EXPECT_STATUS(DataSetMeta::Decode(bytes), kUnimplemented,
                "dataset meta format version 9 is newer than this build reads (8)");
  bytes[4] = 0;
  EXPECT_STATUS(DataSetMeta::Decode(bytes), kDataLoss, "version 0");
}

TEST(GridMetaTest, DefaultBlockLayoutsAndOneRowPlanes) {
  // Small blocks on an embedded store (a value is read whole), 256x256 on a distributed one.
  const BlockLayout embedded = DefaultBlockLayout(/*distributed=*/false);
  const BlockLayout distributed = DefaultBlockLayout(/*distributed=*/true);
  EXPECT_EQ(BlockLayoutToString(embedded), "64x128, shuffle-zstd:3");
  EXPECT_EQ(BlockLayoutToString(distributed), "256x256, shuffle-zstd:3");
  // Planes of one row keep as many values per block, in one row.
  EXPECT_EQ(BlockLayoutToString(ForOneRowPlanes(embedded)), "1x8192, shuffle-zstd:3");
  EXPECT_EQ(BlockLayoutToString(ForOneRowPlanes(distributed)), "1x65536, shuffle-zstd:3");
  BlockLayout chosen = embedded;
  chosen.block_x = 32;  // the user's choice stays
  EXPECT_EQ(BlockLayoutToString(ForOneRowPlanes(chosen)), "32x128, shuffle-zstd:3");
}

TEST(GridMetaTest, FrameRowsRoundTripAndValidate) {
  DataSetMeta meta = SimpleMeta();
  meta.layout.frame_rows = 16;
  ASSERT_OK_AND_ASSIGN(DataSetMeta back, DataSetMeta::Decode(meta.Encode()));
  EXPECT_EQ(back.layout.frame_rows, 16);
  EXPECT_EQ(back, meta);
  EXPECT_EQ(BlockLayoutToString(meta.layout), "256x256, shuffle-zstd:3, frames of 16 rows");
  meta.layout.frame_rows = 256;  // one frame: the unframed format
  EXPECT_EQ(BlockLayoutToString(meta.layout), "256x256, shuffle-zstd:3");
  EXPECT_OK(meta.Validate());
  meta.layout.frame_rows = 1000;  // more than the block's rows: one frame too
  EXPECT_OK(meta.Validate());
  EXPECT_EQ(BlockLayoutToString(meta.layout), "256x256, shuffle-zstd:3");
  meta.layout.frame_rows = (1 << 20) + 1;
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "frame_rows 1048577 is invalid", "[0, 1048576]");
  meta.layout.frame_rows = -1;
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "frame_rows -1");
}

TEST(GridMetaTest, Version1MetaDecodesWithoutFrames) {
  // A version-1 meta (written before frames existed) has no frame_rows field.
  DataSetMeta meta = SimpleMeta();
  std::string v1 = "GSMD";
  PutFixed32(&v1, 1);
  PutLengthPrefixed(&v1, meta.id);
  PutVarint64(&v1, meta.incarnation);
  PutVarsint64(&v1, meta.layout.block_x);
  PutVarsint64(&v1, meta.layout.block_y);
  v1.push_back(static_cast<char>(meta.layout.codec.codec));
  PutVarsint64(&v1, meta.layout.codec.level);
  // The rest of the body is the same in both versions.
  std::string v2 = meta.Encode();
  size_t head = 4 + 4;
  head += 1 + meta.id.size();
  std::string probe;
  PutVarint64(&probe, meta.incarnation);
  PutVarint64(&probe, meta.generation);
  PutVarint64(&probe, 1);  // flags: the incarnation is in data keys
  PutVarsint64(&probe, meta.layout.block_x);
  PutVarsint64(&probe, meta.layout.block_y);
  PutVarsint64(&probe, meta.layout.codec.level);
  PutVarsint64(&probe, meta.layout.frame_rows);
  head += probe.size() + 1;  // + codec byte
  // Without version 4's complete steps at the end (one empty list per variable) and version
  // 5's series layout flag.
  v1 += v2.substr(head, v2.size() - head - meta.variables.size() - 1);
  ASSERT_OK_AND_ASSIGN(DataSetMeta back, DataSetMeta::Decode(v1));
  EXPECT_EQ(back.layout.frame_rows, 0);
  // Metas before version 3 name data keys without the incarnation, and have no generation.
  EXPECT_FALSE(back.incarnation_in_keys);
  EXPECT_EQ(back.key_incarnation(), 0u);
  EXPECT_EQ(back.generation, 0u);
  meta.incarnation_in_keys = false;
  EXPECT_EQ(back, meta);
}

TEST(GridMetaTest, StepSetMergesAndAnswers) {
  StepSet steps;
  EXPECT_EQ(steps.ToString(), "none");
  EXPECT_TRUE(steps.Contains(3, 3));  // an empty range
  steps.Add(4, 6);
  steps.Add(0, 2);
  EXPECT_EQ(steps.ToString(), "0-1, 4-5");
  EXPECT_FALSE(steps.Contains(0, 5));
  EXPECT_EQ(steps.FirstMissing(0, 6), 2);
  EXPECT_EQ(steps.FirstMissing(4, 6), 6);
  steps.Add(2, 4);  // touches both: one range
  EXPECT_EQ(steps.ranges(), (std::vector<StepSet::Range>{{0, 6}}));
  steps.Add(8, 9);
  steps.Add(1, 3);  // inside
  EXPECT_EQ(steps.ToString(), "0-5, 8");
  EXPECT_EQ(steps.count(), 7);
  EXPECT_TRUE(steps.Contains(8, 9));
  EXPECT_FALSE(steps.Contains(5, 9));
}

TEST(GridMetaTest, CompleteStepsRoundTripAndValidate) {
  DataSetMeta meta = SimpleMeta();
  meta.set_status(kStatusIngesting);
  meta.variables[0].shape[kT] = 10;
  meta.variables[0].complete_steps.Add(0, 3);
  meta.variables[0].complete_steps.Add(5, 6);
  EXPECT_OK(meta.Validate());
  ASSERT_OK_AND_ASSIGN(DataSetMeta back, DataSetMeta::Decode(meta.Encode()));
  EXPECT_EQ(back, meta);
  EXPECT_EQ(back.variables[0].complete_steps.ToString(), "0-2, 5");
  meta.variables[0].complete_steps.Add(9, 11);  // past the variable's 10 steps
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "complete steps 0-2, 5, 9-10",
                "within its 10 steps");
  // Out of order on disk: DataLoss, not a set that Encode would write differently.
  DataSetMeta one = SimpleMeta();
  one.variables.resize(1);
  std::string bytes = one.Encode();
  ASSERT_EQ(bytes.back(), '\0');  // no series layout
  bytes.pop_back();
  ASSERT_EQ(bytes.back(), '\0');  // the one variable's empty list
  bytes.pop_back();
  PutVarint64(&bytes, 2);
  for (int64_t v : {4, 6, 0, 2}) PutVarsint64(&bytes, v);
  bytes.push_back('\0');
  EXPECT_STATUS(DataSetMeta::Decode(bytes), kDataLoss, "complete steps out of order");
}

TEST(GridMetaTest, SeriesLayoutRoundTripsAndValidates) {
  DataSetMeta meta = SimpleMeta();
  meta.series = SeriesLayout{.block_t = 241, .tile_x = 8, .tile_y = 12, .frame_points = 4};
  EXPECT_OK(meta.Validate());
  ASSERT_OK_AND_ASSIGN(DataSetMeta back, DataSetMeta::Decode(meta.Encode()));
  EXPECT_EQ(back, meta);
  meta.series->ready = true;
  ASSERT_OK_AND_ASSIGN(back, DataSetMeta::Decode(meta.Encode()));
  EXPECT_EQ(back, meta);
  EXPECT_EQ(SeriesLayoutToString(*meta.series), "241 steps x 8x12 points, frames of 4 points");
  // Every truncation of the new field is DataLoss.
  const std::string bytes = meta.Encode();
  for (size_t cut = 1; cut <= 6; ++cut) {
    EXPECT_TRUE(DataSetMeta::Decode(bytes.substr(0, bytes.size() - cut)).status().IsDataLoss());
  }
  meta.series->tile_x = 0;
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "series layout", "each side must be in");
  meta.series = SeriesLayout{.block_t = 1 << 20, .tile_x = 64, .tile_y = 64};
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "a block may hold at most");
}

// Blocks over several levels need version 6; a meta without them is still written as version 5,
// so that builds before block_z read it.
TEST(GridMetaTest, SeriesLevelsNeedVersion6AndOnlyThen) {
  DataSetMeta meta = SimpleMeta();
  auto version_of = [](const std::string& bytes) { return static_cast<int>(bytes[4]); };
  EXPECT_EQ(version_of(meta.Encode()), 5);
  meta.series = SeriesLayout{.block_t = 241, .tile_x = 8, .tile_y = 12, .frame_points = 4};
  EXPECT_EQ(version_of(meta.Encode()), 5);
  meta.series->block_z = 10;
  const std::string bytes = meta.Encode();
  EXPECT_EQ(version_of(bytes), 6);
  ASSERT_OK_AND_ASSIGN(DataSetMeta back, DataSetMeta::Decode(bytes));
  EXPECT_EQ(back, meta);
  EXPECT_EQ(SeriesLayoutToString(*meta.series),
            "241 steps x 8x12 points x 10 levels, frames of 4 rows");
  EXPECT_TRUE(DataSetMeta::Decode(bytes.substr(0, bytes.size() - 1)).status().IsDataLoss());
  // Read as version 5, the levels are trailing bytes.
  std::string as_v5 = bytes;
  as_v5[4] = 5;
  EXPECT_STATUS(DataSetMeta::Decode(as_v5), kDataLoss, "trailing bytes");
  meta.series->block_z = 0;
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "series layout", "each side must be in");
  meta.series = SeriesLayout{.block_t = 4096, .tile_x = 16, .tile_y = 16, .block_z = 64};
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "a block may hold at most");
}

// A growing series layout (issue 33, part 3) needs version 8, and only while it grows: the
// steps it holds follow block_z; grown to every step, the meta is written as before.
TEST(GridMetaTest, AGrowingSeriesLayoutNeedsVersion8AndOnlyThen) {
  DataSetMeta meta = SimpleMeta();
  auto version_of = [](const std::string& bytes) { return static_cast<int>(bytes[4]); };
  meta.series = SeriesLayout{.block_t = 16, .tile_x = 8, .tile_y = 8, .ready = true, .steps = 32};
  const std::string bytes = meta.Encode();
  EXPECT_EQ(version_of(bytes), 8);
  ASSERT_OK_AND_ASSIGN(DataSetMeta back, DataSetMeta::Decode(bytes));
  EXPECT_EQ(back, meta);
  EXPECT_EQ(back.series->StepsHeld(40), 32);
  EXPECT_EQ(back.series->StepsHeld(20), 20);
  EXPECT_THAT(SeriesLayoutToString(*meta.series),
              ::testing::HasSubstr("growing: steps 0-31 so far"));
  std::string as_v7 = bytes;
  as_v7[4] = 7;
  EXPECT_STATUS(DataSetMeta::Decode(as_v7), kDataLoss, "trailing bytes");
  meta.series->steps = kSeriesAllSteps;
  EXPECT_EQ(version_of(meta.Encode()), 5);
  EXPECT_EQ(meta.series->StepsHeld(40), 40);
  meta.series->steps = 20;  // not whole blocks
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "must be whole blocks of steps");
  meta.series->steps = -5;
  EXPECT_STATUS(meta.Validate(), kInvalidArgument, "must be whole blocks of steps");
}

TEST(GridMetaTest, BadMagicAndEnumsAreDataLoss) {
  EXPECT_STATUS(DataSetMeta::Decode("GSMX\x01\0\0\0"s), kDataLoss, "bad magic");
  EXPECT_STATUS(DataSetMeta::Decode(""), kDataLoss, "");

  // Build encodings field by field to reach each enum.
  auto header = [] {
    std::string s = "GSMD";
    PutFixed32(&s, kMetaFormatVersion);
    PutLengthPrefixed(&s, "id");
    PutVarint64(&s, 0);   // incarnation
    PutVarint64(&s, 0);   // generation
    PutVarint64(&s, 1);   // flags
    PutVarsint64(&s, 8);  // block_x
    PutVarsint64(&s, 8);  // block_y
    return s;
  };
  std::string bad_codec = header();
  bad_codec.push_back(3);
  PutVarsint64(&bad_codec, 3);
  EXPECT_STATUS(DataSetMeta::Decode(bad_codec), kDataLoss, "codec 3");

  std::string ok = header();
  ok.push_back(0);       // codec none
  PutVarsint64(&ok, 3);  // level
  PutVarsint64(&ok, 0);  // frame_rows
  PutVarint64(&ok, 1);   // one dataset attribute
  PutLengthPrefixed(&ok, "k");
  std::string bad_kind = ok +
                         "\x04"
                         "x";
  EXPECT_STATUS(DataSetMeta::Decode(bad_kind), kDataLoss, "'k' kind 4");
  std::string bad_bool = ok + "\x02\x02";
  EXPECT_STATUS(DataSetMeta::Decode(bad_bool), kDataLoss, "'k'");
  std::string bad_number_type = ok + "\x03\x0b\x01\x02";
  EXPECT_STATUS(DataSetMeta::Decode(bad_number_type), kDataLoss, "number type");

  std::string vars = ok + "\x02\x01"s;  // k = true
  PutVarint64(&vars, 1);                // one variable
  PutLengthPrefixed(&vars, "T");
  EXPECT_STATUS(DataSetMeta::Decode(vars + "\x00"s + std::string(20, '\0')), kDataLoss,
                "variable 'T' data type");

  // A huge count must not make the decoder allocate.
  std::string huge = ok + "\x02\x01"s;
  PutVarint64(&huge, uint64_t{1} << 60);
  EXPECT_STATUS(DataSetMeta::Decode(huge), kDataLoss, "variable count");
}

TEST(GridMetaTest, AttributeValues) {
  EXPECT_TRUE(AttributeValue().is_string());
  EXPECT_EQ(AttributeValue().string_value(), "");
  EXPECT_EQ(AttributeValue::String("DONE").ToString(), "DONE");
  EXPECT_EQ(AttributeValue::Bool(true).ToString(), "true");
  EXPECT_EQ(AttributeValue::Bool(false).ToString(), "false");
  EXPECT_EQ(AttributeValue::Int64(-5).ToString(), "-5");
  EXPECT_EQ(AttributeValue::Double(0.1).ToString(), "0.1");
  EXPECT_EQ(AttributeValue::Floats(DataType::kFloat32, {static_cast<float>(0.1), 2.5}).ToString(),
            "0.1, 2.5");
  EXPECT_EQ(AttributeValue::Integers(DataType::kUint64, {-1}).ToString(), "18446744073709551615");
  EXPECT_EQ(AttributeValue::Integers(DataType::kInt16, {1, -2, 3}).ToString(), "1, -2, 3");

  const AttributeValue ints = AttributeValue::Integers(DataType::kInt16, {1, -2, 3});
  EXPECT_TRUE(ints.is_number());
  EXPECT_EQ(ints.number_type(), DataType::kInt16);
  EXPECT_EQ(ints.size(), 3u);
  EXPECT_EQ(ints.AsDouble(1), -2.0);
  EXPECT_EQ(AttributeValue::Integers(DataType::kUint64, {-1}).AsDouble(), 18446744073709551615.0);
  EXPECT_EQ(AttributeValue::Double(2.5).AsDouble(), 2.5);
  EXPECT_EQ(AttributeValue::String("x").size(), 1u);

  EXPECT_EQ(AttributeValue::Double(kNaN), AttributeValue::Double(kNaN));
  EXPECT_EQ(AttributeValue::Int64(1), AttributeValue::Integers(DataType::kInt64, {1}));
  EXPECT_FALSE(AttributeValue::Int64(1) == AttributeValue::Integers(DataType::kInt32, {1}));
  EXPECT_FALSE(AttributeValue::Int64(1) == AttributeValue::Double(1));
  EXPECT_FALSE(AttributeValue::String("1") == AttributeValue::Int64(1));
  EXPECT_FALSE(AttributeValue::Bool(true) == AttributeValue::Bool(false));
  EXPECT_FALSE(AttributeValue::Double(1) == AttributeValue::Floats(DataType::kFloat64, {1, 2}));
}

TEST(GridMetaTest, FillValueAsDouble) {
  VariableMeta v;
  EXPECT_EQ(v.FillValueAsDouble(), 0.0);
  v.set_fill_value(int16_t{-32767});
  EXPECT_EQ(v.type, DataType::kInt16);
  EXPECT_EQ(v.FillValueAsDouble(), -32767.0);
  v.set_fill_value(9.96921e36f);
  EXPECT_EQ(v.FillValueAsDouble(), static_cast<double>(9.96921e36f));
  v.set_fill_value(uint8_t{255});
  EXPECT_EQ(v.FillValueAsDouble(), 255.0);
  v.set_fill_value(-1.5);
  EXPECT_EQ(v.type, DataType::kFloat64);
  EXPECT_EQ(v.FillValueAsDouble(), -1.5);
}

TEST(GridMetaTest, FindersAndStatus) {
  DataSetMeta meta = RichMeta();
  ASSERT_NE(meta.FindVariable("u,wind"), nullptr);
  EXPECT_EQ(meta.FindVariable("u,wind")->type, DataType::kInt16);
  EXPECT_EQ(meta.FindVariable("u"), nullptr);
  meta.FindVariable("land_mask")->attributes.emplace("units", AttributeValue::String("1"));
  EXPECT_EQ(std::as_const(meta).FindVariable("land_mask")->attributes.size(), 1u);
  ASSERT_NE(meta.FindCoordinate("lat"), nullptr);
  EXPECT_EQ(meta.FindCoordinate("lat")->values.size(), 721u);
  EXPECT_EQ(meta.FindCoordinate("lon"), nullptr);

  EXPECT_EQ(meta.status(), "DONE");
  meta.set_status(kStatusInit);
  EXPECT_EQ(meta.status(), "INIT");
  meta.attributes["status"] = AttributeValue::Int64(1);
  EXPECT_EQ(meta.status(), "");
  EXPECT_EQ(SimpleMeta().status(), "");
  EXPECT_EQ(AxisName(kT), "t");
  EXPECT_EQ(AxisName(kY), "y");
}

TEST(GridMetaTest, ValidateNamesTheOffendingThing) {
  {
    DataSetMeta m = SimpleMeta();
    m.id = "";
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "dataset id is empty");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.variables.clear();
    EXPECT_OK(m.Validate());  // a data-less meta (catalogue entry) is valid
  }
  {
    DataSetMeta m = SimpleMeta();
    m.variables.push_back(SimpleVariable("T"));
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "dataset 'run'", "duplicate variable 'T'");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.variables.push_back(SimpleVariable(""));
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "dataset 'run'", "variable name is empty");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.variables[0].type = static_cast<DataType>(42);
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "variable 'T': invalid data type 42");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.variables[0].shape[kX] = 0;
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "dataset 'run'",
                  "variable 'T': extent of axis x is 0; it must be in [1, 2147483647]");
    m.variables[0].shape[kX] = int64_t{1} << 31;
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "extent of axis x is 2147483648");
    m.variables[0].shape = {1, 1, 1, -1};
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "extent of axis y is -1");
    m.variables[0].shape = {2147483647, 2147483647, 2147483647, 2};
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "variable 'T': shape", "more than 2^63 bytes");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.variables[0].fill_value = "\x01\x02";
    EXPECT_STATUS(m.Validate(), kInvalidArgument,
                  "variable 'T': fill value has 2 bytes but float32 needs 4");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.variables[0].packing = Packing{0.1, 0, DataType::kInt32};
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "variable 'T': packing unpacked type int32");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.variables[0].attributes.emplace("", AttributeValue::Int64(1));
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "variable 'T': an attribute has an empty name");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.coordinates.push_back(
        Coordinate{"lat", {"lat"}, {11}, DataType::kFloat64, std::vector<double>(10), {}});
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "dataset 'run'",
                  "coordinate 'lat': 10 values for shape [11]");
    m.coordinates[0].values.push_back(0);
    EXPECT_OK(m.Validate());
    m.coordinates.push_back(m.coordinates[0]);
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "duplicate coordinate 'lat'");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.coordinates.push_back(
        Coordinate{"xy", {"y", "x"}, {2, 3}, DataType::kFloat32, std::vector<double>(5), {}});
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "coordinate 'xy': 5 values for shape [2, 3]");
    m.coordinates[0].shape = {2};
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "coordinate 'xy': 1 extents for 2 dimensions");
    m.coordinates[0].dimensions = {"a", "b", "c"};
    m.coordinates[0].shape = {1, 1, 5};
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "coordinate 'xy': has 3 dimensions");
    m.coordinates[0].dimensions = {"a"};
    m.coordinates[0].shape = {0};
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "coordinate 'xy': extent of dimension 'a' is 0");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.layout.block_x = 0;
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "dataset 'run'",
                  "block shape 0x256 is invalid: each side must be in [1, 1048576]");
    m.layout.block_x = 1 << 20;
    EXPECT_OK(m.Validate());
    m.layout.block_y = (1 << 20) + 1;
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "block shape 1048576x1048577");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.layout.codec.level = 23;
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "dataset 'run'", "codec level 23");
  }
  {
    DataSetMeta m = SimpleMeta();
    m.attributes.emplace("n", AttributeValue::Integers(static_cast<DataType>(0), {1}));
    EXPECT_STATUS(m.Validate(), kInvalidArgument, "dataset 'run'", "attribute 'n'",
                  "invalid number type 0");
  }
}

}  // namespace
}  // namespace gridstore::grid
