// Copyright 2026 The GridStore Authors.
#include "gridstore/model/internal/grid_keys.h"

#include <algorithm>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

using std::string_literals::operator""s;

// Incarnations worth mixing: 0 (keys without one), ones with NUL and 0xff bytes, the largest.
const std::vector<uint64_t> kIncarnations = {0, 1, 0xff00, 0x00ff00ff00ff00ffull,
                                             0xffffffffffffffffull};

std::vector<std::string> AllKeysOf(std::string_view id, const std::vector<std::string>& variables,
                                   const std::vector<uint64_t>& incarnations = kIncarnations) {
  std::vector<std::string> keys;
  for (uint64_t inc : incarnations) {
    for (const std::string& v : variables) {
      for (uint32_t t : {0u, 1u, 255u, 256u, 0xffffffffu}) {
        for (uint32_t z : {0u, 7u, 0xffffffffu}) {
          for (uint32_t r : {0u, 1u, 0xffffffffu}) {
            for (uint32_t c : {0u, 2u, 0xffffffffu}) {
              keys.push_back(DataKey(BlockAddress{id, inc, v, kPlaneLayout, t, z, r, c}));
            }
          }
        }
      }
    }
  }
  return keys;
}

TEST(GridKeysTest, DataKeyLayout) {
  EXPECT_EQ(DataKey(BlockAddress{"a", 0x0102030405060708, "x", kPlaneLayout, 1, 2, 3, 0x01020304}),
            "a\0\0\x01\x02\x03\x04\x05\x06\x07\x08x\0\0"s
            "\0\0\0\x01"s
            "\0\0\0\x02"s
            "\0\0\0\x03"s
            "\x01\x02\x03\x04"s);
  // Incarnation 0: the keys of store format 1, without one.
  EXPECT_EQ(DataKey(BlockAddress{"a", 0, "x", kPlaneLayout, 1, 2, 3, 0x01020304}),
            "a\0x\0\0"s
            "\0\0\0\x01"s
            "\0\0\0\x02"s
            "\0\0\0\x03"s
            "\x01\x02\x03\x04"s);
  EXPECT_EQ(DataKey(BlockAddress{"a/b", 0, "x,y", 7, 0xfffffffe, 0, 0, 0}),
            "a/b\0x,y\0\x07"s
            "\xff\xff\xff\xfe"s +
                std::string(12, '\0'));
}

TEST(GridKeysTest, IncarnationRangesHoldExactlyTheirKeys) {
  const std::vector<std::string> variables = {"x", "x,y", "\xce\xb8"};
  for (uint64_t inc : kIncarnations) {
    const storage::KeyRange range = IncarnationDataRange("a", inc);
    EXPECT_FALSE(range.end.empty());
    for (uint64_t other : kIncarnations) {
      for (const std::string& key : AllKeysOf("a", variables, {other})) {
        EXPECT_EQ(range.Contains(key), inc == other) << inc << " vs " << other;
        EXPECT_TRUE(DataSetDataRange("a").Contains(key));
      }
    }
    for (const std::string& key : AllKeysOf("a/b", variables)) EXPECT_FALSE(range.Contains(key));
    for (const std::string& key : AllKeysOf("a\x01", variables)) {
      EXPECT_FALSE(range.Contains(key));
    }
  }
}

