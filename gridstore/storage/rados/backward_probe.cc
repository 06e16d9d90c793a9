// Copyright 2026 The GridStore Authors.

#include "gridstore/storage/rados/backward_probe.h"

#include <algorithm>

namespace gridstore::storage::internal_rados {
namespace {

// The width of key space that holds about `want` keys at the density of the sorted numbers
// `listed` (UINT64_MAX when they tell nothing).
uint64_t WidthForKeys(const std::vector<uint64_t>& listed, size_t want) {
  if (listed.size() < 2) return UINT64_MAX;
  const uint64_t first = listed.front();
  const uint64_t last = listed.back();
  if (last <= first) return 1;
  const long double per_key = static_cast<long double>(last - first) / (listed.size() - 1);
  const long double width = per_key * static_cast<long double>(want);
  return width >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(width);
}

// A width 16 times wider (at least 1), saturating: after a probe that found too few keys to tell.
uint64_t Widened(uint64_t width) {
  return width > UINT64_MAX / 16 ? UINT64_MAX : std::max<uint64_t>(1, width * 16);
}

}  // namespace

uint64_t KeyNumber(std::string_view key, size_t prefix) {
  uint64_t n = 0;
  for (size_t i = 0; i < 8; ++i) {
    n = (n << 8) | (prefix + i < key.size() ? static_cast<unsigned char>(key[prefix + i]) : 0u);
  }
  return n;
}

std::string NumberKey(std::string_view prefix, uint64_t n) {
  std::string key(prefix);
  for (int s = 56; s >= 0; s -= 8) key.push_back(static_cast<char>((n >> s) & 0xff));
  return key;
}

uint64_t BackwardProbe::Low(uint64_t hi, uint64_t floor) const {
  if (hi <= floor) return floor;
  if (bracket_) {
    // Keys numbered like the top itself (below it) cannot be split from it: from that number.
    if (known_ >= hi) return hi;
    if (known_ + 1 >= hi) return known_;
    const uint64_t above = known_ + 1;
    if (from_top_) return step_ >= hi - above ? above : hi - step_;
    return above + std::min(gap_, (hi - above) / 2);
  }
  return step_ == 0 || step_ >= hi - floor ? floor : hi - step_;
}

BackwardProbe::Outcome BackwardProbe::Learn(uint64_t lo, uint64_t hi,
                                            const std::vector<uint64_t>& listed, bool reached_top) {
  if (!reached_top) {
    // A probe's worth and more from lo: the next probe starts above the keys listed, half a probe
    // below the top at their density (at least halfway up), or, once that found nothing, `gap_`
    // above them.
    const uint64_t last = listed.empty() ? lo : std::max(listed.back(), lo);
    const uint64_t width = std::max<uint64_t>(1, WidthForKeys(listed, kBackwardProbe / 2));
    if (!bracket_) {
      bracket_ = true;
      from_top_ = true;
      gap_ = width;
    } else if (!from_top_) {
      const uint64_t advance = last - std::min(last, known_);
      gap_ = std::max(gap_, advance > UINT64_MAX / 4 ? UINT64_MAX : advance * 4);
    }
    const uint64_t span = hi > lo ? hi - lo : 0;
    step_ = std::min(width, std::max<uint64_t>(1, span / 2));
    known_ = last;
    if (Low(hi, lo) > lo) return Outcome::kRetry;
    // The whole read takes the keys the bracket was about; what lies below, nothing tells.
    bracket_ = false;
    step_ = Widened(span);
    return Outcome::kWhole;
  }
  // Every key of [lo, top): a page (or nothing, and the top comes down to lo).
  if (known_ >= lo) bracket_ = false;
  if (listed.empty()) {
    if (!bracket_) {
      step_ = Widened(step_);
    } else if (from_top_) {
      from_top_ = false;  // the keys listed are no guide to the top: gallop up from them
    } else {
      gap_ /= 16;  // nothing above the gap: the keys' top is nearer the keys listed
    }
    return Outcome::kPage;
  }
  // Size the next guess from the keys' density (widen it when they were too few to tell).
  bracket_ = false;
  step_ = listed.size() >= 2 ? std::max<uint64_t>(1, WidthForKeys(listed, kBackwardProbe / 2))
                             : Widened(step_);
  if (!top_seen_) {
    top_ = listed.back();
    top_seen_ = true;
  }
  return Outcome::kPage;
}

}  // namespace gridstore::storage::internal_rados
