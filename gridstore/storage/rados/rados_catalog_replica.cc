// Copyright 2026 The GridStore Authors.
//
// The in-memory catalog replica (rados_catalog_replica.h): merging changes and listings by
// version into one map of every shard's keys, and scans of it in chunks.
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

CatalogReplica::Entry& CatalogReplica::Place(int shard, std::string_view key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    it = entries_.emplace(std::string(key), Entry()).first;
    it->second.key = &it->first;
  } else if (it->second.shard == shard) {
    return it->second;
  } else {
    Unlink(&it->second);  // a key of another shard's list (shard counts never change in a pool)
  }
  Link(shard, &it->second);
  return it->second;
}

void CatalogReplica::Link(int shard, Entry* e) {
  Shard& s = shards_[static_cast<size_t>(shard)];
  e->shard = shard;
  e->prev = nullptr;
  e->next = s.first;
  if (s.first != nullptr) s.first->prev = e;
  s.first = e;
}

void CatalogReplica::Unlink(Entry* e) {
  Shard& s = shards_[static_cast<size_t>(e->shard)];
  (e->prev != nullptr ? e->prev->next : s.first) = e->next;
  if (e->next != nullptr) e->next->prev = e->prev;
  e->prev = e->next = nullptr;
}

void CatalogReplica::Erase(Map::iterator it) {
  Unlink(&it->second);
  entries_.erase(it);
}

void CatalogReplica::Apply(int shard, const ShardChange& change, Clock::time_point now) {
  std::unique_lock lock(mu_);
  Shard& s = shards_[static_cast<size_t>(shard)];
  s.version = std::max(s.version, change.version);
  for (const auto& [key, value] : change.keys) {
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.shard == shard && it->second.version > change.version) {
      continue;  // newer already
    }
    Entry& e = it != entries_.end() && it->second.shard == shard ? it->second : Place(shard, key);
    e.version = change.version;
    if (value.has_value()) {
      e.value = *value;
      e.deleted = false;
    } else {
      e.value.clear();
      e.value.shrink_to_fit();
      e.deleted = true;
      s.tombstones.emplace_back(now, key);
    }
  }
  // Tombstones old enough that no older change of their key can still be on its way.
  while (!s.tombstones.empty() && now - s.tombstones.front().first > kTombstoneLife) {
    auto it = entries_.find(s.tombstones.front().second);
    if (it != entries_.end() && it->second.deleted && it->second.shard == shard) Erase(it);
    s.tombstones.pop_front();
  }
}

void CatalogReplica::Reload(int shard, uint64_t version,
                            std::vector<std::pair<std::string, std::string>> entries) {
  std::vector<Listing> one(1);
  one[0] = Listing{shard, version, std::move(entries)};
  Reload(std::move(one));
}

void CatalogReplica::DropUnlisted(const Listing& listing, std::vector<std::string>* dropped) {
  for (Entry* e = shards_[static_cast<size_t>(listing.shard)].first; e != nullptr;) {
    Entry* next = e->next;
    const auto listed = std::lower_bound(
        listing.entries.begin(), listing.entries.end(), *e->key,
        [](const auto& entry, const std::string& key) { return entry.first < key; });
    if (e->version <= listing.version &&
        (listed == listing.entries.end() || listed->first != *e->key)) {
      dropped->push_back(std::move(e->value));
      Erase(entries_.find(*e->key));
    }
    e = next;
  }
}

void CatalogReplica::Reload(std::vector<Listing> listings) {
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  for (Listing& l : listings) {
    if (!std::is_sorted(l.entries.begin(), l.entries.end(), by_key)) {
      std::sort(l.entries.begin(), l.entries.end(), by_key);
    }
  }
  std::vector<std::string> dropped;  // values freed outside the lock
  std::unique_lock lock(mu_);
  for (const Listing& l : listings) DropUnlisted(l, &dropped);
  // The listings' keys in key order (a merge of the sorted listings): where each goes is then
  // often right after the one before, and needs no search.
  struct Cursor {
    size_t listing = 0, next = 0;
  };
  std::vector<Cursor> cursors;
  for (size_t i = 0; i < listings.size(); ++i) {
    if (!listings[i].entries.empty()) cursors.push_back({i, 0});
  }
  const auto key_of = [&](const Cursor& c) -> const std::string& {
    return listings[c.listing].entries[c.next].first;
  };
  const auto later = [&](const Cursor& a, const Cursor& b) { return key_of(a) > key_of(b); };
  std::make_heap(cursors.begin(), cursors.end(), later);
  Map::iterator hint = entries_.end();
  while (!cursors.empty()) {
    std::pop_heap(cursors.begin(), cursors.end(), later);
    Cursor& c = cursors.back();
    const Listing& l = listings[c.listing];
    auto& [key, value] = listings[c.listing].entries[c.next];
    const bool in_place = (hint == entries_.end() || key <= hint->first) &&
                          (hint == entries_.begin() || std::prev(hint)->first < key);
    if (!in_place) hint = entries_.lower_bound(key);
    if (hint != entries_.end() && hint->first == key) {
      if (hint->second.shard != l.shard || hint->second.version <= l.version) {
        Entry& e = Place(l.shard, key);
        e.value.swap(value);
        e.version = l.version;
        e.deleted = false;
      }  // else a notify newer than the listing
      dropped.push_back(std::move(value));
    } else {
      hint = entries_.emplace_hint(hint, std::move(key), Entry());
      hint->second.key = &hint->first;
      Link(l.shard, &hint->second);
      hint->second.value = std::move(value);
      hint->second.version = l.version;
    }
    ++hint;
    if (++c.next == l.entries.size()) {
      cursors.pop_back();
    } else {
      std::push_heap(cursors.begin(), cursors.end(), later);
    }
  }
  for (const Listing& l : listings) {
    Shard& s = shards_[static_cast<size_t>(l.shard)];
    s.version = std::max(s.version, l.version);
    std::deque<std::pair<Clock::time_point, std::string>> kept;  // of keys still deleted
    for (auto& t : s.tombstones) {
      auto it = entries_.find(t.second);
      if (it != entries_.end() && it->second.deleted && it->second.shard == l.shard) {
        kept.push_back(std::move(t));
      }
    }
    s.tombstones.swap(kept);
  }
  lock.unlock();
  dropped.clear();
  listings.clear();
}

