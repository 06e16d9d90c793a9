// Copyright 2026 The GridStore Authors.
//
// Byte coding: exact layouts, round trips at the edges, the big-endian ordering property that keys
// rely on, and that every reader refuses truncated input.

#include "gridstore/util/internal/coding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace gridstore {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;  // a ByteReader must not view a temporary

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

TEST(CodingTest, FixedWidthIsLittleEndian) {
  std::string s;
  PutFixed16(&s, 0x0102);
  PutFixed32(&s, 0x01020304);
  PutFixed64(&s, 0x0102030405060708);
  EXPECT_EQ(s,
            "\x02\x01"
            "\x04\x03\x02\x01"
            "\x08\x07\x06\x05\x04\x03\x02\x01"s);
  EXPECT_EQ(DecodeFixed16(s.data()), 0x0102);
  EXPECT_EQ(DecodeFixed32(s.data() + 2), 0x01020304u);
  EXPECT_EQ(DecodeFixed64(s.data() + 6), 0x0102030405060708u);
}

TEST(CodingTest, BigEndianPutsTheMostSignificantByteFirst) {
  std::string s;
  PutFixed32BigEndian(&s, 0x01020304);
  PutFixed64BigEndian(&s, 0x0102030405060708);
  EXPECT_EQ(s,
            "\x01\x02\x03\x04"
            "\x01\x02\x03\x04\x05\x06\x07\x08"s);
  EXPECT_EQ(DecodeFixed32BigEndian(s.data()), 0x01020304u);
  EXPECT_EQ(DecodeFixed64BigEndian(s.data() + 4), 0x0102030405060708u);
}

TEST(CodingTest, FixedWidthRoundTripsAtTheEdges) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{0xff}, uint64_t{0x8000000000000000},
                     kMax64 - 1, kMax64}) {
    std::string s;
    PutFixed16(&s, static_cast<uint16_t>(v));
    PutFixed32(&s, static_cast<uint32_t>(v));
    PutFixed64(&s, v);
    PutFixed32BigEndian(&s, static_cast<uint32_t>(v));
    PutFixed64BigEndian(&s, v);
    ASSERT_EQ(s.size(), 2u + 4 + 8 + 4 + 8);
    ByteReader r(s);
    uint16_t a;
    uint32_t b, d;
    uint64_t c, e;
    ASSERT_TRUE(r.ReadFixed16(&a));
    ASSERT_TRUE(r.ReadFixed32(&b));
    ASSERT_TRUE(r.ReadFixed64(&c));
    ASSERT_TRUE(r.ReadFixed32BigEndian(&d));
    ASSERT_TRUE(r.ReadFixed64BigEndian(&e));
    EXPECT_EQ(a, static_cast<uint16_t>(v));
    EXPECT_EQ(b, static_cast<uint32_t>(v));
    EXPECT_EQ(c, v);
    EXPECT_EQ(d, static_cast<uint32_t>(v));
    EXPECT_EQ(e, v);
    EXPECT_TRUE(r.empty());
  }
}

TEST(CodingTest, VarintEdgeValuesHaveTheExpectedLengthsAndRoundTrip) {
  struct Case {
    uint64_t value;
    size_t length;
  };
  for (const Case& c :
       {Case{0, 1}, Case{1, 1}, Case{127, 1}, Case{128, 2}, Case{16383, 2}, Case{16384, 3},
        Case{uint64_t{1} << 32, 5}, Case{(uint64_t{1} << 63) - 1, 9}, Case{uint64_t{1} << 63, 10},
        Case{kMax64, 10}}) {
    std::string s;
    PutVarint64(&s, c.value);
    EXPECT_EQ(s.size(), c.length) << c.value;
    ByteReader r(s);
    uint64_t v = 0;
    ASSERT_TRUE(r.ReadVarint64(&v)) << c.value;
    EXPECT_EQ(v, c.value);
    EXPECT_TRUE(r.empty());
  }
  std::string s;
  PutVarint64(&s, 0);
  PutVarint64(&s, 127);
  PutVarint64(&s, 128);
  EXPECT_EQ(s, "\x00\x7f\x80\x01"s);
}

TEST(CodingTest, VarintRejectsOverlongAndOverflowingInput) {
  // Ten bytes whose last carries more than the one bit left of 64.
  ByteReader overflow("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"sv);
  uint64_t v;
  EXPECT_FALSE(overflow.ReadVarint64(&v));
  // Eleven bytes: a continuation bit on the tenth.
  ByteReader overlong("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x81\x00"sv);
  EXPECT_FALSE(overlong.ReadVarint64(&v));
  ByteReader max("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"sv);
  ASSERT_TRUE(max.ReadVarint64(&v));
  EXPECT_EQ(v, kMax64);
}

