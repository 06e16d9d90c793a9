// Copyright 2026 The GridStore Authors.
//
// ThreadPool and ParallelFor. Waits that could hang on a bug are bounded so that a broken pool
// fails the test instead of stalling CI.

#include "gridstore/util/internal/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace gridstore {
namespace {

using namespace std::chrono_literals;

TEST(ThreadPoolTest, HasTheRequestedNumberOfThreads) {
  ThreadPool three(3);
  EXPECT_EQ(three.num_threads(), 3);
  ThreadPool automatic(0);
  EXPECT_GE(automatic.num_threads(), 1);
}

TEST(ThreadPoolTest, RunsEveryScheduledTask) {
  std::atomic<int> count{0};
  std::promise<void> all_done;
  {
    ThreadPool pool(3);
    for (int i = 0; i < 1000; ++i) {
      pool.Schedule([&] {
        if (++count == 1000) all_done.set_value();
      });
    }
    ASSERT_EQ(all_done.get_future().wait_for(30s), std::future_status::ready);
  }
  EXPECT_EQ(count.load(), 1000);
}

TEST(ThreadPoolTest, DestructorDrainsTheQueue) {
  std::atomic<int> count{0};
  {
    ThreadPool pool(1);
    // The first task keeps the only worker busy, so the rest are still queued at destruction.
    pool.Schedule([&] {
      std::this_thread::sleep_for(20ms);
      ++count;
    });
    for (int i = 0; i < 100; ++i) pool.Schedule([&] { ++count; });
  }
  EXPECT_EQ(count.load(), 101);
}

TEST(ThreadPoolTest, TasksRunOnWorkerThreads) {
  std::set<std::thread::id> ids;
  std::mutex mu;
  {
    ThreadPool pool(2);
    for (int i = 0; i < 50; ++i) {
      pool.Schedule([&] {
        std::lock_guard<std::mutex> lock(mu);
        ids.insert(std::this_thread::get_id());
      });
    }
  }
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 0u);
  EXPECT_GE(ids.size(), 1u);
  EXPECT_LE(ids.size(), 2u);
}

TEST(ThreadPoolTest, TasksMayScheduleMoreTasks) {
  std::atomic<int> count{0};
  {
    ThreadPool pool(2);
    pool.Schedule([&] {
      ++count;
      for (int i = 0; i < 10; ++i) pool.Schedule([&] { ++count; });
    });
    // No wait: destruction may begin before the first task runs, and must still run the
    // follow-ups it queues, since a worker leaves only when the queue is empty.
  }
  EXPECT_EQ(count.load(), 11);
}

// Checks that fn ran exactly once for each index in [0, n).
void ExpectEachIndexOnce(ThreadPool* pool, size_t n, int parallelism) {
  std::vector<std::atomic<int>> hits(n);
  ParallelFor(pool, n, parallelism, [&](size_t i) {
    ASSERT_LT(i, n);
    hits[i].fetch_add(1);
  });
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n << ", parallelism " << parallelism
                                 << (pool ? "" : ", no pool");
  }
}

TEST(ParallelForTest, CoversEveryIndexExactlyOnce) {
  ThreadPool pool(3);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{1000}, size_t{10007}}) {
    for (int parallelism : {-1, 0, 1, 2, 4, 16 /* more than the pool has */}) {
      ExpectEachIndexOnce(&pool, n, parallelism);
      ExpectEachIndexOnce(nullptr, n, parallelism);
    }
  }
}

TEST(ParallelForTest, ZeroIndicesNeverCallsFn) {
  ThreadPool pool(2);
  bool called = false;
  ParallelFor(&pool, 0, 4, [&](size_t) { called = true; });
  ParallelFor(nullptr, 0, 4, [&](size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ParallelForTest, NullPoolOrParallelismOneRunsOnTheCaller) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
    const int parallelism = p ? 1 : 8;
    std::atomic<int> elsewhere{0};
    ParallelFor(p, 200, parallelism, [&](size_t) {
      if (std::this_thread::get_id() != caller) ++elsewhere;
    });
    EXPECT_EQ(elsewhere.load(), 0) << (p ? "parallelism 1" : "null pool");
  }
}

TEST(ParallelForTest, RunsOnThePoolAndTheCallerAtOnce) {
  ThreadPool pool(1);
  // Each call waits (bounded) until both have started: this only finishes quickly if the caller
  // and the worker really run at the same time.
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  bool all_met = true;
  ParallelFor(&pool, 2, 2, [&](size_t) {
    std::unique_lock<std::mutex> lock(mu);
    ++started;
    cv.notify_all();
    if (!cv.wait_for(lock, 10s, [&] { return started == 2; })) all_met = false;
  });
  EXPECT_TRUE(all_met);
}

TEST(ParallelForTest, NestedParallelForInsidePoolTasksDoesNotDeadlock) {
  ThreadPool pool(2);
  std::atomic<int> inner_calls{0};
  // Every worker ends up inside an outer index that waits for an inner loop; the inner loops
  // must still finish because their callers work on them.
  ParallelFor(&pool, 8, 0,
              [&](size_t) { ParallelFor(&pool, 50, 0, [&](size_t) { ++inner_calls; }); });
  EXPECT_EQ(inner_calls.load(), 8 * 50);

  // A ParallelFor issued from a pool task while every worker is busy with such tasks.
  std::atomic<int> from_tasks{0};
  std::atomic<int> finished_tasks{0};
  std::promise<void> done;
  for (int t = 0; t < 2; ++t) {
    pool.Schedule([&] {
      ParallelFor(&pool, 100, 0, [&](size_t) { ++from_tasks; });
      if (++finished_tasks == 2) done.set_value();
    });
  }
  ASSERT_EQ(done.get_future().wait_for(30s), std::future_status::ready) << "deadlock";
  EXPECT_EQ(from_tasks.load(), 200);
}

TEST(ParallelForTest, ManyConcurrentCallersShareOnePool) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        ParallelFor(&pool, 64, 3, [&](size_t) { ++total; });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 20 * 64);
}

}  // namespace
}  // namespace gridstore
