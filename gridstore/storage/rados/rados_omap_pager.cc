// Copyright 2026 The GridStore Authors.
//
// The one omap paging loop of the backend: every listing (ReadOmapRanges, the catalog scans
// forwards and backwards) reads its pages through ReadOmapPages, so that what a missing object,
// an object that changed between pages, and an error mean is decided in one place.
#include <algorithm>
#include <cerrno>
#include <memory>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::internal_rados {

Status RadosKvStore::ReadOmapPages(const std::vector<OmapPageRequest>& requests,
                                   OmapDirection direction, std::string_view what,
                                   const std::function<void(size_t, OmapPage&)>& on_page) {
  struct Read {
    librados::ObjectReadOperation op;
    std::map<std::string, bufferlist> from_entry, entries;
    bool more = false;
    int r_from = 0, r_page = 0;
  };
  Status failure;
  AioWindow window(options_.max_in_flight);
  for (size_t i = 0; i < requests.size(); ++i) {
    const OmapPageRequest& req = requests[i];
    auto read = std::make_shared<Read>();
    if (req.version != 0) read->op.assert_version(req.version);
    // omap_get_vals2 starts after a key; an inclusive first key is asked for by name.
    if (req.from_inclusive)
      read->op.omap_get_vals_by_keys({req.from}, &read->from_entry, &read->r_from);
    read->op.omap_get_vals2(req.from, req.limit, &read->entries, &read->more, &read->r_page);
    window.Submit(
        [&](librados::AioCompletion* c) { return io_.aio_operate(req.oid, c, &read->op, nullptr); },
        [&, i, read](int r) {
          const OmapPageRequest& q = requests[i];
          if (r == 0) r = read->r_from < 0 ? read->r_from : read->r_page;
          OmapPage page;
          if (r == -ENOENT && q.version == 0) {
            page.outcome = OmapPage::kAbsent;
            on_page(i, page);
            return;
          }
          if (r == -ERANGE || r == -EOVERFLOW || r == -ENOENT) {
            // The object changed (or went) since the version a page before this one saw.
            if (++*q.tries >= kMaxConsistentReadTries && failure.ok()) {
              failure = Status::Unavailable(where_ + ": " + std::string(what) + " '" + q.oid +
                                            "' kept changing while it was listed");
            }
            page.outcome = OmapPage::kChanged;
            on_page(i, page);
            return;
          }
          if (r < 0) {
            if (failure.ok())
              failure = Error(r, "listing " + std::string(what) + " '" + q.oid + "'");
            return;
          }
          page.version = window.version();
          page.complete = !read->more;
          read->entries.merge(read->from_entry);
          for (auto& [k, v] : read->entries) {
            if (!q.end.empty() && k >= q.end) {
              page.complete = true;
              break;
            }
            page.entries.emplace_back(k, std::string());
            CopyOut(v, &page.entries.back().second);
          }
          if (direction == OmapDirection::kBackward) {
            std::reverse(page.entries.begin(), page.entries.end());
          }
          on_page(i, page);
        });
  }
  window.Drain();
  return failure;
}

}  // namespace gridstore::storage::internal_rados
