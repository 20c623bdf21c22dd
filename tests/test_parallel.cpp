// The one thread pool (tcnum/core/parallel.hpp): every index runs exactly once whatever the
// thread count, the first exception comes back, and a worker that cannot start (a memory limit)
// costs speed, never the result nor the process.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
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
    tcnum::parallel_for(100000, 1000, [&](std::size_t i) { sum.fetch_add(i); }, [&] { started.fetch_add(1); });
    if (sum.load() != std::size_t{100000} * 99999 / 2) return 1;
    return started.load() < 999 ? 0 : 2;  // 2: the cap refused no thread, so nothing was tested
  });
  EXPECT_EQ(status, "exited 0");
}

}  // namespace