TEST(GridKeysTest, MetaTableKeysOfTheStoreAreReserved) {
  const storage::KeyRange metas = AllMetaKeys();
  for (const std::string& id : {"a"s, "\x01"s, "\xff\xff"s}) {
    EXPECT_TRUE(metas.Contains(MetaKey(id)));
    EXPECT_FALSE(metas.Contains(MetaStampKey(id)));
    EXPECT_FALSE(metas.Contains(StagedKey(id, 7)));
    EXPECT_TRUE(StagedKeysOf(id).Contains(StagedKey(id, 7)));
    EXPECT_TRUE(AllStagedKeys().Contains(StagedKey(id, 0xffffffffffffffffull)));
    EXPECT_FALSE(StagedKeysOf(id + "b").Contains(StagedKey(id, 7)));
    std::string_view decoded_id;
    uint64_t inc = 0;
    const std::string staged = StagedKey(id, 0x00ff00ff00ff00ffull);  // decoded_id points into it
    ASSERT_TRUE(DecodeStagedKey(staged, &decoded_id, &inc));
    EXPECT_EQ(decoded_id, id);
    EXPECT_EQ(inc, 0x00ff00ff00ff00ffull);
  }
  EXPECT_FALSE(metas.Contains(StoreMarkerKey()));
  EXPECT_FALSE(AllStagedKeys().Contains(StoreMarkerKey()));
  EXPECT_FALSE(AllStagedKeys().Contains(MetaStampKey("a")));
  std::string_view id;
  uint64_t inc = 0;
  EXPECT_FALSE(DecodeStagedKey(MetaStampKey("a"), &id, &inc));
  EXPECT_FALSE(DecodeStagedKey(StagedKey("a", 1) + "x", &id, &inc));
  uint64_t generation = 0;
  EXPECT_TRUE(DecodeMetaStamp(EncodeMetaStamp(5, 9), &inc, &generation));
  EXPECT_EQ(inc, 5u);
  EXPECT_EQ(generation, 9u);
  EXPECT_FALSE(DecodeMetaStamp("short", &inc, &generation));
}

TEST(GridKeysTest, AppendDataKeyAppendsWithoutReallocating) {
  std::string key = "prefix";
  key.reserve(128);
  const char* data = key.data();
  AppendDataKey(BlockAddress{"ds", 9, "var", kPlaneLayout, 1, 2, 3, 4}, &key);
  EXPECT_EQ(key.data(), data);
  EXPECT_EQ(key, "prefix" + DataKey(BlockAddress{"ds", 9, "var", kPlaneLayout, 1, 2, 3, 4}));
}

TEST(GridKeysTest, DataSetRangesDoNotInterleave) {
  const std::vector<std::string> ids = {
      "a", "a/b", "a b", "a|b", "a\x01", "ab", "\xc3\xa9t\xc3\xa9", "a\xff", "b"};
  const std::vector<std::string> variables = {"x", "x,y", "x y", "T|2m", "\xce\xb8"};
  for (const std::string& id : ids) {
    const storage::KeyRange range = DataSetDataRange(id);
    EXPECT_FALSE(range.end.empty());
    for (const std::string& other : ids) {
      for (const std::string& key : AllKeysOf(other, variables)) {
        EXPECT_EQ(range.Contains(key), id == other)
            << "range of '" << EscapeForMessage(id) << "' vs key of '" << EscapeForMessage(other)
            << "'";
      }
    }
  }
  // The ranges themselves are disjoint.
  for (const std::string& a : ids) {
    for (const std::string& b : ids) {
      if (a == b) continue;
      const storage::KeyRange ra = DataSetDataRange(a), rb = DataSetDataRange(b);
      EXPECT_TRUE(ra.end <= rb.begin || rb.end <= ra.begin) << a << " / " << b;
    }
  }
}

TEST(GridKeysTest, VariableRangesDoNotInterleave) {
  const std::vector<std::string> variables = {"x",  "x,y",   "x y",      "x|y",
                                              "xy", "x\x01", "\xce\xb8", "x\xce\xb8"};
  for (const std::string& v : variables) {
    for (uint64_t inc : {0ull, 0xff00ull}) {
      const storage::KeyRange range = VariableDataRange("a", inc, v);
      EXPECT_TRUE(DataSetDataRange("a").Contains(range.begin));
      EXPECT_TRUE(IncarnationDataRange("a", inc).Contains(range.begin));
      for (const std::string& other : variables) {
        for (uint64_t other_inc : kIncarnations) {
          for (const std::string& key : AllKeysOf("a", {other}, {other_inc})) {
            EXPECT_EQ(range.Contains(key), v == other && inc == other_inc) << v << " vs " << other;
          }
        }
      }
      for (const std::string& key : AllKeysOf("a/b", {v})) EXPECT_FALSE(range.Contains(key));
    }
  }
}

