// Copyright 2026 The GridStore Authors.
//
// The guessing of a RADOS catalog shard's backward pages (backward_probe.h), run against simulated
// shards: a sorted key set listed the way omap lists (the probe's own key, then a probe's worth
// after it). The scan must return every key in reverse order whatever the keys' spread, and reach
// the top keys of the skewed spreads real postings have in few rounds. rados_catalog_scan.cc does
// the same steps with omap reads.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gridstore/storage/rados/backward_probe.h"

namespace gridstore::testing {
namespace {

using storage::internal_rados::BackwardProbe;
using storage::internal_rados::kBackwardProbe;
using storage::internal_rados::KeyNumber;
using storage::internal_rados::NumberKey;

const std::string kPrefix = "p/";

std::string Key(uint64_t number, const std::string& suffix = "") {
  return NumberKey(kPrefix, number) + suffix;
}

struct SimulatedScan {
  std::vector<std::string> keys;  // highest first
  int rounds = 0;                 // probes and whole reads
};

// The length of the common prefix of a range's ends, after which keys are numbered (as
// ReverseScanCatalog does).
size_t CommonPrefix(const std::string& begin, const std::string& end) {
  size_t n = 0;
  while (n < begin.size() && n < end.size() && begin[n] == end[n]) ++n;
  return n;
}

// A reverse scan of [begin, end) over one shard, `want` keys at most, starting with `step`.
SimulatedScan ReverseScan(const std::set<std::string>& shard, const std::string& begin,
                          const std::string& end, size_t want, uint64_t step) {
  const size_t prefix = CommonPrefix(begin, end);
  const uint64_t floor = KeyNumber(begin, prefix);
  BackwardProbe probe(step);
  std::string top = end;
  SimulatedScan out;
  while (out.keys.size() < want && top > begin) {
    if (++out.rounds > 10000) break;
    const uint64_t hi = KeyNumber(top, prefix);
    const uint64_t lo = probe.Low(hi, floor);
    const std::string lo_key = lo <= floor ? begin : NumberKey(begin.substr(0, prefix), lo);
    // omap: the probe's own key, asked for by name, then a probe's worth of keys after it.
    std::vector<std::string> page;
    auto it = shard.lower_bound(lo_key);
    const size_t limit = kBackwardProbe + (it != shard.end() && *it == lo_key ? 1 : 0);
    for (; it != shard.end() && page.size() < limit; ++it) page.push_back(*it);
    bool reached_top = it == shard.end();
    std::vector<std::string> listed;
    std::vector<uint64_t> numbers;
    for (const std::string& k : page) {
      if (k >= top) {
        reached_top = true;
        break;
      }
      listed.push_back(k);
      numbers.push_back(KeyNumber(k, prefix));
    }
    switch (probe.Learn(lo, hi, numbers, reached_top)) {
      case BackwardProbe::Outcome::kRetry:
        continue;
      case BackwardProbe::Outcome::kWhole:
        listed.assign(shard.lower_bound(lo_key), shard.lower_bound(top));
        break;
      case BackwardProbe::Outcome::kPage:
        break;
    }
    for (auto k = listed.rbegin(); k != listed.rend() && out.keys.size() < want; ++k) {
      out.keys.push_back(*k);
    }
    top = lo_key;
    if (lo <= floor) break;
  }
  return out;
}

std::vector<std::string> Expected(const std::set<std::string>& shard, size_t want) {
  std::vector<std::string> keys(shard.rbegin(), shard.rend());
  if (keys.size() > want) keys.resize(want);
  return keys;
}

// The first guess ReverseScanCatalog makes without a hint: the range's width over 64 shards and
// 64 pages.
uint64_t FirstStep(const std::string& begin, const std::string& end) {
  const size_t prefix = CommonPrefix(begin, end);
  return std::max<uint64_t>(1, (KeyNumber(end, prefix) - KeyNumber(begin, prefix)) / (64 * 64));
}

const std::string kBegin = kPrefix;
const std::string kEnd = "p0";  // the end of the prefix "p/"

// The top `want` keys of [kBegin, end), from the first guess a scan without a hint makes.
SimulatedScan BlindScan(const std::set<std::string>& shard, size_t want,
                        const std::string& end = kEnd) {
  return ReverseScan(shard, kBegin, end, want, FirstStep(kBegin, end));
}

TEST(BackwardProbeTest, EverySpreadComesBackWholeAndInOrder) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::set<std::string> shard;
    const int bands = 1 + static_cast<int>(rng() % 6);
    for (int b = 0; b < bands; ++b) {
      // A band: one value shared by many keys (ids after it), or a run of close values.
      const uint64_t base = rng() >> (rng() % 60);
      const int n = static_cast<int>(rng() % 700);
      const bool same_value = rng() % 2 == 0;
      for (int i = 0; i < n; ++i) {
        const uint64_t number = same_value ? base : base + rng() % (uint64_t{1} << (rng() % 40));
        shard.insert(Key(number, "id" + std::to_string(rng() % 100000)));
      }
    }
    if (rng() % 3 == 0) shard.insert(kPrefix);           // the range's first key itself
    if (rng() % 3 == 0) shard.insert(kPrefix + "\x07");  // a key shorter than a number
    const uint64_t step = rng() % 2 == 0 ? FirstStep(kBegin, kEnd) : rng() >> (rng() % 64);
    const SimulatedScan scan = ReverseScan(shard, kBegin, kEnd, shard.size(), step);
    ASSERT_EQ(scan.keys, Expected(shard, shard.size())) << "trial " << trial;
    // A range between two of the keys (or a key's prefix), within the shard's spread.
    std::vector<std::string> keys(shard.begin(), shard.end());
    if (keys.size() < 2) continue;
    std::string begin = keys[rng() % keys.size()], end = keys[rng() % keys.size()];
    if (begin > end) std::swap(begin, end);
    if (rng() % 2 == 0) end.resize(std::max(kPrefix.size(), end.size() - 3));
    if (begin >= end) continue;
    std::set<std::string> in_range(shard.lower_bound(begin), shard.lower_bound(end));
    const SimulatedScan part = ReverseScan(shard, begin, end, in_range.size(), step);
    ASSERT_EQ(part.keys, Expected(in_range, in_range.size())) << "trial " << trial;
  }
}

