// Copyright 2026 The GridStore Authors.
//
// Asynchronous RADOS I/O of the backend: single operations, windows of data reads, omap
// listings at one object version, omap writes on many objects.
#include <cerrno>
#include <cstring>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::internal_rados {

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
  while (true) {
    std::vector<OmapPageRequest> requests;
    std::vector<OmapCursor*> listed;
    for (OmapCursor& cur : *cursors) {
      if (cur.done) continue;
      if (cur.first) {
        cur.start_after = std::string(begin);
        cur.entries.clear();
        cur.version = 0;
      }
      requests.push_back(OmapPageRequest{.oid = cur.oid,
                                         .from = cur.start_after,
                                         .from_inclusive = cur.first,
                                         .end = std::string(end),
                                         .version = cur.version,
                                         .tries = &cur.tries});
      listed.push_back(&cur);
    }
    if (requests.empty()) return Status::OK();
    GRIDSTORE_RETURN_IF_ERROR(
        ReadOmapPages(requests, OmapDirection::kForward, "object", [&](size_t i, OmapPage& page) {
          OmapCursor* cur = listed[i];
          if (page.outcome == OmapPage::kAbsent) {
            cur->done = true;
            return;
          }
          if (page.outcome == OmapPage::kChanged) {  // changed since page 1: list it again
            cur->first = true;
            return;
          }
          if (cur->first) cur->version = page.version;
          cur->first = false;
          for (auto& entry : page.entries) cur->entries.push_back(std::move(entry));
          if (!cur->entries.empty()) cur->start_after = cur->entries.back().first;
          if (page.complete) cur->done = true;
        }));
  }
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

}  // namespace gridstore::storage::internal_rados