TEST(GridKeysTest, PlaneRangeHoldsExactlyItsPlane) {
  const storage::KeyRange range = PlaneDataRange("a", 1, "x", kPlaneLayout, 1, 7);
  for (const std::string& key : AllKeysOf("a", {"x", "x,y"})) {
    ASSERT_OK_AND_ASSIGN(BlockAddress a, DecodeDataKey(key));
    EXPECT_EQ(range.Contains(key), a.incarnation == 1 && a.variable == "x" && a.t == 1 && a.z == 7);
  }
  const storage::KeyRange last = PlaneDataRange("a", 0, "x", kPlaneLayout, 0xffffffff, 0xffffffff);
  EXPECT_FALSE(last.end.empty());
  EXPECT_TRUE(last.Contains(
      DataKey(BlockAddress{"a", 0, "x", 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff})));
  EXPECT_FALSE(last.Contains(DataKey(BlockAddress{"a", 0, "x", 1, 0, 0, 0, 0})));
}

TEST(GridKeysTest, KeysSortByTimeThenLevelThenBlock) {
  std::vector<BlockAddress> addresses;
  for (uint32_t t : {0u, 1u, 256u, 65536u}) {
    for (uint32_t z : {0u, 2u, 300u}) {
      for (uint32_t r : {0u, 1u, 1000u}) {
        for (uint32_t c : {0u, 5u, 70000u})
          addresses.push_back({"ds", 3, "v", kPlaneLayout, t, z, r, c});
      }
    }
  }
  // `addresses` is in (t, z, row, col) order; the keys must sort the same way.
  std::vector<std::string> keys;
  for (const BlockAddress& a : addresses) keys.push_back(DataKey(a));
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end());
}

TEST(GridKeysTest, DecodeDataKeyRoundTrips) {
  for (uint64_t inc : kIncarnations) {
    const BlockAddress in{"a/b c|\xc3\xa9", inc, "x,y", kPlaneLayout, 0xdeadbeef, 3, 0, 0xffffffff};
    const std::string key = DataKey(in);
    ASSERT_OK_AND_ASSIGN(BlockAddress out, DecodeDataKey(key));
    EXPECT_EQ(out.dataset, in.dataset);
    EXPECT_EQ(out.incarnation, in.incarnation);
    EXPECT_EQ(out.variable, in.variable);
    EXPECT_EQ(out.layout, in.layout);
    EXPECT_EQ(out.t, in.t);
    EXPECT_EQ(out.z, in.z);
    EXPECT_EQ(out.block_row, in.block_row);
    EXPECT_EQ(out.block_col, in.block_col);
    // The views point into the key.
    EXPECT_EQ(out.dataset.data(), key.data());
  }
  // Trailing integers that hold NUL bytes do not confuse the parser.
  const std::string zero_key = DataKey({"d", 0, "v", 0, 0, 0, 0, 0});
  ASSERT_OK_AND_ASSIGN(BlockAddress zeros, DecodeDataKey(zero_key));
  EXPECT_EQ(zeros.dataset, "d");
  EXPECT_EQ(zeros.variable, "v");
}

TEST(GridKeysTest, DecodeDataKeyRejectsMalformedKeys) {
  const std::string good = DataKey(BlockAddress{"ds", 0, "var", kPlaneLayout, 1, 2, 3, 4});
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_STATUS(DecodeDataKey(good.substr(0, n)), kDataLoss, "");
  }
  const std::string with = DataKey(BlockAddress{"ds", 5, "var", kPlaneLayout, 1, 2, 3, 4});
  for (size_t n = 0; n < with.size(); ++n) {
    EXPECT_STATUS(DecodeDataKey(with.substr(0, n)), kDataLoss, "");
  }
  // Incarnation 0 is written without the marker: a marker followed by it is malformed.
  EXPECT_STATUS(DecodeDataKey("ds\0\0"s + std::string(8, '\0') + "v\0"s + std::string(17, '\0')),
                kDataLoss, "malformed incarnation");
  EXPECT_STATUS(DecodeDataKey(good + "x"), kDataLoss, "18 bytes after the variable name",
                "expected 17");
  EXPECT_STATUS(DecodeDataKey("ds"), kDataLoss, "missing a string terminator");
  EXPECT_STATUS(DecodeDataKey("ds\0var"s), kDataLoss, "missing a string terminator");
  EXPECT_STATUS(DecodeDataKey("\0var\0"s + std::string(17, '\0')), kDataLoss, "empty");
  EXPECT_STATUS(DecodeDataKey("ds\0\0"s + std::string(17, '\0')), kDataLoss, "");
  EXPECT_STATUS(DecodeDataKey(std::string(257, 'a') + "\0v\0"s + std::string(17, '\0')), kDataLoss,
                "over-long");
  // The meta-table keys are not data keys.
  EXPECT_STATUS(DecodeDataKey(StoreMarkerKey()), kDataLoss, "");
}

