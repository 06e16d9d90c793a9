// Copyright 2026 The GridStore Authors.
//
// Asynchronous RADOS I/O of the backend: single operations, windows of data reads, omap
// listings at one object version, omap writes on many objects.
#include <cerrno>
#include <cstring>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::rados_internal {

int RadosKvStore::RunRead(const std::string& oid, librados::ObjectReadOperation* op) {
  AioWindow window(1);
  int result = 0;
  window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op, nullptr); },
                [&](int r) { result = r; });
  window.Drain();
  return result;
}

int RadosKvStore::RunWrite(const std::string& oid, librados::ObjectWriteOperation* op) {
  AioWindow window(1);
  int result = 0;
  window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op); },
                [&](int r) { result = r; });
  window.Drain();
  return result;
}

void RadosKvStore::ReadDataValues(const std::vector<std::string_view>& keys,
                                  const std::function<bool(size_t, int, bufferlist&)>& on_value,
                                  bool ramp_up) {
  struct Read {
    librados::ObjectReadOperation op;
    bufferlist bl;
    int rval = 0;
  };
  AioWindow window(ramp_up ? 2 : options_.max_in_flight);
  bool stop = false;
  for (size_t i = 0; i < keys.size() && !stop; ++i) {
    auto read = std::make_shared<Read>();
    read->op.read(0, 0, &read->bl, &read->rval);  // length 0: the whole object
    const std::string oid = DataObjectName(keys[i]);
    window.Submit(
        [&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, &read->op, nullptr); },
        [&, read, i](int r) {
          if (stop) return;
          if (r == 0) r = read->rval;
          if (!on_value(i, r, read->bl)) stop = true;
          if (ramp_up && window.limit() < options_.max_in_flight) {
            window.set_limit(std::min(options_.max_in_flight, window.limit() * 2));
          }
        });
  }
  window.Drain();
}

Status RadosKvStore::ReadOmapRanges(std::vector<OmapCursor>* cursors, std::string_view begin,
                                    std::string_view end) {
  struct Page {
    librados::ObjectReadOperation op;
    std::map<std::string, bufferlist> begin_entry, entries;
    bool more = false;
    int r_begin = 0, r_page = 0;
  };
  const std::set<std::string> begin_key = {std::string(begin)};
  Status failure;
  for (bool active = true; active && failure.ok();) {
    active = false;
    AioWindow window(options_.max_in_flight);
    for (OmapCursor& cursor : *cursors) {
      if (cursor.done) continue;
      active = true;
      auto page = std::make_shared<Page>();
      if (cursor.first) {
        cursor.start_after = std::string(begin);
        cursor.entries.clear();
        // omap_get_vals2 starts after a key; the inclusive first key is asked for by name.
        page->op.omap_get_vals_by_keys(begin_key, &page->begin_entry, &page->r_begin);
      } else {
        page->op.assert_version(cursor.version);
      }
      page->op.omap_get_vals2(cursor.start_after, kOmapPage, &page->entries, &page->more,
                              &page->r_page);
      OmapCursor* const cur = &cursor;
      window.Submit(
          [&](librados::AioCompletion* c) {
            return io_.aio_operate(cur->oid, c, &page->op, nullptr);
          },
          [&window, &failure, &end, this, cur, page](int r) {
            if (r == 0) r = page->r_begin < 0 ? page->r_begin : page->r_page;
            if (r == -ENOENT && cur->first) {
              cur->done = true;
              return;
            }
            if (r == -ERANGE || r == -EOVERFLOW || r == -ENOENT) {  // changed since page 1
              cur->first = true;
              if (++cur->tries >= kMaxConsistentReadTries && failure.ok()) {
                failure = Status::Unavailable(where_ + ": object '" + cur->oid +
                                              "' kept changing while it was listed");
              }
              return;
            }
            if (r < 0) {
              if (failure.ok()) failure = Error(r, "listing object '" + cur->oid + "'");
              return;
            }
            if (cur->first) {
              cur->version = window.version();
              cur->first = false;
              for (auto& [k, v] : page->begin_entry) {
                if (!end.empty() && k >= end) break;  // an empty range [begin, begin)
                cur->entries.emplace_back(k, std::string());
                CopyOut(v, &cur->entries.back().second);
              }
            }
            for (auto& [k, v] : page->entries) {
              if (!end.empty() && k >= end) {
                cur->done = true;
                return;
              }
              cur->entries.emplace_back(k, std::string());
              CopyOut(v, &cur->entries.back().second);
              cur->start_after = k;
            }
            if (!page->more) cur->done = true;
          });
    }
    window.Drain();
  }
  return failure;
}

Status RadosKvStore::WriteOmaps(
    const std::vector<std::pair<std::string, std::map<std::string, bufferlist>>>& sets,
    const std::vector<std::pair<std::string, std::set<std::string>>>& removals) {
  Failures failures;
  {
    AioWindow window(options_.max_in_flight);
    auto submit = [&](const std::string& oid, std::shared_ptr<librados::ObjectWriteOperation> op) {
      window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op.get()); },
                    [&, op, oid](int r) {
                      if (r < 0) failures.Add(Error(r, "updating object '" + oid + "'"));
                    });
    };
    for (const auto& [oid, entries] : sets) {
      auto op = std::make_shared<librados::ObjectWriteOperation>();
      op->omap_set(entries);
      submit(oid, op);
    }
    for (const auto& [oid, keys] : removals) {
      auto op = std::make_shared<librados::ObjectWriteOperation>();
      op->omap_rm_keys(keys);
      submit(oid, op);
    }
  }
  return failures.Summary("directory updates", sets.size() + removals.size());
}

}  // namespace gridstore::storage::rados_internal