uint64_t CatalogReplica::version(int shard) const {
  std::shared_lock lock(mu_);
  return shards_[static_cast<size_t>(shard)].version;
}

bool CatalogReplica::Get(int shard, std::string_view omap_key, std::string* value) const {
  std::shared_lock lock(mu_);
  auto it = entries_.find(omap_key);
  if (it == entries_.end() || it->second.deleted || (shard >= 0 && it->second.shard != shard)) {
    return false;
  }
  *value = it->second.value;
  return true;
}

void CatalogReplica::NextChunk(int shard, const std::string& from, bool first,
                               const std::string& begin, const std::string& end, bool reverse,
                               size_t limit,
                               std::vector<std::pair<std::string, std::string>>* out) const {
  const auto wanted = [&](const Entry& e) { return !e.deleted && (shard < 0 || e.shard == shard); };
  if (!reverse) {
    auto it = first ? entries_.lower_bound(begin) : entries_.upper_bound(from);
    for (; it != entries_.end() && out->size() < limit; ++it) {
      if (!end.empty() && it->first >= end) break;
      if (wanted(it->second)) out->emplace_back(it->first, it->second.value);
    }
    return;
  }
  // Reverse: the entries below `it`, down to the first key >= begin.
  auto it = first ? (end.empty() ? entries_.end() : entries_.lower_bound(end))
                  : entries_.lower_bound(from);
  while (it != entries_.begin() && out->size() < limit) {
    --it;
    if (it->first < begin) break;
    if (wanted(it->second)) out->emplace_back(it->first, it->second.value);
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
  // Exact for ranges of up to kSampleKeys keys; beyond that, the bytes of the first kSampleKeys
  // scaled by how much of the range's keys (first to last, read as numbers after their common
  // prefix: KeyNumber) they span. The values of one field often lie in a narrow band of the
  // range, so the range's own bounds would be a poor scale. Estimates feed query plans, and
  // must cost microseconds.
  constexpr size_t kSampleKeys = 16;
  std::shared_lock lock(mu_);
  const auto first = entries_.lower_bound(begin);
  const auto stop = end.empty() ? entries_.end() : entries_.lower_bound(end);
  uint64_t bytes = 0;
  size_t n = 0;
  auto it = first;
  for (; it != stop && n < kSampleKeys; ++it) {
    if (it->second.deleted || (shard >= 0 && it->second.shard != shard)) continue;
    bytes += it->first.size() + it->second.value.size();
    ++n;
  }
  if (it == stop) return bytes;
  const std::string& a = first->first;
  const std::string& z = std::prev(stop)->first;
  size_t prefix = 0;
  while (prefix < a.size() && prefix < z.size() && a[prefix] == z[prefix]) ++prefix;
  const uint64_t lo = KeyNumber(a, prefix), hi = KeyNumber(z, prefix);
  const uint64_t at = KeyNumber(it->first, prefix);
  const double covered =
      hi > lo ? static_cast<double>(at - lo) / static_cast<double>(hi - lo) : 1.0;
  return static_cast<uint64_t>(static_cast<double>(bytes) / std::clamp(covered, 1e-6, 1.0));
}

CatalogReplica::Stats CatalogReplica::stats() const {
  std::shared_lock lock(mu_);
  Stats st;
  for (const auto& [key, entry] : entries_) {
    if (entry.deleted) {
      ++st.tombstones;
    } else {
      ++st.keys;
      st.bytes += key.size() + entry.value.size();
    }
  }
  return st;
}

}  // namespace gridstore::storage::internal_rados
