// Copyright 2026 The GridStore Authors.
#include "gridstore/util/internal/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <system_error>

namespace gridstore {

namespace {
int ResolveThreads(int num_threads) {
  return num_threads <= 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                          : num_threads;
}
}  // namespace

Result<std::unique_ptr<ThreadPool>> ThreadPool::Create(int num_threads) {
  if (num_threads < 0 || num_threads > kMaxThreads) {
    return Status::InvalidArgument("thread count " + std::to_string(num_threads) +
                                   " is outside [0, " + std::to_string(kMaxThreads) +
                                   "] (0 means one per core)");
  }
  std::unique_ptr<ThreadPool> pool(new ThreadPool(NoThreads{}));
  GRIDSTORE_RETURN_IF_ERROR(pool->Start(ResolveThreads(num_threads)));
  return pool;
}

ThreadPool::ThreadPool(int num_threads) {
  Status s = Start(ResolveThreads(num_threads));
  if (!s.ok())
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                            std::string(s.message()));
}

Status ThreadPool::Start(int n) {
  try {
    workers_.reserve(n);
    while (static_cast<int>(workers_.size()) < n) workers_.emplace_back([this] { WorkerLoop(); });
  } catch (const std::exception& e) {
    const size_t started = workers_.size();
    Stop();
    return Status::Unavailable("cannot start " + std::to_string(n) + " worker threads (" +
                               std::to_string(started) + " started): " + e.what());
  }
  return Status::OK();
}

void ThreadPool::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  for (auto& w : workers_) w.join();
  workers_.clear();
}

ThreadPool::~ThreadPool() { Stop(); }

void ThreadPool::Schedule(std::function<void()> fn) {
  {
    MutexLock lock(&mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.Signal();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      MutexLock lock(&mu_);
      while (!stopping_ && queue_.empty()) cv_.Wait(&mu_);
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

namespace {

// Shared by the caller and the helpers of one ParallelFor; helpers that start after the work is
// done still touch it, so it lives in a shared_ptr rather than on the caller's stack.
struct ParallelForState {
  ParallelForState(size_t count, const std::function<void(size_t)>* body) : n(count), fn(body) {}
  const size_t n;
  // Dereferenced only after claiming an index below n; the caller waits for all n calls, so it is
  // never used after the caller's object is gone.
  const std::function<void(size_t)>* const fn;
  std::atomic<size_t> next{0};
  Mutex mu;
  CondVar cv;
  size_t done GUARDED_BY(mu) = 0;

  // Claims and runs indices until none are left.
  void Work() {
    size_t finished = 0;
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      (*fn)(i);
      ++finished;
    }
    if (finished == 0) return;
    MutexLock lock(&mu);
    done += finished;
    if (done == n) cv.SignalAll();
  }
};

}  // namespace

void ParallelFor(ThreadPool* pool, size_t n, int parallelism,
                 const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (parallelism <= 0) parallelism = pool ? pool->num_threads() + 1 : 1;
  size_t helpers = pool ? std::min<size_t>(parallelism - 1, n - 1) : 0;
  if (helpers == 0) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  auto state = std::make_shared<ParallelForState>(n, &fn);
  for (size_t h = 0; h < helpers; ++h) pool->Schedule([state] { state->Work(); });
  state->Work();
  MutexLock lock(&state->mu);
  while (state->done != state->n) state->cv.Wait(&state->mu);
}

}  // namespace gridstore
