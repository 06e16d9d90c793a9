// Copyright 2026 The GridStore Authors.
//
// Scans of the meta and index tables over the catalog shards: a k-way merge that reads each shard
// page by page, only as far as the caller goes (a query that stops after 100 postings reads one
// small page per shard, not the whole range), forwards and backwards.
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::internal_rados {
namespace {

// The first page per shard is small: most scans of a sharded catalog stop early (query chunks,
// existence checks), and a range of N entries is spread over every shard.
constexpr unsigned kFirstCatalogPage = 64;

}  // namespace

Status RadosKvStore::ReadCatalogPages(const std::vector<CatalogCursor*>& cursors,
                                      std::string_view end) {
  std::vector<OmapPageRequest> requests;
  for (CatalogCursor* cur : cursors) {
    requests.push_back(OmapPageRequest{.oid = cur->oid,
                                       .from = cur->start_after,
                                       .from_inclusive = cur->first,
                                       .end = std::string(end),
                                       .limit = cur->first ? kFirstCatalogPage : kOmapPage,
                                       .version = cur->first ? 0 : cur->version,
                                       .tries = &cur->tries});
  }
  return ReadOmapPages(requests, OmapDirection::kForward, "catalog shard",
                       [&](size_t i, OmapPage& page) {
                         CatalogCursor* cur = cursors[i];
                         if (page.outcome == OmapPage::kAbsent) {
                           cur->done = true;
                           return;
                         }
                         if (page.outcome == OmapPage::kChanged) {
                           // The shard changed since its last page: go on from the last key listed,
                           // at its new version (docs/format.md, "Catalog shards": what a scan
                           // sees).
                           cur->version = 0;
                           return;
                         }
                         if (cur->version == 0) cur->version = page.version;
                         cur->first = false;
                         cur->entries = std::move(page.entries);
                         if (!cur->entries.empty()) cur->start_after = cur->entries.back().first;
                         if (page.complete) cur->done = true;
                       });
}

Status RadosKvStore::ScanCatalog(
    Table table, const KeyRange& range,
    const std::function<bool(std::string_view, std::string_view)>& fn) {
  if (!range.end.empty() && range.begin >= range.end) return Status::OK();
  const KeyRange r = CatalogRange(table, range);
  std::vector<CatalogCursor> cursors;
  std::string_view partition;
  if (shards_ > 1 && CatalogRangePartition(table, range.begin, range.end, &partition)) {
    cursors.emplace_back().oid = ShardName(CatalogShardOf(partition, shards_));
  } else {
    cursors.resize(static_cast<size_t>(shards_));
    for (int shard = 0; shard < shards_; ++shard) {
      cursors[static_cast<size_t>(shard)].oid = ShardName(shard);
    }
  }
  for (CatalogCursor& c : cursors) c.start_after = r.begin;
  while (true) {
    // Every shard with nothing buffered and more to list is refilled before the merge goes on:
    // its next key may be the smallest.
    std::vector<CatalogCursor*> refill;
    for (CatalogCursor& c : cursors) {
      if (c.next == c.entries.size() && !c.done) {
        c.entries.clear();
        c.next = 0;
        refill.push_back(&c);
      }
    }
    if (!refill.empty()) {
      GRIDSTORE_RETURN_IF_ERROR(ReadCatalogPages(refill, r.end));
      continue;
    }
    CatalogCursor* best = nullptr;
    for (CatalogCursor& c : cursors) {
      if (c.next < c.entries.size() &&
          (best == nullptr || c.entries[c.next].first < best->entries[best->next].first)) {
        best = &c;
      }
    }
    if (best == nullptr) return Status::OK();
    const auto& [k, v] = best->entries[best->next++];
    if (!fn(std::string_view(k).substr(1), v)) return Status::OK();
  }
}

Status RadosKvStore::ReadCatalogPagesBackward(const std::vector<CatalogCursor*>& cursors,
                                              std::string_view begin, size_t prefix) {
  const uint64_t floor = KeyNumber(begin, prefix);
  std::vector<OmapPageRequest> requests;
  std::vector<std::pair<uint64_t, uint64_t>> bounds;  // each page's (lo, hi) as numbers
  for (CatalogCursor* cur : cursors) {
    const uint64_t hi = KeyNumber(cur->start_after, prefix);  // start_after: the exclusive top
    const uint64_t lo = cur->probe.Low(hi, floor);
    bounds.emplace_back(lo, hi);
    requests.push_back(OmapPageRequest{
        .oid = cur->oid,
        .from = lo <= floor ? std::string(begin) : NumberKey(begin.substr(0, prefix), lo),
        .from_inclusive = true,
        .end = cur->start_after,
        .limit = kBackwardProbe,
        .tries = &cur->tries});
  }
  return ReadOmapPages(
      requests, OmapDirection::kBackward, "catalog shard", [&](size_t i, OmapPage& page) {
        CatalogCursor* cur = cursors[i];
        if (page.outcome != OmapPage::kEntries) {  // no version asserted: only kAbsent
          cur->done = true;
          return;
        }
        const auto [lo, hi] = bounds[i];
        std::vector<uint64_t> numbers;
        for (const auto& entry : page.entries) numbers.push_back(KeyNumber(entry.first, prefix));
        std::reverse(numbers.begin(), numbers.end());  // ascending, as the probe learns them
        switch (cur->probe.Learn(lo, hi, numbers, page.complete)) {
          case BackwardProbe::Outcome::kRetry:
            return;
          case BackwardProbe::Outcome::kWhole:
            cur->whole = requests[i].from;
            return;
          case BackwardProbe::Outcome::kPage:
            break;
        }
        cur->tries = 0;
        cur->entries = std::move(page.entries);
        cur->next = 0;
        cur->start_after = requests[i].from;
        if (lo <= floor) cur->done = true;
      });
}

Status RadosKvStore::ReverseScanCatalog(
    Table table, const KeyRange& range,
    const std::function<bool(std::string_view, std::string_view)>& fn) {
  if (!range.end.empty() && range.begin >= range.end) return Status::OK();
  const KeyRange r = CatalogRange(table, range);
  size_t prefix = 0;
  while (prefix < r.begin.size() && prefix < r.end.size() && r.begin[prefix] == r.end[prefix]) {
    ++prefix;
  }
  std::vector<int> shards;
  std::string_view partition;
  if (shards_ > 1 && CatalogRangePartition(table, range.begin, range.end, &partition)) {
    shards.push_back(CatalogShardOf(partition, shards_));
  } else {
    for (int shard = 0; shard < shards_; ++shard) shards.push_back(shard);
  }
  const uint64_t hi = KeyNumber(r.end, prefix);
  std::vector<CatalogCursor> cursors(shards.size());
  for (size_t i = 0; i < shards.size(); ++i) {
    CatalogCursor& c = cursors[i];
    c.oid = ShardName(shards[i]);
    c.start_after = r.end;
    // The first guess: a shard's share of the range, over a few pages' worth of datasets.
    c.probe = BackwardProbe(std::max<uint64_t>(
        1, (hi - KeyNumber(r.begin, prefix)) / (static_cast<uint64_t>(shards_) * 64)));
  }
  // Better: what an earlier reverse scan of this prefix learned: start a step below where each
  // shard's highest key was (keys written above it since are in that page too).
  const std::string hint_key = std::string(TableName(table)) + '/' + r.begin.substr(0, prefix);
  {
    std::lock_guard<std::mutex> lock(reverse_hints_mu_);
    auto it = reverse_hints_.find(hint_key);
    if (it != reverse_hints_.end() && it->second.size() == cursors.size()) {
      for (size_t i = 0; i < cursors.size(); ++i) {
        const ReverseHint& h = it->second[i];
        if (h.step == 0) continue;
        const uint64_t above = h.top_seen && h.top < hi ? hi - h.top : 0;
        cursors[i].probe = BackwardProbe(above > UINT64_MAX - h.step ? UINT64_MAX : above + h.step);
      }
    }
  }
  Status s = MergeBackward(&cursors, r.begin, prefix, fn);
  // What the shards that read a page learned, for the next reverse scan of this prefix.
  std::vector<ReverseHint> learned(cursors.size());
  bool any = false;
  for (size_t i = 0; i < cursors.size(); ++i) {
    const CatalogCursor& c = cursors[i];
    if (c.start_after != r.end && c.probe.step() != 0) {
      learned[i] = ReverseHint{c.probe.step(), c.probe.top(), c.probe.top_seen()};
      any = true;
    }
  }
  if (any) {
    std::lock_guard<std::mutex> lock(reverse_hints_mu_);
    if (reverse_hints_.size() >= kMaxReverseHints) reverse_hints_.clear();
    std::vector<ReverseHint>& kept = reverse_hints_[hint_key];
    kept.resize(cursors.size());
    for (size_t i = 0; i < cursors.size(); ++i) {
      if (learned[i].step != 0) kept[i] = learned[i];
    }
  }
  return s;
}

Status RadosKvStore::MergeBackward(
    std::vector<CatalogCursor>* cursor_list, const std::string& begin, size_t prefix,
    const std::function<bool(std::string_view, std::string_view)>& fn) {
  std::vector<CatalogCursor>& cursors = *cursor_list;
  while (true) {
    std::vector<CatalogCursor*> refill;
    for (CatalogCursor& c : cursors) {
      if (c.next == c.entries.size() && !c.done) {
        c.entries.clear();
        c.next = 0;
        if (!c.whole.empty()) {
          // A part of the key space too dense to split: read it whole.
          std::vector<OmapCursor> whole(1);
          whole[0].oid = c.oid;
          GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&whole, c.whole, c.start_after));
          c.entries = std::move(whole[0].entries);
          std::reverse(c.entries.begin(), c.entries.end());
          c.start_after = c.whole;
          c.done = c.whole == begin;
          c.whole.clear();
          continue;
        }
        if (++c.tries > 64 * kMaxConsistentReadTries) {
          return Status::Unavailable(where_ + ": listing catalog shard '" + c.oid +
                                     "' backwards did not converge");
        }
        refill.push_back(&c);
      }
    }
    if (!refill.empty()) {
      GRIDSTORE_RETURN_IF_ERROR(ReadCatalogPagesBackward(refill, begin, prefix));
      continue;
    }
    CatalogCursor* best = nullptr;
    for (CatalogCursor& c : cursors) {
      if (c.next < c.entries.size() &&
          (best == nullptr || c.entries[c.next].first > best->entries[best->next].first)) {
        best = &c;
      }
    }
    if (best == nullptr) return Status::OK();
    const auto& [k, v] = best->entries[best->next++];
    if (!fn(std::string_view(k).substr(1), v)) return Status::OK();
  }
}

}  // namespace gridstore::storage::internal_rados