TEST(CodingTest, GetVarint64PtrReturnsTheByteAfterOrNullptr) {
  const std::string s = "\x96\x01\x05"s;  // 150, then 5
  uint64_t v = 0;
  const char* p = GetVarint64Ptr(s.data(), s.data() + s.size(), &v);
  ASSERT_EQ(p, s.data() + 2);
  EXPECT_EQ(v, 150u);
  p = GetVarint64Ptr(p, s.data() + s.size(), &v);
  ASSERT_EQ(p, s.data() + 3);
  EXPECT_EQ(v, 5u);
  EXPECT_EQ(GetVarint64Ptr(s.data(), s.data() + 1, &v), nullptr);  // truncated
  EXPECT_EQ(GetVarint64Ptr(p, p, &v), nullptr);                    // empty
  const std::string overflow = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"s;
  EXPECT_EQ(GetVarint64Ptr(overflow.data(), overflow.data() + overflow.size(), &v), nullptr);
}

TEST(CodingTest, ZigZagKeepsSmallNegativesShort) {
  struct Case {
    int64_t value;
    std::string encoded;
  };
  for (const Case& c : {Case{0, "\x00"s}, Case{-1, "\x01"s}, Case{1, "\x02"s}, Case{-2, "\x03"s},
                        Case{-64, "\x7f"s}, Case{64, "\x80\x01"s}}) {
    std::string s;
    PutVarsint64(&s, c.value);
    EXPECT_EQ(s, c.encoded) << c.value;
  }
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{-12345678901}, int64_t{12345678901},
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min() + 1,
                    std::numeric_limits<int64_t>::max()}) {
    std::string s;
    PutVarsint64(&s, v);
    EXPECT_LE(s.size(), 10u);
    ByteReader r(s);
    int64_t got = 0;
    ASSERT_TRUE(r.ReadVarsint64(&got)) << v;
    EXPECT_EQ(got, v);
    EXPECT_TRUE(r.empty());
  }
}

TEST(CodingTest, DoubleRoundTripsBitForBit) {
  for (double d :
       {0.0, -0.0, 1.5, -273.15, 1e-310 /* subnormal */, std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::max(), std::numeric_limits<double>::quiet_NaN()}) {
    std::string s;
    PutDouble(&s, d);
    ASSERT_EQ(s.size(), 8u);
    ByteReader r(s);
    double got = 0;
    ASSERT_TRUE(r.ReadDouble(&got));
    EXPECT_EQ(std::memcmp(&got, &d, 8), 0) << d;
  }
  std::string one;
  PutDouble(&one, 1.0);
  EXPECT_EQ(one, "\x00\x00\x00\x00\x00\x00\xf0\x3f"s);
}

TEST(CodingTest, LengthPrefixedRoundTrips) {
  const std::vector<std::string> values = {"", "a", "with\0nul"s, std::string(300, '\xff')};
  std::string s;
  for (const std::string& v : values) PutLengthPrefixed(&s, v);
  ByteReader r(s);
  for (const std::string& v : values) {
    std::string_view got;
    ASSERT_TRUE(r.ReadLengthPrefixed(&got));
    EXPECT_EQ(got, v);
  }
  EXPECT_TRUE(r.empty());
  std::string two_byte_length;
  PutLengthPrefixed(&two_byte_length, std::string(300, 'x'));
  EXPECT_EQ(two_byte_length.size(), 302u);
}

TEST(CodingTest, BigEndianByteOrderEqualsNumericOrder) {
  std::mt19937_64 rng(20260101);
  std::vector<uint64_t> values = {0,          1,     255, 256, 65535, 65536, uint64_t{1} << 32,
                                  kMax64 - 1, kMax64};
  for (int i = 0; i < 2000; ++i) {
    // Mix magnitudes so that pairs differ in high bytes as well as low ones.
    values.push_back(rng() >> (rng() % 64));
  }
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t a = values[pick(rng)];
    const uint64_t b = values[pick(rng)];
    std::string ea, eb;
    PutFixed64BigEndian(&ea, a);
    PutFixed64BigEndian(&eb, b);
    ASSERT_EQ(ea < eb, a < b) << a << " vs " << b;
    ASSERT_EQ(ea == eb, a == b);
    std::string fa, fb;
    PutFixed32BigEndian(&fa, static_cast<uint32_t>(a));
    PutFixed32BigEndian(&fb, static_cast<uint32_t>(b));
    ASSERT_EQ(fa < fb, static_cast<uint32_t>(a) < static_cast<uint32_t>(b));
  }
}

