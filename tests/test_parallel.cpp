// The one thread pool (tcnum/core/parallel.hpp): every index runs exactly once whatever the
// thread count, the first exception comes back, and a worker that cannot start (a memory limit)
// costs speed, never the result nor the process.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "memory_limit.hpp"
#include "tcnum/core/parallel.hpp"

namespace {

// Each index's count of runs; all must be 1.
std::vector<int> run_counts(std::size_t count, int threads) {
  std::vector<std::atomic<int>> runs(count);
  tcnum::parallel_for(count, threads, [&](std::size_t i) { runs[i].fetch_add(1); });
  std::vector<int> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = runs[i].load();
  return out;
}

TEST(Parallel, EveryIndexRunsExactlyOnce) {
  for (int threads : {1, 2, 3, 8, 64})
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, " + std::to_string(count) + " indices");
      EXPECT_EQ(run_counts(count, threads), std::vector<int>(count, 1));
    }
}

TEST(Parallel, RethrowsATaskFailureAndRunsWorkerExit) {
  std::atomic<int> exits{0};
  EXPECT_THROW(tcnum::parallel_for(
                   1000, 4,
                   [](std::size_t i) {
                     if (i == 500) throw std::runtime_error("task 500");
                   },
                   [&] { exits.fetch_add(1); }),
               std::runtime_error);
  // Every started worker still exits through on_worker_exit after a failure; the calling thread
  // is a worker but not an exiting one.
  EXPECT_EQ(exits.load(), 3);
  exits = 0;
  tcnum::parallel_for(8, 4, [](std::size_t) {}, [&] { exits.fetch_add(1); });
  EXPECT_EQ(exits.load(), 3);
}

// Each index's task id, written by the task: a sum that every thread count must reproduce.
std::vector<std::uint64_t> squares(std::size_t count, int threads) {
  std::vector<std::uint64_t> out(count);
  tcnum::parallel_for(count, threads, [&](std::size_t i) { out[i] = std::uint64_t{i} * i + 7; });
  return out;
}

TEST(Parallel, ResultsDoNotDependOnTheThreadCountAndThePoolIsReused) {
  std::vector<std::uint64_t> expected(5000);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = std::uint64_t{i} * i + 7;
  // Many loops in a row reuse the parked workers (a lost wake-up or a worker never returned to
  // the idle list would hang or shrink the pool; a stale loop pointer would write out of place).
  for (int round = 0; round < 300; ++round) {
    const int threads = 1 + round % 6;
    ASSERT_EQ(squares(expected.size(), threads), expected) << "round " << round << ", " << threads << " threads";
  }
}

TEST(Parallel, LoopsRunOnSeveralThreads) {
  // With 4 threads asked and tasks that wait until a second thread has joined in, the loop ends
  // only if at least two threads take part (a pool that ran everything on the caller would hang:
  // the wait is bounded and reported instead).
  std::mutex m;
  std::set<std::thread::id> seen;
  std::atomic<int> waited_out{0};
  tcnum::parallel_for(64, 4, [&](std::size_t) {
    {
      std::lock_guard<std::mutex> lock(m);
      seen.insert(std::this_thread::get_id());
    }
    for (int spin = 0; spin < 10000; ++spin) {
      {
        std::lock_guard<std::mutex> lock(m);
        if (seen.size() >= 2) return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    waited_out.fetch_add(1);
  });
  EXPECT_GE(seen.size(), 2u);
  EXPECT_EQ(waited_out.load(), 0);
}

TEST(Parallel, NestedLoopsRunInlineWithoutDeadlock) {
  // Every outer task runs an inner loop asking for all threads; with the pool's workers busy in
  // the outer loop, an inner loop that waited for them would never end.
  constexpr std::size_t kOuter = 16, kInner = 200;
  std::vector<std::atomic<int>> runs(kOuter * kInner);
  tcnum::parallel_for(kOuter, 8, [&](std::size_t o) {
    tcnum::parallel_for(kInner, 8, [&](std::size_t i) {
      tcnum::parallel_for(1, 4, [&](std::size_t) { runs[o * kInner + i].fetch_add(1); });
    });
  });
  for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << "index " << i;
}

TEST(Parallel, ConcurrentLoopsFromSeveralThreads) {
  // Four threads each run loops at once: each loop takes only idle workers, and every result is
  // still complete and in place.
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&, c] {
      for (int round = 0; round < 50; ++round)
        if (squares(997 + static_cast<std::size_t>(c), 4) != squares(997 + static_cast<std::size_t>(c), 1)) ++wrong;
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Parallel, AFailureStopsTheOthersAndTheNextLoopIsWhole) {
  std::atomic<std::size_t> ran{0};
  try {
    tcnum::parallel_for(1000000, 4, [&](std::size_t i) {
      ran.fetch_add(1);
      if (i == 10) throw std::invalid_argument("task 10");
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "task 10");
  }
  EXPECT_LT(ran.load(), std::size_t{1000000});  // the others stopped taking indices
  // The workers that saw the failure are idle again and take the next loop's indices.
  EXPECT_EQ(run_counts(5000, 4), std::vector<int>(5000, 1));
}

TEST(Parallel, AFailingWorkerExitHookIsRethrown) {
  std::atomic<int> calls{0};
  EXPECT_THROW(tcnum::parallel_for(
                   100, 3, [](std::size_t) {},
                   [&] {
                     calls.fetch_add(1);
                     throw std::runtime_error("hook");
                   }),
               std::runtime_error);
  EXPECT_EQ(calls.load(), 2);
}

TEST(Parallel, AForkedChildHasAWorkingPool) {
  // The parent's workers exist only in the parent: a child that reused them would wait for
  // threads that are not there (the test would hang; the child's alarm ends it instead).
  EXPECT_EQ(run_counts(1000, 4), std::vector<int>(1000, 1));  // the parent's pool is started
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(60);
    std::atomic<int> exits{0};
    std::vector<std::atomic<int>> runs(1000);
    tcnum::parallel_for(1000, 4, [&](std::size_t i) { runs[i].fetch_add(1); }, [&] { exits.fetch_add(1); });
    for (auto& r : runs)
      if (r.load() != 1) ::_exit(1);
    ::_exit(exits.load() == 3 ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Parallel, ResolveThreads) {
  EXPECT_EQ(tcnum::resolve_threads(5), 5);
  EXPECT_GE(tcnum::resolve_threads(0), 1);
}

// Issue #14, item 8: a thread that cannot start must not abort the process.
TEST(Parallel, FailedThreadStartsFallBackToFewerThreads) {
  if (!tcnum::test::kAddressSpaceCanBeCapped) GTEST_SKIP() << "a sanitizer build cannot cap its address space";
  const std::string status = tcnum::test::run_with_address_space_cap(64u << 20, [] {
    std::atomic<std::size_t> sum{0};
    std::atomic<int> started{0};
    // 200 threads (below the pool's cap of 256, so every refusal is the cap on memory's).
    tcnum::parallel_for(100000, 200, [&](std::size_t i) { sum.fetch_add(i); }, [&] { started.fetch_add(1); });
    if (sum.load() != std::size_t{100000} * 99999 / 2) return 1;
    if (started.load() >= 199) return 2;  // the cap refused no thread, so nothing was tested
    // The workers that did start serve the next loop.
    std::vector<std::atomic<int>> runs(5000);
    tcnum::parallel_for(5000, 200, [&](std::size_t i) { runs[i].fetch_add(1); });
    for (auto& r : runs)
      if (r.load() != 1) return 3;
    return 0;
  });
  EXPECT_EQ(status, "exited 0");
}

}  // namespace
