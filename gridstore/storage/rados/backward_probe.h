// Copyright 2026 The GridStore Authors.
//
// How a reverse scan of a catalog shard guesses its pages. omap lists forwards only, so a shard's
// next page backwards is [lo, top) for a lower bound lo guessed in the key space below the top:
// too low and the probe lists a full page without reaching the top (an overshoot, thrown away);
// too high and it lists nothing. Keys are placed by the 8 bytes after the range's common prefix,
// read as a big-endian number (KeyNumber). Pure logic, no librados: the guessing is unit-tested
// against simulated key sets (tests/storage/rados_backward_probe_test.cc).
#ifndef GRIDSTORE_STORAGE_RADOS_BACKWARD_PROBE_H_
#define GRIDSTORE_STORAGE_RADOS_BACKWARD_PROBE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gridstore::storage::internal_rados {

// A backward probe lists at most this many keys from its guessed lower bound, and aims at half of
// that: listing omap costs the OSD per key, and a probe that overshoots is thrown away.
inline constexpr unsigned kBackwardProbe = 128;

// The 8 bytes of `key` after its first `prefix` bytes (zero-padded), as a big-endian number.
uint64_t KeyNumber(std::string_view key, size_t prefix);
// The smallest key of `prefix` whose number is n.
std::string NumberKey(std::string_view prefix, uint64_t n);

// One shard's guesses during one reverse scan.
class BackwardProbe {
 public:
  enum class Outcome {
    kPage,   // the probe held every key of [lo, top): they are the next page
    kRetry,  // it overshot: probe again from Low()
    kWhole,  // the keys from lo up to the top cannot be split by number: read them all, forwards
  };

  // `step`: the width of the first guess below the top (0: down to the range's start).
  explicit BackwardProbe(uint64_t step = 0) : step_(step) {}

  // The lower bound of the next probe below the top numbered `hi`, never below `floor` (the
  // number of the range's first key); at or below `floor` means from the range's first key.
  uint64_t Low(uint64_t hi, uint64_t floor) const;

  // What the probe from `lo` (as Low returned it) listed below the top: `listed`, the numbers of
  // the keys, sorted; `reached_top`, whether they are every key up to the top (else they are a
  // full probe's worth and more lie above them).
  Outcome Learn(uint64_t lo, uint64_t hi, const std::vector<uint64_t>& listed, bool reached_top);

  uint64_t step() const { return step_; }
  // The number of the highest key of the first page found (what a later scan starts near).
  bool top_seen() const { return top_seen_; }
  uint64_t top() const { return top_; }

 private:
  uint64_t step_;  // below the top, while no probe has overshot since the last page
  // After an overshoot: the keys up to `known_` (the highest the probe listed) are more than a
  // probe's worth, so the next probe starts above them: first half a probe below the top at
  // their density (right when the keys run up to the top); once that finds nothing, `gap_` above
  // them (at most halfway to the top), the gap growing fourfold past each overshoot. Guessing
  // from the top again and again instead swings between empty guesses near the top and the band
  // the keys came from (which may lie far below it) for hundreds of rounds.
  bool bracket_ = false;
  bool from_top_ = false;
  uint64_t known_ = 0;
  uint64_t gap_ = 0;
  uint64_t top_ = 0;
  bool top_seen_ = false;
};

}  // namespace gridstore::storage::internal_rados

#endif  // GRIDSTORE_STORAGE_RADOS_BACKWARD_PROBE_H_