TEST(CodingTest, EveryReaderRejectsTruncatedInput) {
  struct Case {
    const char* name;
    std::string encoded;
    std::function<bool(ByteReader&)> read;
  };
  std::string varint, varsint, prefixed;
  PutVarint64(&varint, kMax64);
  PutVarsint64(&varsint, std::numeric_limits<int64_t>::min());
  PutLengthPrefixed(&prefixed, std::string(200, 'p'));  // 2-byte length, then 200 bytes
  const std::vector<Case> cases = {
      {"Fixed16", "12",
       [](ByteReader& r) {
         uint16_t v;
         return r.ReadFixed16(&v);
       }},
      {"Fixed32", "1234",
       [](ByteReader& r) {
         uint32_t v;
         return r.ReadFixed32(&v);
       }},
      {"Fixed64", "12345678",
       [](ByteReader& r) {
         uint64_t v;
         return r.ReadFixed64(&v);
       }},
      {"Fixed32BigEndian", "1234",
       [](ByteReader& r) {
         uint32_t v;
         return r.ReadFixed32BigEndian(&v);
       }},
      {"Fixed64BigEndian", "12345678",
       [](ByteReader& r) {
         uint64_t v;
         return r.ReadFixed64BigEndian(&v);
       }},
      {"Varint64", varint,
       [](ByteReader& r) {
         uint64_t v;
         return r.ReadVarint64(&v);
       }},
      {"Varsint64", varsint,
       [](ByteReader& r) {
         int64_t v;
         return r.ReadVarsint64(&v);
       }},
      {"Double", "12345678",
       [](ByteReader& r) {
         double v;
         return r.ReadDouble(&v);
       }},
      {"Byte", "x",
       [](ByteReader& r) {
         uint8_t v;
         return r.ReadByte(&v);
       }},
      {"LengthPrefixed", prefixed,
       [](ByteReader& r) {
         std::string_view v;
         return r.ReadLengthPrefixed(&v);
       }},
      {"Bytes", "abcde",
       [](ByteReader& r) {
         std::string_view v;
         return r.ReadBytes(5, &v);
       }},
      {"NulTerminated", "abc\0"s,
       [](ByteReader& r) {
         std::string_view v;
         return r.ReadNulTerminated(&v);
       }},
  };
  for (const Case& c : cases) {
    {
      ByteReader whole(c.encoded);
      EXPECT_TRUE(c.read(whole)) << c.name << " of the full encoding";
      EXPECT_TRUE(whole.empty()) << c.name;
    }
    for (size_t len = 0; len < c.encoded.size(); ++len) {
      ByteReader r(std::string_view(c.encoded).substr(0, len));
      EXPECT_FALSE(c.read(r)) << c.name << " of " << len << " of " << c.encoded.size() << " bytes";
    }
  }
}

TEST(CodingTest, ReaderConsumesMixedValuesInOrder) {
  std::string s;
  PutFixed32BigEndian(&s, 7);
  PutLengthPrefixed(&s, "dataset/1");
  s.push_back('\x2a');
  s.append("name\0rest"s);
  ByteReader r(s);
  uint32_t u;
  std::string_view view;
  uint8_t byte;
  ASSERT_TRUE(r.ReadFixed32BigEndian(&u));
  EXPECT_EQ(u, 7u);
  ASSERT_TRUE(r.ReadLengthPrefixed(&view));
  EXPECT_EQ(view, "dataset/1");
  ASSERT_TRUE(r.ReadByte(&byte));
  EXPECT_EQ(byte, 0x2a);
  ASSERT_TRUE(r.ReadNulTerminated(&view));
  EXPECT_EQ(view, "name");
  EXPECT_EQ(r.remaining(), "rest");
  ASSERT_TRUE(r.ReadBytes(0, &view));
  EXPECT_EQ(view, "");
  EXPECT_FALSE(r.ReadBytes(5, &view));
  ASSERT_TRUE(r.ReadBytes(4, &view));
  EXPECT_EQ(view, "rest");
  EXPECT_TRUE(r.empty());
}

}  // namespace
}  // namespace gridstore
