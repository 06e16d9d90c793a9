// Copyright 2026 The GridStore Authors.
//
// Forward scans of the meta and index tables over the catalog shards: a k-way merge that reads
// each shard page by page, only as far as the caller goes (a query that stops after 100 postings
// reads one small page per shard, not the whole range).
#include <cerrno>
#include <cstring>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::rados_internal {
namespace {

// The first page per shard is small: most scans of a sharded catalog stop early (query chunks,
// existence checks), and a range of N entries is spread over every shard.
constexpr unsigned kFirstCatalogPage = 64;

}  // namespace

Status RadosKvStore::ReadCatalogPages(const std::vector<CatalogCursor*>& cursors,
                                      std::string_view end) {
  struct Page {
    librados::ObjectReadOperation op;
    std::map<std::string, bufferlist> begin_entry, entries;
    bool more = false;
    int r_begin = 0, r_page = 0;
  };
  Status failure;
  AioWindow window(options_.max_in_flight);
  for (CatalogCursor* cur : cursors) {
    auto page = std::make_shared<Page>();
    if (cur->first) {
      // omap_get_vals2 starts after a key; the inclusive first key is asked for by name.
      page->op.omap_get_vals_by_keys({cur->start_after}, &page->begin_entry, &page->r_begin);
    } else if (cur->version != 0) {
      page->op.assert_version(cur->version);
    }
    page->op.omap_get_vals2(cur->start_after, cur->first ? kFirstCatalogPage : kOmapPage,
                            &page->entries, &page->more, &page->r_page);
    window.Submit(
        [&](librados::AioCompletion* c) {
          return io_.aio_operate(cur->oid, c, &page->op, nullptr);
        },
        [&, cur, page](int r) {
          if (r == 0) r = page->r_begin < 0 ? page->r_begin : page->r_page;
          if (r == -ENOENT && cur->first) {
            cur->done = true;
            return;
          }
          if (r == -ERANGE || r == -EOVERFLOW || r == -ENOENT) {
            // The shard changed since its last page: go on from the last key listed, at its new
            // version (docs/format.md, "Catalog shards": what a scan sees).
            cur->version = 0;
            if (++cur->tries >= kMaxConsistentReadTries && failure.ok()) {
              failure = Status::Unavailable(where_ + ": catalog shard '" + cur->oid +
                                            "' kept changing while it was listed");
            }
            return;
          }
          if (r < 0) {
            if (failure.ok()) failure = Error(r, "listing catalog shard '" + cur->oid + "'");
            return;
          }
          if (cur->version == 0) cur->version = window.version();
          auto take = [&](std::map<std::string, bufferlist>& from) {
            for (auto& [k, v] : from) {
              if (!end.empty() && k >= end) {
                cur->done = true;
                return;
              }
              cur->entries.emplace_back(k, std::string());
              CopyOut(v, &cur->entries.back().second);
              cur->start_after = k;
            }
          };
          if (cur->first) take(page->begin_entry);
          cur->first = false;
          take(page->entries);
          if (!page->more) cur->done = true;
        });
  }
  window.Drain();
  return failure;
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

}  // namespace gridstore::storage::rados_internal
