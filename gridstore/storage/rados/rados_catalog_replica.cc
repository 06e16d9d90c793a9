// Copyright 2026 The GridStore Authors.
//
// The in-memory catalog replica (rados_catalog_replica.h): merging changes and listings by
// version, and chunked k-way merges over the shards for scans.
#include "gridstore/storage/rados/rados_catalog_replica.h"

#include <algorithm>
#include <mutex>

#include "gridstore/storage/rados/backward_probe.h"
#include "gridstore/util/internal/coding.h"

namespace gridstore::storage::internal_rados {
namespace {

constexpr std::string_view kMagic = "GSR1";
constexpr char kRelistFlag = 1;
// Scans copy this many entries first, doubling up to kMaxChunk: most scans stop early.
constexpr size_t kFirstChunk = 16;
constexpr size_t kMaxChunk = 1024;

bool GetLengthPrefixed(std::string_view* in, std::string_view* out) {
  uint64_t n = 0;
  const char* p = GetVarint64Ptr(in->data(), in->data() + in->size(), &n);
  if (p == nullptr || n > static_cast<uint64_t>(in->data() + in->size() - p)) return false;
  *out = std::string_view(p, n);
  in->remove_prefix(static_cast<size_t>(p - in->data()) + n);
  return true;
}

}  // namespace

std::string EncodeShardChange(const ShardChange& change, size_t max_bytes) {
  std::string out(kMagic);
  PutFixed64(&out, change.version);
  const size_t flags_at = out.size();
  out.push_back(change.relist ? kRelistFlag : 0);
  if (change.relist) return out;
  for (const auto& [key, value] : change.keys) {
    PutLengthPrefixed(&out, key);
    out.push_back(value.has_value() ? 1 : 0);
    if (value.has_value()) PutLengthPrefixed(&out, *value);
    if (out.size() > max_bytes) {
      out.resize(flags_at);
      out.push_back(kRelistFlag);
      return out;
    }
  }
  return out;
}

bool DecodeShardChange(std::string_view in, ShardChange* change) {
  *change = ShardChange();
  if (!in.starts_with(kMagic) || in.size() < kMagic.size() + 9) return false;
  in.remove_prefix(kMagic.size());
  change->version = DecodeFixed64(in.data());
  change->relist = in[8] == kRelistFlag;
  in.remove_prefix(9);
  while (!change->relist && !in.empty()) {
    std::string_view key, value;
    if (!GetLengthPrefixed(&in, &key) || in.empty()) return false;
    const bool present = in[0] == 1;
    in.remove_prefix(1);
    if (present && !GetLengthPrefixed(&in, &value)) return false;
    change->keys.emplace_back(std::string(key), present ? std::optional<std::string>(value)
                                                        : std::optional<std::string>());
  }
  return true;
}

CatalogReplica::CatalogReplica(int shards) : shards_(static_cast<size_t>(std::max(1, shards))) {}

void CatalogReplica::Apply(int shard, const ShardChange& change, Clock::time_point now) {
  std::unique_lock lock(mu_);
  Shard& s = shards_[static_cast<size_t>(shard)];
  s.version = std::max(s.version, change.version);
  for (const auto& [key, value] : change.keys) {
    auto it = s.keys.find(key);
    if (it != s.keys.end() && it->second.version > change.version) continue;  // newer already
    if (value.has_value()) {
      Entry& e = it != s.keys.end() ? it->second : s.keys[key];
      e.value = *value;
      e.version = change.version;
      e.deleted = false;
    } else if (it != s.keys.end()) {
      it->second.value.clear();
      it->second.value.shrink_to_fit();
      it->second.version = change.version;
      it->second.deleted = true;
      s.tombstones.emplace_back(now, key);
    } else {
      s.keys.emplace(key, Entry{{}, change.version, true});
      s.tombstones.emplace_back(now, key);
    }
  }
  // Tombstones old enough that no older change of their key can still be on its way.
  while (!s.tombstones.empty() && now - s.tombstones.front().first > kTombstoneLife) {
    auto it = s.keys.find(s.tombstones.front().second);
    if (it != s.keys.end() && it->second.deleted) s.keys.erase(it);
    s.tombstones.pop_front();
  }
}

void CatalogReplica::Reload(int shard, uint64_t version,
                            std::vector<std::pair<std::string, std::string>> entries) {
  Map fresh;
  for (auto& [key, value] : entries) {
    fresh.emplace_hint(fresh.end(), std::move(key), Entry{std::move(value), version, false});
  }
  entries.clear();
  std::unique_lock lock(mu_);
  Shard& s = shards_[static_cast<size_t>(shard)];
  for (auto& [key, entry] : s.keys) {
    if (entry.version > version) fresh[key] = std::move(entry);  // a notify newer than the listing
  }
  s.keys.swap(fresh);
  s.version = std::max(s.version, version);
  std::deque<std::pair<Clock::time_point, std::string>> kept;
  for (auto& t : s.tombstones) {
    auto it = s.keys.find(t.second);
    if (it != s.keys.end() && it->second.deleted) kept.push_back(std::move(t));
  }
  s.tombstones.swap(kept);
  lock.unlock();
  fresh.clear();  // the old entries are freed outside the lock
}

uint64_t CatalogReplica::version(int shard) const {
  std::shared_lock lock(mu_);
  return shards_[static_cast<size_t>(shard)].version;
}

bool CatalogReplica::Get(int shard, std::string_view omap_key, std::string* value) const {
  std::shared_lock lock(mu_);
  const size_t from = shard < 0 ? 0 : static_cast<size_t>(shard);
  const size_t to = shard < 0 ? shards_.size() : from + 1;
  for (size_t i = from; i < to; ++i) {
    auto it = shards_[i].keys.find(omap_key);
    if (it != shards_[i].keys.end() && !it->second.deleted) {
      *value = it->second.value;
      return true;
    }
  }
  return false;
}

void CatalogReplica::NextChunk(int shard, const std::string& from, bool first,
                               const std::string& begin, const std::string& end, bool reverse,
                               size_t limit,
                               std::vector<std::pair<std::string, std::string>>* out) const {
  // Each shard's cursor: forward, [it, stop) ascending; reverse, the entries below `it` down to
  // `stop` (the first key >= begin), taken from prev(it).
  struct Cursor {
    Map::const_iterator it, stop;
  };
  std::vector<Cursor> cursors;
  const size_t lo = shard < 0 ? 0 : static_cast<size_t>(shard);
  const size_t hi = shard < 0 ? shards_.size() : lo + 1;
  for (size_t i = lo; i < hi; ++i) {
    const Map& m = shards_[i].keys;
    Cursor c;
    if (!reverse) {
      c.it = first ? m.lower_bound(begin) : m.upper_bound(from);
      c.stop = end.empty() ? m.end() : m.lower_bound(end);
      if (!end.empty() && c.it != m.end() && c.it->first >= end) c.it = c.stop;
    } else {
      c.it = first ? (end.empty() ? m.end() : m.lower_bound(end)) : m.lower_bound(from);
      c.stop = m.lower_bound(begin);
      if (c.it != m.end() && c.stop != m.end() && c.stop->first > c.it->first) c.stop = c.it;
    }
    if (c.it != c.stop) cursors.push_back(c);
  }
  auto key_of = [&](const Cursor& c) -> const std::string& {
    return reverse ? std::prev(c.it)->first : c.it->first;
  };
  // A heap whose top is the next key in the scan's order.
  auto later = [&](const Cursor& a, const Cursor& b) {
    return reverse ? key_of(a) < key_of(b) : key_of(a) > key_of(b);
  };
  std::make_heap(cursors.begin(), cursors.end(), later);
  while (!cursors.empty() && out->size() < limit) {
    std::pop_heap(cursors.begin(), cursors.end(), later);
    Cursor& c = cursors.back();
    const Map::const_iterator e = reverse ? std::prev(c.it) : c.it;
    if (!e->second.deleted) out->emplace_back(e->first, e->second.value);
    c.it = reverse ? e : std::next(e);
    if (c.it == c.stop) {
      cursors.pop_back();
    } else {
      std::push_heap(cursors.begin(), cursors.end(), later);
    }
  }
}

void CatalogReplica::Scan(int shard, const std::string& begin, const std::string& end, bool reverse,
                          const std::function<bool(std::string_view, std::string_view)>& fn) const {
  if (!end.empty() && begin >= end) return;
  std::string from;
  bool first = true;
  std::vector<std::pair<std::string, std::string>> chunk;
  for (size_t limit = kFirstChunk;; limit = std::min(limit * 2, kMaxChunk)) {
    chunk.clear();
    {
      std::shared_lock lock(mu_);
      NextChunk(shard, from, first, begin, end, reverse, limit, &chunk);
    }
    for (const auto& [key, value] : chunk) {
      if (!fn(key, value)) return;
    }
    if (chunk.size() < limit) return;
    from = chunk.back().first;
    first = false;
  }
}

uint64_t CatalogReplica::RangeBytes(int shard, const std::string& begin,
                                    const std::string& end) const {
  // Per shard: exact for ranges of up to kSampleKeys keys; beyond that, the bytes of the first
  // kSampleKeys scaled by how much of the shard's keys in the range (first to last, read as
  // numbers after their common prefix: KeyNumber) they span. The values of one field often lie
  // in a narrow band of the range, so the range's own bounds would be a poor scale.
  // Datasets spread evenly over the shards (a hash of their ids): the first kSampleShards
  // shards, scaled, stand for all (estimates feed query plans, and must cost microseconds).
  constexpr size_t kSampleKeys = 16;
  constexpr size_t kSampleShards = 8;
  std::shared_lock lock(mu_);
  const size_t from = shard < 0 ? 0 : static_cast<size_t>(shard);
  const size_t sampled = shard < 0 ? std::min(kSampleShards, shards_.size()) : 1;
  const size_t all = shard < 0 ? shards_.size() : 1;
  double total = 0;
  for (size_t i = from; i < from + sampled; ++i) {
    const Shard& s = shards_[i];
    const auto first = s.keys.lower_bound(begin);
    const auto stop = end.empty() ? s.keys.end() : s.keys.lower_bound(end);
    uint64_t bytes = 0;
    size_t n = 0;
    auto it = first;
    for (; it != stop && n < kSampleKeys; ++it) {
      if (it->second.deleted) continue;
      bytes += it->first.size() + it->second.value.size();
      ++n;
    }
    if (it == stop) {
      total += static_cast<double>(bytes);
      continue;
    }
    const std::string& a = first->first;
    const std::string& z = std::prev(stop)->first;
    size_t prefix = 0;
    while (prefix < a.size() && prefix < z.size() && a[prefix] == z[prefix]) ++prefix;
    const uint64_t lo = KeyNumber(a, prefix), hi = KeyNumber(z, prefix);
    const uint64_t at = KeyNumber(it->first, prefix);
    const double covered =
        hi > lo ? static_cast<double>(at - lo) / static_cast<double>(hi - lo) : 1.0;
    total += static_cast<double>(bytes) / std::clamp(covered, 1e-6, 1.0);
  }
  return static_cast<uint64_t>(total * static_cast<double>(all) / static_cast<double>(sampled));
}

CatalogReplica::Stats CatalogReplica::stats() const {
  std::shared_lock lock(mu_);
  Stats st;
  for (const Shard& s : shards_) {
    for (const auto& [key, entry] : s.keys) {
      if (entry.deleted) {
        ++st.tombstones;
      } else {
        ++st.keys;
        st.bytes += key.size() + entry.value.size();
      }
    }
  }
  return st;
}

}  // namespace gridstore::storage::internal_rados