TEST(BackwardProbeTest, ARangeInsideThePrefixIsExact) {
  std::set<std::string> shard;
  for (uint64_t i = 0; i < 3000; ++i) shard.insert(Key(i * 977, "x"));
  const std::string begin = Key(500 * 977);
  const std::string end = Key(2500 * 977, "x");  // excludes the key it names
  std::vector<std::string> expected;
  for (uint64_t i = 2499; i >= 500; --i) expected.push_back(Key(i * 977, "x"));
  EXPECT_EQ(ReverseScan(shard, begin, end, 1u << 20, 1).keys, expected);
  EXPECT_EQ(ReverseScan(shard, begin, end, 1u << 20, UINT64_MAX).keys, expected);
}

// Postings of one field: each value shared by many datasets (the number is the value, the ids
// follow it), the values in a narrow band far below the top of the field's key space. The top
// ten must come in a few rounds, not by swinging between empty guesses near the top and the band
// (which took hundreds of rounds before the guesses kept above the keys an overshoot listed).
TEST(BackwardProbeTest, TheTopOfANarrowBandOfSharedValuesComesInFewRounds) {
  std::set<std::string> shard;
  const uint64_t band = uint64_t{0x80} << 56 | uint64_t{1} << 40;
  for (uint64_t value = 0; value < 40; ++value) {
    for (int id = 0; id < 300; ++id) {
      shard.insert(Key(band + value * 21600, "id" + std::to_string(100000 + id)));
    }
  }
  const SimulatedScan top10 = BlindScan(shard, 10);
  EXPECT_EQ(top10.keys, Expected(shard, 10));
  EXPECT_LE(top10.rounds, 30);  // 18; 991 before
  const SimulatedScan page = BlindScan(shard, 1000);
  EXPECT_EQ(page.keys, Expected(shard, 1000));
  EXPECT_LE(page.rounds, 80);  // 45; 1,122 before
}

// Distinct values dense at the bottom of the band and sparse at its top: the density of the keys
// an overshoot lists is no guide to the key space above them.
TEST(BackwardProbeTest, ADenseBandBelowSparseKeysComesInFewRounds) {
  std::set<std::string> shard;
  const uint64_t band = uint64_t{0x80} << 56;
  for (uint64_t i = 0; i < 20000; ++i) shard.insert(Key(band + i, "a"));
  for (uint64_t i = 1; i <= 30; ++i) shard.insert(Key(band + (i << 36), "b"));
  const SimulatedScan scan = BlindScan(shard, 100);
  EXPECT_EQ(scan.keys, Expected(shard, 100));
  EXPECT_LE(scan.rounds, 30);  // 20; 1,142 before
}

// Keys evenly spread past the end of the range (a query for the newest before a time): the density
// of the first probe's keys holds up to the top, and the next probe is the page.
TEST(BackwardProbeTest, KeysRunningUpToTheTopComeInTwoRounds) {
  std::set<std::string> shard;
  const uint64_t band = uint64_t{0x80} << 56;
  for (uint64_t i = 0; i < 20000; ++i) shard.insert(Key(band + i * 4099, "a"));
  const std::string end = Key(band + 15000 * 4099 + 17);
  const SimulatedScan scan = BlindScan(shard, 10, end);
  std::vector<std::string> expected;
  for (uint64_t i = 15000; i > 14990; --i) expected.push_back(Key(band + i * 4099, "a"));
  EXPECT_EQ(scan.keys, expected);
  EXPECT_LE(scan.rounds, 3);
}

}  // namespace
}  // namespace gridstore::testing
