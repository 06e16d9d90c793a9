// Copyright 2026 The GridStore Authors.
//
// A fixed-size pool of worker threads running queued closures, and ParallelFor, which spreads an
// index range over the pool *and* the calling thread. Because the caller always works too, a
// ParallelFor issued from inside a pool task (or while the pool is saturated by other fetches)
// still finishes: it never waits on a worker that cannot start. All methods are thread-safe.
#ifndef GRIDSTORE_UTIL_INTERNAL_THREAD_POOL_H_
#define GRIDSTORE_UTIL_INTERNAL_THREAD_POOL_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/result.h"

namespace gridstore {

class ThreadPool {
 public:
  // The largest pool Create accepts.
  static constexpr int kMaxThreads = 1024;

  // Starts `num_threads` workers; 0 means std::thread::hardware_concurrency(). InvalidArgument
  // for a negative count or one above kMaxThreads; Unavailable if the system cannot start that
  // many threads (then none is left running). Never throws.
  static Result<std::unique_ptr<ThreadPool>> Create(int num_threads);

  // As Create, but throws std::system_error if a thread cannot start (for tests and tools).
  explicit ThreadPool(int num_threads = 0);
  // Runs every task already scheduled, then joins the workers.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `fn` to run on some worker. `fn` must not throw.
  void Schedule(std::function<void()> fn);

  int num_threads() const { return static_cast<int>(workers_.size()); }

 private:
  struct NoThreads {};
  explicit ThreadPool(NoThreads) {}
  // Starts workers until there are `n`; on failure stops and joins those started.
  Status Start(int n);
  void Stop();
  void WorkerLoop();

  Mutex mu_;
  CondVar cv_;
  std::deque<std::function<void()>> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

// Calls fn(i) for every i in [0, n), on up to `parallelism` threads: the caller plus
// parallelism - 1 pool workers (parallelism <= 0 means the pool's size + 1). Returns when every
// call has returned. `pool` may be null (then everything runs on the caller). `fn` must not throw.
void ParallelFor(ThreadPool* pool, size_t n, int parallelism,
                 const std::function<void(size_t)>& fn);

}  // namespace gridstore

#endif  // GRIDSTORE_UTIL_INTERNAL_THREAD_POOL_H_