TEST(GridKeysTest, ValidatesIdsAndNames) {
  EXPECT_OK(ValidateDataSetId("a"));
  EXPECT_OK(ValidateDataSetId("ecmwf/2026-01-01T00, run 1|\xc3\xa9"));
  EXPECT_OK(ValidateDataSetId(std::string(256, 'x')));
  EXPECT_STATUS(ValidateDataSetId(""), kInvalidArgument, "dataset id is empty");
  EXPECT_STATUS(ValidateDataSetId("a\0b"s), kInvalidArgument,
                "dataset id 'a\\x00b' contains a NUL byte");
  EXPECT_STATUS(ValidateDataSetId(std::string(300, 'x')), kInvalidArgument,
                "dataset id is 300 bytes; the limit is 256", "'xxxx");
  EXPECT_OK(ValidateVariableName("T 2m"));
  EXPECT_STATUS(ValidateVariableName(""), kInvalidArgument, "variable name is empty");
  EXPECT_STATUS(ValidateVariableName("\0"s), kInvalidArgument,
                "variable name '\\x00' contains a NUL byte");
  EXPECT_STATUS(ValidateVariableName(std::string(257, 'v')), kInvalidArgument,
                "variable name is 257 bytes; the limit is 256");
}

TEST(GridKeysTest, EscapesForMessages) {
  EXPECT_EQ(EscapeForMessage("plain id/with, spaces|"), "plain id/with, spaces|");
  EXPECT_EQ(EscapeForMessage("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8c\xa7"),
            "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8c\xa7");
  EXPECT_EQ(EscapeForMessage("a\0b\n\x7f"s), "a\\x00b\\x0a\\x7f");
  EXPECT_EQ(EscapeForMessage("back\\slash"), "back\\\\slash");
  // Invalid UTF-8: a lone continuation byte, a truncated sequence, an overlong form, a surrogate.
  EXPECT_EQ(EscapeForMessage("\x80"), "\\x80");
  EXPECT_EQ(EscapeForMessage("\xe2\x82"), "\\xe2\\x82");
  EXPECT_EQ(EscapeForMessage("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(EscapeForMessage("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(EscapeForMessage("\xff"), "\\xff");
}

TEST(GridKeysTest, MetaKeysAndStoreMarker) {
  EXPECT_EQ(MetaKey("a/b"), "a/b");
  EXPECT_EQ(StoreMarkerKey(), "\0gridstore"s);
  const storage::KeyRange all = AllMetaKeys();
  EXPECT_TRUE(all.end.empty());
  EXPECT_FALSE(all.Contains(StoreMarkerKey()));
  EXPECT_FALSE(all.Contains("\0anything"s));
  for (const char* id : {"a", "\x01", "\x01z", "zzz", "\xff\xff", "a/b"}) {
    EXPECT_TRUE(all.Contains(MetaKey(id))) << EscapeForMessage(id);
  }
}

TEST(GridKeysTest, DataSetIndexRange) {
  const storage::KeyRange a = DataSetIndexRange("a");
  EXPECT_EQ(a.begin,
            "\x02"
            "a\0"s);
  EXPECT_EQ(a.end,
            "\x02"
            "a\x01"s);
  EXPECT_TRUE(
      a.Contains("\x02"
                 "a\0anything"s));
  EXPECT_FALSE(
      a.Contains("\x02"
                 "a/b\0anything"s));
  EXPECT_FALSE(
      DataSetIndexRange("a/b").Contains("\x02"
                                        "a\0x"s));
  EXPECT_FALSE(
      a.Contains("\x01"
                 "a\0x"s));  // meta-query postings are separate
}

}  // namespace
}  // namespace gridstore::grid
