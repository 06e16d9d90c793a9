// Copyright 2026 The GridStore Authors.
//
// A reader and a pool of workers: one thread reads items in order (GRIB messages from a file),
// others process them (decode, read their keys) in any order, with a bounded queue between them
// so that memory stays at a few items per worker. Used by the GRIB importer's scan and write.
#ifndef GRIDSTORE_IMPORTERS_INTERNAL_READ_AND_WORK_H_
#define GRIDSTORE_IMPORTERS_INTERNAL_READ_AND_WORK_H_

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "gridstore/util/status.h"

namespace gridstore::internal_importers {

// One worker per core, at most 8.
inline unsigned WorkersPerCore() { return std::clamp(std::thread::hardware_concurrency(), 1u, 8u); }

// Runs `read(push)` on this thread and `work(item)` on `workers` threads; `push(item)` queues an
// item (waiting while `ahead` items per worker wait) and returns false once any work failed, so
// that reading stops. Returns the first error of `read` or of any `work`, after every worker
// has stopped.
template <typename Item>
Status ReadAndWork(unsigned workers, size_t ahead,
                   const std::function<Status(const std::function<bool(Item)>&)>& read,
                   const std::function<Status(Item)>& work) {
  std::mutex mu;
  std::condition_variable changed;
  std::deque<Item> queue;
  bool reading = true;
  Status first_error;
  auto fail = [&](Status s) {
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.ok()) first_error = std::move(s);
    changed.notify_all();
  };
  auto worker = [&] {
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mu);
        changed.wait(lock, [&] { return !queue.empty() || !reading || !first_error.ok(); });
        if (!first_error.ok() || queue.empty()) return;
        item = std::move(queue.front());
        queue.pop_front();
        changed.notify_all();
      }
      Status s = work(std::move(item));
      if (!s.ok()) return fail(std::move(s));
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) threads.emplace_back(worker);
  Status read_status = read([&](Item item) {
    std::unique_lock<std::mutex> lock(mu);
    changed.wait(lock, [&] { return queue.size() < ahead * workers || !first_error.ok(); });
    if (!first_error.ok()) return false;
    queue.push_back(std::move(item));
    changed.notify_all();
    return true;
  });
  if (!read_status.ok()) fail(std::move(read_status));
  {
    std::lock_guard<std::mutex> lock(mu);
    reading = false;
    changed.notify_all();
  }
  for (std::thread& t : threads) t.join();
  return first_error;
}

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_INTERNAL_READ_AND_WORK_H_
